"""Timing: events arrive no earlier than their scheduled times (scaled by --speed), and their
timestamps sit exactly on the schedule, with no drift across a 60 s scenario at speed 1.
Lower bounds only: a busy machine may deliver late, never early."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import httpx
import pytest
from restkit import SCENARIOS, rest_server
from sse import API, Frame, aread_stream

from scenarist.play import RealClock
from scenarist.rest.events import plan_session
from scenarist.scenario import compile_timeline, load_scenario


def epoch_ms(ts: str) -> float:
    return datetime.fromisoformat(ts.replace("Z", "+00:00")).timestamp() * 1000


async def play(scenario: Path, speed: float) -> tuple[list[Frame], list[float], float]:
    """The frames of one session, when each arrived and when the task was created (all on
    this process's monotonic clock)."""
    clock = RealClock()
    with rest_server("--speed", str(speed), scenarios=[scenario]) as srv:
        async with httpx.AsyncClient(base_url=srv.base_url, timeout=120) as client:
            before = clock.now_ms()
            created = await client.post(f"{API}/tasks", json={"prompt": "go"})
            sid = created.json()["session_ids"][0]
            frames: list[Frame] = []
            arrived: list[float] = []
            while not frames or frames[-1].data.get("status") != "completed":
                got = await aread_stream(client, sid, last_id=frames[-1].id if frames else None,
                                         stop_after=1)
                frames += got
                arrived += [clock.now_ms()] * len(got)
    return frames, arrived, before


def check(scenario: Path, frames: list[Frame], arrived: list[float], before: float,
          speed: float) -> None:
    planned = plan_session(compile_timeline(load_scenario(scenario)))
    assert [f.data["type"] for f in frames] == [p.body["type"] for p in planned]
    t0 = epoch_ms(str(frames[0].data["ts"]))
    for frame, when, plan in zip(frames, arrived, planned, strict=True):
        due = plan.at_ms * speed
        assert when - before >= due - 1  # never early (1 ms: the stamps' resolution)
        assert abs(epoch_ms(str(frame.data["ts"])) - t0 - due) <= 1  # on the schedule


@pytest.mark.parametrize("speed", [1.0, 0.5])
async def test_events_arrive_at_their_scheduled_times(speed: float) -> None:
    scenario = SCENARIOS / "paced.yaml"
    frames, arrived, before = await play(scenario, speed)
    check(scenario, frames, arrived, before, speed)


@pytest.mark.slow
async def test_no_drift_over_a_60_second_scenario_at_speed_1(tmp_path: Path) -> None:
    scenario = tmp_path / "minute.yaml"
    steps = "".join(f'          - [1000, "second {n}"]\n' for n in range(1, 61))
    scenario.write_text("name: minute\ntimeline:\n  - llmResponse:\n      - think:\n" + steps)
    frames, arrived, before = await play(scenario, 1.0)
    check(scenario, frames, arrived, before, 1.0)
    stamps = [epoch_ms(str(f.data["ts"])) for f in frames]
    assert stamps[-1] - stamps[0] == 60_000
