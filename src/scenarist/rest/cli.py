"""``scenarist rest``: serve Agent Harbor's REST API with SSE session streams, played from
scenarios.

    scenarist rest --scenario PATH... [--tag TAG ...] [--host 127.0.0.1] [--port 38180]
                   [--store sqlite:// | sqlite:///FILE | redis://HOST:PORT/N]
                   [--speed F | --scenario-speed F] [--scenario-define K=V | --define K=V ...]
                   [--cors ORIGIN ...] [--api-key KEY] [--dialect typed|webui]
                   [--heartbeat S] [--rate-limit N] [--lease-ms MS] [--max-sessions N]
                   [--chaos RATE[:KIND,...]] [--seed N]

Prints ``listening on http://HOST:PORT`` (flushed) once the store is open and the socket
accepts connections; ``--port 0`` picks a free port. SIGTERM or Ctrl-C stops it (exit 0)
within a second, however many sessions play and streams are open. Scenario faults this
server does not play are listed as warnings on stderr first (docs/faults.md).
"""

from __future__ import annotations

import argparse
import asyncio
import socket
import sys
from collections.abc import Sequence
from pathlib import Path
from types import FrameType
from typing import Any

from scenarist.scenario.cli_parser import (
    EXIT_FAILED,
    EXIT_USAGE,
    Parser,
    add_chaos,
    add_scenario,
    add_scenario_options,
    add_tags,
    run,
    select_tags,
    speed_problem,
)
from scenarist.serving import bind_or_report, quiet_server_class, shown_url

DEFAULT_PORT = 38180
MAX_SESSIONS = 1000
SHUTDOWN_GRACE_S = 0.5  # open connections get this long once streams have ended


def parser() -> Parser:
    p = Parser(
        prog="scenarist rest",
        description="Serve Agent Harbor's REST API; every task plays a scenario as a session "
        "whose events stream over SSE.")
    add_scenario(p)
    add_tags(p)
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=DEFAULT_PORT,
                   help=f"port; 0 picks a free one (default {DEFAULT_PORT})")
    p.add_argument("--store", default="sqlite://", metavar="URL",
                   help="sqlite:// (memory, default), sqlite:///FILE or redis://HOST:PORT/N")
    add_scenario_options(p, "--scenario-speed")
    p.add_argument("--cors", nargs="+", action="extend", default=[], metavar="ORIGIN",
                   help="allow these browser origins (CORS is off unless named)")
    p.add_argument("--api-key", metavar="KEY",
                   help="require 'Authorization: ApiKey KEY' (or Bearer KEY)")
    p.add_argument("--dialect", choices=("typed", "webui"), default="typed",
                   help="event dialect when a request names none (?dialect=)")
    p.add_argument("--heartbeat", type=float, default=15.0, metavar="S",
                   help="seconds between SSE heartbeat comments (default 15)")
    p.add_argument("--rate-limit", type=int, default=0, metavar="N",
                   help="POST requests per minute per client; more get 429 (default: no limit)")
    p.add_argument("--lease-ms", type=int, default=3000, metavar="MS",
                   help="how long a replica's claim on a session lasts unrenewed (default 3000)")
    p.add_argument("--max-sessions", type=int, default=MAX_SESSIONS, metavar="N",
                   help="sessions played at once; a task over it gets 429 "
                   f"(default {MAX_SESSIONS})")
    add_chaos(p, "SSE stream requests")
    return p


def argument_problem(args: argparse.Namespace) -> str | None:
    speed = speed_problem("--speed", args.speed)
    if speed is not None:
        return speed
    if not 0 <= args.port <= 65535:
        return f"--port must be 0-65535 (0 = any free port), got {args.port}"
    if not args.heartbeat > 0:
        return f"--heartbeat must be > 0 seconds, got {args.heartbeat:g}"
    if args.rate_limit < 0:
        return f"--rate-limit must be >= 0 (0 = no limit), got {args.rate_limit}"
    if args.lease_ms < 100:
        return f"--lease-ms must be >= 100, got {args.lease_ms}"
    if args.max_sessions < 1:
        return f"--max-sessions must be >= 1, got {args.max_sessions}"
    bad = [o for o in args.cors if o != "*" and not o.startswith(("http://", "https://"))]
    if bad:
        return f"--cors {bad[0]!r}: name an origin like http://localhost:3000 (or *)"
    return None


def main(argv: Sequence[str] | None = None) -> int:
    return run(parser(), list(sys.argv[1:] if argv is None else argv), _start)


def _start(args: argparse.Namespace) -> int:
    """Exit 2 for what the command line or its input gets wrong (docs/cli.md), 1 when the
    port or the store cannot be used, else serve until stopped (0)."""
    problem = argument_problem(args)
    if problem is not None:
        print(f"scenarist rest: {problem}", file=sys.stderr)
        return EXIT_USAGE
    missing = [p for p in args.scenario if not Path(p).exists()]
    if missing:
        print(f"scenarist rest: no such file or folder: {', '.join(missing)}", file=sys.stderr)
        return EXIT_USAGE
    from scenarist.faults import CHANNELS, ChaosError, parse_chaos, unplayed
    from scenarist.rest.store import StoreUrlError, open_store
    from scenarist.scenario import ScenarioError, load_scenarios, parse_defines

    try:
        args.chaos = None if args.chaos is None else \
            parse_chaos(args.chaos, args.seed, CHANNELS["rest"].timeline)
        store = open_store(args.store)
        scenarios = select_tags(load_scenarios([Path(p) for p in args.scenario],
                                               defines=parse_defines(list(args.define))),
                                args.tags)
    except (ChaosError, StoreUrlError, ValueError, ScenarioError) as exc:  # ValueError: a define
        print(f"scenarist rest: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except OSError as exc:
        print(f"scenarist rest: cannot read scenarios: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if not scenarios:
        print(f"scenarist rest: no scenarios found in {', '.join(args.scenario)}; pass "
              "scenario files or directories that contain *.yaml files", file=sys.stderr)
        return EXIT_USAGE
    for scenario in scenarios:
        for issue in unplayed(scenario, "rest"):
            print(f"scenarist rest: {issue}", file=sys.stderr)
    sock = bind_or_report("scenarist rest", args.host, args.port)
    if sock is None:
        return EXIT_FAILED
    return asyncio.run(serve(scenarios, store, sock, args))


async def serve(scenarios: list[Any], store: Any, sock: socket.socket,
                args: argparse.Namespace) -> int:
    import uvicorn

    from scenarist import __version__
    from scenarist.play import RealClock, clamp_speed
    from scenarist.rest.app import Options, RestServer
    from scenarist.rest.events import plan_session
    from scenarist.rest.guard import http_protocol
    from scenarist.rest.session import Sessions
    from scenarist.scenario import compile_timeline
    from scenarist.scenario.select import ScenarioIndex

    index = ScenarioIndex(scenarios).prepare()
    plans = {name: plan_session(compile_timeline(s))
             for name in index.names if (s := index.by_name(name)) is not None}
    try:
        await store.open()
    except Exception as exc:  # a store that cannot be reached is the user's to fix
        print(f"scenarist rest: cannot open the store {args.store}: {exc}", file=sys.stderr)
        return EXIT_FAILED
    sessions = Sessions(store, plans, clock=RealClock(), speed=clamp_speed(args.speed),
                        lease_ms=args.lease_ms)
    options = Options(api_key=args.api_key, cors=tuple(args.cors), heartbeat_s=args.heartbeat,
                      dialect=args.dialect, rate_per_minute=args.rate_limit,
                      max_sessions=args.max_sessions, version=__version__,
                      chaos=args.chaos, seed=args.seed)
    server = RestServer(sessions, index, options)
    await sessions.start()
    # the grace is a float of seconds: uvicorn hands it to asyncio.wait_for, typed int
    config = uvicorn.Config(server.app, log_level="warning", access_log=False, lifespan="off",
                            http=http_protocol(), proxy_headers=False,
                            timeout_graceful_shutdown=SHUTDOWN_GRACE_S)  # type: ignore[arg-type]
    try:
        closing = _closing_server_class(server, asyncio.get_running_loop(),
                                        f"listening on {shown_url(sock)}")
        await closing(config).serve(sockets=[sock])
    finally:
        await sessions.close()
        await store.close()
    return 0


def _closing_server_class(server: Any, loop: asyncio.AbstractEventLoop,
                          ready_line: str) -> type[Any]:
    """uvicorn's server that, as soon as it is told to stop, ends the SSE streams and the
    sessions (uvicorn would wait for every open response, and a stream may never end; and
    it notices a signal only at its next tick, late on a busy loop)."""
    class ClosingServer(quiet_server_class(ready_line)):  # type: ignore[misc]
        closing: asyncio.Task[None] | None = None

        def handle_exit(self, sig: int, frame: FrameType | None) -> None:
            super().handle_exit(sig, frame)
            loop.call_soon_threadsafe(self.close_app)

        def close_app(self) -> asyncio.Task[None]:
            if self.closing is None:
                self.closing = loop.create_task(server.close())
            return self.closing

        async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
            await self.close_app()
            await super().shutdown(sockets)

    return ClosingServer
