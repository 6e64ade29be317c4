"""``scenarist hub``: serve the agent hub until interrupted, then kill every agent it started."""

from __future__ import annotations

import argparse
import asyncio
import sys

from scenarist.hub.config import (
    DEFAULT_TIMEOUT_S,
    ConfigError,
    HubConfig,
    default_agents,
    load_config,
)
from scenarist.hub.security import is_loopback, new_token, origin_problem


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="scenarist hub",
        description="Serve a web page and a WebSocket that start configured agent CLIs and "
                    "stream their output. It starts programs: keep it on loopback.")
    p.add_argument("--host", default="127.0.0.1",
                   help="address to bind (default 127.0.0.1; anything else exposes the hub)")
    p.add_argument("--port", type=int, default=18090, help="port (default 18090; 0 = any free)")
    p.add_argument("--config", metavar="FILE", help="TOML file that adds or overrides agents")
    p.add_argument("--token", help="access token (default: a new random one each start)")
    p.add_argument("--timeout", "--timeout-s", dest="timeout_s", type=float,
                   default=DEFAULT_TIMEOUT_S, metavar="S",
                   help="command timeout in seconds (default 300; per agent in the config)")
    p.add_argument("--allow-origin", action="append", default=[], metavar="ORIGIN",
                   help="extra browser origin allowed to open the WebSocket (repeatable)")
    return p


def event_loop_runner() -> asyncio.Runner:
    """uvloop where installed (C pipe and socket transports for the flood path; figures in
    docs/hub-protocol.md); plain asyncio otherwise — the hub works on both."""
    try:
        import uvloop
    except ImportError:
        return asyncio.Runner()
    return asyncio.Runner(loop_factory=uvloop.new_event_loop)


def main(argv: list[str]) -> int:
    args = _parser().parse_args(argv)
    prefix = "scenarist hub: error:"
    if args.timeout_s <= 0:
        print(f"{prefix} --timeout must be a positive number of seconds", file=sys.stderr)
        return 2
    if not 0 <= args.port <= 65535:
        print(f"{prefix} --port must be between 0 and 65535", file=sys.stderr)
        return 2
    if args.token is not None and len(args.token) < 8:
        print(f"{prefix} --token must be at least 8 characters (or omit it for a random one)",
              file=sys.stderr)
        return 2
    for origin in args.allow_origin:
        problem = origin_problem(origin)
        if problem is not None:
            print(f"{prefix} --allow-origin {problem}", file=sys.stderr)
            return 2
    try:
        agents = load_config(args.config) if args.config else default_agents()
    except ConfigError as exc:
        print(f"{prefix} {exc}", file=sys.stderr)
        return 2
    config = HubConfig(agents=agents, token=args.token or new_token(), timeout_s=args.timeout_s,
                       allow_origins=frozenset(args.allow_origin), bind_host=args.host)

    from scenarist.hub.server import serve  # the web stack only when serving
    from scenarist.serving import bind, shown_url

    try:
        sock = bind(args.host, args.port)
    except OSError as exc:
        print(f"{prefix} cannot listen on {args.host}:{args.port} ({exc.strerror or exc}); "
              "choose another --port or --host", file=sys.stderr)
        return 1
    if not is_loopback(args.host):
        print(f"scenarist hub: warning: listening on {args.host}, not loopback: anyone who can "
              "reach it and has the token can run the configured agents", file=sys.stderr)

    # The line is made now: a stop that comes at once may close the socket before it is printed.
    ready_line = f"hub on {shown_url(sock)}/?token={config.token}"

    def started() -> None:
        print(ready_line, flush=True)

    try:
        with event_loop_runner() as runner:
            runner.run(serve(config, sock, started))
    except KeyboardInterrupt:
        return 130
    return 0
