"""The text-frame fast path: pre-encoded UTF-8 goes out as valid text frames on uvicorn with
HubWebSocketProtocol, and the same app falls back to ``send_text`` on a stock protocol."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

import pytest
import uvicorn
from starlette.applications import Starlette
from starlette.routing import WebSocketRoute
from starlette.websockets import WebSocket
from websockets.asyncio.client import connect
from websockets.frames import Frame, Opcode

from scenarist.hub.wire import EXTENSION, HubWebSocketProtocol, frame_sender, text_frame_header
from scenarist.serving import bind

LOOPS = ("asyncio", "uvloop")  # see conftest.py

PAYLOADS = [b"", b'"x"', "\u00e9\u20ac\U0001f600".encode() * 30, b"a" * 125, b"b" * 126,
            b"c" * 65535, b"d" * 65536, "\u20ac".encode() * 400_000]


@pytest.mark.parametrize("length", [0, 1, 125, 126, 127, 65535, 65536, 1 << 20])
def test_header_is_the_rfc6455_header_websockets_writes(length: int) -> None:
    payload = b"x" * length
    expected = Frame(Opcode.TEXT, payload).serialize(mask=False)
    assert text_frame_header(length) + payload == expected


@contextlib.asynccontextmanager
async def serving(ws_protocol: type | str, seen: list[object]) -> AsyncIterator[str]:
    async def endpoint(ws: WebSocket) -> None:
        await ws.accept()
        seen.append(EXTENSION in ws.scope["extensions"])
        send = frame_sender(ws)
        for payload in PAYLOADS:
            await send(payload)
        message = await ws.receive()  # the client closes after reading everything
        assert message["type"] == "websocket.disconnect"
        try:
            await send(b'"late"')
        except Exception as exc:  # the pump treats any failure as "client gone"
            seen.append(type(exc).__name__)

    app = Starlette(routes=[WebSocketRoute("/ws", endpoint)])
    server = uvicorn.Server(uvicorn.Config(app, ws=ws_protocol, ws_per_message_deflate=False,
                                           log_level="warning", lifespan="off"))
    sock = bind("127.0.0.1", 0)
    task = asyncio.get_running_loop().create_task(server.serve(sockets=[sock]))
    while not server.started:
        await asyncio.sleep(0.01)
    try:
        yield f"ws://127.0.0.1:{sock.getsockname()[1]}/ws"
    finally:
        server.should_exit = True
        await asyncio.wait_for(task, 30)
        sock.close()


@pytest.mark.parametrize(("ws_protocol", "fast"), [(HubWebSocketProtocol, True),
                                                   ("websockets-sansio", False)])
async def test_frames_arrive_as_valid_text_messages_either_way(ws_protocol: type | str,
                                                               fast: bool) -> None:
    seen: list[object] = []
    async with serving(ws_protocol, seen) as url:
        async with connect(url, max_size=None, compression=None) as ws:
            received = [await asyncio.wait_for(ws.recv(), 20) for _ in PAYLOADS]
        for _ in range(500):
            if len(seen) == 2:
                break
            await asyncio.sleep(0.01)
    # recv() returns str for text frames, after websockets validated the UTF-8.
    assert received == [p.decode("utf-8") for p in PAYLOADS]
    assert seen[0] is fast
    assert len(seen) == 2  # sending after the client left raised instead of writing
