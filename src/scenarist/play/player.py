"""The player: hands out a timeline's beats at their times, on any clock, at any speed.

The schedule itself (absolute deadlines, the speed clamp) is :mod:`scenarist.play.schedule`;
this module adds the asynchronous side: waiting on a clock, cancelling, pausing.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from typing import Generic, TypeVar

from scenarist.play.clock import Clock, RealClock
from scenarist.play.schedule import Cue, HasBeats, Timed, beats_of, clamp_speed, schedule_ms

__all__ = ["Player"]

B = TypeVar("B", bound=Timed)

_INTERRUPT = "scenarist.play: player interrupted"


class Player(Generic[B]):
    """Plays beats on a clock. One Player is one playback: iterate it once.

    ``async for beat in player`` yields each beat when it is due; ``player.cues()`` yields
    :class:`Cue` records that also carry the scheduled and actual times; ``await
    player.run(callback)`` calls ``callback(beat)`` (sync or async) for each beat.

    The schedule starts (``t0``) when iteration begins, unless ``start_ms`` pins it to a
    clock reading (to line several players up). ``origin_ms`` is the beat time that plays at
    ``t0``, e.g. the time of ``sessionStart`` when only the live part is played.

    ``cancel()`` ends the iteration at once (also when called while it waits); cancelling the
    consuming task works as usual too. ``pause()``/``resume()`` stop and restart the
    schedule, shifting every later deadline by the time spent paused. Call these from the
    event loop's thread.
    """

    def __init__(self, timeline_or_beats: HasBeats[B] | Iterable[B], *,
                 clock: Clock | None = None, speed: float = 1.0, origin_ms: float = 0.0,
                 start_ms: float | None = None) -> None:
        self.beats: tuple[B, ...] = beats_of(timeline_or_beats)
        self.clock: Clock = clock if clock is not None else RealClock()
        self.speed = clamp_speed(speed)
        self.origin_ms = float(origin_ms)
        self.t0_ms: float | None = start_ms
        self._started = False
        self._cancelled = False
        self._paused_at: float | None = None
        self._resumed = asyncio.Event()
        self._resumed.set()
        self._sleeper: asyncio.Task[object] | None = None

    def scheduled_ms(self, index: int) -> float:
        """The clock time at which beat ``index`` is due (once the schedule has started)."""
        if self.t0_ms is None:
            raise RuntimeError("the schedule has not started yet: iterate the player first")
        return schedule_ms(self.beats[index].at_ms, t0_ms=self.t0_ms, speed=self.speed,
                           origin_ms=self.origin_ms)

    @property
    def cancelled(self) -> bool:
        return self._cancelled

    @property
    def paused(self) -> bool:
        return self._paused_at is not None

    def cancel(self) -> None:
        """Stop playing: the iteration ends after the beat being handled, or now if waiting."""
        self._cancelled = True
        self._resumed.set()
        self._interrupt()

    def pause(self) -> None:
        """Hold every remaining beat until :meth:`resume`."""
        if self._paused_at is None and not self._cancelled:
            self._paused_at = self.clock.now_ms()
            self._resumed.clear()
            self._interrupt()

    def resume(self) -> None:
        """Continue after :meth:`pause`; remaining beats keep their spacing."""
        if self._paused_at is not None:
            if self.t0_ms is not None:
                self.t0_ms += self.clock.now_ms() - self._paused_at
            self._paused_at = None
            self._resumed.set()

    def _interrupt(self) -> None:
        if self._sleeper is not None:
            self._sleeper.cancel(msg=_INTERRUPT)

    def __aiter__(self) -> AsyncIterator[B]:
        return self._beats()

    async def _beats(self) -> AsyncIterator[B]:
        async for cue in self.cues():
            yield cue.beat

    async def cues(self) -> AsyncIterator[Cue[B]]:
        """Yield a :class:`Cue` per beat as it falls due."""
        if self._started:
            raise RuntimeError("a Player plays once; create a new Player to play again")
        self._started = True
        if self.t0_ms is None:
            self.t0_ms = self.clock.now_ms()
        if self._paused_at is not None:  # paused before the start: the pause begins at t0
            self._paused_at = max(self._paused_at, self.t0_ms)
        for index in range(len(self.beats)):
            if not await self._wait_for(index):
                return
            yield Cue(index, self.beats[index], self.scheduled_ms(index), self.clock.now_ms())

    async def _wait_for(self, index: int) -> bool:
        """Wait until beat ``index`` is due; False when the player was cancelled meanwhile."""
        task = asyncio.current_task()
        while not self._cancelled:
            if self._paused_at is not None:
                await self._resumed.wait()
                continue
            self._sleeper = task
            try:
                await self.clock.sleep_until(self.scheduled_ms(index))
                return not self._cancelled
            except asyncio.CancelledError as exc:
                if task is None or not exc.args or exc.args[0] != _INTERRUPT:
                    raise
                if task.uncancel() > 0:  # someone else cancelled the task as well
                    raise
            finally:
                self._sleeper = None
        return False

    async def run(self, callback: Callable[[B], Awaitable[object] | object]) -> int:
        """Call ``callback(beat)`` for each beat when due (awaiting it if it returns an
        awaitable); return how many beats were played."""
        played = 0
        async for beat in self:
            result = callback(beat)
            if inspect.isawaitable(result):
                await result
            played += 1
        return played
