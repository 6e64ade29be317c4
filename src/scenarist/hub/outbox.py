"""A client's bounded outbound queue: a slow client skips output, it never stalls anyone else.

Producers (agent pipes) only append, synchronously; one writer task per client awaits the
socket. Output frames count against a byte budget: when a client is that far behind, further
output for it is dropped and counted, and before its next frame for that agent it gets one
``skipped`` notice with the number of bytes it missed (it can ``subscribe`` again to re-read
the agent's recent history). Below that budget, :attr:`Outbox.pacing` clients pace the agent
(see :mod:`scenarist.hub.sessions`); :attr:`on_drain` tells the hub when one has caught up. Control frames (status, exit, errors) are never dropped; a client
that lets even those pile up beyond ``max_messages`` is disconnected.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Awaitable, Callable

from scenarist.hub import protocol

Send = Callable[[bytes], Awaitable[None]]


class Outbox:
    def __init__(self, send: Send, *, max_bytes: int, max_messages: int,
                 on_overflow: Callable[[], None] | None = None, low_water: int = 0) -> None:
        self._send = send
        self._max_bytes = max_bytes
        self._low_water = low_water
        self.pacing = True  # False while it is too slow to pace an agent (set by sessions)
        self.on_drain: Callable[[Outbox], None] | None = None
        self._max_messages = max_messages
        self._on_overflow = on_overflow
        self._queue: deque[tuple[bytes, int]] = deque()
        self._wake = asyncio.Event()
        self._skipped: dict[str, int] = {}
        self.pending_bytes = 0
        self.closed = False
        self.skipped_total = 0

    def push_output(self, agent: str, frame: bytes, nbytes: int) -> None:
        """Queue an output frame, or drop it (counted) if the client is too far behind."""
        if self.closed:
            return
        if self.pending_bytes + nbytes > self._max_bytes:
            self._skipped[agent] = self._skipped.get(agent, 0) + nbytes
            self.skipped_total += nbytes
            return
        self._flush_notice(agent)
        self._queue.append((frame, nbytes))
        self.pending_bytes += nbytes
        self._wake.set()

    def push(self, frame: bytes, agent: str | None = None) -> None:
        """Queue a control frame; it is never dropped (a skip notice for ``agent`` goes first)."""
        if self.closed:
            return
        if agent is not None:
            self._flush_notice(agent)
        self._queue.append((frame, 0))
        self._wake.set()
        if len(self._queue) > self._max_messages:
            self.close()
            if self._on_overflow is not None:
                self._on_overflow()

    def _flush_notice(self, agent: str) -> None:
        missed = self._skipped.pop(agent, 0)
        if missed:
            self._queue.append((protocol.skipped(agent, missed), 0))

    def close(self) -> None:
        self.closed = True
        self._queue.clear()
        self.pending_bytes = 0
        self._wake.set()

    async def run(self) -> None:
        """Send queued frames until closed; returns when closed or when sending fails."""
        while not self.closed:
            if not self._queue:
                self._wake.clear()
                await self._wake.wait()
                continue
            frame, nbytes = self._queue.popleft()
            before = self.pending_bytes
            self.pending_bytes -= nbytes
            if before >= self._low_water > self.pending_bytes:
                self.pacing = True
                if self.on_drain is not None:
                    self.on_drain(self)
            await self._send(frame)
