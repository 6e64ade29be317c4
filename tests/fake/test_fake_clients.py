"""The fake model served to the official SDKs in-process, and as an ASGI app."""

from __future__ import annotations

import json

import anthropic
import httpx
import openai
import pytest

from scenarist.fake import (
    CloseCounter,
    FakeModel,
    delay,
    error,
    finish,
    stream_error,
    text,
    tool_call,
    tool_call_delta,
    usage,
)
from scenarist.play.clock import VirtualClock

MSG = [{"role": "user", "content": "list files"}]


def agent_loop_chat(client: openai.OpenAI) -> list[str]:
    """A minimal tool loop over Chat Completions, as application code would write it."""
    messages: list[dict[str, object]] = list(MSG)
    answers = []
    for _ in range(5):
        r = client.chat.completions.create(model="gpt-x", messages=messages)  # type: ignore[arg-type]
        msg = r.choices[0].message
        if not msg.tool_calls:
            answers.append(msg.content or "")
            return answers
        messages.append(msg.model_dump(exclude_none=True))
        for call in msg.tool_calls:
            answers.append(f"{call.function.name}({call.function.arguments})")  # type: ignore[union-attr]
            messages.append({"role": "tool", "tool_call_id": call.id, "content": "a.txt"})
    raise AssertionError("loop did not end")


def test_openai_chat_tool_loop_and_recorded_requests() -> None:
    model = FakeModel(scripts=[
        [tool_call(id="call_1", name="ls", arguments={"path": "."}), usage(input_tokens=5)],
        [text("There is a.txt."), finish("stop")]])
    answers = agent_loop_chat(model.openai_client())
    assert answers == ['ls({"path": "."})', "There is a.txt."]
    assert [len(r["messages"]) for r in model.requests] == [1, 3]
    assert model.requests[1]["messages"][-1]["tool_call_id"] == "call_1"


def test_openai_chat_streamed_tool_call_deltas() -> None:
    model = FakeModel(script=[tool_call_delta(id="c1", name="get", arguments_delta='{"u":'),
                              tool_call_delta(id="c1", arguments_delta='"x"}')])
    client = model.openai_client()
    with client.chat.completions.stream(model="m", messages=MSG) as s:  # type: ignore[arg-type]
        deltas = [e.arguments_delta for e in s if e.type == "tool_calls.function.arguments.delta"]
        final = s.get_final_completion()
    assert [d for d in deltas if d] == ['{"u":', '"x"}']
    assert final.choices[0].finish_reason == "tool_calls"
    assert final.model == "m"


def test_openai_responses_custom_tool_call_for_codex_style_patch() -> None:
    patch = "*** Begin Patch\n*** Add File: a.txt\n+hi\n*** End Patch\n"
    model = FakeModel(script=[tool_call(id="call_p", name="apply_patch", raw_arguments=patch,
                                        kind="custom")])
    with model.openai_client().responses.stream(model="gpt-5.5", input="patch") as s:
        final = s.get_final_response()
    item = final.output[0]
    assert item.type == "custom_tool_call" and item.input == patch


def test_openai_responses_usage_and_text() -> None:
    model = FakeModel(script=[text("hi"), usage(input_tokens=7, output_tokens=1)])
    r = model.openai_client().responses.create(model="m", input="q")
    assert r.output_text == "hi"
    assert r.usage is not None and (r.usage.input_tokens, r.usage.output_tokens) == (7, 1)


def test_anthropic_client_create_and_stream_helper() -> None:
    model = FakeModel(scripts=[
        [text("Let me check."), tool_call(id="toolu_1", name="Bash", arguments={"command": "ls"})],
        [text("done"), usage(input_tokens=9, output_tokens=2)]])
    client = model.anthropic_client()
    m = client.messages.create(model="claude", max_tokens=100, messages=MSG)  # type: ignore[arg-type]
    assert m.stop_reason == "tool_use" and m.content[1].input == {"command": "ls"}  # type: ignore[union-attr]
    with client.messages.stream(model="claude", max_tokens=100, messages=MSG) as s:  # type: ignore[arg-type]
        assert "".join(s.text_stream) == "done"
        final = s.get_final_message()
    assert (final.usage.input_tokens, final.usage.output_tokens) == (9, 2)


async def test_async_clients() -> None:
    model = FakeModel(scripts=[[text("one")], [text("two")], [text("three")]])
    oc = model.async_openai_client()
    r = await oc.chat.completions.create(model="m", messages=MSG)  # type: ignore[arg-type]
    assert r.choices[0].message.content == "one"
    rs = await oc.responses.create(model="m", input="q", stream=True)
    assert [e.type async for e in rs][-1] == "response.completed"
    ac = model.async_anthropic_client()
    async with ac.messages.stream(model="c", max_tokens=5, messages=MSG) as s:  # type: ignore[arg-type]
        assert "".join([t async for t in s.text_stream]) == "three"


def test_retry_loop_against_transient_503s() -> None:
    model = FakeModel(script=[text("at last")], retry_until_call=3)
    client = model.openai_client(max_retries=0)
    failures = 0
    while True:
        try:
            r = client.chat.completions.create(model="m", messages=MSG)  # type: ignore[arg-type]
            break
        except openai.InternalServerError as exc:
            assert exc.status_code == 503 and exc.body["code"] == "transient_error"  # type: ignore[index]
            failures += 1
    assert failures == 2 and r.choices[0].message.content == "at last"


def test_scripted_errors_reach_the_sdk_in_its_own_format() -> None:
    model = FakeModel(scripts=[[error("rate_limited", message="slow down", status=429)],
                               [text("a"), error("overloaded", message="busy")],
                               [text("a"), stream_error("connection reset")],
                               [text("last")]])
    client = model.openai_client(max_retries=0)
    with pytest.raises(openai.RateLimitError, match="slow down"):
        client.chat.completions.create(model="m", messages=MSG, stream=True)  # type: ignore[arg-type]
    with pytest.raises(openai.APIError, match="busy"):
        list(client.chat.completions.create(model="m", messages=MSG, stream=True))  # type: ignore[arg-type]
    with pytest.raises(openai.APIConnectionError):
        list(client.chat.completions.create(model="m", messages=MSG, stream=True))  # type: ignore[arg-type]
    ant = model.anthropic_client(max_retries=0)
    assert ant.messages.create(model="c", max_tokens=5, messages=MSG).content[0].text == "last"  # type: ignore[arg-type,union-attr]
    with pytest.raises(anthropic.InternalServerError) as info:
        ant.messages.create(model="c", max_tokens=5, messages=MSG)  # type: ignore[arg-type]
    assert info.value.body["error"]["message"] == "no scripted response"  # type: ignore[index]


def test_http_stream_closed_early_runs_on_close_once() -> None:
    counter = CloseCounter()
    model = FakeModel(scripts=[[text("a"), text("b"), text("c")]] * 3, on_close=counter)
    client = model.openai_client()
    stream = client.chat.completions.create(model="m", messages=MSG, stream=True)  # type: ignore[arg-type]
    next(iter(stream))
    stream.close()
    assert counter.count == 1
    list(client.chat.completions.create(model="m", messages=MSG, stream=True))  # type: ignore[arg-type]
    assert counter.count == 2
    client.chat.completions.create(model="m", messages=MSG)  # type: ignore[arg-type]
    assert counter.count == 3


def test_delays_pace_the_http_stream_on_the_model_clock() -> None:
    clock = VirtualClock()
    model = FakeModel(script=[delay(100), text("a"), delay(400), text("b")], clock=clock)
    stamps = []
    for chunk in model.openai_client().chat.completions.create(
            model="m", messages=MSG, stream=True):  # type: ignore[arg-type]
        stamps.append((chunk.choices[0].delta.content, clock.now_ms()))
    assert stamps[1:3] == [("a", 100), ("b", 500)]


async def test_asgi_app_serves_the_same_answers() -> None:
    model = FakeModel(scripts=[[text("via asgi")], [tool_call(id="t", name="f", arguments={})]])
    transport = httpx.ASGITransport(app=model.asgi_app())
    oc = openai.AsyncOpenAI(api_key="k", base_url="http://fake/v1",
                            http_client=httpx.AsyncClient(transport=transport))
    r = await oc.chat.completions.create(model="m", messages=MSG)  # type: ignore[arg-type]
    assert r.choices[0].message.content == "via asgi"
    rs = await oc.responses.create(model="m", input="q", stream=True)
    events = [e async for e in rs]
    assert events[-1].type == "response.completed"
    assert json.loads(events[-1].response.output[0].arguments) == {}  # type: ignore[union-attr]
    async with httpx.AsyncClient(transport=transport, base_url="http://fake") as raw:
        missing = await raw.get("/v1/nothing")
    assert missing.status_code == 404
