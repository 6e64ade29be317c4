"""Clocks: the virtual clock's jumps and manual advance; the real clock's liveness and order."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

import pytest

from scenarist.play import Clock, Player, RealClock, VirtualClock, iter_sync


def test_both_clocks_satisfy_the_protocol() -> None:
    assert isinstance(RealClock(), Clock)
    assert isinstance(VirtualClock(), Clock)


async def test_virtual_time_jumps_to_the_earliest_sleeper() -> None:
    clock = VirtualClock()
    order: list[tuple[str, float]] = []

    async def sleeper(name: str, t: float) -> None:
        await clock.sleep_until(t)
        order.append((name, clock.now_ms()))

    await asyncio.gather(sleeper("late", 300), sleeper("early", 100), sleeper("mid", 200))
    assert order == [("early", 100), ("mid", 200), ("late", 300)]


async def test_time_waits_for_tasks_that_are_still_running() -> None:
    """A task that needs many loop turns before it sleeps is not overtaken by virtual time."""
    clock = VirtualClock()
    woke: list[tuple[str, float]] = []

    async def patient() -> None:
        await clock.sleep_until(100)
        woke.append(("patient", clock.now_ms()))

    async def busy() -> None:
        for _ in range(50):
            await asyncio.sleep(0)
        await clock.sleep_until(50)
        woke.append(("busy", clock.now_ms()))

    await asyncio.gather(patient(), busy())
    assert woke == [("busy", 50), ("patient", 100)]


async def test_manual_advance_wakes_due_sleepers_in_deadline_order() -> None:
    clock = VirtualClock(auto_advance=False)
    woke: list[str] = []

    async def sleeper(name: str, t: float) -> None:
        await clock.sleep_until(t)
        woke.append(name)

    tasks = [asyncio.create_task(sleeper(n, t)) for n, t in [("c", 30), ("a", 10), ("b", 20)]]
    await asyncio.sleep(0)
    assert clock.sleepers == 3 and clock.next_deadline() == 10
    clock.advance(25)
    await asyncio.sleep(0)
    assert woke == ["a", "b"] and clock.now_ms() == 25
    clock.advance_to(30)
    await asyncio.gather(*tasks)
    assert woke == ["a", "b", "c"] and clock.sleepers == 0


def test_virtual_clock_refuses_to_go_back() -> None:
    clock = VirtualClock(start_ms=10)
    with pytest.raises(ValueError, match="cannot go back"):
        clock.advance_to(5)
    with pytest.raises(ValueError, match=">= 0"):
        clock.advance(-1)
    clock.wait_until(3)  # a past time is no wait and moves nothing
    assert clock.now_ms() == 10 and clock.now() == 0.01


async def test_sleep_until_the_past_returns_at_once() -> None:
    clock = VirtualClock(start_ms=50, auto_advance=False)
    await clock.sleep_until(50)
    await RealClock().sleep_until(0)
    assert clock.now_ms() == 50


def test_real_clock_refuses_a_negative_spin() -> None:
    with pytest.raises(ValueError, match="spin_ms"):
        RealClock(spin_ms=-1)


@dataclass(frozen=True)
class Beat:
    at_ms: int
    kind: str


async def test_real_clock_player_fires_everything_in_order() -> None:
    """Liveness and order only: the real clock's precision is measured in bench/, not here."""
    clock = RealClock()
    beats = [Beat(t, f"b{i}") for i, t in enumerate([0, 5, 5, 20, 40])]
    start = clock.now_ms()
    cues = [cue async for cue in Player(beats, clock=clock).cues()]
    assert [c.beat.kind for c in cues] == ["b0", "b1", "b2", "b3", "b4"]
    assert all(c.fired_ms >= c.scheduled_ms for c in cues)
    assert [c.fired_ms for c in cues] == sorted(c.fired_ms for c in cues)
    assert clock.now_ms() - start >= 40


def test_real_clock_sync_iteration_fires_everything_in_order() -> None:
    clock = RealClock()
    start = clock.now_ms()
    beats = [Beat(t, f"b{i}") for i, t in enumerate([0, 3, 10])]
    assert [b.kind for b in iter_sync(beats, clock=clock)] == ["b0", "b1", "b2"]
    assert clock.now_ms() - start >= 10


async def test_many_concurrent_waiters_on_one_real_clock_all_fire_in_order() -> None:
    """Past max_spinners the clock stops spinning; every beat still fires, never early."""
    clock = RealClock(max_spinners=2)
    beats = [Beat(t, f"b{i}") for i, t in enumerate([0, 4, 8, 12])]

    async def play() -> list[float]:
        cues = [cue async for cue in Player(beats, clock=clock).cues()]
        assert [c.beat.kind for c in cues] == ["b0", "b1", "b2", "b3"]
        return [c.late_ms for c in cues]

    lateness = await asyncio.gather(*(play() for _ in range(12)))
    assert all(late >= 0 for player in lateness for late in player)


def test_synchronous_use_does_not_import_asyncio() -> None:
    import subprocess
    import sys

    code = ("import sys; from scenarist.play import clamp_speed, iter_sync, RealClock, "
            "VirtualClock; list(iter_sync([], clock=RealClock())); print('asyncio' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


async def test_virtual_time_holds_while_a_queue_consumer_works() -> None:
    """Producer plays beats into a queue; a consumer takes 5 virtual ms per item. Time only
    moves when both are asleep, so every reading is exact."""
    clock = VirtualClock()
    queue: asyncio.Queue[Beat | None] = asyncio.Queue()
    done: list[tuple[str, float, float]] = []

    async def produce() -> None:
        async for beat in Player([Beat(t, f"b{i}") for i, t in enumerate([0, 2, 20])], clock=clock):
            await queue.put(beat)
        await queue.put(None)

    async def consume() -> None:
        while (beat := await queue.get()) is not None:
            started = clock.now_ms()
            for _ in range(20):  # plenty of loop turns that are not sleeps on the clock
                await asyncio.sleep(0)
            await clock.sleep_until(started + 5)
            done.append((beat.kind, started, clock.now_ms()))

    await asyncio.gather(produce(), consume())
    assert done == [("b0", 0, 5), ("b1", 5, 10), ("b2", 20, 25)]
