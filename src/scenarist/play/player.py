"""The player: hands out a timeline's beats at their times, on any clock, at any speed.

Every beat is scheduled against one absolute start: beat *i* is due at
``t0 + (at_ms - origin_ms) × speed``. Waiting for each beat's own deadline (never "sleep
the gap since the previous beat") means a late wake-up delays one beat, not every beat
after it, so no drift accumulates over a long scenario.

Speed is the spec's ``scenario-speed`` multiplier: values below 1 play faster, above 1
slower. It is clamped to at least :data:`MIN_SPEED` (0.01) so that no beat collapses onto
its predecessor and playback keeps its order and shape even when "as fast as possible" is
asked for.
"""

from __future__ import annotations

import asyncio
import inspect
import math
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar, cast

from scenarist.play.clock import Clock, RealClock

__all__ = [
    "MIN_SPEED",
    "Cue",
    "Player",
    "Timed",
    "clamp_speed",
    "iter_cues_sync",
    "iter_sync",
    "schedule_ms",
]

MIN_SPEED = 0.01


class Timed(Protocol):
    """Anything with an absolute, unscaled time in ms: a timeline beat."""

    @property
    def at_ms(self) -> int | float: ...


B = TypeVar("B", bound=Timed)
B_co = TypeVar("B_co", bound=Timed, covariant=True)


class _HasBeats(Protocol[B_co]):
    """A compiled Timeline, or anything else that carries its beats in ``.beats``."""

    @property
    def beats(self) -> Sequence[B_co]: ...


@dataclass(frozen=True, slots=True)
class Cue(Generic[B]):
    """One beat as it was played: when it was due and when the player handed it out.

    ``scheduled_ms`` and ``fired_ms`` are readings of the player's clock, so
    ``fired_ms - scheduled_ms`` is the lateness of this beat (the fidelity figure).
    """

    index: int
    beat: B
    scheduled_ms: float
    fired_ms: float

    @property
    def late_ms(self) -> float:
        return self.fired_ms - self.scheduled_ms


def clamp_speed(speed: float) -> float:
    """The speed actually used: ``speed`` raised to at least :data:`MIN_SPEED`.

    NaN and infinity are refused (they cannot be a schedule).
    """
    if math.isnan(speed) or math.isinf(speed):
        raise ValueError(f"speed must be a finite number (got {speed!r}); use e.g. 1.0 for "
                         f"real time, 0.1 for ten times faster")
    return max(float(speed), MIN_SPEED)


def schedule_ms(at_ms: float, *, t0_ms: float, speed: float, origin_ms: float = 0.0) -> float:
    """The clock time at which a beat at ``at_ms`` is due (``speed`` already clamped)."""
    return t0_ms + (at_ms - origin_ms) * speed


def _beats_of(timeline_or_beats: _HasBeats[B] | Iterable[B]) -> tuple[B, ...]:
    beats = (timeline_or_beats.beats if hasattr(timeline_or_beats, "beats")
             else timeline_or_beats)
    items: tuple[B, ...] = tuple(cast("Iterable[B]", beats))
    for i in range(1, len(items)):
        if items[i].at_ms < items[i - 1].at_ms:
            raise ValueError(
                f"beats must be sorted by at_ms: beat {i} is at {items[i].at_ms} ms, before beat "
                f"{i - 1} at {items[i - 1].at_ms} ms; sort them (a compiled Timeline always is)")
    return items


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

    def __init__(self, timeline_or_beats: _HasBeats[B] | Iterable[B], *,
                 clock: Clock | None = None, speed: float = 1.0, origin_ms: float = 0.0,
                 start_ms: float | None = None) -> None:
        self.beats: tuple[B, ...] = _beats_of(timeline_or_beats)
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


_INTERRUPT = "scenarist.play: player interrupted"


def iter_cues_sync(timeline_or_beats: _HasBeats[B] | Iterable[B], *, clock: Clock | None = None,
                   speed: float = 1.0, origin_ms: float = 0.0) -> Iterator[Cue[B]]:
    """Blocking playback for code without an event loop, on the same absolute schedule."""
    beats = _beats_of(timeline_or_beats)
    used = clock if clock is not None else RealClock()
    factor = clamp_speed(speed)
    t0 = used.now_ms()
    for index, beat in enumerate(beats):
        due = schedule_ms(beat.at_ms, t0_ms=t0, speed=factor, origin_ms=origin_ms)
        used.wait_until(due)
        yield Cue(index, beat, due, used.now_ms())


def iter_sync(timeline_or_beats: _HasBeats[B] | Iterable[B], *, clock: Clock | None = None,
              speed: float = 1.0, origin_ms: float = 0.0) -> Iterator[B]:
    """Like :func:`iter_cues_sync`, yielding the beats themselves."""
    for cue in iter_cues_sync(timeline_or_beats, clock=clock, speed=speed, origin_ms=origin_ms):
        yield cue.beat
