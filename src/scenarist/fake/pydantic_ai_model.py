"""A pydantic-ai model driven by a :class:`~scenarist.fake.FakeModel` script (extra
``pydantic-ai``).

Built on pydantic-ai's ``FunctionModel``: the script answers both ``run`` (one
``ModelResponse``) and ``run_stream`` (text deltas and tool-call deltas), and each call's
messages and tool definitions are recorded in ``fake.requests``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, DeltaToolCalls, FunctionModel
from pydantic_ai.usage import RequestUsage

from scenarist.fake.events import ErrorEvent, TextDelta, ToolCallDelta, ToolCallStarted
from scenarist.fake.model import FakeModel, wire_usage


def _request(messages: list[ModelMessage], info: AgentInfo) -> dict[str, Any]:
    return {"messages": messages, "tools": [t.name for t in info.function_tools]}


def pydantic_ai_model(fake: FakeModel, *, model_name: str | None = None) -> FunctionModel:
    """A pydantic-ai model answering from ``fake``'s scripts."""

    async def function(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        r = await fake.agenerate(_request(messages, info))
        parts: list[TextPart | ToolCallPart] = []
        if r.output_text:
            parts.append(TextPart(r.output_text))
        parts += [ToolCallPart(c.name, c.raw_arguments, tool_call_id=c.id) for c in r.tool_calls]
        counts = wire_usage(r.usage)
        usage = RequestUsage(input_tokens=counts.input_tokens, output_tokens=counts.output_tokens)
        return ModelResponse(parts=parts, usage=usage, model_name=model_name or fake.model)

    async def stream(messages: list[ModelMessage], info: AgentInfo
                     ) -> AsyncIterator[str | DeltaToolCalls]:
        indexes: dict[str, int] = {}
        async with fake.astream(_request(messages, info)) as events:
            async for event in events:
                if isinstance(event, TextDelta):
                    yield event.delta
                elif isinstance(event, ToolCallStarted):
                    index = indexes.setdefault(event.id, len(indexes))
                    yield {index: DeltaToolCall(name=event.name, tool_call_id=event.id)}
                elif isinstance(event, ToolCallDelta):
                    yield {indexes[event.id]: DeltaToolCall(json_args=event.delta)}
                elif isinstance(event, ErrorEvent):
                    raise event.error

    return FunctionModel(function, stream_function=stream, model_name=model_name or fake.model)
