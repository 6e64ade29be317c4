"""The hub's HTTP/WebSocket edge: the page at ``/``, the protocol at ``/ws``, and the guards.

Everything that decides (protocol parsing, sessions, limits) lives in other modules; this one
checks token and Origin, pumps frames between a socket and its :class:`Outbox`, and turns bad
input into ``error`` frames or WebSocket close codes (1008 policy, 1009 too big) — never a
traceback. Per-message deflate is off: agent output is streamed, not archived, and compressing
100 MB costs more CPU than loopback bandwidth.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import hashlib
import re
import socket
from collections.abc import AsyncIterator, Callable, Mapping
from importlib import resources

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse, Response
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket

from scenarist.hub import protocol
from scenarist.hub.config import HubConfig
from scenarist.hub.outbox import Outbox
from scenarist.hub.protocol import ProtocolError, parse_client_message
from scenarist.hub.security import host_allowed, origin_allowed, token_from, token_ok
from scenarist.hub.sessions import Hub
from scenarist.hub.wire import HubWebSocketProtocol, frame_sender
from scenarist.ratelimit import TokenBucket

CLOSE_POLICY = 1008
CLOSE_TOO_BIG = 1009
CLOSE_TRY_LATER = 1013
TOKEN_HINT = "open the exact URL the hub printed at start (it ends in ?token=...)"


def load_page() -> tuple[bytes, str]:
    """The page and a Content-Security-Policy that allows exactly its inline script and style."""
    html = (resources.files("scenarist.hub") / "static" / "index.html").read_text("utf-8")

    def hashes(tag: str) -> str:
        blocks = re.findall(rf"<{tag}>(.*?)</{tag}>", html, flags=re.DOTALL)
        return " ".join(
            "'sha256-" + base64.b64encode(hashlib.sha256(b.encode()).digest()).decode() + "'"
            for b in blocks)

    csp = (f"default-src 'none'; script-src {hashes('script')}; style-src {hashes('style')}; "
           "connect-src 'self'; img-src data:; base-uri 'none'; form-action 'none'; "
           "frame-ancestors 'none'")
    return html.encode("utf-8"), csp


def create_app(config: HubConfig) -> Starlette:
    """A Starlette app serving one :class:`Hub`; its lifespan kills every agent on shutdown."""
    hub = Hub(config)
    page, csp = load_page()
    page_headers = {
        "Content-Security-Policy": csp,
        "Referrer-Policy": "no-referrer",  # the token is in the URL: never leak it
        "X-Content-Type-Options": "nosniff",
        "X-Frame-Options": "DENY",
        "Cache-Control": "no-store",
    }

    def foreign_host(headers: Mapping[str, str]) -> str | None:
        host = headers.get("host")
        if host_allowed(host, config.bind_host, config.allow_origins):
            return None
        return (f"Host {host!r} does not name this hub (DNS rebinding?): use its address, "
                "localhost, or start the hub with --allow-origin for that host")

    async def index(request: Request) -> Response:
        if (problem := foreign_host(request.headers)) is not None:
            return PlainTextResponse(f"421 {problem}\n", status_code=421)
        if not token_ok(token_from(request.query_params, request.headers), config.token):
            return PlainTextResponse(f"401 missing or wrong token: {TOKEN_HINT}\n", status_code=401)
        return HTMLResponse(page, headers=page_headers)

    async def deny(ws: WebSocket, status: int, text: str) -> None:
        try:
            await ws.send_denial_response(PlainTextResponse(text + "\n", status_code=status))
        except RuntimeError:  # server without the denial-response extension: plain 403
            await ws.close(code=CLOSE_POLICY, reason=text[:120])

    async def ws_endpoint(ws: WebSocket) -> None:
        if (problem := foreign_host(ws.headers)) is not None:
            await deny(ws, 421, problem)
            return
        if not token_ok(token_from(ws.query_params, ws.headers), config.token):
            await deny(ws, 401, f"missing or wrong token: {TOKEN_HINT}")
            return
        origin = ws.headers.get("origin")
        if not origin_allowed(origin, ws.headers.get("host"), ws.url.scheme == "wss",
                              config.allow_origins):
            await deny(ws, 403, f"origin {origin!r} is not allowed: open the hub's own page, or "
                                "start the hub with --allow-origin ORIGIN")
            return
        await ws.accept()
        await _serve_client(ws, hub, config)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        try:
            yield
        finally:
            await hub.shutdown()

    app = Starlette(routes=[Route("/", index), WebSocketRoute("/ws", ws_endpoint)],
                    lifespan=lifespan)
    app.state.hub = hub
    return app


async def _serve_client(ws: WebSocket, hub: Hub, config: HubConfig) -> None:
    limits = config.limits
    closing: list[asyncio.Task[None]] = []

    async def close(code: int, reason: str) -> None:
        # A stuck client may never drain its socket; keepalive pings drop it eventually.
        with contextlib.suppress(Exception):
            await asyncio.wait_for(ws.close(code=code, reason=reason), 5.0)

    def overflow() -> None:
        closing.append(asyncio.get_running_loop().create_task(
            close(CLOSE_TRY_LATER, "client too slow: control messages piled up")))

    outbox = Outbox(frame_sender(ws), max_bytes=limits.client_queue_bytes,
                    max_messages=limits.client_queue_messages, on_overflow=overflow,
                    low_water=limits.pace_bytes // 2)
    hub.connect(outbox)
    outbox.push(hub.hello())
    writer = asyncio.get_running_loop().create_task(_pump(outbox))
    limiter = TokenBucket(limits.rate_per_s, limits.rate_burst)
    strikes = 0
    try:
        while not outbox.closed:
            message = await ws.receive()
            if message["type"] == "websocket.disconnect":
                break
            text = message.get("text")
            raw: str | bytes = text if text is not None else (message.get("bytes") or b"")
            if len(raw) > limits.max_frame_bytes:
                await close(CLOSE_TOO_BIG, f"frame larger than {limits.max_frame_bytes} bytes")
                break
            if not limiter.allow():
                strikes += 1
                if strikes >= limits.rate_strikes:
                    await close(CLOSE_POLICY, "message rate limit exceeded repeatedly")
                    break
                outbox.push(protocol.error(
                    f"rate limit: at most {limits.rate_per_s:g} messages/s (bursts of "
                    f"{limits.rate_burst}); this message was dropped"))
                continue
            strikes = 0
            try:
                parsed = parse_client_message(raw)
            except ProtocolError as exc:
                outbox.push(protocol.error(str(exc)))
                continue
            await hub.handle(parsed, outbox)
    finally:
        hub.disconnect(outbox)
        outbox.close()
        writer.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await writer
        for task in closing:
            with contextlib.suppress(asyncio.CancelledError):
                await task


async def _pump(outbox: Outbox) -> None:
    with contextlib.suppress(Exception):  # the socket went away; the receive loop notices
        await outbox.run()
    outbox.close()


def uvicorn_config(app: Starlette, config: HubConfig, log_level: str = "warning") -> uvicorn.Config:
    return uvicorn.Config(
        app, ws=HubWebSocketProtocol, ws_max_size=config.limits.max_frame_bytes,
        ws_per_message_deflate=False, lifespan="on", log_level=log_level,
        timeout_graceful_shutdown=5)


async def serve(config: HubConfig, sock: socket.socket,
                started: Callable[[], None] | None = None) -> None:
    """Serve until SIGINT/SIGTERM; every agent is killed before this returns."""
    app = create_app(config)
    server = uvicorn.Server(uvicorn_config(app, config))
    task = asyncio.get_running_loop().create_task(server.serve(sockets=[sock]))
    try:
        while not server.started and not task.done():
            await asyncio.sleep(0.01)
        if server.started and started is not None:
            started()
        await task
    finally:
        hub: Hub = app.state.hub
        await hub.shutdown()
