"""The official SDKs parse every shape the encoders emit (through the in-process transport)."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

import anthropic
import openai
import pytest
from wire_turns import TURNS

from scenarist.fake.http import http_module, transport
from scenarist.wire import Error, Finish, MessageStart, TextDelta, WireApi, WireEvent


def _source(events: list[WireEvent], seen: list[tuple[WireApi, dict[str, Any]]] | None = None) -> Any:
    def source(api: WireApi, body: dict[str, Any]) -> Iterable[WireEvent]:
        if seen is not None:
            seen.append((api, body))
        return iter(events)

    return source


def oai(turn: str, seen: list[tuple[WireApi, dict[str, Any]]] | None = None) -> openai.OpenAI:
    mod = http_module("openai")
    client = mod.Client(transport=transport(_source(TURNS[turn], seen), module=mod))
    return openai.OpenAI(api_key="sk-test", base_url="http://x/v1", http_client=client,
                         max_retries=0)


def ant(turn: str | list[WireEvent]) -> anthropic.Anthropic:
    mod = http_module("anthropic")
    events = TURNS[turn] if isinstance(turn, str) else turn
    client = mod.Client(transport=transport(_source(events), module=mod))
    return anthropic.Anthropic(api_key="sk-test", base_url="http://x", http_client=client,
                               max_retries=0)


MSG = [{"role": "user", "content": "hi"}]


# --- Chat Completions --------------------------------------------------------------------------


def test_chat_create_text_and_usage() -> None:
    r = oai("text").chat.completions.create(model="m", messages=MSG)  # type: ignore[arg-type]
    assert r.id == "chatcmpl-t1" and r.object == "chat.completion"
    assert r.choices[0].message.content == "Hello wörld"
    assert r.choices[0].finish_reason == "stop"
    assert r.usage is not None and (r.usage.prompt_tokens, r.usage.completion_tokens) == (9, 3)


def test_chat_stream_true_tool_calls_and_usage_chunk() -> None:
    seen: list[tuple[WireApi, dict[str, Any]]] = []
    chunks = list(oai("tools", seen).chat.completions.create(
        model="m", messages=MSG, stream=True, stream_options={"include_usage": True}))  # type: ignore[arg-type]
    assert seen[0][0] == "openai_chat" and seen[0][1]["stream"] is True
    assert {c.id for c in chunks} == {"chatcmpl-t2"}
    assert chunks[0].choices[0].delta.role == "assistant"
    calls = [tc for c in chunks if c.choices for tc in (c.choices[0].delta.tool_calls or [])]
    assert [(tc.index, tc.id) for tc in calls if tc.id] == [(0, "call_a"), (1, "call_b")]
    args = "".join(tc.function.arguments or "" for tc in calls if tc.index == 0 and tc.function)
    assert json.loads(args) == {"city": "Paris"}
    assert [c.choices[0].finish_reason for c in chunks if c.choices][-1] == "tool_calls"
    assert chunks[-1].choices == [] and chunks[-1].usage is not None
    assert chunks[-1].usage.prompt_tokens_details is not None
    assert chunks[-1].usage.prompt_tokens_details.cached_tokens == 4


def test_chat_stream_without_include_usage_has_no_usage_chunk() -> None:
    chunks = list(oai("text").chat.completions.create(model="m", messages=MSG, stream=True))  # type: ignore[arg-type]
    assert all(c.choices for c in chunks)
    assert "".join(c.choices[0].delta.content or "" for c in chunks) == "Hello wörld"


def test_chat_stream_helper_accumulates_tool_calls() -> None:
    with oai("tools").chat.completions.stream(model="m", messages=MSG) as stream:  # type: ignore[arg-type]
        kinds = {e.type for e in stream}
        final = stream.get_final_completion()
    assert "tool_calls.function.arguments.done" in kinds
    calls = final.choices[0].message.tool_calls or []
    assert [(c.id, c.function.name, json.loads(c.function.arguments)) for c in calls] == [
        ("call_a", "get_weather", {"city": "Paris"}), ("call_b", "exec_command", {"cmd": "ls"})]
    assert final.choices[0].message.content == "Let me look."


def test_chat_custom_tool_call_arrives_as_input_json() -> None:
    with oai("custom").chat.completions.stream(model="m", messages=MSG) as stream:  # type: ignore[arg-type]
        final = stream.get_final_completion()
    (call,) = final.choices[0].message.tool_calls or []
    assert json.loads(call.function.arguments)["input"].startswith("*** Begin Patch\n")


def test_chat_mid_stream_error_raises_api_error() -> None:
    stream = oai("error").chat.completions.create(model="m", messages=MSG, stream=True)  # type: ignore[arg-type]
    with pytest.raises(openai.APIError, match="overloaded"):
        list(stream)


def test_chat_leading_error_is_http_status_with_openai_body() -> None:
    mod = http_module("openai")
    events: list[WireEvent] = [MessageStart(), Error("slow down", status=429)]
    client = openai.OpenAI(api_key="k", base_url="http://x/v1", max_retries=0,
                           http_client=mod.Client(transport=transport(_source(events), module=mod)))
    with pytest.raises(openai.RateLimitError) as info:
        client.chat.completions.create(model="m", messages=MSG, stream=True)  # type: ignore[arg-type]
    assert info.value.status_code == 429
    assert info.value.body == {"message": "slow down", "type": "requests", "param": None,
                               "code": "rate_limit_exceeded"}


# --- Responses ---------------------------------------------------------------------------------


def test_responses_create_function_calls() -> None:
    r = oai("tools").responses.create(model="m", input="hi")
    assert [o.type for o in r.output] == ["message", "function_call", "function_call"]
    assert r.output_text == "Let me look."
    assert r.usage is not None and r.usage.input_tokens_details.cached_tokens == 4


def test_responses_stream_true_sequence_numbers_and_event_set() -> None:
    events = list(oai("tools").responses.create(model="m", input="hi", stream=True))
    assert [e.sequence_number for e in events] == list(range(len(events)))
    types = [e.type for e in events]
    assert types[:2] == ["response.created", "response.in_progress"]
    assert types[-1] == "response.completed"
    for needed in ("response.output_item.added", "response.content_part.added",
                   "response.output_text.delta", "response.output_text.done",
                   "response.content_part.done", "response.function_call_arguments.delta",
                   "response.function_call_arguments.done", "response.output_item.done"):
        assert needed in types


def test_responses_stream_helper_custom_tool_call() -> None:
    with oai("custom").responses.stream(model="m", input="patch it") as stream:
        types = [e.type for e in stream]
        final = stream.get_final_response()
    assert "response.custom_tool_call_input.delta" in types
    assert "response.custom_tool_call_input.done" in types
    (item,) = final.output
    assert item.type == "custom_tool_call" and item.name == "apply_patch"
    assert item.input == '*** Begin Patch\n*** Add File: hi.txt\n+say "hi"\n*** End Patch\n'


def test_responses_stream_helper_reasoning_then_text() -> None:
    with oai("reasoning").responses.stream(model="m", input="q") as stream:
        deltas = [e.delta for e in stream if e.type == "response.reasoning_summary_text.delta"]
        final = stream.get_final_response()
    assert deltas == ["Think ", "hard."]
    assert final.output[0].type == "reasoning"
    assert final.output[0].summary[0].text == "Think hard."
    assert final.output[0].encrypted_content == "c2ln"
    assert final.output_text == "42"
    assert final.usage is not None and final.usage.output_tokens_details.reasoning_tokens == 5


def test_responses_length_is_incomplete() -> None:
    events = list(oai("length").responses.create(model="m", input="q", stream=True))
    assert events[-1].type == "response.incomplete"
    assert events[-1].response.incomplete_details is not None
    assert events[-1].response.incomplete_details.reason == "max_output_tokens"


def test_responses_mid_stream_error_is_response_failed() -> None:
    events = list(oai("error").responses.create(model="m", input="q", stream=True))
    assert events[-1].type == "response.failed"
    assert events[-1].response.error is not None
    assert events[-1].response.error.message == "the model is overloaded"


# --- Anthropic Messages ------------------------------------------------------------------------


def test_anthropic_create_tool_use() -> None:
    m = ant("tools").messages.create(model="c", max_tokens=50, messages=MSG)  # type: ignore[arg-type]
    assert m.stop_reason == "tool_use"
    assert [b.type for b in m.content] == ["text", "tool_use", "tool_use"]
    assert m.content[1].input == {"city": "Paris"}  # type: ignore[union-attr]
    assert (m.usage.input_tokens, m.usage.output_tokens, m.usage.cache_read_input_tokens) == (
        12, 20, 4)


def test_anthropic_stream_true_event_sequence() -> None:
    events = list(ant("text").messages.create(model="c", max_tokens=5, messages=MSG,  # type: ignore[arg-type]
                                               stream=True))
    assert [e.type for e in events] == [
        "message_start", "content_block_start", "content_block_delta", "content_block_delta",
        "content_block_stop", "message_delta", "message_stop"]
    assert events[0].message.usage.input_tokens == 9  # type: ignore[union-attr]
    assert events[-2].usage.output_tokens == 3  # type: ignore[union-attr]


def test_anthropic_stream_helper_thinking_and_text() -> None:
    with ant("reasoning").messages.stream(model="c", max_tokens=5, messages=MSG) as stream:  # type: ignore[arg-type]
        text = "".join(stream.text_stream)
        final = stream.get_final_message()
    assert text == "42"
    thinking = final.content[0]
    assert thinking.type == "thinking"
    assert (thinking.thinking, thinking.signature) == ("Think hard.", "c2ln")
    assert final.stop_reason == "end_turn"


def test_anthropic_stream_helper_tool_use_input_json() -> None:
    with ant("tools").messages.stream(model="c", max_tokens=5, messages=MSG) as stream:  # type: ignore[arg-type]
        final = stream.get_final_message()
    tools = [b for b in final.content if b.type == "tool_use"]
    assert [(b.id, b.name, b.input) for b in tools] == [
        ("call_a", "get_weather", {"city": "Paris"}), ("call_b", "exec_command", {"cmd": "ls"})]
    assert final.stop_reason == "tool_use"


def test_anthropic_length_is_max_tokens() -> None:
    m = ant("length").messages.create(model="c", max_tokens=5, messages=MSG)  # type: ignore[arg-type]
    assert m.stop_reason == "max_tokens"


def test_anthropic_mid_stream_error_raises() -> None:
    with pytest.raises(anthropic.APIStatusError, match="overloaded"):  # noqa: SIM117
        with ant("error").messages.stream(model="c", max_tokens=5, messages=MSG) as stream:  # type: ignore[arg-type]
            list(stream)


def test_anthropic_leading_error_status_and_body() -> None:
    client = ant([Error("too many", status=429)])
    with pytest.raises(anthropic.RateLimitError) as info:
        client.messages.create(model="c", max_tokens=5, messages=MSG)  # type: ignore[arg-type]
    assert info.value.body == {"type": "error",
                               "error": {"type": "rate_limit_error", "message": "too many"}}


# --- async clients -----------------------------------------------------------------------------


async def test_async_clients_stream_every_api() -> None:
    events: list[WireEvent] = [MessageStart("a1"), TextDelta("async "), TextDelta("ok"),
                           Finish()]
    omod, amod = http_module("openai"), http_module("anthropic")
    oc = openai.AsyncOpenAI(api_key="k", base_url="http://x/v1", http_client=omod.AsyncClient(
        transport=transport(_source(events), asynchronous=True, module=omod)))
    ac = anthropic.AsyncAnthropic(api_key="k", base_url="http://x", http_client=amod.AsyncClient(
        transport=transport(_source(events), asynchronous=True, module=amod)))
    chat = await oc.chat.completions.create(model="m", messages=MSG, stream=True)  # type: ignore[arg-type]
    assert "".join([c.choices[0].delta.content or "" async for c in chat]) == "async ok"
    async with oc.responses.stream(model="m", input="q") as rs:
        async for _ in rs:
            pass
        assert (await rs.get_final_response()).output_text == "async ok"
    async with ac.messages.stream(model="c", max_tokens=5, messages=MSG) as ms:  # type: ignore[arg-type]
        assert "".join([t async for t in ms.text_stream]) == "async ok"


def test_bad_json_and_unknown_route_answer_in_api_format() -> None:
    import httpx

    t = transport(_source(TURNS["text"]))
    with httpx.Client(transport=t, base_url="http://x") as client:
        bad = client.post("/v1/chat/completions", content=b"{nope")
        assert bad.status_code == 400 and bad.json()["error"]["type"] == "invalid_request_error"
        nope = client.get("/v1/models")
        assert nope.status_code == 404 and "no route" in nope.json()["error"]["message"]
        ant_bad = client.post("/v1/messages", content=b"[]")
        assert ant_bad.status_code == 400 and ant_bad.json()["type"] == "error"


# --- Gemini (google-genai) ---------------------------------------------------------------------


def gem(turn: str | list[WireEvent]) -> Any:
    """The official google-genai client, answered by the encoders through the transport."""
    import httpx
    from google import genai
    from google.genai import types

    events = TURNS[turn] if isinstance(turn, str) else turn

    def source(api: WireApi, body: dict[str, Any], target: Any = None) -> Iterable[WireEvent]:
        return iter(events)

    options = types.HttpOptions(base_url="http://x", httpx_client=httpx.Client(
        transport=transport(source)))
    return genai.Client(api_key="test", http_options=options)


@pytest.mark.parametrize("stream", [False, True], ids=["generate", "stream"])
def test_gemini_parses_every_turn_shape(stream: bool) -> None:
    def parts(turn: str) -> list[Any]:
        client = gem(turn)
        if not stream:
            reply = client.models.generate_content(model="g", contents="hi")
            return [*reply.candidates[0].content.parts, reply]
        chunks = list(client.models.generate_content_stream(model="g", contents="hi"))
        return [p for c in chunks for p in c.candidates[0].content.parts or []] + [chunks[-1]]

    *text, last = parts("text")
    assert "".join(p.text or "" for p in text) == "Hello wörld"
    assert last.usage_metadata.prompt_token_count == 9 and last.model_version == "mock-model"
    *tools, last = parts("tools")
    calls = [p.function_call for p in tools if p.function_call]
    assert [(c.id, c.name, c.args) for c in calls] == [
        ("call_a", "get_weather", {"city": "Paris"}), ("call_b", "exec_command", {"cmd": "ls"})]
    assert last.candidates[0].finish_reason == "STOP"
    *custom, _ = parts("custom")
    assert next(p.function_call for p in custom if p.function_call).args == {
        "input": '*** Begin Patch\n*** Add File: hi.txt\n+say "hi"\n*** End Patch\n'}
    *reasoning, _ = parts("reasoning")
    assert "".join(p.text for p in reasoning if p.thought) == "Think hard."
    answer = next(p for p in reasoning if not p.thought)
    assert (answer.text, answer.thought_signature) == ("42", b"c2ln")  # sent as base64
    *_, last = parts("length")
    assert last.candidates[0].finish_reason == "MAX_TOKENS"


def test_gemini_leading_error_is_googles_envelope() -> None:
    from google.genai import errors

    with pytest.raises(errors.ClientError) as info:
        gem([Error("too many", status=429)]).models.generate_content(model="g", contents="hi")
    assert (info.value.code, info.value.status, info.value.message) == (
        429, "RESOURCE_EXHAUSTED", "too many")


def test_gemini_mid_stream_error_raises_the_sdks_server_error() -> None:
    from google.genai import errors

    texts: list[str] = []
    with pytest.raises(errors.ServerError) as info:
        for chunk in gem("error").models.generate_content_stream(model="g", contents="hi"):
            texts.append(chunk.text or "")
    assert texts == ["partial"] and (info.value.code, info.value.status) == (529, "UNAVAILABLE")
