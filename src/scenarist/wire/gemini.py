"""Google Gemini API: neutral events → ``GenerateContentResponse`` chunks or one response.

Every chunk of a stream is a whole ``GenerateContentResponse`` (camelCase, as the REST API
sends it): ``candidates[0].content.parts`` with what is new, ``usageMetadata`` on every chunk
(the prompt's count, then the final counts on the last), ``modelVersion`` and ``responseId``.
The last chunk carries ``finishReason``; Gemini has no reason of its own for tool calls: a
turn that ends in ``functionCall`` parts ends with ``STOP``, as the real API's do. There is
no ``[DONE]``: the stream just ends. Over SSE (``?alt=sse``) each chunk is one ``data:``
frame; without it the stream is one JSON array sent piece by piece (:func:`array_pieces`).

Thought parts (``{"text", "thought": true}``) are sent only when the events carry reasoning
(the server decides, :mod:`scenarist.llm.thinking`); a reasoning segment's signature travels
as ``thoughtSignature`` on the part that follows it (the first ``functionCall`` of the turn,
or its text), an empty text part when nothing follows, as Gemini sends them; Gemini's
signatures are bytes, so the neutral signature's text goes out base64-encoded.

Function calls are sent whole (Gemini streams no partial arguments), all of a turn's calls
in one chunk, each with its ``id``. ``custom`` calls carry ``{"input": "<raw text>"}``.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from scenarist.json_out import dump_bytes
from scenarist.wire.events import (
    Error,
    Finish,
    FinishReason,
    MessageStart,
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
    split_start,
)
from scenarist.wire.sse import RawFrame

FINISH_REASONS: dict[FinishReason, str] = {"stop": "STOP", "tool_calls": "STOP",
                                           "length": "MAX_TOKENS", "content_filter": "SAFETY"}

#: HTTP status → the ``google.rpc.Code`` name Google's error envelope carries
STATUS_NAMES: dict[int, str] = {
    400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED", 403: "PERMISSION_DENIED",
    404: "NOT_FOUND", 405: "INVALID_ARGUMENT", 409: "ABORTED", 413: "INVALID_ARGUMENT",
    415: "INVALID_ARGUMENT", 422: "INVALID_ARGUMENT", 429: "RESOURCE_EXHAUSTED",
    499: "CANCELLED", 500: "INTERNAL", 501: "UNIMPLEMENTED", 502: "UNAVAILABLE",
    503: "UNAVAILABLE", 504: "DEADLINE_EXCEEDED", 529: "UNAVAILABLE"}
STATUSES = frozenset({*STATUS_NAMES.values(), "FAILED_PRECONDITION", "OUT_OF_RANGE",
                      "ALREADY_EXISTS", "DATA_LOSS", "UNKNOWN"})
"""The ``error.status`` values of Google APIs (``google.rpc.Code``)."""
_ALIASES = {"rate_limit": "RESOURCE_EXHAUSTED", "rate_limit_exceeded": "RESOURCE_EXHAUSTED",
            "rate_limit_error": "RESOURCE_EXHAUSTED", "quota_exceeded": "RESOURCE_EXHAUSTED",
            "too_many_requests": "RESOURCE_EXHAUSTED", "overloaded": "UNAVAILABLE",
            "overloaded_error": "UNAVAILABLE", "invalid_request": "INVALID_ARGUMENT",
            "invalid_request_error": "INVALID_ARGUMENT", "bad_request": "INVALID_ARGUMENT",
            "not_found": "NOT_FOUND", "model_not_found": "NOT_FOUND",
            "invalid_api_key": "UNAUTHENTICATED", "authentication_error": "UNAUTHENTICATED",
            "permission_error": "PERMISSION_DENIED", "server_error": "INTERNAL",
            "api_error": "INTERNAL", "timeout": "DEADLINE_EXCEEDED"}
RETRY_INFO = "type.googleapis.com/google.rpc.RetryInfo"


def status_name(status: int) -> str:
    """The ``google.rpc.Code`` name of an HTTP status."""
    return STATUS_NAMES.get(status, "INTERNAL" if status >= 500 else "INVALID_ARGUMENT")


def scripted_status(status: int, error_type: str | None) -> str:
    """A scenario's ``errorType`` as Google's ``error.status``: a real code as named (any
    case), else its alias (``rate_limit_exceeded`` → ``RESOURCE_EXHAUSTED``), else the
    HTTP status's."""
    key = (error_type or "").strip().replace("-", "_").replace(" ", "_")
    if key.upper() in STATUSES:
        return key.upper()
    return _ALIASES.get(key.lower()) or status_name(status)


def gemini_error(status: int, message: str, name: str | None = None,
                 details: Any = None, retry_delay: str | None = None) -> dict[str, Any]:
    """``{"error": {"code", "message", "status"[, "details"]}}``: Google's envelope.
    ``retry_delay`` (``"7s"``) becomes a ``RetryInfo`` detail, which the SDKs and Gemini CLI
    read to wait before a retry; ``details`` (a scenario's) are added as given (a list, or
    one object)."""
    error: dict[str, Any] = {"code": status, "message": message,
                             "status": name or status_name(status)}
    listed: list[Any] = []
    if retry_delay is not None:
        listed.append({"@type": RETRY_INFO, "retryDelay": retry_delay})
    if isinstance(details, list):
        listed.extend(details)
    elif details is not None:
        listed.append(details)
    if listed:
        error["details"] = listed
    return {"error": error}


def usage_body(usage: Usage, *, final: bool = True) -> dict[str, Any]:
    """``usageMetadata``: the prompt's count on every chunk, the answer's on the last.
    Thoughts are counted apart from the candidates, as Gemini counts them."""
    prompt = usage.input_tokens
    if not final:
        return {"promptTokenCount": prompt, "totalTokenCount": prompt}
    thoughts = usage.reasoning_tokens
    candidates = max(0, usage.output_tokens - thoughts)
    body: dict[str, Any] = {"promptTokenCount": prompt, "candidatesTokenCount": candidates,
                            "totalTokenCount": prompt + candidates + thoughts}
    if usage.cached_input_tokens:
        body["cachedContentTokenCount"] = usage.cached_input_tokens
    if thoughts:
        body["thoughtsTokenCount"] = thoughts
    return body


def _response(parts: list[dict[str, Any]], usage: dict[str, Any], model: str, rid: str,
              finish: str | None = None) -> dict[str, Any]:
    candidate: dict[str, Any] = {"content": {"parts": parts, "role": "model"}}
    if finish is not None:
        candidate["finishReason"] = finish
    candidate["index"] = 0
    return {"candidates": [candidate], "usageMetadata": usage, "modelVersion": model,
            "responseId": rid}


def _call_part(call_id: str, name: str, arguments: str) -> dict[str, Any]:
    try:
        args = json.loads(arguments) if arguments.strip() else {}
    except json.JSONDecodeError as exc:
        raise ValueError(f"tool call {call_id!r} ({name}) has arguments that are not JSON: "
                         f"{arguments[:80]!r} ({exc.msg}); give arguments as a dict or valid "
                         "JSON text") from None
    return {"functionCall": {"id": call_id, "name": name, "args": args}}


class _Signed:
    """Puts a thought's signature on the next part that is no thought."""

    __slots__ = ("pending",)

    def __init__(self) -> None:
        self.pending = ""

    def hold(self, signature: str) -> None:
        """A signature for the next part: Gemini's are bytes, sent as base64 (the SDKs decode
        them), so the neutral signature's text goes out base64-encoded."""
        self.pending = base64.b64encode(signature.encode()).decode() if signature else ""

    def sign(self, part: dict[str, Any]) -> dict[str, Any]:
        if self.pending:
            part["thoughtSignature"], self.pending = self.pending, ""
        return part


def stream(events: Iterable[WireEvent]) -> Iterator[RawFrame]:
    """The chunks of a streamed answer as SSE frames (lazy: one neutral event at a time), as
    :data:`~scenarist.wire.sse.RawFrame` tuples."""
    start, rest = split_start(events)
    model, rid = start.model, start.id
    early = usage_body(Usage(start.input_tokens), final=False)
    signed = _Signed()
    calls: dict[str, tuple[str, str, list[str]]] = {}  # id → (name, kind, argument pieces)
    done: list[dict[str, Any]] = []  # whole calls, sent with the last chunk
    for event in rest:
        at = event.at_ms
        if isinstance(event, TextDelta):
            part = signed.sign({"text": event.text})
            yield _response([part], early, model, rid), None, at
        elif isinstance(event, ReasoningDelta):
            yield _response([{"text": event.text, "thought": True}], early, model, rid), None, at
        elif isinstance(event, ReasoningEnd):
            signed.hold(event.signature)
        elif isinstance(event, ToolCallStart):
            calls[event.id] = (event.name, event.kind, [])
        elif isinstance(event, ToolCallDelta):
            if event.id not in calls:
                raise ValueError(f"tool call delta for unknown call id {event.id!r}: emit "
                                 f"ToolCallStart(id={event.id!r}, name=...) before its deltas")
            calls[event.id][2].append(event.text)
        elif isinstance(event, ToolCallEnd):
            done.append(signed.sign(_finished_call(event.id, calls)))
        elif isinstance(event, Finish):
            yield _last(event, start, done, signed)
            return
        elif isinstance(event, Error):
            yield gemini_error(event.status, event.message), None, at
            return
    yield _last(Finish(at_ms=0), start, done, signed)


def _finished_call(call_id: str, calls: Mapping[str, tuple[str, str, list[str]]]
                   ) -> dict[str, Any]:
    name, kind, pieces = calls[call_id]
    part = ToolCallPart(call_id, name, "custom" if kind == "custom" else "function",
                        "".join(pieces))
    return _call_part(call_id, name, call_arguments_json(part))


def _last(finish: Finish, start: MessageStart, calls: list[dict[str, Any]],
          signed: _Signed) -> RawFrame:
    usage = finish.usage
    if usage.input_tokens == 0 and start.input_tokens:
        usage = Usage(start.input_tokens, usage.output_tokens, usage.cached_input_tokens,
                      usage.reasoning_tokens)
    reason = finish.reason or ("tool_calls" if calls else "stop")
    parts = calls or [signed.sign({"text": ""})]
    return (_response(parts, usage_body(usage), start.model, start.id, FINISH_REASONS[reason]),
            None, finish.at_ms)


def turn_body(turn: Turn) -> dict[str, Any]:
    """The ``GenerateContentResponse`` of a non-streamed request."""
    signed = _Signed()
    parts: list[dict[str, Any]] = []
    for part in turn.parts:
        if isinstance(part, ReasoningPart):
            if part.text:
                parts.append({"text": part.text, "thought": True})
            signed.hold(part.signature)
        elif isinstance(part, TextPart):
            parts.append(signed.sign({"text": part.text}))
        elif isinstance(part, ToolCallPart):
            parts.append(signed.sign(_call_part(part.id, part.name, call_arguments_json(part))))
    if signed.pending or not parts:
        parts.append(signed.sign({"text": ""}))
    return _response(parts, usage_body(turn.resolved_usage), turn.model, turn.id,
                     FINISH_REASONS[turn.resolved_finish])


class JsonArray:
    """The stream without ``?alt=sse``: one JSON array sent piece by piece, ``[`` before the
    first chunk, ``,\\r\\n`` between chunks (as Google sends them), ``]`` at the end."""

    __slots__ = ("lead",)

    def __init__(self) -> None:
        self.lead = b"["

    def piece(self, frame: RawFrame) -> bytes:
        body = frame[0]
        data = body.encode() if isinstance(body, str) else dump_bytes(body)
        piece, self.lead = self.lead + data, b",\r\n"
        return piece

    def close(self) -> bytes:
        return b"[]" if self.lead == b"[" else b"]"


def array_pieces(frames: Iterable[RawFrame]) -> Iterator[tuple[int, bytes]]:
    """``(at_ms, bytes)`` of each piece of the JSON-array stream (``]`` with the last)."""
    array = JsonArray()
    at = 0
    for frame in frames:
        at = frame[2]
        yield at, array.piece(frame)
    yield at, array.close()
