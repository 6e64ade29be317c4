"""The hot path from an encoded hub frame to the socket: one header, no re-encoding.

ASGI's ``websocket.send`` carries text as ``str``; for agent output that means UTF-8 bytes
from orjson decoded to ``str``, encoded back by the server, and copied into a frame — three
passes over every byte before the kernel sees it. :class:`HubWebSocketProtocol` (uvicorn's
websockets-sansio protocol plus one method) offers the app a ``scenarist.send_text_frame``
ASGI extension instead: it takes the frame's UTF-8 bytes and writes a text-frame header and
those bytes to the transport. :func:`frame_sender` picks that path when the server offers it
and falls back to plain ``send_text`` on any other ASGI server, so the app stays portable.

Writing frames ourselves is valid because server frames are never masked, the hub sends each
message as one frame, and this path is only taken while the connection is open with no
extension negotiated (per-message deflate is off; if one were on, websockets encodes).
"""

from __future__ import annotations

import struct
from collections.abc import Awaitable, Callable
from typing import Any

from starlette.websockets import WebSocket
from uvicorn.protocols.utils import ClientDisconnected
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.protocol import State

EXTENSION = "scenarist.send_text_frame"
OPCODE_TEXT_FIN = 0x81

SendFrame = Callable[[bytes], Awaitable[None]]


def text_frame_header(length: int) -> bytes:
    """RFC 6455 header of one unmasked, final text frame carrying ``length`` payload bytes."""
    if length < 126:
        return struct.pack("!BB", OPCODE_TEXT_FIN, length)
    if length < 1 << 16:
        return struct.pack("!BBH", OPCODE_TEXT_FIN, 126, length)
    return struct.pack("!BBQ", OPCODE_TEXT_FIN, 127, length)


class HubWebSocketProtocol(WebSocketsSansIOProtocol):
    """uvicorn's websockets-sansio protocol that can also send pre-encoded text frames."""

    def handle_connect(self, event: Any) -> None:
        super().handle_connect(event)
        scope = getattr(self, "scope", None)  # absent when the handshake was refused
        if scope is not None:
            scope["extensions"][EXTENSION] = {"send": self.send_text_frame}

    async def send_text_frame(self, payload: bytes) -> None:
        """Send ``payload`` (valid UTF-8, e.g. orjson output) as one text message."""
        if not self.writable.is_set():
            await self.writable.wait()  # the transport's buffer is over its high-water mark
        if self.disconnected or self.close_sent or self.conn.state is not State.OPEN:
            raise ClientDisconnected()
        if self.conn.extensions:
            self.conn.send_text(payload)
            self.transport.write(b"".join(self.conn.data_to_send()))
            return
        self.transport.writelines((text_frame_header(len(payload)), payload))


def frame_sender(ws: WebSocket) -> SendFrame:
    """How to send an encoded hub frame on ``ws``: the fast path if the server offers it."""
    extension = ws.scope.get("extensions", {}).get(EXTENSION)
    if extension is not None:
        send: SendFrame = extension["send"]
        return send

    async def send_text(frame: bytes) -> None:
        await ws.send_text(frame.decode("utf-8"))

    return send_text
