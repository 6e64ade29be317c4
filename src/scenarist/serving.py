"""Serving an ASGI app: the listening socket and the uvicorn server every HTTP front end uses.

The model API (``scenarist llm``), the REST server and the hub bind their socket before
serving, so the URL they print is real (``--port 0`` names the free port picked) and a busy
port is a one-line error, not a traceback from inside uvicorn. uvicorn is imported only when a
server is built, so importing this module costs a command nothing.
"""

from __future__ import annotations

import signal
import socket
import sys
from types import FrameType
from typing import Any

__all__ = ["bind", "bind_or_report", "quiet_server_class", "shown_url"]


def bind(host: str, port: int, backlog: int = 2048) -> socket.socket:
    """A listening, non-blocking TCP socket on ``host:port`` (``port`` 0: any free port).

    ``proto`` is ``IPPROTO_TCP`` (not 0): asyncio sets ``TCP_NODELAY`` only on sockets that say
    TCP, and with Nagle on, small frames wait ~40 ms for delayed ACKs. The backlog is deep
    because a load test opens hundreds of connections at once."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, proto=socket.IPPROTO_TCP,
                               flags=socket.AI_PASSIVE)
    family, kind, proto, _, address = infos[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(backlog)
    except OSError:
        sock.close()
        raise
    sock.setblocking(False)
    return sock


def bind_or_report(prog: str, host: str, port: int) -> socket.socket | None:
    """:func:`bind`, or None once the one-line reason is on stderr (``prog``: the command's
    name, e.g. ``scenarist llm``; the caller exits 1)."""
    try:
        return bind(host, port)
    except OSError as exc:
        print(f"{prog}: cannot listen on {host}:{port}: {exc.strerror or exc}; pick another "
              "--port (0 = any free port)", file=sys.stderr)
        return None


def shown_url(sock: socket.socket) -> str:
    """``http://HOST:PORT`` of a bound socket, an IPv6 host in brackets."""
    host, port = sock.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}"


def quiet_server_class(ready_line: str | None = None) -> type[Any]:
    """uvicorn's ``Server`` that stops on SIGINT/SIGTERM and exits 0, instead of re-raising the
    signal afterwards (uvicorn's default, which turns a clean stop into exit 130 or death by
    SIGTERM); a second Ctrl-C stops waiting for open streams.

    ``ready_line`` (``listening on URL``) is printed, flushed, once the server has started:
    its signal handlers are in place then, so a caller that stops it as soon as it reads the
    line (a test, :func:`scenarist.llm.process.run_server`) gets the clean stop, never the
    default SIGTERM death of the moments before."""
    import uvicorn

    class QuietServer(uvicorn.Server):  # type: ignore[misc]
        def handle_exit(self, sig: int, frame: FrameType | None) -> None:
            if self.should_exit and sig == signal.SIGINT:
                self.force_exit = True
            self.should_exit = True

        async def startup(self, sockets: list[socket.socket] | None = None) -> None:
            await super().startup(sockets=sockets)
            if ready_line is not None and self.started:
                print(ready_line, flush=True)

    return QuietServer
