"""Pacing items that are made on the fly: one absolute start, one speed, any clock.

The :class:`~scenarist.play.player.Player` plays a timeline known in advance. Front ends
whose items are produced lazily (the encoded frames of an HTTP stream, the fake model's
events, fake-codex's output lines) pace them through a :class:`Schedule` instead, or through
:func:`pace_sync` / :func:`pace`, which walk an iterable and hand out each item when due.

Either way the rule is the player's: an item at ``at_ms`` is due at
``t0 + (at_ms - origin_ms) × speed`` on the schedule's clock, where ``t0`` is fixed once
(``start_ms``, else the clock's reading when the first item is asked for). Waiting for each
item's own deadline, never "the gap since the previous one", means a late wake-up delays one
item, not every item after it. Items already due go out at once, without yielding to the
event loop, so a stream's first frames are not a loop cycle late.

Speed is applied here and in the player only; times handed in are the scenario's own.
This module imports neither asyncio nor dataclasses (clocks import asyncio when an async
wait actually happens), so a synchronous CLI pays almost nothing for it.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from scenarist.play.clock import RealClock

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Callable, Iterable, Iterator
    from typing import TypeVar

    from scenarist.play.clock import Clock

    T = TypeVar("T")

__all__ = ["MIN_SPEED", "Schedule", "clamp_speed", "pace", "pace_sync", "schedule_ms"]

MIN_SPEED = 0.01


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


class Schedule:
    """One absolute start on one clock, at one speed: when is an item at ``at_ms`` due?

    ``await wait(at_ms)`` waits without blocking the event loop and ``wait_sync(at_ms)``
    blocks, both until that item is due; both return at once (no yield) when it already is. The
    start is fixed on first use unless ``start_ms`` pins it (to line several schedules up).
    """

    __slots__ = ("_reached", "clock", "origin_ms", "speed", "t0_ms")

    def __init__(self, clock: Clock | None = None, *, speed: float = 1.0,
                 origin_ms: float = 0.0, start_ms: float | None = None) -> None:
        self.clock: Clock = clock if clock is not None else RealClock()
        self.speed = clamp_speed(speed)
        self.origin_ms = float(origin_ms)
        self.t0_ms = start_ms
        self._reached = -math.inf  # the latest at_ms already waited for


    def start(self) -> float:
        """Fix ``t0`` to the clock's reading now, unless it is already fixed; return it."""
        if self.t0_ms is None:
            self.t0_ms = self.clock.now_ms()
        return self.t0_ms

    def due_ms(self, at_ms: float) -> float:
        """The clock time at which an item at ``at_ms`` is due (starts the schedule)."""
        return schedule_ms(at_ms, t0_ms=self.start(), speed=self.speed,
                           origin_ms=self.origin_ms)

    def wait_sync(self, at_ms: float) -> None:
        """Block until an item at ``at_ms`` is due."""
        if at_ms <= self._reached:  # no later than one already waited for: due (hot path)
            return
        due = self.due_ms(at_ms)
        if self.clock.now_ms() < due:
            self.clock.wait_until(due)
        self._reached = at_ms

    async def wait(self, at_ms: float) -> None:
        """Wait, without blocking the event loop, until an item at ``at_ms`` is due."""
        if at_ms <= self._reached:
            return
        due = self.due_ms(at_ms)
        if self.clock.now_ms() < due:
            await self.clock.sleep_until(due)
        self._reached = at_ms


def _at_ms(item: object) -> float:
    at: float = item.at_ms  # type: ignore[attr-defined]
    return at


def pace_sync(items: Iterable[T], schedule: Schedule | None = None, *,
              at: Callable[[T], float] = _at_ms) -> Iterator[T]:
    """Each of ``items`` when due (blocking), read lazily: an item is taken from ``items``
    only when the previous one has been handed out. ``at(item)`` is its time (default
    ``item.at_ms``); an item earlier than one before it is due at once."""
    used = schedule if schedule is not None else Schedule()
    for item in items:
        used.wait_sync(at(item))
        yield item


async def pace(items: Iterable[T], schedule: Schedule | None = None, *,
               at: Callable[[T], float] = _at_ms) -> AsyncIterator[T]:
    """:func:`pace_sync` for async consumers: waits on the clock without blocking the loop."""
    used = schedule if schedule is not None else Schedule()
    for item in items:
        await used.wait(at(item))
        yield item
