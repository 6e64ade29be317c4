"""Pure wire encoders: one neutral model-turn description → each model API's exact wire format.

Shared by the mock model server (:mod:`scenarist.llm`) and the in-process fake
(:mod:`scenarist.fake`); there is no second set. See ``docs/wire.md``.

    events = [MessageStart("abc", "gpt-x"), TextDelta("Hi"), Finish(usage=Usage(3, 1))]
    for frame in encode_stream("openai_chat", events, include_usage=True):
        send(frame.encode())          # after sleeping until frame.at_ms, if pacing
    status, body = encode_body("anthropic", events)
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from scenarist.wire import anthropic, gemini, openai_chat, openai_responses
from scenarist.wire.chunking import chunk_text
from scenarist.wire.errors import APIS, WireApi, error_body, scripted_error_fields
from scenarist.wire.events import (
    CREATED,
    DEFAULT_MODEL,
    Error,
    Finish,
    FinishReason,
    MessageStart,
    ReasoningDelta,
    ReasoningEnd,
    TextDelta,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallStart,
    ToolKind,
    Turn,
    TurnBuilder,
    Usage,
    WireEvent,
    fold,
    leading_error,
    resolve_finish,
)
from scenarist.wire.request import include_usage, requested_model, wants_stream
from scenarist.wire.sse import SSE_HEADERS, Frame, RawFrame, encode_frames, encode_moments


def encode_stream(api: WireApi, events: Iterable[WireEvent], *, include_usage: bool = False,
                  created: int = CREATED, echo: Mapping[str, Any] | None = None
                  ) -> Iterator[Frame]:
    """The SSE frames ``api`` streams for ``events`` (``include_usage``: Chat only; ``echo``:
    request fields the Responses ``response`` object repeats)."""
    return map(Frame._make, stream_tuples(api, events, include_usage=include_usage,
                                          created=created, echo=echo))


def stream_tuples(api: WireApi, events: Iterable[WireEvent], *, include_usage: bool = False,
                  created: int = CREATED, echo: Mapping[str, Any] | None = None
                  ) -> Iterator[RawFrame]:
    """:func:`encode_stream`'s frames as the encoders make them, plain ``(data, event,
    at_ms)`` tuples (:data:`~scenarist.wire.sse.RawFrame`): what the server encodes."""
    if api == "openai_chat":
        return openai_chat.stream(events, include_usage=include_usage, created=created)
    if api == "openai_responses":
        return openai_responses.stream(events, created=created, echo=echo)
    if api == "anthropic":
        return anthropic.stream(events)
    if api == "gemini":
        return gemini.stream(events)
    raise ValueError(f"unknown api {api!r}; choose one of {', '.join(APIS)}")


def encode_body(api: WireApi, events: Iterable[WireEvent], *, created: int = CREATED,
                echo: Mapping[str, Any] | None = None) -> tuple[int, dict[str, Any]]:
    """``(status, body)`` of a non-streamed answer: 200 and the response, or the error's own."""
    turn = fold(events)
    if turn.error is not None:
        err = turn.error
        return err.status, error_body(api, err.status, err.message, err.type, err.code)
    if api == "openai_chat":
        return 200, openai_chat.turn_body(turn, created=created)
    if api == "openai_responses":
        return 200, openai_responses.response_object(turn, created=created, echo=echo)
    if api == "anthropic":
        return 200, anthropic.turn_body(turn)
    if api == "gemini":
        return 200, gemini.turn_body(turn)
    raise ValueError(f"unknown api {api!r}; choose one of {', '.join(APIS)}")


__all__ = [
    "APIS",
    "CREATED",
    "DEFAULT_MODEL",
    "SSE_HEADERS",
    "Error",
    "Finish",
    "FinishReason",
    "Frame",
    "MessageStart",
    "RawFrame",
    "ReasoningDelta",
    "ReasoningEnd",
    "TextDelta",
    "ToolCallDelta",
    "ToolCallEnd",
    "ToolCallStart",
    "ToolKind",
    "Turn",
    "TurnBuilder",
    "Usage",
    "WireApi",
    "WireEvent",
    "chunk_text",
    "encode_body",
    "encode_frames",
    "encode_moments",
    "encode_stream",
    "error_body",
    "fold",
    "include_usage",
    "leading_error",
    "requested_model",
    "resolve_finish",
    "scripted_error_fields",
    "stream_tuples",
    "wants_stream",
]
