"""The fake model's delays are kept on one absolute schedule per call (scenarist.play)."""

from __future__ import annotations

import asyncio

from scenarist.fake import FakeModel, delay, text
from scenarist.play import VirtualClock

SCRIPT = [delay(100), text("a"), delay(50), text("b"), delay(25), text("c")]


def test_delays_set_the_times_of_the_events_after_them() -> None:
    clock = VirtualClock()
    model = FakeModel(script=SCRIPT, clock=clock)
    times = [(e.type, getattr(e, "delta", None), clock.now_ms()) for e in model.stream()]
    assert times[:4] == [("message_started", None, 100.0), ("text_delta", "a", 100.0),
                         ("text_delta", "b", 150.0), ("text_delta", "c", 175.0)]


def test_a_slow_consumer_does_not_shift_the_events_after_it() -> None:
    """Absolute deadlines, not a chain of sleeps: time the consumer spends is absorbed."""
    clock = VirtualClock()
    seen = []
    for event in FakeModel(script=SCRIPT, clock=clock).stream():
        seen.append((getattr(event, "delta", None), clock.now_ms()))
        if getattr(event, "delta", None) == "a":
            clock.advance(60)  # busy for 60 ms: "b" (due at 150) is late, "c" is not
    assert seen[1:4] == [("a", 100.0), ("b", 160.0), ("c", 175.0)]


def test_the_schedule_starts_when_the_first_event_is_asked_for() -> None:
    clock = VirtualClock()
    stream = FakeModel(script=SCRIPT, clock=clock).stream()
    clock.advance(1000)  # a lazy stream: nothing has started yet
    next(stream)
    assert clock.now_ms() == 1100.0


def test_async_streams_and_generate_keep_the_same_schedule() -> None:
    async def run() -> tuple[list[float], float]:
        clock = VirtualClock()
        model = FakeModel(scripts=[SCRIPT, SCRIPT], clock=clock)
        times = []
        async for event in model.astream():
            times.append(clock.now_ms())
            if getattr(event, "delta", None) == "a":
                await asyncio.sleep(0)
                clock.advance(60)
        start = clock.now_ms()
        answer = await model.agenerate()
        assert answer.output_text == "abc"
        return times[1:4], clock.now_ms() - start

    times, generate_ms = asyncio.run(run())
    assert times == [100.0, 160.0, 175.0]
    assert generate_ms == 175.0


def test_generate_waits_for_the_whole_script() -> None:
    clock = VirtualClock()
    assert FakeModel(script=SCRIPT, clock=clock).generate().output_text == "abc"
    assert clock.now_ms() == 175.0
