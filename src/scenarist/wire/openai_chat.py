"""OpenAI Chat Completions: neutral events → ``chat.completion.chunk`` SSE or a ``chat.completion``.

Stream shape (as the real API): one id on every chunk; a role chunk first; ``content`` deltas;
``tool_calls`` deltas carrying index, id, type and name first, then argument fragments; a chunk
with ``finish_reason``; with ``stream_options.include_usage`` every chunk has ``"usage": null``
and a last chunk with empty ``choices`` carries the usage; then ``data: [DONE]``. An error mid
stream is a ``data: {"error": {...}}`` frame, after which the stream ends (the SDK raises).

Reasoning is not part of this API and is dropped unless ``reasoning_field`` names the delta
field some providers use (e.g. ``"reasoning_content"``). ``custom`` tool calls travel as
function calls whose arguments are ``{"input": "<raw text>"}``.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from scenarist.wire.errors import openai_error
from scenarist.wire.events import (
    CREATED,
    CUSTOM_CLOSE,
    CUSTOM_OPEN,
    Error,
    Finish,
    FinishReason,
    ReasoningDelta,
    TextDelta,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallStart,
    Turn,
    Usage,
    WireEvent,
    call_arguments_json,
    fold,
    json_fragment,
    resolve_finish,
    split_start,
)
from scenarist.wire.sse import Frame, RawFrame

DONE = Frame("[DONE]")


def completion_id(message_id: str) -> str:
    return message_id if message_id.startswith("chatcmpl-") else f"chatcmpl-{message_id}"


def usage_body(usage: Usage) -> dict[str, Any]:
    return {
        "prompt_tokens": usage.input_tokens,
        "completion_tokens": usage.output_tokens,
        "total_tokens": usage.total_tokens,
        "prompt_tokens_details": {"cached_tokens": usage.cached_input_tokens, "audio_tokens": 0},
        "completion_tokens_details": {"reasoning_tokens": usage.reasoning_tokens, "audio_tokens": 0,
                                      "accepted_prediction_tokens": 0,
                                      "rejected_prediction_tokens": 0},
    }


def stream(events: Iterable[WireEvent], *, include_usage: bool = False, created: int = CREATED,
           reasoning_field: str | None = None) -> Iterator[RawFrame]:
    """The SSE frames of a streamed chat completion (lazy: one neutral event at a time), as
    :data:`~scenarist.wire.sse.RawFrame` tuples."""
    start, rest = split_start(events)
    head: dict[str, Any] = {"id": completion_id(start.id), "object": "chat.completion.chunk",
                            "created": created, "model": start.model, "system_fingerprint": None}

    def chunk(delta: dict[str, Any], at_ms: int, finish: FinishReason | None = None
              ) -> RawFrame:
        body = dict(head)
        body["choices"] = [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}]
        if include_usage:
            body["usage"] = None
        return body, None, at_ms

    yield chunk({"role": "assistant", "content": "", "refusal": None}, start.at_ms)
    indexes: dict[str, int] = {}
    open_custom: set[str] = set()
    input_tokens = start.input_tokens
    finish = Finish()
    for event in rest:
        if isinstance(event, TextDelta):
            yield chunk({"content": event.text}, event.at_ms)
        elif isinstance(event, ToolCallStart):
            index = indexes[event.id] = len(indexes)
            arguments = ""
            if event.kind == "custom":
                arguments = CUSTOM_OPEN
                open_custom.add(event.id)
            call = {"index": index, "id": event.id, "type": "function",
                    "function": {"name": event.name, "arguments": arguments}}
            yield chunk({"tool_calls": [call]}, event.at_ms)
        elif isinstance(event, ToolCallDelta):
            text = json_fragment(event.text) if event.id in open_custom else event.text
            yield _arguments(chunk, indexes, event.id, text, event.at_ms)
        elif isinstance(event, ToolCallEnd):
            if event.id in open_custom:
                open_custom.discard(event.id)
                yield _arguments(chunk, indexes, event.id, CUSTOM_CLOSE, event.at_ms)
        elif isinstance(event, ReasoningDelta):
            if reasoning_field:
                yield chunk({reasoning_field: event.text}, event.at_ms)
        elif isinstance(event, Finish):
            finish = event
            break
        elif isinstance(event, Error):
            yield (openai_error(event.status, event.message, event.type, event.code), None,
                   event.at_ms)
            return
    for call_id in sorted(open_custom, key=indexes.__getitem__):
        yield _arguments(chunk, indexes, call_id, CUSTOM_CLOSE, finish.at_ms)
    yield chunk({}, finish.at_ms, resolve_finish(finish.reason, bool(indexes)))
    if include_usage:
        usage = finish.usage
        if usage.input_tokens == 0 and input_tokens:
            usage = Usage(input_tokens, usage.output_tokens, usage.cached_input_tokens,
                          usage.reasoning_tokens)
        body = dict(head)
        body["choices"] = []
        body["usage"] = usage_body(usage)
        yield body, None, finish.at_ms
    yield DONE.data, None, finish.at_ms


def _arguments(chunk: Any, indexes: dict[str, int], call_id: str, text: str, at_ms: int
               ) -> RawFrame:
    if call_id not in indexes:
        raise ValueError(f"tool call delta for unknown call id {call_id!r}: emit "
                         f"ToolCallStart(id={call_id!r}, name=...) before its deltas")
    frame: RawFrame = chunk({"tool_calls": [{"index": indexes[call_id],
                                          "function": {"arguments": text}}]}, at_ms)
    return frame


def response_body(events: Iterable[WireEvent], *, created: int = CREATED) -> dict[str, Any]:
    """The ``chat.completion`` object for a non-streamed request."""
    return turn_body(fold(events), created=created)


def turn_body(turn: Turn, *, created: int = CREATED) -> dict[str, Any]:
    calls = turn.tool_calls
    message: dict[str, Any] = {"role": "assistant", "content": turn.text or None, "refusal": None,
                               "annotations": []}
    if calls:
        message["tool_calls"] = [
            {"id": c.id, "type": "function",
             "function": {"name": c.name, "arguments": call_arguments_json(c)}} for c in calls]
    return {
        "id": completion_id(turn.id),
        "object": "chat.completion",
        "created": created,
        "model": turn.model,
        "choices": [{"index": 0, "message": message, "logprobs": None,
                     "finish_reason": turn.resolved_finish}],
        "usage": usage_body(turn.resolved_usage),
        "service_tier": "default",
        "system_fingerprint": None,
    }
