"""The ACP SDK's message transport over newline-delimited JSON, with every line checked.

The SDK's own stdio transport hands any JSON value to its connection, which ends on the
first one that is not a well-formed message (:mod:`scenarist.acp.frames` lists how). This
transport (it has the SDK's ``Transport`` shape: ``receive``/``send``/``close`` of
decoded messages) reads a line at a time, bounded by ``limit`` bytes, passes what
:func:`scenarist.acp.frames.check_line` accepts and answers the rest itself, so the peer
gets its error and the connection lives on. Each refusal is logged as one line and handed
to ``on_refusal`` with the line's bytes (``acp-test`` reports a hostile agent's lines as a
failed check, quoting them); the end of the stream is handed to ``on_end`` (``acp-test``
notes where the session stood when the agent's output ended).
It imports no SDK, so ``scenarist acp`` can read and answer its first line before the SDK
is imported (:mod:`scenarist.acp.stdio`).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Mapping
from typing import Any

from scenarist.acp.frames import Refusal, check_line, encode, oversized

__all__ = ["CheckedLines"]


class CheckedLines:
    """JSON-RPC messages over a byte stream pair; misuse is answered here, not passed on."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, *,
                 limit: int, log: Callable[[str], None],
                 on_refusal: Callable[[int, Refusal, bytes], None] | None = None,
                 on_end: Callable[[], None] | None = None) -> None:
        self.reader = reader
        self.writer = writer
        self.limit = limit
        self.log = log
        self.on_refusal = on_refusal
        self.on_end = on_end
        self.ended = False  # the peer's output ended
        self._last = b""  # the line read last (quoted when refused)
        self.lines = 0  # lines read so far
        self._pushed: list[dict[str, Any]] = []
        self._closed = False

    def push_back(self, message: dict[str, Any]) -> None:
        """Make ``message`` the next one :meth:`receive` returns."""
        self._pushed.append(message)

    async def receive(self) -> dict[str, Any] | None:
        """The next well-formed message, None at the end of the stream."""
        if self._pushed:
            return self._pushed.pop()
        while True:
            line = await self._read_line()
            if line is None:
                if not self.ended:
                    self.ended = True
                    if self.on_end is not None:
                        self.on_end()
                return None
            if isinstance(line, bytes):
                if not line.strip():
                    continue
                checked = check_line(line)
            else:
                checked = line
            if isinstance(checked, dict):
                return checked
            await self._refuse(checked)

    async def _refuse(self, refusal: Refusal) -> None:
        self.log(f"line {self.lines}: {refusal.log}")
        if self.on_refusal is not None:
            self.on_refusal(self.lines, refusal, self._last)
        if refusal.reply is not None:
            with contextlib.suppress(ConnectionError, RuntimeError):
                await self._write(encode_reply(refusal.reply))

    async def send(self, message: dict[str, Any]) -> None:
        await self._write(encode(message))

    async def _write(self, data: bytes) -> None:
        if self._closed or self.writer.is_closing():
            raise ConnectionError("the peer closed the connection")
        self.writer.write(data)
        await self.writer.drain()

    async def close(self) -> None:
        self._closed = True

    async def _read_line(self) -> bytes | Refusal | None:
        """One line (without its limit overrun: a Refusal), None at the end."""
        try:
            line = await self.reader.readuntil(b"\n")
        except asyncio.IncompleteReadError as exc:
            line = exc.partial
        except asyncio.LimitOverrunError as exc:
            self.lines += 1
            self._last = await self._skip_line(exc.consumed)
            return oversized(self._last, self.limit)
        if not line:
            return None
        self.lines += 1
        self._last = line
        return line

    async def _skip_line(self, consumed: int) -> bytes:
        """Read past a line longer than the limit; its first bytes (to find an id in)."""
        prefix = await self.reader.readexactly(consumed)
        while True:
            try:
                await self.reader.readuntil(b"\n")
                return prefix
            except asyncio.IncompleteReadError:
                return prefix
            except asyncio.LimitOverrunError as exc:
                await self.reader.readexactly(exc.consumed)


def encode_reply(reply: Mapping[str, Any] | list[dict[str, Any]]) -> bytes:
    """A refusal's reply (one error, or a batch's list of errors) as one line."""
    if isinstance(reply, list):
        return b"[" + b",".join(encode(r).rstrip(b"\n") for r in reply) + b"]\n"
    return encode(reply)
