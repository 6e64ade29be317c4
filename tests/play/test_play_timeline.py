"""The player on real compiled timelines (our examples): exact scaled times, live part."""

from __future__ import annotations

from pathlib import Path

import pytest

from scenarist.play import Player, VirtualClock, iter_cues_sync
from scenarist.scenario import compile_timeline, load_scenario

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.mark.parametrize("name", ["simulation-rest", "hello-codex", "tool-tour"])
@pytest.mark.parametrize("speed", [1.0, 0.25, 3.0])
async def test_every_beat_fires_at_its_scaled_time(name: str, speed: float) -> None:
    timeline = compile_timeline(load_scenario(EXAMPLES / f"{name}.yaml"))
    assert timeline.beats, "the example has beats"
    clock = VirtualClock()
    fired = [(beat, clock.now_ms()) async for beat in Player(timeline, clock=clock, speed=speed)]
    assert [b for b, _ in fired] == list(timeline.beats)
    assert [t for _, t in fired] == [pytest.approx(b.at_ms * speed) for b in timeline.beats]


async def test_the_live_part_plays_from_the_session_start() -> None:
    timeline = compile_timeline(load_scenario(EXAMPLES / "load-session.yaml"))
    live = timeline.live
    assert live and timeline.historical, "the example has history and a live part"
    clock = VirtualClock(start_ms=500)
    origin = live[0].at_ms
    cues = [cue async for cue in Player(live, clock=clock, origin_ms=origin).cues()]
    assert [c.fired_ms for c in cues] == [500 + b.at_ms - origin for b in live]


def test_sync_playback_of_a_timeline_matches_the_async_schedule() -> None:
    timeline = compile_timeline(load_scenario(EXAMPLES / "simulation-rest.yaml"))
    cues = list(iter_cues_sync(timeline, clock=VirtualClock(), speed=0.01))
    assert [c.scheduled_ms for c in cues] == [pytest.approx(b.at_ms * 0.01) for b in timeline.beats]
    assert all(c.late_ms == 0 for c in cues)
