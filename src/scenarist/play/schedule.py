"""The schedule, without an event loop: speed, deadlines, cues, and blocking playback.

Every beat is scheduled against one absolute start: beat *i* is due at
``t0 + (at_ms - origin_ms) × speed``. Waiting for each beat's own deadline (never "sleep
the gap since the previous beat") means a late wake-up delays one beat, not every beat
after it, so no drift accumulates over a long scenario.

Speed is the spec's ``scenario-speed`` multiplier: values below 1 play faster, above 1
slower. It is clamped to at least :data:`MIN_SPEED` (0.01) so that no beat collapses onto
its predecessor and playback keeps its order and shape even when "as fast as possible" is
asked for.

The speed clamp and the deadline arithmetic live in :mod:`scenarist.play.pacing` (shared with
the pacing of lazily made items) and are re-exported here.

This module does not import asyncio, so synchronous front ends (a CLI, the fake Codex
agent) pay nothing for the event loop.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar, cast

from scenarist.play.clock import Clock, RealClock
from scenarist.play.pacing import MIN_SPEED, clamp_speed, schedule_ms

__all__ = [
    "MIN_SPEED",
    "Cue",
    "HasBeats",
    "Timed",
    "beats_of",
    "clamp_speed",
    "iter_cues_sync",
    "iter_sync",
    "schedule_ms",
]

class Timed(Protocol):
    """Anything with an absolute, unscaled time in ms: a timeline beat."""

    @property
    def at_ms(self) -> int | float: ...


B = TypeVar("B", bound=Timed)
B_co = TypeVar("B_co", bound=Timed, covariant=True)


class HasBeats(Protocol[B_co]):
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


def beats_of(timeline_or_beats: HasBeats[B] | Iterable[B]) -> tuple[B, ...]:
    """The beats of a Timeline (or of any iterable of beats), checked to be sorted."""
    beats = (timeline_or_beats.beats if hasattr(timeline_or_beats, "beats")
             else timeline_or_beats)
    items: tuple[B, ...] = tuple(cast("Iterable[B]", beats))
    for i in range(1, len(items)):
        if items[i].at_ms < items[i - 1].at_ms:
            raise ValueError(
                f"beats must be sorted by at_ms: beat {i} is at {items[i].at_ms} ms, before beat "
                f"{i - 1} at {items[i - 1].at_ms} ms; sort them (a compiled Timeline always is)")
    return items


def iter_cues_sync(timeline_or_beats: HasBeats[B] | Iterable[B], *, clock: Clock | None = None,
                   speed: float = 1.0, origin_ms: float = 0.0) -> Iterator[Cue[B]]:
    """Blocking playback for code without an event loop, on the same absolute schedule."""
    beats = beats_of(timeline_or_beats)
    used = clock if clock is not None else RealClock()
    factor = clamp_speed(speed)
    t0 = used.now_ms()
    for index, beat in enumerate(beats):
        due = schedule_ms(beat.at_ms, t0_ms=t0, speed=factor, origin_ms=origin_ms)
        used.wait_until(due)
        yield Cue(index, beat, due, used.now_ms())


def iter_sync(timeline_or_beats: HasBeats[B] | Iterable[B], *, clock: Clock | None = None,
              speed: float = 1.0, origin_ms: float = 0.0) -> Iterator[B]:
    """Like :func:`iter_cues_sync`, yielding the beats themselves."""
    for cue in iter_cues_sync(timeline_or_beats, clock=clock, speed=speed, origin_ms=origin_ms):
        yield cue.beat
