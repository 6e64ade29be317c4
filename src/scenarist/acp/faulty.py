"""The mock agent's stdio transport with the scenario's faults played at its edge.

:class:`FaultyLines` is :class:`scenarist.acp.lines.CheckedLines` (the same checked reading)
whose writing a scenario can break, the way real agents and pipes break a client: frames
written in pieces with a flush between (``fragment``: a frame split across the client's
reads, as a busy pipe does; each piece waits until the reader has taken the one before), a
line that is not JSON-RPC (``malformed``), a ``session/update`` sent twice or swapped with the message after it (``duplicate``,
``reorder``), no bytes for a while (``stall``), stdout closed while the process lives on
(``disconnect``), every later frame of the turn lost while the pipe stays open
(``truncate``), noise on stderr (``stderr``) and the process ending mid-turn after what was
written is flushed (``exit``, with a code or a signal).

A fault strikes when :meth:`strike` is called (the agent calls it at the fault's place in
the turn), or, :meth:`arm`\\ ed with ``afterEvents`` / ``afterBytes``, once that many more
JSON-RPC messages / bytes are written: an ``exit`` after 100 bytes cuts a frame in two.
Kinds that act on whole messages (``malformed``, ``duplicate``, ``reorder``) strike at the
end of the frame holding that byte, as :func:`scenarist.faults.plan` does for the other
channels. Writes are serialised: the SDK sends from several tasks, and a frame in pieces
must not interleave with another. Pauses are on :mod:`scenarist.play`'s clock at the
agent's ``--speed``, like every scenario time.
"""

from __future__ import annotations

import array
import asyncio
import contextlib
import fcntl
import os
import signal as signals
import sys
import termios
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from scenarist.acp.frames import encode
from scenarist.acp.lines import CheckedLines
from scenarist.play.clock import Clock, RealClock
from scenarist.play.pacing import Schedule

if TYPE_CHECKING:
    from scenarist.scenario.model import Fault, FaultKind

__all__ = ["CHAOS_KINDS", "DEFAULT_MALFORMED", "FLUSH_S", "WIRE_KINDS", "FaultyLines"]

#: the kinds this transport plays itself (``lateResponse`` is the agent's: scenarist.acp.agent)
WIRE_KINDS: frozenset[FaultKind] = frozenset({"fragment", "malformed", "duplicate", "reorder", "stall", "disconnect",
                        "truncate", "stderr", "exit"})
#: what ``--chaos`` draws from: every wire kind but ``truncate`` (a turn never answered is a
#: hang to test on purpose, not load-test noise)
CHAOS_KINDS = WIRE_KINDS - {"truncate"}
#: a ``malformed`` fault's line when the scenario gives no ``text``: a session/update cut short
DEFAULT_MALFORMED = b'{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":'
FLUSH_S = 2.0  # the bound on waiting for the pipe to take what was written, before an exit
PIECE_WAIT_S = 0.05  # how long a fragment waits for the reader to take the one before it
_WHOLE = frozenset({"malformed", "duplicate", "reorder"})


@dataclass(slots=True)
class _Armed:
    fault: Fault
    events: int | None  # messages still to write before the strike
    bytes: int | None  # bytes still to write before the strike


def _is_update(message: Mapping[str, Any]) -> bool:
    return message.get("method") == "session/update" and "id" not in message


class FaultyLines(CheckedLines):
    """The agent's checked transport, with faults played as its frames are written."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, *,
                 limit: int, log: Callable[[str], None], clock: Clock | None = None,
                 speed: float = 1.0) -> None:
        super().__init__(reader, writer, limit=limit, log=log)
        self.clock: Clock = clock or RealClock()
        self.speed = speed
        self.chunk_bytes: int | None = None  # fragment: the size of each piece
        self.swallowing = False  # truncate: later frames are dropped until the next prompt
        self.cut = False  # disconnect: stdout is closed
        self._lock = asyncio.Lock()
        self._next_update: Fault | None = None  # a duplicate or reorder waiting for its update
        self._held: bytes | None = None  # a reordered update, sent after the next message
        self._armed: _Armed | None = None
        self._plain = True  # no fault has struck: a message is one write, as CheckedLines's
        self._out_fd = _fileno(writer)  # (read now: the transport may close its file)

    # -- what the agent calls ------------------------------------------------------------
    async def strike(self, fault: Fault) -> None:
        """Play ``fault`` now, or arm it when it strikes after events or bytes."""
        self._plain = False
        if fault.after_events is not None or fault.after_bytes is not None:
            self.arm(fault)
            if fault.after_events == 0 or fault.after_bytes == 0:
                async with self._lock:
                    await self._strike_now()
            return
        async with self._lock:
            await self._play(fault)

    def arm(self, fault: Fault) -> None:
        """Strike ``fault`` after its ``afterEvents`` messages / ``afterBytes`` bytes more."""
        self._armed = _Armed(fault, fault.after_events, fault.after_bytes)

    def next_turn(self) -> None:
        """A new ``session/prompt`` came: a ``truncate`` of the last turn is over."""
        self.swallowing = False

    # -- the transport --------------------------------------------------------------------
    async def receive(self) -> dict[str, Any] | None:
        message = await super().receive()
        if message is not None and message.get("method") == "session/prompt":
            self.next_turn()
        return message

    async def send(self, message: dict[str, Any]) -> None:
        if self._plain:  # what faults cost when a scenario has none: this test
            await super().send(message)
            return
        data = encode(message)
        async with self._lock:
            held, self._held = self._held, None
            pending = self._next_update
            if held is None and pending is not None and _is_update(message):
                self._next_update = None
                if pending.kind == "reorder":
                    self._held = data  # goes out after the next message, whatever it is
                    return
                await self._frame(data)
            await self._frame(data)
            if held is not None:
                await self._frame(held)

    # -- writing ----------------------------------------------------------------------------
    async def _frame(self, data: bytes) -> None:
        """One message's bytes, with an armed fault striking inside or after it."""
        armed = self._armed
        if armed is not None and armed.bytes is not None and armed.bytes < len(data):
            cut = armed.bytes
            if armed.fault.kind in _WHOLE or cut == 0:
                cut = len(data) if cut else 0
            head, tail = data[:cut], data[cut:]
            await self._pieces(head)
            await self._strike_now()
            await self._pieces(tail)
            return
        await self._pieces(data)
        if armed is not None:
            if armed.bytes is not None:
                armed.bytes -= len(data)
            elif armed.events is not None:
                armed.events -= 1
            if (armed.bytes or 0) <= 0 and (armed.events or 0) <= 0:
                await self._strike_now()

    async def _strike_now(self) -> None:
        armed, self._armed = self._armed, None
        if armed is not None:
            await self._play(armed.fault)

    async def _pieces(self, data: bytes) -> None:
        if self.swallowing or self.cut or not data:
            return
        if self._closed or self.writer.is_closing():
            raise ConnectionError("the peer closed the connection")
        size = self.chunk_bytes
        if size is None:
            self.writer.write(data)
            await self.writer.drain()
            return
        for start in range(0, len(data), size):
            self.writer.write(data[start:start + size])
            await self.writer.drain()
            await self._taken()

    async def _taken(self) -> None:
        """Wait (at most :data:`PIECE_WAIT_S`) until the reader has taken every byte in the
        pipe, so that the next piece lands in a read of its own: what a flush means to a
        pipe's reader. Where the pipe cannot say (not Linux), a yield."""
        await asyncio.sleep(0)
        if self._out_fd is None:
            return
        loop = asyncio.get_running_loop()
        deadline = loop.time() + PIECE_WAIT_S
        while _unread(self._out_fd) and loop.time() < deadline:
            await asyncio.sleep(0.0005)

    # -- the faults -----------------------------------------------------------------------
    async def _play(self, fault: Fault) -> None:
        """Do what ``fault`` does, the write lock held."""
        kind = fault.kind
        if kind == "fragment":
            self.chunk_bytes = max(1, fault.chunk_bytes)
        elif kind == "malformed":
            bad = fault.text.encode() if fault.text is not None else DEFAULT_MALFORMED
            await self._pieces(bad.rstrip(b"\n") + b"\n")
        elif kind in ("duplicate", "reorder"):
            self._next_update = fault
        elif kind == "stall":
            await Schedule(self.clock, speed=self.speed).wait(fault.ms)
            if fault.then == "close":
                await self._disconnect()
        elif kind == "disconnect":
            await self._disconnect()
        elif kind == "truncate":
            self.swallowing = True
        elif kind == "stderr":
            text = fault.text or ""
            sys.stderr.write(text if text.endswith("\n") else text + "\n")
            sys.stderr.flush()
        elif kind == "exit":
            await self._flush()
            _exit(fault)

    async def _flush(self) -> None:
        """Wait (bounded) until the pipe has taken every byte written so far."""
        transport = self.writer.transport
        with contextlib.suppress(TimeoutError, ConnectionError):
            async with asyncio.timeout(FLUSH_S):
                await self.writer.drain()
                while transport.get_write_buffer_size():
                    await asyncio.sleep(0.001)

    async def _disconnect(self) -> None:
        await self._flush()
        self.cut = True
        self.writer.close()
        await asyncio.sleep(0)  # the transport lets its pipe go
        if self._out_fd is not None:
            _let_go(self._out_fd)
        self.log("fault: stdout closed (disconnect); the agent lives on until stdin closes")


def _unread(fd: int) -> int:
    """How many bytes written to the pipe ``fd`` its reader has not taken (0 when unknown)."""
    count = array.array("i", [0])
    try:
        fcntl.ioctl(fd, termios.FIONREAD, count, True)
    except OSError:
        return 0
    return count[0]


def _fileno(writer: asyncio.StreamWriter) -> int | None:
    pipe = writer.get_extra_info("pipe")
    try:
        return int(pipe.fileno())
    except (AttributeError, OSError, ValueError):
        return None


def _let_go(fd: int) -> None:
    """Make sure descriptor ``fd`` no longer holds the pipe: an event loop may keep it open
    after its transport closes (uvloop does), and the client sees the end of the stream only
    when the last holder lets go. ``fd`` stays valid, on /dev/null."""
    with contextlib.suppress(OSError):
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, fd)
        os.close(null)


def _exit(fault: Fault) -> None:
    """End the process as ``fault`` says: by its signal (then, should the signal be caught
    or ignored, with 128 + its number, as a shell reports it), else with its code."""
    sys.stderr.flush()
    if fault.signal is not None:
        number = signals.Signals[fault.signal].value
        os.kill(os.getpid(), number)
        os._exit(128 + number)
    os._exit(1 if fault.exit_code is None else fault.exit_code)
