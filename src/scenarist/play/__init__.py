"""Time lives here: clocks and the player that schedules a timeline's beats.

Formats and encoders never sleep; front ends hand a compiled timeline (or any sorted
beats with an ``at_ms``) to a :class:`Player` and send each beat as it falls due.
"""

from scenarist.play.clock import Clock, RealClock, VirtualClock
from scenarist.play.player import (
    MIN_SPEED,
    Cue,
    Player,
    Timed,
    clamp_speed,
    iter_cues_sync,
    iter_sync,
    schedule_ms,
)

__all__ = [
    "MIN_SPEED",
    "Clock",
    "Cue",
    "Player",
    "RealClock",
    "Timed",
    "VirtualClock",
    "clamp_speed",
    "iter_cues_sync",
    "iter_sync",
    "schedule_ms",
]
