"""Time lives here: clocks and the player that schedules a timeline's beats.

Formats and encoders never sleep; front ends hand a compiled timeline (or any sorted
beats with an ``at_ms``) to a :class:`Player` and send each beat as it falls due. Items made
on the fly (encoded frames, a fake model's events, output lines) are paced by a
:class:`Schedule` or by :func:`pace` / :func:`pace_sync`, on the same absolute rule. No other
package sleeps to pace anything (``tests/test_one_clock.py`` holds that).

Names are loaded on first use, so ``from scenarist.play import clamp_speed`` or
``iter_sync`` in a synchronous program does not import asyncio.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from scenarist.play.clock import Clock, RealClock, VirtualClock
    from scenarist.play.pacing import (
        MIN_SPEED,
        Schedule,
        clamp_speed,
        pace,
        pace_sync,
        schedule_ms,
    )
    from scenarist.play.player import Player
    from scenarist.play.schedule import Cue, HasBeats, Timed, iter_cues_sync, iter_sync

_WHERE = {
    "Clock": "clock", "RealClock": "clock", "VirtualClock": "clock",
    "Player": "player",
    "Cue": "schedule", "HasBeats": "schedule", "Timed": "schedule",
    "iter_cues_sync": "schedule", "iter_sync": "schedule",
    "MIN_SPEED": "pacing", "clamp_speed": "pacing", "schedule_ms": "pacing",
    "Schedule": "pacing", "pace": "pacing", "pace_sync": "pacing",
}

__all__ = [
    "MIN_SPEED",
    "Clock",
    "Cue",
    "HasBeats",
    "Player",
    "RealClock",
    "Schedule",
    "Timed",
    "VirtualClock",
    "clamp_speed",
    "iter_cues_sync",
    "iter_sync",
    "pace",
    "pace_sync",
    "schedule_ms",
]


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'scenarist.play' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"scenarist.play.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
