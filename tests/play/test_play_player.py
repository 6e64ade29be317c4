"""The player on a virtual clock: exact times, speed, clamping, cancellation, pause, order."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scenarist.play import (
    MIN_SPEED,
    Cue,
    Player,
    VirtualClock,
    clamp_speed,
    iter_cues_sync,
    iter_sync,
)


@dataclass(frozen=True)
class Beat:
    at_ms: int
    kind: str = "log"


@dataclass(frozen=True)
class Timeline:
    beats: tuple[Beat, ...]


def beats(*times: int) -> list[Beat]:
    return [Beat(t, f"b{i}") for i, t in enumerate(times)]


async def fire_times(player: Player[Beat], clock: VirtualClock) -> list[tuple[str, float]]:
    return [(beat.kind, clock.now_ms()) async for beat in player]


async def test_beats_fire_at_their_absolute_times() -> None:
    clock = VirtualClock(start_ms=1000)
    player = Player(beats(0, 10, 250, 250, 9000), clock=clock)
    assert await fire_times(player, clock) == [
        ("b0", 1000), ("b1", 1010), ("b2", 1250), ("b3", 1250), ("b4", 10000)]


async def test_a_timeline_object_is_accepted() -> None:
    clock = VirtualClock()
    player = Player(Timeline(tuple(beats(5, 7))), clock=clock)
    assert await fire_times(player, clock) == [("b0", 5), ("b1", 7)]


@pytest.mark.parametrize(("speed", "expected"), [
    (0.5, [0, 50, 500]),
    (2.0, [0, 200, 2000]),
    (0.25, [0, 25, 250]),
])
async def test_speed_scales_every_time(speed: float, expected: list[float]) -> None:
    clock = VirtualClock()
    player = Player(beats(0, 100, 1000), clock=clock, speed=speed)
    assert [t for _, t in await fire_times(player, clock)] == expected


@pytest.mark.parametrize("speed", [0, -3, 0.001, 1e-9])
async def test_speed_is_clamped_to_one_hundredth(speed: float) -> None:
    clock = VirtualClock()
    player = Player(beats(0, 100, 1000), clock=clock, speed=speed)
    assert player.speed == MIN_SPEED == clamp_speed(speed)
    assert [t for _, t in await fire_times(player, clock)] == [0, 1, 10]


@pytest.mark.parametrize("speed", [float("nan"), float("inf")])
def test_non_finite_speed_is_refused(speed: float) -> None:
    with pytest.raises(ValueError, match="finite"):
        Player(beats(0), speed=speed)


async def test_empty_timeline_plays_nothing_and_ends() -> None:
    clock = VirtualClock()
    assert await fire_times(Player([], clock=clock), clock) == []
    assert clock.now_ms() == 0


async def test_equal_times_keep_their_order() -> None:
    clock = VirtualClock()
    many = [Beat(500, f"k{i}") for i in range(50)]
    fired = await fire_times(Player(many, clock=clock), clock)
    assert fired == [(f"k{i}", 500) for i in range(50)]


def test_unsorted_beats_are_refused_with_the_place() -> None:
    with pytest.raises(ValueError, match="beat 2 is at 5 ms, before beat 1 at 10 ms"):
        Player(beats(0, 10, 5))


async def test_cues_report_scheduled_and_actual_times() -> None:
    clock = VirtualClock(start_ms=100)
    player = Player(beats(0, 40, 80), clock=clock, speed=0.5)
    cues = [cue async for cue in player.cues()]
    assert [(c.index, c.scheduled_ms, c.fired_ms, c.late_ms) for c in cues] == [
        (0, 100, 100, 0), (1, 120, 120, 0), (2, 140, 140, 0)]
    assert player.scheduled_ms(2) == 140


async def test_schedule_is_absolute_so_a_slow_consumer_causes_no_drift() -> None:
    clock = VirtualClock()
    player = Player(beats(0, 100, 200, 300, 400), clock=clock)
    fired = []
    async for cue in player.cues():
        fired.append(cue.fired_ms)
        if cue.index == 1:
            await clock.sleep_until(clock.now_ms() + 150)  # consumer overruns one beat
    # beat 2 is late (due 200, handed out at 250); beats 3 and 4 are back on time
    assert fired == [0, 100, 250, 300, 400]


async def test_origin_plays_the_live_part_from_its_first_beat() -> None:
    clock = VirtualClock()
    player = Player(beats(5000, 5100), clock=clock, origin_ms=5000)
    assert [t for _, t in await fire_times(player, clock)] == [0, 100]


async def test_start_ms_lines_players_up_on_one_start() -> None:
    clock = VirtualClock()
    a = Player(beats(0, 30), clock=clock, start_ms=10)
    b = Player([Beat(15, "x")], clock=clock, start_ms=10)
    got_a, got_b = await asyncio.gather(fire_times(a, clock), fire_times(b, clock))
    assert got_a == [("b0", 10), ("b1", 40)]
    assert got_b == [("x", 25)]


async def test_cancel_while_waiting_ends_iteration_cleanly() -> None:
    clock = VirtualClock(auto_advance=False)
    player = Player(beats(0, 1000, 2000), clock=clock)
    seen: list[str] = []

    async def consume() -> None:
        async for beat in player:
            seen.append(beat.kind)

    task = asyncio.create_task(consume())
    await asyncio.sleep(0)
    await asyncio.sleep(0)
    assert seen == ["b0"]
    player.cancel()
    await task  # ends without CancelledError
    assert seen == ["b0"] and player.cancelled and not task.cancelled()


async def test_cancel_from_the_loop_body_stops_after_that_beat() -> None:
    clock = VirtualClock()
    player = Player(beats(0, 10, 20), clock=clock)
    seen = []
    async for beat in player:
        seen.append(beat.kind)
        player.cancel()
    assert seen == ["b0"]


async def test_task_cancellation_propagates() -> None:
    clock = VirtualClock(auto_advance=False)
    player = Player(beats(0, 1000), clock=clock)

    async def consume() -> list[str]:
        return [beat.kind async for beat in player]

    task = asyncio.create_task(consume())
    await asyncio.sleep(0)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert clock.sleepers == 0


async def test_pause_and_resume_shift_the_remaining_schedule() -> None:
    clock = VirtualClock(auto_advance=False)
    player = Player(beats(0, 100, 200), clock=clock)
    fired: list[tuple[str, float]] = []

    async def consume() -> None:
        async for beat in player:
            fired.append((beat.kind, clock.now_ms()))

    task = asyncio.create_task(consume())
    for _ in range(3):
        await asyncio.sleep(0)
    assert fired == [("b0", 0)]
    clock.advance(40)
    player.pause()
    assert player.paused
    await asyncio.sleep(0)
    clock.advance(1000)  # nothing fires while paused
    for _ in range(3):
        await asyncio.sleep(0)
    assert fired == [("b0", 0)]
    player.resume()  # paused 40..1040: the rest moves by 1000 ms
    for _ in range(3):
        await asyncio.sleep(0)
    clock.advance(59)
    await asyncio.sleep(0)
    assert fired == [("b0", 0)]
    clock.advance(1)
    for _ in range(3):
        await asyncio.sleep(0)
    assert fired == [("b0", 0), ("b1", 1100)]
    clock.advance(100)
    await task
    assert fired == [("b0", 0), ("b1", 1100), ("b2", 1200)]


async def test_pause_before_start_holds_the_first_beat() -> None:
    clock = VirtualClock(auto_advance=False)
    player = Player(beats(10, 20), clock=clock)
    player.pause()
    task = asyncio.create_task(fire_times(player, clock))
    await asyncio.sleep(0)
    clock.advance(500)
    await asyncio.sleep(0)
    player.resume()
    clock.advance(10)
    for _ in range(3):
        await asyncio.sleep(0)
    clock.advance(10)
    assert await task == [("b0", 510), ("b1", 520)]


async def test_run_calls_sync_and_async_callbacks() -> None:
    clock = VirtualClock()
    seen: list[tuple[str, float]] = []

    async def record(beat: Beat) -> None:
        seen.append((beat.kind, clock.now_ms()))

    assert await Player(beats(0, 5), clock=clock).run(record) == 2
    assert await Player(beats(1), clock=clock).run(lambda b: seen.append((b.kind, -1))) == 1
    assert seen == [("b0", 0), ("b1", 5), ("b0", -1)]


async def test_a_player_plays_once() -> None:
    player = Player(beats(0), clock=VirtualClock())
    assert [b async for b in player] == beats(0)
    with pytest.raises(RuntimeError, match="plays once"):
        [b async for b in player]


def test_scheduled_ms_needs_a_started_schedule() -> None:
    with pytest.raises(RuntimeError, match="iterate the player first"):
        Player(beats(0)).scheduled_ms(0)


def test_sync_iteration_keeps_the_same_schedule() -> None:
    clock = VirtualClock(start_ms=7)
    cues = list(iter_cues_sync(beats(0, 100, 100, 300), clock=clock, speed=0.1))
    assert [(c.beat.kind, c.scheduled_ms) for c in cues] == [
        ("b0", 7), ("b1", pytest.approx(17)), ("b2", pytest.approx(17)), ("b3", pytest.approx(37))]
    assert all(isinstance(c, Cue) and c.late_ms == 0 for c in cues)
    assert [b.kind for b in iter_sync(Timeline(tuple(beats(0, 1))), clock=VirtualClock())] == [
        "b0", "b1"]


@settings(max_examples=60, deadline=None)
@given(times=st.lists(st.integers(0, 100_000), max_size=40),
       speed=st.floats(min_value=-1, max_value=50, allow_nan=False),
       start=st.integers(0, 10**9))
def test_any_sorted_timeline_fires_in_order_at_exact_times(times: list[int], speed: float,
                                                          start: int) -> None:
    ordered = [Beat(t, f"b{i}") for i, t in enumerate(sorted(times))]
    used = clamp_speed(speed)

    async def play() -> list[tuple[str, float]]:
        clock = VirtualClock(start_ms=start)
        return [(b.kind, clock.now_ms()) async for b in Player(ordered, clock=clock, speed=speed)]

    fired = asyncio.run(play())
    assert [k for k, _ in fired] == [b.kind for b in ordered]
    assert [t for _, t in fired] == [start + b.at_ms * used for b in ordered]
