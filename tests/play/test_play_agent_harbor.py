"""Conformance: the reference scenarios' compiled timelines play at their scaled times.

Collected only with ``--agent-harbor-scenarios DIR`` (AGPL test data, read from that folder).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from scenarist.play import Player, VirtualClock, iter_cues_sync
from scenarist.scenario import compile_timeline, load_scenario


@pytest.mark.parametrize("name", ["timing_test_scenario", "long_running_demo", "simulation_smoke"])
@pytest.mark.parametrize("speed", [1.0, 0.25, 3.0])
async def test_every_beat_fires_at_its_scaled_time(reference: Path, name: str, speed: float) -> None:
    timeline = compile_timeline(load_scenario(reference / f"{name}.yaml"))
    assert timeline.beats, "the reference scenario has beats"
    clock = VirtualClock()
    fired = [(beat, clock.now_ms()) async for beat in Player(timeline, clock=clock, speed=speed)]
    assert [b for b, _ in fired] == list(timeline.beats)
    assert [t for _, t in fired] == [pytest.approx(b.at_ms * speed) for b in timeline.beats]


async def test_the_live_part_plays_from_the_session_start(reference: Path) -> None:
    timeline = compile_timeline(load_scenario(reference / "acp_loadsession_meta.yaml"))
    live = timeline.live
    assert live and timeline.historical, "the scenario has history and a live part"
    clock = VirtualClock(start_ms=500)
    origin = live[0].at_ms
    cues = [cue async for cue in Player(live, clock=clock, origin_ms=origin).cues()]
    assert [c.fired_ms for c in cues] == [500 + b.at_ms - origin for b in live]


def test_sync_playback_of_a_timeline_matches_the_async_schedule(reference: Path) -> None:
    timeline = compile_timeline(load_scenario(reference / "long_running_demo.yaml"))
    cues = list(iter_cues_sync(timeline, clock=VirtualClock(), speed=0.01))
    assert [c.scheduled_ms for c in cues] == [pytest.approx(b.at_ms * 0.01) for b in timeline.beats]
    assert all(c.late_ms == 0 for c in cues)
