"""The session player on a virtual clock: exact timestamps, pause/resume, stop, prompts that
move the session on, and a takeover that resumes from the stored position."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

from restkit import SCENARIOS

from scenarist.play import VirtualClock
from scenarist.rest.events import Planned, plan_session
from scenarist.rest.session import Sessions, Wall, iso
from scenarist.rest.store import Store, open_store
from scenarist.scenario import compile_timeline, load_scenario

EPOCH = 1_800_000_000_000.0
PLAN = plan_session(compile_timeline(load_scenario(SCENARIOS / "edit-and-test.yaml")))
PLANS = {"edit-and-test": PLAN}


def ms(ts: str) -> float:
    return datetime.fromisoformat(ts.replace("Z", "+00:00")).timestamp() * 1000 - EPOCH


async def opened(url: str = "sqlite://") -> Store:
    store = open_store(url)
    await store.open()
    return store


def sessions(store: Store, clock: VirtualClock, speed: float = 1.0,
             replica: str = "a") -> Sessions:
    return Sessions(store, PLANS, clock=clock, wall=Wall.of(clock, EPOCH), speed=speed,
                    replica=replica)


async def played(store: Store, sid: str) -> list[dict[str, object]]:
    return [e.body for e in await store.events(sid, 0, 1000)]


async def finish(s: Sessions, sid: str) -> None:
    task = s.runners[sid].task
    assert task is not None
    await task


def same(events: list[dict[str, object]], plan: tuple[Planned, ...] | list[Planned]) -> bool:
    return [{k: v for k, v in e.items() if k != "ts"} for e in events] == [p.body for p in plan]


async def test_every_event_is_stamped_at_its_scheduled_time_times_speed() -> None:
    clock, store = VirtualClock(), await opened()
    s = sessions(store, clock, speed=2.0)
    row = await s.create("edit-and-test", {})
    await finish(s, row.id)
    events = await played(store, row.id)
    assert same(events, PLAN)
    assert [ms(str(e["ts"])) for e in events] == [p.at_ms * 2.0 for p in PLAN]
    final = await store.get(row.id)
    assert final is not None and final.status == "completed" and final.position == len(PLAN)
    assert final.ended_ms == EPOCH + PLAN[-1].at_ms * 2.0
    await store.close()


async def test_pause_holds_the_clock_and_resume_continues_where_it_stopped() -> None:
    clock, store = VirtualClock(), await opened()
    s = sessions(store, clock)
    row = await s.create("edit-and-test", {})
    await clock.sleep_until(120)  # after the thought (100 ms), before the assistant (150)
    await s.control(row, "pause")
    await clock.sleep_until(1120)
    current = await store.get(row.id)
    assert current is not None and current.status == "paused"
    await s.control(current, "resume")
    await finish(s, row.id)
    events = await played(store, row.id)
    statuses = [e["status"] for e in events if e["type"] == "status"]
    assert statuses == ["queued", "running", "pausing", "paused", "resuming", "running",
                        "completed"]
    times = {str(e.get("message") or e.get("thought")): ms(str(e["ts"])) for e in events
             if e["type"] in ("log", "thought")}
    assert times["Look at the test first."] == 100
    assert times["I will fix it."] == 150 + 1000  # shifted by the pause, no more
    assert ms(str(events[-1]["ts"])) == PLAN[-1].at_ms + 1000
    await store.close()


async def test_stop_ends_the_session_and_nothing_plays_after_it() -> None:
    clock, store = VirtualClock(), await opened()
    s = sessions(store, clock)
    row = await s.create("edit-and-test", {})
    await clock.sleep_until(120)
    await s.control(row, "stop")
    await clock.sleep_until(20_000)
    events = await played(store, row.id)
    assert [e["status"] for e in events if e["type"] == "status"][-2:] == ["stopping",
                                                                           "stopped"]
    assert events[-1]["status"] == "stopped" and not s.runners
    final = await store.get(row.id)
    assert final is not None and final.status == "stopped"
    await store.close()


async def test_a_prompt_matching_the_next_user_input_plays_it_now() -> None:
    clock, store = VirtualClock(), await opened()
    s = sessions(store, clock)
    row = await s.create("edit-and-test", {})
    await clock.sleep_until(1000)  # the scripted prompt is due at 5000 ms
    await s.prompt(row, "  now RUN it again ")
    await finish(s, row.id)
    events = await played(store, row.id)
    user = [e for e in events if e.get("source") == "user"]
    assert [u["message"] for u in user] == ["Fix the failing test", "  now RUN it again "]
    assert ms(str(user[1]["ts"])) == 1000
    answer = next(e for e in events if e.get("message") == "All green.")
    assert ms(str(answer["ts"])) == 1100  # 100 ms after the prompt, not after 5000 ms
    other = await s.create("edit-and-test", {})
    await s.prompt(other, "something else")  # no match: appended, the schedule stays
    await finish(s, other.id)
    last = (await played(store, other.id))[-1]
    assert ms(str(last["ts"])) - (clock.now_ms() - PLAN[-1].at_ms) == PLAN[-1].at_ms
    await store.close()


async def test_another_replica_takes_over_from_the_stored_position(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'sessions.db'}"
    clock, first = VirtualClock(), await opened(url)
    a = sessions(first, clock, replica="a")
    row = await a.create("edit-and-test", {})
    await clock.sleep_until(170)  # a few events played, then replica a dies
    for runner in list(a.runners.values()):
        assert runner.task is not None
        runner.task.cancel()
    await first.close()
    stored = len(await played(await opened(url), row.id))
    assert 0 < stored < len(PLAN)
    second = await opened(url)
    b = sessions(second, clock, replica="b")
    assert await b.adopt_orphans() == [row.id]
    await finish(b, row.id)
    events = await played(second, row.id)
    assert same(events, PLAN)  # every planned event once, in order
    assert [ms(str(e["ts"])) for e in events] == [float(p.at_ms) for p in PLAN]
    assert [e.seq for e in await second.events(row.id, 0, 1000)] == list(
        range(1, len(PLAN) + 1))
    await second.close()


def test_iso_is_utc_with_milliseconds() -> None:
    assert iso(0) == "1970-01-01T00:00:00.000Z"
    assert json.dumps(iso(EPOCH + 1.5)).endswith('.001Z"')
