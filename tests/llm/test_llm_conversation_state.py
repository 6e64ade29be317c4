"""Issue 16 items 3, 4 and 9 with the real clients that showed them.

- one call per answer: ``parallel_tool_calls: false`` (the OpenAI Agents SDK with
  ``ModelSettings(parallel_tool_calls=False)``, both model classes; llama-index in
  ``test_llm_llamaindex.py``) and Anthropic's ``disable_parallel_tool_use``;
- conversations continued on the server: ``previous_response_id`` (the Agents SDK with
  ``auto_previous_response_id=True``), ``GET /v1/responses/{id}``, unknown ids answered as
  OpenAI answers them, ``store: false``;
- ids unique per conversation and still deterministic.
"""

from __future__ import annotations

import asyncio
from typing import Any

import anthropic
import openai
import pytest
from agents import (
    Agent,
    ModelSettings,
    OpenAIChatCompletionsModel,
    OpenAIResponsesModel,
    Runner,
    function_tool,
    set_tracing_disabled,
)
from hypothesis import given, settings
from hypothesis import strategies as st
from two_cities import PROMPT, WEATHER

from scenarist.llm.ids import TurnRef, decode_ref, encode_ref

CHAT_TOOLS: Any = [{"type": "function", "function": {
    "name": "get_weather",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}}]
ANTHROPIC_TOOLS: Any = [{"name": "get_weather", "input_schema": {
    "type": "object", "properties": {"city": {"type": "string"}}}}]


@pytest.fixture(autouse=True)
def _no_tracing() -> None:
    set_tracing_disabled(True)  # the Agents SDK would upload traces to OpenAI


@pytest.fixture
def served(serve: Any) -> Any:
    return serve([WEATHER], speed=0.01)


def _agent(model: Any, parallel: bool | None = None) -> tuple[Agent[Any], list[str]]:
    asked: list[str] = []

    @function_tool
    def get_weather(city: str) -> str:
        """The weather in a city."""
        asked.append(city)
        return f"sunny in {city}" if city == "Paris" else f"rain in {city}"

    settings = ModelSettings(parallel_tool_calls=parallel)
    return Agent(name="weather", instructions="Answer about the weather.", model=model,
                 tools=[get_weather], model_settings=settings), asked


def _client(url: str) -> openai.AsyncOpenAI:
    return openai.AsyncOpenAI(base_url=f"{url}/v1", api_key="test", max_retries=0)


def _model_requests(served: Any) -> list[dict[str, Any]]:
    return [e for e in served.journal if e.get("api")]


# ------------------------------------------------------------------ one call per answer


@pytest.mark.parametrize("model_class", [OpenAIChatCompletionsModel, OpenAIResponsesModel])
def test_agents_sdk_without_parallel_calls_gets_one_call_per_answer(
    served: Any, model_class: Any
) -> None:
    model = model_class(model="mock-model", openai_client=_client(served.url))
    agent, asked = _agent(model, parallel=False)
    result = asyncio.run(Runner.run(agent, PROMPT))
    assert result.final_output == "Paris is sunnier than London today."
    assert asked == ["Paris", "London"]
    requests = _model_requests(served)
    assert [r["status"] for r in requests] == [200, 200, 200]
    assert [r["calls"] for r in requests] == [["get_weather"], ["get_weather"], []]
    assert [r.get("part", 0) for r in requests] == [0, 1, 0]


@pytest.mark.parametrize("model_class", [OpenAIChatCompletionsModel, OpenAIResponsesModel])
def test_agents_sdk_with_parallel_calls_gets_both_in_one_answer(
    served: Any, model_class: Any
) -> None:
    model = model_class(model="mock-model", openai_client=_client(served.url))
    agent, asked = _agent(model)
    result = asyncio.run(Runner.run(agent, PROMPT))
    assert result.final_output == "Paris is sunnier than London today."
    assert sorted(asked) == ["London", "Paris"]
    assert [r["calls"] for r in _model_requests(served)] == [["get_weather", "get_weather"], []]


def test_anthropic_disable_parallel_tool_use_serves_one_call_per_answer(served: Any) -> None:
    client = anthropic.Anthropic(base_url=served.url, api_key="test", max_retries=0)
    messages: list[Any] = [{"role": "user", "content": PROMPT}]
    names: list[list[str]] = []
    for _ in range(3):
        reply = client.messages.create(
            model="mock-model", max_tokens=256, messages=messages, tools=ANTHROPIC_TOOLS,
            tool_choice={"type": "auto", "disable_parallel_tool_use": True})
        uses = [b for b in reply.content if b.type == "tool_use"]
        names.append([str(u.input["city"]) for u in uses])
        if not uses:
            break
        messages += [{"role": "assistant", "content": reply.content},
                     {"role": "user", "content": [{"type": "tool_result", "tool_use_id": u.id,
                                                   "content": "ok"} for u in uses]}]
    assert names == [["Paris"], ["London"], []]
    assert reply.content[0].type == "text"
    assert reply.content[0].text == "Paris is sunnier than London today."


# ------------------------------------------------------------------ state on the server


def test_agents_sdk_auto_previous_response_id(served: Any) -> None:
    async def run_both() -> None:  # one event loop: the client's connections live in it
        model = OpenAIResponsesModel(model="mock-model", openai_client=_client(served.url))
        for parallel in (None, False):
            agent, asked = _agent(model, parallel=parallel)
            result = await Runner.run(agent, PROMPT, auto_previous_response_id=True)
            assert result.final_output == "Paris is sunnier than London today."
            assert sorted(asked) == ["London", "Paris"]

    asyncio.run(run_both())
    requests = _model_requests(served)
    assert all(r["status"] == 200 for r in requests)
    assert len(requests) == 2 + 3  # parallel: 2 answers; one call per answer: 3
    # every request after the first of a run carried only the tool output and the id
    assert [r["user_turns"] for r in requests] == [1, 0, 1, 0, 0]


def test_previous_response_id_continues_on_any_replica(serve: Any) -> None:
    first, second = serve([WEATHER], speed=0.01), serve([WEATHER], speed=0.01)
    a = openai.OpenAI(base_url=f"{first.url}/v1", api_key="t", max_retries=0)
    b = openai.OpenAI(base_url=f"{second.url}/v1", api_key="t", max_retries=0)
    tools: Any = [{"type": "function", "name": "get_weather",
                   "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}]
    r1 = a.responses.create(model="mock-model", input=PROMPT, tools=tools)
    calls = [i for i in r1.output if i.type == "function_call"]
    assert len(calls) == 2
    r2 = b.responses.create(model="mock-model", previous_response_id=r1.id, tools=tools,
                            input=[{"type": "function_call_output", "call_id": c.call_id,
                                    "output": "ok"} for c in calls])
    assert r2.output_text == "Paris is sunnier than London today."
    # the response repeats what its request set, as OpenAI's does
    assert (r1.previous_response_id, r1.store, r1.parallel_tool_calls) == (None, True, True)
    assert r2.previous_response_id == r1.id
    # GET re-renders the stored response from its id, on either replica
    for client in (a, b):
        again = client.responses.retrieve(r1.id)
        assert again.id == r1.id
        assert [i.call_id for i in again.output if i.type == "function_call"] == [
            c.call_id for c in calls]


def test_unknown_previous_response_id_is_refused_as_openai_does(served: Any) -> None:
    client = openai.OpenAI(base_url=f"{served.url}/v1", api_key="t", max_retries=0)
    with pytest.raises(openai.BadRequestError) as bad:
        client.responses.create(model="mock-model", input="hi", previous_response_id="resp_nope")
    assert bad.value.status_code == 400
    assert bad.value.param == "previous_response_id"
    assert bad.value.code == "previous_response_not_found"
    assert "Previous response with id 'resp_nope' not found." in str(bad.value)
    with pytest.raises(openai.BadRequestError) as malformed:
        client.responses.create(model="mock-model", input="hi", previous_response_id="abc")
    assert malformed.value.param == "previous_response_id"
    assert malformed.value.code == "invalid_value"
    with pytest.raises(openai.NotFoundError) as missing:
        client.responses.retrieve("resp_nope")
    assert "Response with id 'resp_nope' not found." in str(missing.value)


def test_unstored_response_cannot_be_continued(served: Any) -> None:
    client = openai.OpenAI(base_url=f"{served.url}/v1", api_key="t", max_retries=0)
    first = client.responses.create(model="mock-model", input=PROMPT, store=False)
    assert first.store is False
    with pytest.raises(openai.BadRequestError) as bad:
        client.responses.create(model="mock-model", input="ok", previous_response_id=first.id)
    assert bad.value.code == "previous_response_not_found"
    with pytest.raises(openai.NotFoundError):
        client.responses.retrieve(first.id)


# ------------------------------------------------------------------ ids per conversation


def _first_answer(url: str, prompt: str, session: str | None = None) -> Any:
    headers = {"x-scenario-name": "two-cities"}
    if session:
        headers["x-scenario-session"] = session
    client = openai.OpenAI(base_url=f"{url}/v1", api_key="t", max_retries=0,
                           default_headers=headers)
    return client.chat.completions.create(model="mock-model", tools=CHAT_TOOLS,
                                          messages=[{"role": "user", "content": prompt}])


def test_ids_are_unique_per_conversation_and_replay_the_same(served: Any) -> None:
    one = _first_answer(served.url, PROMPT)
    again = _first_answer(served.url, PROMPT)
    other = _first_answer(served.url, "weather please")
    session = _first_answer(served.url, PROMPT, session="agent-7")

    def ids(completion: Any) -> list[str]:
        calls = completion.choices[0].message.tool_calls
        return [completion.id, *(c.id for c in calls)]

    assert ids(one) == ids(again)  # the same conversation replays with the same ids
    seen = ids(one) + ids(other) + ids(session)
    assert len(seen) == len(set(seen)) == 9  # no two conversations share an id


def test_ref_round_trips_and_rejects_foreign_tokens() -> None:
    ref = TurnRef("a scenario: ü", "0123456789abcdef", 3, 1, True, False, "gpt-x")
    assert decode_ref(encode_ref(ref)) == ref
    for token in ("", "nope", "!!!", encode_ref(ref)[:-3], "WzEsMiwzXQ"):
        assert decode_ref(token) is None


def test_previous_response_id_with_the_next_prompt_opens_the_next_user_turn(serve: Any) -> None:
    from scenarist.llm.script import ModelTurn, Script, Segment, TimedText

    two = Script(name="two-prompts", prompt="first question", segments=(
        Segment("first question", (ModelTurn(0, text=(TimedText(0, "first answer"),)),)),
        Segment("second question", (ModelTurn(1, text=(TimedText(0, "second answer"),)),)),
    ))
    served = serve([two], speed=0.01)
    client = openai.OpenAI(base_url=f"{served.url}/v1", api_key="t", max_retries=0)
    first = client.responses.create(model="mock-model", input="first question")
    second = client.responses.create(model="mock-model", input="second question",
                                     previous_response_id=first.id)
    assert (first.output_text, second.output_text) == ("first answer", "second answer")
    with pytest.raises(openai.ConflictError, match="complete"):
        client.responses.create(model="mock-model", input="third", previous_response_id=second.id)


def test_thread_fields_are_checked_like_the_rest_of_the_body(served: Any) -> None:
    import httpx

    for body in ([], {"model": "m", "max_tokens": 8, "messages": [], "thread": "create"},
                 {"model": "m", "max_tokens": 8, "messages": [], "thread": {"type": "fork"}}):
        answer = httpx.post(f"{served.url}/v1/messages", json=body)
        assert answer.status_code == 400, answer.text
        assert answer.json()["error"]["type"] == "invalid_request_error"
    client = anthropic.Anthropic(base_url=served.url, api_key="t", max_retries=0)
    first = client.messages.create(model="mock-model", max_tokens=64, tools=ANTHROPIC_TOOLS,
                                   messages=[{"role": "user", "content": PROMPT}],
                                   extra_body={"thread": {"type": "create"}})
    with pytest.raises(anthropic.BadRequestError, match="leave it out"):
        client.messages.create(
            model="mock-model", max_tokens=64, tools=ANTHROPIC_TOOLS,
            messages=[{"role": "user", "content": "more"}],
            extra_body={"thread": {"type": "continue", "previous_message_id": first.id}})


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_decode_ref_never_raises(token: str) -> None:
    ref = decode_ref(token)
    assert ref is None or decode_ref(encode_ref(ref)) == ref


@pytest.mark.parametrize("model_class", [OpenAIChatCompletionsModel, OpenAIResponsesModel])
def test_agents_sdk_streamed_one_call_per_answer_and_previous_response_id(
    served: Any, model_class: Any
) -> None:
    async def run() -> Any:
        model = model_class(model="mock-model", openai_client=_client(served.url))
        agent, asked = _agent(model, parallel=False)
        chained = model_class is OpenAIResponsesModel
        result = Runner.run_streamed(agent, PROMPT, auto_previous_response_id=chained)
        async for _event in result.stream_events():
            pass
        return result.final_output, asked

    final, asked = asyncio.run(run())
    assert (final, asked) == ("Paris is sunnier than London today.", ["Paris", "London"])
    requests = _model_requests(served)
    assert [(r["status"], r["stream"], r.get("part", 0)) for r in requests] == [
        (200, True, 0), (200, True, 1), (200, True, 0)]


def test_anthropic_python_tool_runner_continues_its_thread(served: Any) -> None:
    from anthropic import beta_tool

    asked: list[str] = []

    @beta_tool
    def get_weather(city: str) -> str:
        """The weather in a city.

        Args:
            city: the city
        """
        asked.append(city)
        return f"weather in {city}"

    client = anthropic.Anthropic(base_url=served.url, api_key="t", max_retries=0)
    runner = client.beta.messages.tool_runner(
        model="mock-model", max_tokens=256, tools=[get_weather],
        messages=[{"role": "user", "content": PROMPT}])
    final = runner.until_done()
    assert [b.text for b in final.content if b.type == "text"] == [
        "Paris is sunnier than London today."]
    assert asked == ["Paris", "London"]
    requests = [e for e in served.journal if e.get("api") == "messages"]
    assert [r["status"] for r in requests] == [200, 200]
    assert "continues" not in requests[0]
    assert requests[1]["continues"].startswith("msg_")  # a thread continue: results only
    assert (requests[1]["user_turns"], requests[1]["tool_results"]) == (0, 2)


def test_a_streamed_response_repeats_its_requests_parallel_tool_calls(served: Any) -> None:
    client = openai.OpenAI(base_url=f"{served.url}/v1", api_key="t", max_retries=0)
    tools: Any = [{"type": "function", "name": "get_weather",
                   "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}]
    with client.responses.stream(model="mock-model", input=PROMPT, tools=tools,
                                 parallel_tool_calls=False) as stream:
        created = next(e for e in stream if e.type == "response.created")
        final = stream.get_final_response()
    assert created.response.parallel_tool_calls is False
    assert final.parallel_tool_calls is False
    assert len([i for i in final.output if i.type == "function_call"]) == 1
