"""The official openai and anthropic SDKs parse what the mock model server sends."""

from __future__ import annotations

import json
from typing import Any

import anthropic
import openai
import pytest

from scenarist.llm.script import ModelTurn, Script, Segment, TimedText, ToolAction

PROMPT = "what is the weather in Paris"
WEATHER = Script(
    name="weather",
    prompt=PROMPT,
    api_style="anthropic",  # shows thinking when asked (the openai style never does)
    segments=(
        Segment(
            PROMPT,
            (
                ModelTurn(
                    0,
                    thinking=(TimedText(5, "The user wants the weather; I will call the tool."),),
                    text=(TimedText(10, "Let me check the weather for you."),),
                    actions=(ToolAction("get_weather", {"city": "Paris"}),),
                    duration_ms=10,
                ),
                ModelTurn(1, text=(TimedText(5, "It is sunny in Paris, 21 degrees."),), duration_ms=5),
            ),
        ),
    ),
)
CHAT_TOOLS: Any = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
        },
    }
]
RESPONSES_TOOLS: Any = [
    {
        "type": "function",
        "name": "get_weather",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
    }
]
ANTHROPIC_TOOLS: Any = [
    {
        "name": "get_weather",
        "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}},
    }
]


@pytest.fixture
def url(serve: Any) -> str:
    served = serve([WEATHER], speed=0.01)
    return str(served.url)


def _oa(url: str) -> openai.OpenAI:
    return openai.OpenAI(base_url=f"{url}/v1", api_key="sk-test", max_retries=0)


def _an(url: str) -> anthropic.Anthropic:
    return anthropic.Anthropic(base_url=url, api_key="sk-test", max_retries=0)


def _chat_followup(call_id: str) -> list[Any]:
    return [
        {"role": "user", "content": PROMPT},
        {
            "role": "assistant",
            "content": "Let me check the weather for you.",
            "tool_calls": [
                {
                    "id": call_id,
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city":"Paris"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": call_id, "content": "sunny, 21"},
    ]


def test_chat_create_tool_call_then_answer(url: str) -> None:
    client = _oa(url)
    first = client.chat.completions.create(
        model="mock-model", messages=[{"role": "user", "content": PROMPT}], tools=CHAT_TOOLS
    )
    choice = first.choices[0]
    assert choice.finish_reason == "tool_calls"
    assert choice.message.content == "Let me check the weather for you."
    call = choice.message.tool_calls[0]  # type: ignore[index]
    assert call.function.name == "get_weather"  # type: ignore[union-attr]
    assert json.loads(call.function.arguments) == {"city": "Paris"}  # type: ignore[union-attr]
    assert first.usage is not None and first.usage.completion_tokens > 0
    second = client.chat.completions.create(
        model="mock-model", messages=_chat_followup(call.id), tools=CHAT_TOOLS
    )
    assert second.choices[0].finish_reason == "stop"
    assert second.choices[0].message.content == "It is sunny in Paris, 21 degrees."


def test_chat_stream_true_with_usage(url: str) -> None:
    chunks = list(
        _oa(url).chat.completions.create(
            model="mock-model",
            messages=[{"role": "user", "content": PROMPT}],
            tools=CHAT_TOOLS,
            stream=True,
            stream_options={"include_usage": True},
        )
    )
    assert len({c.id for c in chunks}) == 1
    assert chunks[0].choices[0].delta.role == "assistant"
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text == "Let me check the weather for you."
    args = "".join(
        tc.function.arguments or ""
        for c in chunks
        if c.choices
        for tc in (c.choices[0].delta.tool_calls or [])
        if tc.function
    )
    assert json.loads(args) == {"city": "Paris"}
    finishes = [c.choices[0].finish_reason for c in chunks if c.choices]
    assert finishes[-1] == "tool_calls"
    assert chunks[-1].choices == [] and chunks[-1].usage is not None


def test_chat_stream_helper(url: str) -> None:
    with _oa(url).chat.completions.stream(
        model="mock-model", messages=_chat_followup("call_x"), tools=CHAT_TOOLS
    ) as stream:
        final = stream.get_final_completion()
    assert final.choices[0].message.content == "It is sunny in Paris, 21 degrees."
    assert final.choices[0].finish_reason == "stop"


def test_responses_create_stream_and_helper(url: str) -> None:
    client = _oa(url)
    first = client.responses.create(
        model="mock-model", input=PROMPT, tools=RESPONSES_TOOLS, reasoning={"summary": "auto"}
    )
    kinds = [item.type for item in first.output]
    assert kinds == ["reasoning", "message", "function_call"]
    reasoning = first.output[0]
    assert reasoning.type == "reasoning" and reasoning.encrypted_content is None
    assert [s.text for s in reasoning.summary] == [
        "The user wants the weather; I will call the tool."
    ]
    call = first.output[2]
    assert call.type == "function_call" and call.name == "get_weather"
    assert json.loads(call.arguments) == {"city": "Paris"}
    assert first.output_text == "Let me check the weather for you."
    assert first.usage is not None and first.usage.output_tokens > 0
    events = list(
        client.responses.create(
            model="mock-model", input=PROMPT, tools=RESPONSES_TOOLS, stream=True
        )
    )
    types = [e.type for e in events]
    assert types[:2] == ["response.created", "response.in_progress"]
    assert "response.content_part.added" in types
    assert "response.function_call_arguments.delta" in types
    assert types[-1] == "response.completed"
    followup: Any = [
        {"role": "user", "content": PROMPT},
        {
            "type": "function_call",
            "call_id": call.call_id,
            "name": "get_weather",
            "arguments": call.arguments,
        },
        {"type": "function_call_output", "call_id": call.call_id, "output": "sunny, 21"},
    ]
    with client.responses.stream(
        model="mock-model", input=followup, tools=RESPONSES_TOOLS
    ) as stream:
        final = stream.get_final_response()
    assert final.output_text == "It is sunny in Paris, 21 degrees."


def test_anthropic_create_stream_helper_thinking_tool_use(url: str) -> None:
    client = _an(url)
    msg = client.messages.create(
        model="mock-model",
        max_tokens=2048,
        tools=ANTHROPIC_TOOLS,
        thinking={"type": "enabled", "budget_tokens": 1024},
        messages=[{"role": "user", "content": PROMPT}],
    )
    assert [b.type for b in msg.content] == ["thinking", "text", "tool_use"]
    assert msg.stop_reason == "tool_use"
    tool = msg.content[2]
    assert tool.type == "tool_use" and tool.input == {"city": "Paris"}
    assert msg.content[0].type == "thinking" and msg.content[0].signature
    assert msg.usage.output_tokens > 0
    events = list(
        client.messages.create(
            model="mock-model",
            max_tokens=2048,
            stream=True,
            tools=ANTHROPIC_TOOLS,
            thinking={"type": "adaptive"},
            messages=[{"role": "user", "content": PROMPT}],
        )
    )
    types = [e.type for e in events]
    assert types[0] == "message_start" and types[-1] == "message_stop"
    deltas = {e.delta.type for e in events if e.type == "content_block_delta"}
    assert {"thinking_delta", "signature_delta", "text_delta", "input_json_delta"} <= deltas
    stop = next(e for e in events if e.type == "message_delta")
    assert stop.delta.stop_reason == "tool_use" and stop.usage.output_tokens > 0
    history: Any = [
        {"role": "user", "content": PROMPT},
        {
            "role": "assistant",
            "content": [
                {"type": "tool_use", "id": tool.id, "name": "get_weather", "input": tool.input}
            ],
        },
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": tool.id, "content": "sunny, 21"}],
        },
    ]
    with client.messages.stream(
        model="mock-model", max_tokens=1024, tools=ANTHROPIC_TOOLS, messages=history
    ) as stream:
        final = stream.get_final_message()
    assert final.stop_reason == "end_turn"
    assert final.content[-1].type == "text"
    assert final.content[-1].text == "It is sunny in Paris, 21 degrees."


def test_anthropic_count_tokens(url: str) -> None:
    count = _an(url).messages.count_tokens(
        model="mock-model", messages=[{"role": "user", "content": PROMPT}]
    )
    assert count.input_tokens > 0
