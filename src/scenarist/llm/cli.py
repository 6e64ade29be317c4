"""``scenarist llm``: serve the mock model API for the given scenarios.

    scenarist llm --scenario PATH [--scenario PATH ...] [--tag TAG] [--host 127.0.0.1]
                  [--port 18080] [--scenario-speed F] [--scenario-define K=V ...]
                  [--agent-type auto|claude|codex|gemini|openai|opencode|aider]
                  [--workspace DIR]
                  [--strict]
                  [--body-limit BYTES] [--spin-ms MS] [--no-memo]
                  [--chaos RATE[:kind,kind]] [--seed N]

Prints ``listening on http://HOST:PORT`` (flushed) once the socket accepts connections;
``--port 0`` picks a free port. Ctrl-C or SIGTERM stops it cleanly (exit 0); a usage or
input error (a scenario that does not load) exits 2, a port it cannot bind 1 (docs/cli.md).
"""

from __future__ import annotations

import argparse
import socket
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the server (Starlette) is imported only when it serves
    import asyncio

    from scenarist.llm.server import MissHandler, MockModelServer

from scenarist.llm.script import Script
from scenarist.record.cli import add_recording, recording_problem
from scenarist.scenario.cli_parser import (
    EXIT_FAILED,
    EXIT_USAGE,
    Parser,
    add_chaos,
    add_outside_paths,
    add_scenario,
    add_scenario_options,
    add_tags,
    run,
    select_tags,
    speed_problem,
)
from scenarist.serving import bind_or_report, quiet_server_class, shown_url

DEFAULT_PORT = 18080


def parser() -> Parser:
    p = Parser(
        prog="scenarist llm",
        description="Serve a mock OpenAI Chat / OpenAI Responses / Anthropic Messages / Gemini "
        "API that plays scenarios to real agents.",
    )
    add_scenario(p)
    add_tags(p)
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    p.add_argument(
        "--port",
        type=int,
        default=DEFAULT_PORT,
        help=f"port to bind; 0 picks a free one (default {DEFAULT_PORT})",
    )
    add_scenario_options(p, "--scenario-speed")
    add_outside_paths(p)
    p.add_argument(
        "--agent-type",
        choices=("auto", "claude", "codex", "gemini", "openai", "opencode", "aider"),
        default="auto",
        help="tool vocabulary of the answers (auto: from the request's tools)",
    )
    p.add_argument(
        "--workspace",
        type=Path,
        metavar="DIR",
        help="where asserts are checked and relative paths resolve when the agent "
        "reports no working directory",
    )
    p.add_argument(
        "--strict",
        action="store_true",
        help="reject requests whose tools do not cover the scenario's tool calls",
    )
    p.add_argument(
        "--body-limit",
        type=int,
        default=32 * 1024 * 1024,
        metavar="BYTES",
        help="largest request body accepted (default 32 MiB)",
    )
    p.add_argument(
        "--spin-ms",
        type=float,
        default=2.0,
        metavar="MS",
        help="how long before a chunk is due the timer stops sleeping and polls (precision vs "
        "CPU; default 2)",
    )
    p.add_argument(
        "--record-on-miss",
        action="store_true",
        help="forward the requests no scenario answers to --upstream and record them as "
        "scenarios in --out (default: the first --scenario folder); see docs/recording.md",
    )
    add_recording(p, required=False)
    add_chaos(p, "answers")
    p.add_argument(
        "--no-memo",
        action="store_true",
        help="answer every request afresh: no answer given again to a repeated request, no "
        "encoded turn reused (for measuring the whole path)",
    )
    return p


def argument_problem(args: argparse.Namespace) -> str | None:
    """What is wrong with the parsed flags (a usage error, exit 2), or None. Checked before
    anything is loaded or bound, so a bad value never surfaces as a traceback later on."""
    speed = speed_problem("--scenario-speed", args.speed)
    if speed is not None:
        return speed
    if not 0 <= args.port <= 65535:
        return f"--port must be 0-65535 (0 = any free port), got {args.port}"
    if args.body_limit < 1:
        return f"--body-limit must be a positive number of bytes, got {args.body_limit}"
    if args.spin_ms < 0:
        return f"--spin-ms must be >= 0, got {args.spin_ms:g}"
    if args.workspace is not None and not args.workspace.is_dir():
        return f"--workspace {args.workspace}: no such directory; create it or pass another"
    if args.chaos is not None:
        from scenarist.faults import CHANNELS, ChaosError, parse_chaos

        try:
            args.chaos = parse_chaos(args.chaos, args.seed, CHANNELS["llm"].response)
        except ChaosError as exc:
            return f"--chaos: {exc}"
    return miss_problem(args)


def miss_problem(args: argparse.Namespace) -> str | None:
    """``--record-on-miss`` needs ``--upstream``; the recording flags need it."""
    if not args.record_on_miss:
        used = [f for f, v in (("--upstream", args.upstream), ("--out", args.out),
                               ("--name", args.name), ("--redact", args.redact)) if v]
        return f"{', '.join(used)}: only with --record-on-miss" if used else None
    if args.upstream is None:
        return "--record-on-miss needs --upstream URL, the real model API to forward misses to"
    if args.out is None:
        first = Path(args.scenario[0]) if args.scenario else Path(".")
        args.out = first if first.is_dir() else first.parent
    return recording_problem(args)


def load_scripts(
    paths: Sequence[str], defines: Sequence[str], allow_outside_paths: bool = False,
    notes: list[str] | None = None, tags: Sequence[str] = (),
) -> list[Script]:
    """Load, validate and plan every scenario (those with one of ``tags``, when given);
    raises ``ScenarioError`` with locations, ``ValueError`` for a bad define or a tag no
    scenario has. What the server should say at start-up goes to ``notes`` (see
    :func:`renamed_tools`)."""
    from scenarist.llm.plan import build_script
    from scenarist.scenario import load_scenarios, parse_defines

    symbols = parse_defines(list(defines))
    scenarios = load_scenarios(
        [Path(p) for p in paths],
        defines=symbols,
        strict=False,
        allow_outside_paths=allow_outside_paths,
    )
    scenarios = select_tags(scenarios, tags)
    if notes is not None:
        from scenarist.faults import unplayed

        notes.extend(note for s in scenarios for note in renamed_tools(s.warnings))
        from scenarist.llm.faults import faults_on_errors

        notes.extend(str(issue) for s in scenarios
                     for issue in (*unplayed(s, "llm"), *faults_on_errors(s)))
    return [build_script(s) for s in scenarios]


def renamed_tools(warnings: Sequence[Any]) -> list[str]:
    """A scenario tool written with a spelling the loader reads as another name
    (``write_file`` → ``writeFile``): said at start-up, because a client may declare either;
    the call goes to the declared tool that fits, never to an undeclared spelling."""
    return [f"{w.file}:{w.line}: {w.message}; requests get it as the tool they declare that "
            "fits (see docs/llm-server.md, tool fitting)"
            for w in warnings if w.message.startswith("toolName ") and " is read as " in w.message]


def main(argv: Sequence[str] | None = None) -> int:
    p = parser()
    return run(p, list(sys.argv[1:] if argv is None else argv), _start)


def _start(args: argparse.Namespace) -> int:
    problem = argument_problem(args)
    if problem is not None:
        print(f"scenarist llm: {problem}", file=sys.stderr)
        return EXIT_USAGE
    from scenarist.scenario.errors import ScenarioError

    notes: list[str] = []
    try:
        scripts = load_scripts(args.scenario, args.define, args.allow_outside_paths,
                               notes, args.tags)
    except ScenarioError as exc:
        print(f"scenarist llm: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except ValueError as exc:  # a malformed --scenario-define, a --tag nobody carries
        print(f"scenarist llm: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except OSError as exc:
        print(f"scenarist llm: cannot read scenarios: {exc}", file=sys.stderr)
        return EXIT_USAGE
    for note in notes:
        print(f"scenarist llm: {note}", file=sys.stderr)
    if not scripts:
        print(
            f"scenarist llm: no scenarios found in {', '.join(args.scenario)}; pass scenario "
            "files or directories that contain *.yaml files",
            file=sys.stderr,
        )
        return EXIT_USAGE
    sock = bind_or_report("scenarist llm", args.host, args.port)
    if sock is None:
        return EXIT_FAILED
    return serve(scripts, sock, args)


#: uvicorn's WebSocket settings for the Responses WebSocket (see scenarist.llm.websocket):
#: the sans-I/O protocol, whose connection lets a batch of events go out in one write, and
#: no per-message compression (every small event compressed costs more than it saves here)
WEBSOCKET_SETTINGS: dict[str, Any] = {"ws": "websockets-sansio", "ws_per_message_deflate": False}


def serve(scripts: list[Script], sock: socket.socket, args: argparse.Namespace) -> int:
    from scenarist.llm.server import MockModelServer, Options
    from scenarist.play import RealClock, clamp_speed

    options = Options(
        speed=clamp_speed(args.speed),
        agent_type=args.agent_type,
        workspace=args.workspace.resolve() if args.workspace else None,
        strict=args.strict,
        body_limit=args.body_limit,
        memoize=not args.no_memo,
        clock=RealClock(spin_ms=args.spin_ms),
        on_miss=_miss_proxy(args) if args.record_on_miss else None,
        chaos=args.chaos,
        seed=args.seed,
    )
    server = MockModelServer(scripts, options)
    server.selector.index.prepare()  # the prompt search is built now, not on the first request
    config = uvicorn_config(server)
    quiet_server_class(f"listening on {shown_url(sock)}")(config).run(sockets=[sock])
    return 0


def _miss_proxy(args: argparse.Namespace) -> MissHandler:
    from scenarist.record.cli import recorder_of
    from scenarist.record.proxy import RecordingProxy

    print(f"scenarist llm: recording misses from {args.upstream} to {args.out}",
          file=sys.stderr, flush=True)
    return RecordingProxy(args.upstream, recorder_of(args), label="scenarist llm")


def uvicorn_config(server: MockModelServer, **settings: Any) -> Any:
    """How ``scenarist llm`` serves ``server`` with uvicorn (``settings`` override; the
    tests serve it the same way): quiet, httptools with model requests answered in place,
    uvloop where installed."""
    import uvicorn

    chosen: dict[str, Any] = {
        "log_level": "warning",
        "access_log": False,
        "lifespan": "off",
        "loop": _best("uvloop", "asyncio"),
        "timeout_graceful_shutdown": 2,
        "proxy_headers": False,
        # a WebSocket message over --body-limit gets the app's 413 error event, then close
        # 1009; one over twice the limit is closed (1009) by uvicorn before it is read whole
        "ws_max_size": 2 * server.options.body_limit,
        "http": model_http_protocol(server),
        **WEBSOCKET_SETTINGS,
    }
    return uvicorn.Config(server.app, **{**chosen, **settings})


def model_http_protocol(server: MockModelServer) -> type[asyncio.Protocol] | str:
    """uvicorn's ``http`` setting: httptools with model requests answered in place
    (:mod:`scenarist.llm.model_http`), plain httptools under a uvicorn whose protocol is not
    the one that builds on, or h11 where httptools is not installed."""
    if _best("httptools", "h11") == "h11":
        return "h11"
    try:
        from scenarist.llm.model_http import fits_uvicorn, model_protocol
    except ImportError:
        return "httptools"
    return model_protocol(server) if fits_uvicorn() else "httptools"


def _best(fast: str, fallback: str) -> str:
    try:
        __import__(fast)
    except ImportError:
        return fallback
    return fast
