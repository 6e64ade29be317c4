"""Every rule of the scripted fake model, in-process (no SDK)."""

from __future__ import annotations

import asyncio
import threading
import warnings
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from scenarist.fake import (
    EVENT_TYPES,
    CloseCounter,
    Cursor,
    ErrorEvent,
    FakeModel,
    FakeModelError,
    MessageCompleted,
    TextDelta,
    ToolCallCompleted,
    delay,
    error,
    error_event,
    finish,
    ok,
    preflight_error,
    raw_chunk,
    sleep,
    stream_error,
    text,
    text_delta,
    tool_call,
    tool_call_delta,
    usage,
)
from scenarist.play.clock import VirtualClock


def types(events: Any) -> list[str]:
    return [e.type for e in events]


# --- constructors and validation ---------------------------------------------------------------


def test_entry_constructors_validate_with_teaching_errors() -> None:
    with pytest.raises(ValueError, match="exactly one of arguments="):
        tool_call(id="c", name="f")
    with pytest.raises(ValueError, match="reason must be one of"):
        finish("done")
    with pytest.raises(ValueError, match="non-negative ints"):
        usage(input_tokens=-1)
    with pytest.raises(ValueError, match=">= 0"):
        delay(-5)


def test_script_validation_names_the_entry() -> None:
    with pytest.raises(ValueError, match=r"script\[1\]: 'hi' is not a script entry"):
        FakeModel(script=[text("a"), "hi"])  # type: ignore[list-item]
    with pytest.raises(ValueError, match=r"scripts\[0\]\[2\]: Text after finish\(\)"):
        FakeModel(scripts=[[text("a"), finish(), text("b")]])
    with pytest.raises(ValueError, match="preflight_error must come before any output"):
        FakeModel(script=[text("a"), preflight_error("x")])
    with pytest.raises(ValueError, match=r"scripts\[0\] must be a list"):
        FakeModel(scripts=[text("a")])  # type: ignore[list-item]


def test_mixing_script_and_scripts_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="not both"):
        FakeModel(script=[text("a")], scripts=[[text("b")]])


def test_delay_and_usage_may_follow_finish() -> None:
    model = FakeModel(script=[text("a"), finish("length"), usage(output_tokens=1), delay(0)])
    assert model.generate().finish_reason == "length"


# --- generate -----------------------------------------------------------------------------------


def test_generate_folds_text_tools_usage_and_request_id() -> None:
    model = FakeModel(request_id="req-7", script=[
        text("Hello "), text("world"), tool_call(id="c1", name="ls", arguments={"path": "."}),
        usage(input_tokens=3), usage(output_tokens=2, input_tokens=1), finish("tool_calls")])
    r = model.generate()
    assert r.output_text == "Hello world"
    assert [(c.id, c.name, c.arguments, c.raw_arguments) for c in r.tool_calls] == [
        ("c1", "ls", {"path": "."}, '{"path": "."}')]
    assert r.finish_reason == "tool_calls"
    assert r.usage == {"input_tokens": 4, "output_tokens": 2}
    assert r.request_id == "req-7"


def test_finish_is_synthesized_stop_or_tool_calls() -> None:
    assert FakeModel(script=[text("x")]).generate().finish_reason == "stop"
    assert FakeModel(script=[tool_call(id="c", name="f", arguments={})]).generate(
    ).finish_reason == "tool_calls"


def test_scripted_error_raises_from_generate() -> None:
    with pytest.raises(FakeModelError) as info:
        FakeModel(script=[text("a"), error("rate_limited", message="slow")]).generate()
    assert (info.value.reason, info.value.message, info.value.status) == (
        "rate_limited", "slow", 429)


def test_exhaustion_raises_the_canonical_error() -> None:
    model = FakeModel(scripts=[[text("one")]])
    assert model.generate().output_text == "one"
    with pytest.raises(FakeModelError) as info:
        model.generate()
    assert (info.value.reason, info.value.message) == ("no_scripted_response",
                                                       "no scripted response")
    assert info.value == FakeModelError("no_scripted_response", "no scripted response")
    with pytest.raises(FakeModelError, match="no_scripted_response"):
        FakeModel().generate()


def test_exhausted_stream_returns_one_error_event() -> None:
    counter = CloseCounter()
    model = FakeModel(scripts=[], on_close=counter)
    (event,) = list(model.stream())
    assert isinstance(event, ErrorEvent) and event.error.reason == "no_scripted_response"
    assert counter.count == 1


# --- precedence and disambiguation (the spec's table) ----------------------------------------


def test_generate_prefers_scripts_and_ignores_stream_scripts() -> None:
    model = FakeModel(scripts=[[text("g")]], stream_scripts=[[text("s")]])
    assert model.generate().output_text == "g"
    only_stream = FakeModel(stream_scripts=[[text("s")]])
    with pytest.raises(FakeModelError, match="no_scripted_response"):
        only_stream.generate()


def test_stream_prefers_stream_scripts_then_scripts_then_script() -> None:
    def streamed(model: FakeModel) -> str:
        return "".join(e.delta for e in model.stream() if isinstance(e, TextDelta))

    assert streamed(FakeModel(scripts=[[text("g")]], stream_scripts=[[text("s")]])) == "s"
    assert streamed(FakeModel(scripts=[[text("g")]])) == "g"
    assert streamed(FakeModel(script=[text("one")], stream_scripts=[[text("s")]])) == "s"
    assert streamed(FakeModel(script=[text("one")])) == "one"


def test_stream_scripts_have_their_own_cursor() -> None:
    model = FakeModel(scripts=[[text("g1")], [text("g2")]], stream_scripts=[[text("s1")]])
    assert model.generate().output_text == "g1"
    assert types(model.stream())[1] == "text_delta"
    assert (model.cursor.index, model.stream_cursor.index) == (1, 1)
    assert model.generate().output_text == "g2"


def test_harness_script_is_one_result_per_call() -> None:
    model = FakeModel(script=[ok(output_text="hi", finish_reason="stop"),
                              error("rate_limited", status=429),
                              ok({"tool_calls": [{"id": "c", "name": "f", "arguments": {"a": 1}}]})])
    assert model.generate().output_text == "hi"
    with pytest.raises(FakeModelError) as info:
        model.generate()
    assert info.value.status == 429
    assert model.generate().tool_calls[0].arguments == {"a": 1}
    with pytest.raises(FakeModelError, match="no_scripted_response"):
        model.generate()


def test_bare_error_leading_a_script_is_the_entry_form() -> None:
    model = FakeModel(script=[error("boom")])
    with pytest.raises(FakeModelError, match="boom"):
        model.generate()
    events = list(FakeModel(script=[error("boom")]).stream())
    assert types(events) == ["message_started", "error"]


def test_harness_stream_entries() -> None:
    model = FakeModel(stream_scripts=[
        [text_delta("hel"), text_delta("lo"), finish("stop")],
        [preflight_error("unauthorized", message="bad key")],
        [text_delta("a"), error_event("overloaded")],
        [text_delta("a"), stream_error("reset")],
    ])
    assert types(model.stream()) == ["message_started", "text_delta", "text_delta",
                                     "text_completed", "message_completed"]
    with pytest.raises(FakeModelError) as info:
        model.stream()  # raises synchronously: no stream opened
    assert (info.value.reason, info.value.status) == ("unauthorized", 401)
    assert types(model.stream()) == ["message_started", "text_delta", "error"]
    seen: list[str] = []
    with pytest.raises(FakeModelError, match="reset"):
        for event in model.stream():
            seen.append(event.type)
    assert seen == ["message_started", "text_delta"]


# --- event vocabulary and ordering ------------------------------------------------------------


def test_event_vocabulary_and_order() -> None:
    model = FakeModel(script=[
        text("a"), raw_chunk({"x": 1}), tool_call(id="c1", name="f", arguments={"k": "v"}),
        tool_call_delta(id="c2", name="g", arguments_delta='{"q":'),
        tool_call_delta(id="c2", arguments_delta="1}"), usage(input_tokens=2),
        finish("tool_calls")])
    events = list(model.stream())
    assert types(events) == [
        "message_started", "text_delta", "raw_chunk", "tool_call_started", "tool_call_delta",
        "tool_call_completed", "tool_call_started", "tool_call_delta", "tool_call_delta",
        "tool_call_completed", "text_completed", "message_completed"]
    assert set(types(events)) <= set(EVENT_TYPES)
    completed = [e for e in events if isinstance(e, ToolCallCompleted)]
    assert [(c.id, c.name, c.arguments) for c in completed] == [
        ("c1", "f", {"k": "v"}), ("c2", "g", {"q": 1})]
    last = events[-1]
    assert isinstance(last, MessageCompleted)
    assert (last.finish_reason, last.usage) == ("tool_calls", {"input_tokens": 2})


def test_text_completed_only_when_text_was_emitted() -> None:
    events = list(FakeModel(script=[tool_call(id="c", name="f", raw_arguments="{}")]).stream())
    assert "text_completed" not in types(events)
    assert types(events)[-1] == "message_completed"
    assert types(FakeModel(script=[]).stream()) == ["message_started", "message_completed"]


# --- laziness and delays on a virtual clock ---------------------------------------------------


def test_stream_is_lazy() -> None:
    clock = VirtualClock()
    counter = CloseCounter()
    model = FakeModel(script=[delay(100), text("a")], clock=clock, on_close=counter)
    stream = model.stream()
    assert clock.now_ms() == 0 and counter.count == 0
    assert next(stream).type == "message_started"
    assert clock.now_ms() == 100
    stream.close()


def test_delays_are_front_loaded_sync() -> None:
    clock = VirtualClock()
    model = FakeModel(script=[delay(100), text("a"), delay(250), text("b"), delay(50)],
                      clock=clock)
    stamps = [(e.type, clock.now_ms()) for e in model.stream()]
    assert stamps == [("message_started", 100), ("text_delta", 100), ("text_delta", 350),
                      ("text_completed", 400), ("message_completed", 400)]


async def test_delays_are_front_loaded_async() -> None:
    clock = VirtualClock()
    model = FakeModel(script=[delay(40), text("a"), delay(60), text("b")], clock=clock)
    stamps = [(e.type, clock.now_ms()) async for e in model.astream()]
    assert stamps[:3] == [("message_started", 40), ("text_delta", 40), ("text_delta", 100)]


def test_generate_spends_the_delays() -> None:
    clock = VirtualClock()
    FakeModel(script=[delay(30), text("a"), delay(20)], clock=clock).generate()
    assert clock.now_ms() == 50


async def test_agenerate() -> None:
    clock = VirtualClock()
    r = await FakeModel(script=[delay(30), text("a")], clock=clock).agenerate()
    assert (r.output_text, clock.now_ms()) == ("a", 30)


# --- cursors -------------------------------------------------------------------------------------


def test_models_with_equal_scripts_never_share_a_cursor() -> None:
    scripts = [[text("first")], [text("second")]]
    a, b = FakeModel(scripts=scripts), FakeModel(scripts=scripts)
    assert a.generate().output_text == "first"
    assert b.generate().output_text == "first"
    assert (a.cursor.index, b.cursor.index) == (1, 1)


def test_a_shared_cursor_is_shared_on_purpose() -> None:
    cursor = Cursor()
    scripts = [[text("first")], [text("second")]]
    a, b = FakeModel(scripts=scripts, cursor=cursor), FakeModel(scripts=scripts, cursor=cursor)
    assert a.generate().output_text == "first"
    assert b.generate().output_text == "second"
    assert cursor.index == 2


async def test_shared_cursor_under_gather_uses_each_script_once() -> None:
    cursor = Cursor()
    scripts = [[delay(10 * (i % 3)), text(str(i))] for i in range(20)]
    models = [FakeModel(scripts=scripts, cursor=cursor, clock=VirtualClock()) for _ in range(4)]

    async def one(k: int) -> str:
        return "".join([e.delta async for e in models[k % 4].astream()
                        if isinstance(e, TextDelta)])

    got = await asyncio.gather(*(one(k) for k in range(20)))
    assert sorted(got, key=int) == [str(i) for i in range(20)]
    assert cursor.index == 20


async def test_own_cursors_are_isolated_under_gather() -> None:
    scripts = [[text("a")], [text("b")]]
    models = [FakeModel(scripts=scripts) for _ in range(10)]
    outs = await asyncio.gather(*(m.agenerate() for m in models))
    assert {o.output_text for o in outs} == {"a"}


def test_shared_cursor_across_threads() -> None:
    cursor = Cursor()
    model = FakeModel(scripts=[[text(str(i))] for i in range(200)], cursor=cursor)
    with ThreadPoolExecutor(8) as pool:
        outs = list(pool.map(lambda _: model.generate().output_text, range(200)))
    assert sorted(outs, key=int) == [str(i) for i in range(200)]
    assert cursor.index == 200 and len(model.requests) == 200


def test_requests_are_recorded_not_consulted() -> None:
    model = FakeModel(scripts=[[text("x")], [text("y")], [text("z")]])
    model.generate({"messages": ["hi"]})
    model.generate(messages=["a"], temperature=0)
    list(model.stream("req", tools=[]))
    assert model.requests == [{"messages": ["hi"]}, {"messages": ["a"], "temperature": 0},
                              {"request": "req", "tools": []}]


# --- cleanup on every end -----------------------------------------------------------------------


SCRIPT = [text("a"), text("b"), text("c")]


def test_on_close_on_exhaustion_break_close_with_and_exception() -> None:
    counter = CloseCounter()
    model = FakeModel(scripts=[SCRIPT] * 6, on_close=counter)
    list(model.stream())
    assert counter.count == 1
    for _ in model.stream():
        break
    assert counter.count == 2
    stream = model.stream()
    next(stream)
    stream.close()
    stream.close()
    assert counter.count == 3
    with model.stream() as s:
        next(s)
    assert counter.count == 4
    with pytest.raises(RuntimeError):
        for _ in model.stream():
            raise RuntimeError("consumer failed")
    assert counter.count == 5
    never = model.stream()
    del never
    assert counter.count == 6


async def test_on_close_async_ends() -> None:
    counter = CloseCounter()
    model = FakeModel(scripts=[SCRIPT] * 4, on_close=counter)
    _ = [e async for e in model.astream()]
    assert counter.count == 1
    stream = model.astream()
    await stream.__anext__()
    await stream.aclose()
    await stream.aclose()
    assert counter.count == 2
    async with model.astream() as s:
        await s.__anext__()
    assert counter.count == 3
    with pytest.raises(KeyError):
        async for _ in model.astream():
            raise KeyError("consumer")
    assert counter.count == 4


async def test_on_close_on_task_cancellation() -> None:
    counter = CloseCounter()
    clock = VirtualClock(auto_advance=False)
    model = FakeModel(script=[text("a"), delay(10_000), text("b")], clock=clock,
                      on_close=counter)
    started = asyncio.Event()

    async def consume() -> None:
        async for _ in model.astream():
            started.set()

    task = asyncio.create_task(consume())
    await started.wait()
    while clock.sleepers == 0:
        await asyncio.sleep(0)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert counter.count == 1


def test_on_close_on_stream_error_and_once_per_stream_across_threads() -> None:
    counter = CloseCounter()
    model = FakeModel(scripts=[[text("a"), stream_error("reset")]] + [SCRIPT] * 50,
                      on_close=counter)
    with pytest.raises(FakeModelError):
        list(model.stream())
    assert counter.count == 1
    threads = [threading.Thread(target=lambda: list(model.stream())) for _ in range(50)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert counter.count == 51


# --- retries and deprecation ----------------------------------------------------------------------


def test_retry_until_call_fails_first_calls_transiently() -> None:
    model = FakeModel(scripts=[[text("finally")]], retry_until_call=3)
    for n in (1, 2):
        with pytest.raises(FakeModelError) as info:
            model.generate()
        assert info.value.reason == "transient_error" and info.value.status == 503
        assert f"call {n}" in info.value.message
    assert model.generate().output_text == "finally"
    assert model.cursor.index == 1 and len(model.requests) == 3
    with pytest.raises(ValueError, match="retry_until_call"):
        FakeModel(retry_until_call=0)


def test_retry_until_call_in_streams_raises_before_opening() -> None:
    model = FakeModel(script=[text("ok")], retry_until_call=2)
    with pytest.raises(FakeModelError, match="transient"):
        model.stream()
    assert types(model.stream())[-1] == "message_completed"


def test_sleep_is_a_deprecated_alias_warning_once_per_process(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from scenarist.fake import script as script_module

    monkeypatch.setattr(script_module, "_warned_sleep", False)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        first, second = sleep(5), sleep(7)
    assert [str(w.message) for w in caught] == [
        "scenarist.fake.sleep() is deprecated; use delay()"]
    assert caught[0].category is DeprecationWarning
    assert (first, second) == (delay(5), delay(7))
