"""Pacing items made on the fly: Schedule, pace, pace_sync (on the virtual clock: exact)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from scenarist.play import Schedule, VirtualClock, pace, pace_sync


@dataclass(frozen=True)
class Item:
    at_ms: float
    name: str


def items(*times: float) -> list[Item]:
    return [Item(t, f"i{k}") for k, t in enumerate(times)]


def test_pace_sync_hands_out_each_item_at_t0_plus_at_times_speed() -> None:
    clock = VirtualClock(500.0)
    seen = [(i.name, clock.now_ms())
            for i in pace_sync(items(0, 100, 100, 250), Schedule(clock, speed=0.5))]
    assert seen == [("i0", 500.0), ("i1", 550.0), ("i2", 550.0), ("i3", 625.0)]


def test_pace_sync_reads_lazily_and_starts_at_the_first_item() -> None:
    clock = VirtualClock()
    made: list[float] = []

    def produce() -> Iterator[Item]:
        for t in (0.0, 40.0):
            made.append(clock.now_ms())
            yield Item(t, "x")

    paced = pace_sync(produce(), Schedule(clock))
    clock.advance(1000)  # nothing has been asked for yet: the schedule has not started
    assert made == []
    next(paced)
    assert made == [1000.0]
    next(paced)
    assert made == [1000.0, 1000.0] and clock.now_ms() == 1040.0


def test_a_late_consumer_does_not_shift_later_items() -> None:
    """Absolute deadlines: time spent by the consumer is absorbed, not added."""
    clock = VirtualClock()
    schedule = Schedule(clock)
    seen = []
    for _ in pace_sync(items(0, 100, 200, 300), schedule):
        seen.append(clock.now_ms())
        clock.advance(70)  # the consumer is slow with every item
    assert seen == [0.0, 100.0, 200.0, 300.0]


def test_start_ms_pins_the_schedule_and_origin_shifts_it() -> None:
    clock = VirtualClock(1000.0)
    schedule = Schedule(clock, start_ms=900.0, origin_ms=50.0, speed=2.0)
    assert schedule.due_ms(50) == 900.0 and schedule.due_ms(150) == 1100.0
    schedule.wait_sync(150)
    assert clock.now_ms() == 1100.0


@pytest.mark.parametrize("speed", [0.0, -3.0])
def test_speed_is_clamped_like_the_players(speed: float) -> None:
    assert Schedule(VirtualClock(), speed=speed).speed == 0.01


def test_pace_sends_what_is_due_without_yielding_to_the_loop() -> None:
    async def run() -> list[tuple[str, float, bool]]:
        clock = VirtualClock(0.0)
        others: list[bool] = []

        async def other() -> None:
            others.append(True)

        asyncio.get_running_loop().create_task(other())
        return [(i.name, clock.now_ms(), bool(others))
                async for i in pace(items(0, 0, 30), Schedule(clock))]

    assert asyncio.run(run()) == [("i0", 0.0, False), ("i1", 0.0, False), ("i2", 30.0, True)]


def test_pace_with_a_key_for_items_without_at_ms() -> None:
    async def run() -> list[tuple[str, float]]:
        clock = VirtualClock()
        pairs = [(0.0, "a"), (25.0, "b")]
        return [(name, clock.now_ms())
                async for _, name in pace(pairs, Schedule(clock), at=lambda p: p[0])]

    assert asyncio.run(run()) == [("a", 0.0), ("b", 25.0)]
