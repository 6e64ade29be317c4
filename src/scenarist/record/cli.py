"""``scenarist record``: a proxy in front of a real model API that writes what it sees as scenarios.

    scenarist record --upstream URL --out DIR [--host 127.0.0.1] [--port 18081] [--name NAME]
                     [--redact REGEX ...] [--normalise MODULE:FUNCTION ...]

Prints ``listening on http://HOST:PORT`` (flushed) once the socket accepts connections;
``--port 0`` picks a free port. Ctrl-C or SIGTERM stops it (exit 0); a bad flag or an output
folder that cannot be written exits 2, a port it cannot bind 1 (docs/cli.md). See
docs/recording.md.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from scenarist.scenario.cli_parser import EXIT_FAILED, EXIT_USAGE, Parser, run
from scenarist.serving import bind_or_report, quiet_server_class, shown_url

if TYPE_CHECKING:
    from scenarist.record.recorder import Recorder

DEFAULT_PORT = 18081


def add_recording(p: Parser, *, required: bool) -> None:
    """The flags that say where recordings go (``record`` and ``llm --record-on-miss``)."""
    p.add_argument("--upstream", required=required, metavar="URL",
                   help="the real model API to forward to, e.g. https://api.openai.com/v1")
    p.add_argument("--out", type=Path, required=required, metavar="DIR",
                   help="folder the recorded scenarios are written to")
    p.add_argument("--name", metavar="NAME",
                   help="scenario name (default: the x-scenario-test header, else the first "
                   "prompt)")
    p.add_argument("--redact", action="append", default=[], metavar="REGEX",
                   help="mask what this pattern matches in every recorded text (repeatable)")
    p.add_argument("--normalise", "--normalize", dest="hooks", action="append", default=[],
                   metavar="MODULE:FUNCTION",
                   help="a str -> str function applied to recorded texts after the built-in "
                   "normalisers (repeatable); a <PLACEHOLDER> it writes matches any text on "
                   "replay")


def parser() -> Parser:
    p = Parser(prog="scenarist record",
               description="Record conversations with a real model API as scenarios: a proxy "
               "for OpenAI Chat / OpenAI Responses / Anthropic Messages.")
    add_recording(p, required=True)
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=DEFAULT_PORT,
                   help=f"port to bind; 0 picks a free one (default {DEFAULT_PORT})")
    return p


def recording_problem(args: argparse.Namespace) -> str | None:
    """What is wrong with the recording flags (a usage error, exit 2), or None."""
    if not re.match(r"^https?://[^/\s]+", args.upstream or ""):
        return f"--upstream {args.upstream!r}: expected an http(s) URL, e.g. http://127.0.0.1:18080"
    for pattern in args.redact:
        try:
            re.compile(pattern)
        except re.error as exc:
            return f"--redact {pattern!r}: not a regular expression: {exc}"
    from scenarist.record.normalise import HookError, load_hook

    for hook in args.hooks:
        try:
            load_hook(hook)
        except HookError as exc:
            return f"--normalise: {exc}"
    out: Path = args.out
    try:
        out.mkdir(parents=True, exist_ok=True)
        probe = out / ".scenarist-record-probe"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as exc:
        return f"--out {out}: cannot write there: {exc.strerror or exc}; pass a writable folder"
    return None


def main(argv: Sequence[str] | None = None) -> int:
    return run(parser(), list(sys.argv[1:] if argv is None else argv), _start)


def _start(args: argparse.Namespace) -> int:
    problem = recording_problem(args)
    if problem is None and not 0 <= args.port <= 65535:
        problem = f"--port must be 0-65535 (0 = any free port), got {args.port}"
    if problem is not None:
        print(f"scenarist record: {problem}", file=sys.stderr)
        return EXIT_USAGE
    sock = bind_or_report("scenarist record", args.host, args.port)
    if sock is None:
        return EXIT_FAILED
    import uvicorn

    from scenarist.record.proxy import RecordingProxy

    proxy = RecordingProxy(args.upstream, recorder_of(args))
    config = uvicorn.Config(proxy, log_level="warning", access_log=False, lifespan="off",
                            timeout_graceful_shutdown=2, proxy_headers=False)
    print(f"scenarist record: recording {args.upstream} to {args.out}", file=sys.stderr,
          flush=True)
    quiet_server_class(f"listening on {shown_url(sock)}")(config).run(sockets=[sock])
    return 0


def recorder_of(args: argparse.Namespace) -> Recorder:
    """The recorder the flags describe (checked by :func:`recording_problem` first)."""
    from functools import partial

    from scenarist.record.normalise import normaliser
    from scenarist.record.recorder import Recorder
    from scenarist.record.redact import Masker
    from scenarist.record.scenario_of import render

    hooks = tuple(args.hooks)
    return Recorder(args.out, partial(render, hooks=hooks), Masker.of(args.redact), args.name,
                    normaliser(None, hooks))
