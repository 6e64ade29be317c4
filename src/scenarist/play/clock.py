"""Clocks the player schedules against: a real monotonic one and a virtual one for tests.

All times are float milliseconds on the clock's own axis (``now_ms()``); only differences
between two readings of the same clock mean anything. Both clocks offer an async wait
(``sleep_until``) for the player and a blocking one (``wait_until``) for synchronous callers
such as a CLI that prints a scenario as it plays.

asyncio is imported only by the async waits (it costs ~40 ms at start-up), so synchronous
users of a clock never load it.
"""

from __future__ import annotations

import heapq
import itertools
import time
from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:
    import asyncio

__all__ = ["Clock", "RealClock", "VirtualClock"]


@runtime_checkable
class Clock(Protocol):
    """What the player needs from a clock: read it, and wait until an absolute time on it."""

    def now_ms(self) -> float:
        """The current time in milliseconds."""
        ...

    def now(self) -> float:
        """The current time in seconds (``now_ms() / 1000``)."""
        ...

    async def sleep_until(self, t_ms: float) -> None:
        """Return once ``now_ms() >= t_ms``; return at once (after one yield) if it already is."""
        ...

    def wait_until(self, t_ms: float) -> None:
        """Blocking form of :meth:`sleep_until`, for code that has no event loop."""
        ...


class RealClock:
    """The process's monotonic clock, with waits precise to well under a millisecond.

    ``asyncio.sleep`` and ``time.sleep`` wake late by a scheduler tick or more on a busy
    machine, and the event loop rounds its timeouts up to whole milliseconds. So a wait
    sleeps coarsely until ``spin_ms`` before the target, then yields in a tight loop (letting
    other tasks run) until the target has passed. The spin costs CPU only for those last
    ``spin_ms`` of each wait; raise it on a heavily loaded machine, lower it to save CPU.

    A server playing many timelines at once would spin almost all the time, so while more
    than ``max_spinners`` tasks wait on this clock, further waits skip the spin and rely on
    the event loop's timer alone (late by about a millisecond instead of microseconds).
    """

    __slots__ = ("_waiting", "max_spinners", "spin_ms")

    def __init__(self, *, spin_ms: float = 2.0, max_spinners: int = 4) -> None:
        if not spin_ms >= 0:
            raise ValueError(f"RealClock spin_ms must be >= 0, got {spin_ms!r}")
        self.spin_ms = spin_ms
        self.max_spinners = max_spinners
        self._waiting = 0

    def now_ms(self) -> float:
        return time.monotonic_ns() / 1e6

    def now(self) -> float:
        return time.monotonic_ns() / 1e9

    async def sleep_until(self, t_ms: float) -> None:
        import asyncio  # here, not at the top: sync users never pay for it
        self._waiting += 1
        try:
            spin = self.spin_ms if self._waiting <= self.max_spinners else 0.0
            coarse = t_ms - spin - self.now_ms()
            if coarse > 0:
                await asyncio.sleep(coarse / 1000)
            await asyncio.sleep(0)
            while self.now_ms() < t_ms:
                await asyncio.sleep(0)
        finally:
            self._waiting -= 1

    def wait_until(self, t_ms: float) -> None:
        coarse = t_ms - self.spin_ms - self.now_ms()
        if coarse > 0:
            time.sleep(coarse / 1000)
        while self.now_ms() < t_ms:
            time.sleep(0)


_FALLBACK_SPINS = 8  # loop iterations a jump waits where the loop hides its ready queue
_MAX_SPINS = 1000  # give up waiting for a busy loop to go idle (a task polling with sleep(0))


class VirtualClock:
    """A clock that moves only when told to or when nothing else can run: exact and instant.

    With ``auto_advance`` (the default), when a task sleeps on this clock and every other
    runnable task of the event loop has finished its turn (each is asleep on this clock or
    blocked on something else), time jumps straight to the earliest deadline and its sleepers
    wake. A test of a 10-minute scenario therefore runs in milliseconds and reads exact times.
    "Runnable" is judged from the loop's ready queue where the loop exposes one (CPython's
    asyncio does); tasks blocked on real I/O or real timers do not hold virtual time back.

    ``advance(ms)`` moves time by hand (and is the only way it moves without
    ``auto_advance``); sleepers whose deadline has passed wake in deadline order.
    """

    def __init__(self, start_ms: float = 0.0, *, auto_advance: bool = True) -> None:
        self._now = float(start_ms)
        self.auto_advance = auto_advance
        self._sleepers: list[tuple[float, int, asyncio.Future[None]]] = []
        self._seq = itertools.count()
        self._jump_pending = False

    def now_ms(self) -> float:
        return self._now

    def now(self) -> float:
        return self._now / 1000

    async def sleep_until(self, t_ms: float) -> None:
        import asyncio  # here, not at the top: sync users never pay for it
        if t_ms <= self._now:
            await asyncio.sleep(0)
            return
        loop = asyncio.get_running_loop()
        future: asyncio.Future[None] = loop.create_future()
        heapq.heappush(self._sleepers, (t_ms, next(self._seq), future))
        if self.auto_advance and not self._jump_pending:
            self._jump_pending = True
            loop.call_soon(self._autojump, loop, 0)
        await future

    def wait_until(self, t_ms: float) -> None:
        """A synchronous caller is the only one waiting, so time simply moves to ``t_ms``."""
        if t_ms > self._now:
            self._set(t_ms)

    def advance(self, ms: float) -> None:
        """Move time forward by ``ms`` and wake every sleeper whose deadline has come."""
        if not ms >= 0:
            raise ValueError(f"VirtualClock.advance needs ms >= 0, got {ms!r}")
        self._set(self._now + ms)

    def advance_to(self, t_ms: float) -> None:
        """Move time forward to ``t_ms`` (never backwards) and wake the sleepers due by then."""
        if t_ms < self._now:
            raise ValueError(f"VirtualClock cannot go back from {self._now} ms to {t_ms} ms")
        self._set(t_ms)

    @property
    def sleepers(self) -> int:
        """How many tasks are asleep on this clock (cancelled sleeps are not counted)."""
        return sum(1 for _, _, f in self._sleepers if not f.done())

    def next_deadline(self) -> float | None:
        """The earliest deadline anyone sleeps until, or ``None``."""
        self._drop_cancelled()
        return self._sleepers[0][0] if self._sleepers else None

    def _drop_cancelled(self) -> None:
        while self._sleepers and self._sleepers[0][2].done():
            heapq.heappop(self._sleepers)

    def _set(self, t_ms: float) -> None:
        self._now = float(t_ms)
        while self._sleepers and self._sleepers[0][0] <= self._now:
            _, _, future = heapq.heappop(self._sleepers)
            if not future.done():
                future.set_result(None)

    def _autojump(self, loop: asyncio.AbstractEventLoop, spins: int) -> None:
        ready = getattr(loop, "_ready", None)  # CPython's queue of runnable callbacks
        busy = len(ready) > 0 if ready is not None else spins < _FALLBACK_SPINS
        if busy and spins < _MAX_SPINS:
            loop.call_soon(self._autojump, loop, spins + 1)
            return
        self._jump_pending = False
        deadline = self.next_deadline()
        if not self.auto_advance or deadline is None:
            return
        self._set(max(deadline, self._now))
        if self.next_deadline() is not None:  # later sleepers: jump again once things settle
            self._jump_pending = True
            loop.call_soon(self._autojump, loop, 0)
