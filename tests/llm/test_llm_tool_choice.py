"""``tool_choice`` in all three APIs, through the official openai and anthropic SDKs: a forced
tool carries the scenario's call (renamed to it) when its schema fits, ``none`` gets the
turn's text and no calls, ``required``/``any`` must call a tool, and the refusals are the
APIs' own 400s."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anthropic
import openai
import pytest

from scenarist.llm.cli import load_scripts
from scenarist.llm.tool_choice import AUTO, ToolChoice, read_tool_choice

SCENARIOS = Path(__file__).resolve().parent / "client_scenarios"
WEATHER = "What is the weather in Paris?"
CITY = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
ZIP = {"type": "object", "properties": {"zip": {"type": "string"}}, "required": ["zip"]}


@pytest.fixture
def srv(serve: Any) -> Any:
    return serve(load_scripts([str(SCENARIOS / "weather.yaml")], []), speed=0.01)


def _responses(srv: Any, choice: Any, tools: dict[str, Any], input: Any = WEATHER) -> Any:
    client = openai.OpenAI(base_url=srv.url + "/v1", api_key="x", max_retries=0)
    declared: Any = [{"type": "function", "name": n, "parameters": p} for n, p in tools.items()]
    return client.responses.create(model="m", input=input, tools=declared, tool_choice=choice)


def _chat(srv: Any, choice: Any, tools: dict[str, Any], messages: Any = None) -> Any:
    client = openai.OpenAI(base_url=srv.url + "/v1", api_key="x", max_retries=0)
    declared: Any = [{"type": "function", "function": {"name": n, "parameters": p}}
                     for n, p in tools.items()]
    return client.chat.completions.create(
        model="m", messages=messages or [{"role": "user", "content": WEATHER}],
        tools=declared, tool_choice=choice)


def _messages(srv: Any, choice: Any, tools: dict[str, Any]) -> Any:
    client = anthropic.Anthropic(base_url=srv.url, api_key="x", max_retries=0)
    declared: Any = [{"name": n, "input_schema": p} for n, p in tools.items()]
    return client.messages.create(model="m", max_tokens=100, tools=declared, tool_choice=choice,
                                  messages=[{"role": "user", "content": WEATHER}])


def _calls(api: str, answer: Any) -> list[tuple[str, dict[str, Any]]]:
    if api == "responses":
        return [(o.name, json.loads(o.arguments)) for o in answer.output
                if o.type == "function_call"]
    if api == "chat":
        calls = answer.choices[0].message.tool_calls or []
        return [(c.function.name, json.loads(c.function.arguments)) for c in calls]
    return [(b.name, b.input) for b in answer.content if b.type == "tool_use"]


def _text(api: str, answer: Any) -> str:
    if api == "responses":
        return str(answer.output_text)
    if api == "chat":
        return str(answer.choices[0].message.content)
    return "".join(b.text for b in answer.content if b.type == "text")


FORCED = {"responses": {"type": "function", "name": "lookup"},
          "chat": {"type": "function", "function": {"name": "lookup"}},
          "messages": {"type": "tool", "name": "lookup"}}
ASK = {"responses": _responses, "chat": _chat, "messages": _messages}


@pytest.mark.parametrize("api", ["responses", "chat", "messages"])
def test_a_forced_tool_carries_the_call_under_its_name(srv: Any, api: str) -> None:
    answer = ASK[api](srv, FORCED[api], {"get_weather": CITY, "lookup": CITY})
    assert _calls(api, answer) == [("lookup", {"city": "Paris"})]
    (entry,) = [e for e in srv.journal if e["path"].startswith("/v1/")]
    assert entry["tool_choice"] == "lookup" and entry["calls"] == ["lookup"]


@pytest.mark.parametrize("api", ["responses", "chat", "messages"])
def test_tool_choice_none_gets_the_text_and_no_calls(srv: Any, api: str) -> None:
    none = {"type": "none"} if api == "messages" else "none"
    answer = ASK[api](srv, none, {"get_weather": CITY})
    assert _calls(api, answer) == []
    assert _text(api, answer) == "Let me check."


@pytest.mark.parametrize("api", ["responses", "chat", "messages"])
def test_required_and_any_call_the_turns_tool(srv: Any, api: str) -> None:
    required = {"type": "any"} if api == "messages" else "required"
    answer = ASK[api](srv, required, {"get_weather": CITY})
    assert _calls(api, answer) == [("get_weather", {"city": "Paris"})]


def test_required_on_a_turn_without_a_call_is_refused(srv: Any) -> None:
    """A real model must call a tool then; the scenario's turn has only text."""
    history = [{"role": "user", "content": WEATHER},
               {"role": "assistant", "content": None, "tool_calls": [
                   {"id": "c1", "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'}}]},
               {"role": "tool", "tool_call_id": "c1", "content": "sunny"}]
    with pytest.raises(openai.BadRequestError) as refused:
        _chat(srv, "required", {"get_weather": CITY}, history)
    assert "tool_choice is 'required'" in refused.value.message
    assert "calls none" in refused.value.message


def test_a_forced_tool_that_is_not_declared_is_the_apis_400(srv: Any) -> None:
    with pytest.raises(openai.BadRequestError) as refused:
        _responses(srv, {"type": "function", "name": "nowhere"}, {"get_weather": CITY})
    assert refused.value.body["param"] == "tool_choice"  # type: ignore[index]
    assert "'nowhere' is not among the request's tools" in refused.value.message


def test_a_forced_tool_whose_schema_cannot_carry_the_call_is_refused(srv: Any) -> None:
    with pytest.raises(anthropic.BadRequestError) as refused:
        _messages(srv, {"type": "tool", "name": "lookup"}, {"get_weather": CITY, "lookup": ZIP})
    assert "forces 'lookup', whose schema cannot carry it" in refused.value.message


def test_tool_choice_is_read_from_each_apis_spelling() -> None:
    names = frozenset({"f"})
    assert read_tool_choice("chat", None, names) is AUTO
    assert read_tool_choice("chat", "none", names) == ToolChoice("none")
    assert read_tool_choice("responses", "required", names) == ToolChoice("required")
    assert read_tool_choice("messages", {"type": "any"}, names) == ToolChoice("required")
    assert read_tool_choice("messages", {"type": "auto"}, names) == AUTO
    assert read_tool_choice("chat", {"type": "custom", "custom": {"name": "f"}},
                            names) == ToolChoice("required", "f")
    allowed = {"type": "allowed_tools", "mode": "required", "tools": []}
    assert read_tool_choice("responses", allowed, names) == ToolChoice("required")
    chat_allowed = {"type": "allowed_tools", "allowed_tools": {"mode": "auto", "tools": []}}
    assert read_tool_choice("chat", chat_allowed, names) == ToolChoice("auto")
