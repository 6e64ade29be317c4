"""Anthropic Messages: neutral events → Messages SSE events or a ``message`` object.

Stream shape (as the real API, every frame with an ``event:`` line): ``message_start`` (with the
input token count), ``ping``, then per content block ``content_block_start`` / ``_delta`` /
``_stop`` — ``text_delta`` for text, ``thinking_delta`` then ``signature_delta`` for thinking,
``input_json_delta`` for ``tool_use`` — then ``message_delta`` with ``stop_reason`` (``tool_use``
when the turn ends in tool calls) and the real usage, and ``message_stop``. An error mid stream
is an ``error`` event, after which the stream ends (the SDK raises).

``custom`` tool calls become ``tool_use`` blocks whose input is ``{"input": "<raw text>"}``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any

from scenarist.wire.errors import anthropic_error
from scenarist.wire.events import (
    CUSTOM_CLOSE,
    CUSTOM_OPEN,
    Error,
    Finish,
    FinishReason,
    ReasoningDelta,
    ReasoningEnd,
    ReasoningPart,
    TextDelta,
    TextPart,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallPart,
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
from scenarist.wire.sse import RawFrame

STOP_REASONS: dict[FinishReason, str] = {"stop": "end_turn", "tool_calls": "tool_use",
                                         "length": "max_tokens", "content_filter": "refusal"}


THINKING_BLOCK = {"type": "thinking", "thinking": "", "signature": ""}


def message_id(neutral_id: str) -> str:
    return neutral_id if neutral_id.startswith("msg_") else f"msg_{neutral_id}"


def usage_body(usage: Usage) -> dict[str, Any]:
    return {"input_tokens": usage.input_tokens, "output_tokens": usage.output_tokens,
            "cache_creation_input_tokens": 0, "cache_read_input_tokens": usage.cached_input_tokens}


def _frame(type_: str, at_ms: int, **fields: Any) -> RawFrame:
    return {"type": type_, **fields}, type_, at_ms


def stream(events: Iterable[WireEvent]) -> Iterator[RawFrame]:
    """The SSE frames of a streamed message (lazy: one neutral event at a time), as
    :data:`~scenarist.wire.sse.RawFrame` tuples."""
    start, rest = split_start(events)
    message: dict[str, Any] = {"id": message_id(start.id), "type": "message", "role": "assistant",
               "model": start.model, "content": [], "stop_reason": None, "stop_sequence": None,
               "usage": usage_body(Usage(start.input_tokens, 1))}
    yield _frame("message_start", start.at_ms, message=message)
    yield _frame("ping", start.at_ms)
    blocks: dict[str, int] = {}  # tool call id → block index
    custom: set[str] = set()
    open_kind: str | None = None  # "text" | "thinking" | a tool call id
    count = 0
    finish = Finish()

    def close(at: int) -> Iterator[RawFrame]:
        nonlocal open_kind
        if open_kind is None:
            return
        if open_kind in custom:
            yield _frame("content_block_delta", at, index=count - 1,
                         delta={"type": "input_json_delta", "partial_json": CUSTOM_CLOSE})
        yield _frame("content_block_stop", at, index=count - 1)
        open_kind = None

    def open_block(kind: str, block: dict[str, Any], at: int) -> Iterator[RawFrame]:
        nonlocal open_kind, count
        yield from close(at)
        yield _frame("content_block_start", at, index=count, content_block=block)
        open_kind = kind
        count += 1

    for event in rest:
        at = event.at_ms
        if isinstance(event, TextDelta):
            if open_kind != "text":
                yield from open_block("text", {"type": "text", "text": ""}, at)
            # most of an answer's frames: one dict literal, no keyword merge (see _frame)
            yield ({"type": "content_block_delta", "index": count - 1,
                    "delta": {"type": "text_delta", "text": event.text}},
                   "content_block_delta", at)
        elif isinstance(event, ReasoningDelta):
            if open_kind != "thinking":
                yield from open_block("thinking", dict(THINKING_BLOCK), at)
            yield _frame("content_block_delta", at, index=count - 1,
                         delta={"type": "thinking_delta", "thinking": event.text})
        elif isinstance(event, ReasoningEnd):
            if open_kind != "thinking":
                yield from open_block("thinking", dict(THINKING_BLOCK), at)
            if event.signature:
                yield _frame("content_block_delta", at, index=count - 1,
                             delta={"type": "signature_delta", "signature": event.signature})
            yield from close(at)
        elif isinstance(event, ToolCallStart):
            yield from open_block(event.id, {"type": "tool_use", "id": event.id,
                                             "name": event.name, "input": {}}, at)
            blocks[event.id] = count - 1
            if event.kind == "custom":
                custom.add(event.id)
                yield _frame("content_block_delta", at, index=count - 1,
                             delta={"type": "input_json_delta", "partial_json": CUSTOM_OPEN})
        elif isinstance(event, ToolCallDelta):
            if event.id not in blocks:
                raise ValueError(f"tool call delta for unknown call id {event.id!r}: emit "
                                 f"ToolCallStart(id={event.id!r}, name=...) before its deltas")
            text = json_fragment(event.text) if event.id in custom else event.text
            yield _frame("content_block_delta", at, index=blocks[event.id],
                         delta={"type": "input_json_delta", "partial_json": text})
        elif isinstance(event, ToolCallEnd):
            if open_kind == event.id:
                yield from close(at)
        elif isinstance(event, Finish):
            finish = event
            break
        elif isinstance(event, Error):
            yield anthropic_error(event.status, event.message, event.type), "error", at
            return
    yield from close(finish.at_ms)
    usage = finish.usage
    if usage.input_tokens == 0 and start.input_tokens:
        usage = Usage(start.input_tokens, usage.output_tokens, usage.cached_input_tokens,
                      usage.reasoning_tokens)
    yield _frame("message_delta", finish.at_ms,
                 delta={"stop_reason": STOP_REASONS[resolve_finish(finish.reason, bool(blocks))],
                        "stop_sequence": None},
                 usage=usage_body(usage))
    yield _frame("message_stop", finish.at_ms)


def response_body(events: Iterable[WireEvent]) -> dict[str, Any]:
    """The ``message`` object for a non-streamed request."""
    return turn_body(fold(events))


def turn_body(turn: Turn) -> dict[str, Any]:
    content: list[dict[str, Any]] = []
    for part in turn.parts:
        if isinstance(part, TextPart):
            content.append({"type": "text", "text": part.text})
        elif isinstance(part, ReasoningPart):
            content.append({"type": "thinking", "thinking": part.text,
                            "signature": part.signature})
        elif isinstance(part, ToolCallPart):
            content.append({"type": "tool_use", "id": part.id, "name": part.name,
                            "input": _input(part)})
    return {"id": message_id(turn.id), "type": "message", "role": "assistant", "model": turn.model,
            "content": content, "stop_reason": STOP_REASONS[turn.resolved_finish],
            "stop_sequence": None, "usage": usage_body(turn.resolved_usage)}


def _input(call: ToolCallPart) -> Any:
    text = call_arguments_json(call)
    try:
        return json.loads(text) if text.strip() else {}
    except json.JSONDecodeError as exc:
        raise ValueError(f"tool call {call.id!r} ({call.name}) has arguments that are not JSON: "
                         f"{text[:80]!r} ({exc.msg}); give arguments as a dict or valid JSON text"
                         ) from None



