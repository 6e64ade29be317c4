"""What the upstream answered, read from any of the four wires into timed neutral steps.

The proxy keeps every chunk of an answer with the moment it arrived; this module folds those
bytes into the model's steps (reasoning, text, tool calls), each stamped with the time its
first piece arrived, measured from when the request went upstream. Streams and whole bodies
give the same steps, so a recording does not depend on whether the client streamed. An error
status becomes a :class:`Failure` with what a scenario's ``error`` needs (status, the API's
error type, message, ``Retry-After``).

Pure functions: bytes and times in, steps out; garbage in raises :class:`UnreadableAnswer`.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import orjson

from scenarist.errors import ScenaristError
from scenarist.llm.gemini_request import gemini_field
from scenarist.record.history import Api, Call, Said, Thought, decode_arguments


@dataclass(frozen=True, slots=True)
class Step:
    """One thing the model did in an answer, ``at_ms`` after the request went upstream."""

    at_ms: int
    item: Thought | Said | Call


@dataclass(frozen=True, slots=True)
class Failure:
    """An error the upstream answered (an HTTP status, or an error event mid-stream)."""

    status: int
    message: str
    error_type: str = ""
    retry_after_s: float | None = None
    at_ms: int = 0


@dataclass(frozen=True, slots=True)
class Reading:
    """An answer read: its steps in order, or a failure, and when the answer ended."""

    steps: tuple[Step, ...] = ()
    failure: Failure | None = None
    end_ms: int = 0


@dataclass(frozen=True, slots=True)
class Chunk:
    """Bytes of the answer as they arrived."""

    at_ms: int
    data: bytes


class UnreadableAnswer(ScenaristError, ValueError):
    """An upstream answer that is not the API's wire format (garbage, a cut stream)."""


# --------------------------------------------------------------------------- entry points


def read_answer(api: Api, status: int, headers: Mapping[str, str], chunks: Sequence[Chunk]
                ) -> Reading:
    """The steps (or failure) of one upstream answer; ``headers`` lower-cased."""
    end = chunks[-1].at_ms if chunks else 0
    body = b"".join(c.data for c in chunks)
    if status >= 400:
        return Reading(failure=error_of(status, headers, body, chunks[0].at_ms if chunks else 0),
                       end_ms=end)
    if "text/event-stream" in headers.get("content-type", ""):
        return fold_events(api, sse_events(chunks), end)
    if api == "gemini" and body.lstrip().startswith(b"["):  # a stream without ?alt=sse
        return fold_events(api, _array_events(body, chunks[0].at_ms if chunks else 0), end)
    doc = _json(body)
    return Reading(steps=tuple(Step(chunks[0].at_ms if chunks else 0, item)
                               for item in whole_items(api, doc)), end_ms=end)


def error_of(status: int, headers: Mapping[str, str], body: bytes, at_ms: int) -> Failure:
    """An error answer's status, type and message from either API's error envelope."""
    try:
        doc = orjson.loads(body)
    except ValueError:
        doc = None
    if isinstance(doc, list) and doc and isinstance(doc[0], dict):  # Gemini's array stream
        doc = doc[0]
    err = doc.get("error") if isinstance(doc, dict) else None
    err = err if isinstance(err, dict) else {}
    given = err.get("message")
    message = given if isinstance(given, str) else body[:200].decode("utf-8", "replace")
    # OpenAI names the scripted kind in ``code`` (``rate_limit_exceeded``), Anthropic in
    # ``type``, Google in ``status`` (``RESOURCE_EXHAUSTED``; its ``code`` is the number)
    kind = next((err[k] for k in ("code", "type", "status") if isinstance(err.get(k), str)), "")
    retry = _retry_after(headers)
    return Failure(status, message, kind, _retry_delay(err) if retry is None else retry, at_ms)


def _retry_after(headers: Mapping[str, str]) -> float | None:
    value = headers.get("retry-after")
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None


def _retry_delay(err: Mapping[str, Any]) -> float | None:
    """Google's wait before a retry: a ``RetryInfo`` detail's ``retryDelay`` (``"7s"``)."""
    for detail in err.get("details") or ():
        delay = detail.get("retryDelay") if isinstance(detail, dict) else None
        if isinstance(delay, str) and delay.endswith("s"):
            try:
                return float(delay[:-1])
            except ValueError:
                return None
    return None


def _json(body: bytes) -> dict[str, Any]:
    doc = _decoded(body)
    if not isinstance(doc, dict):
        raise UnreadableAnswer("upstream answer is not a JSON object")
    return doc


def _decoded(body: bytes) -> Any:
    try:
        return orjson.loads(body)
    except ValueError as exc:
        raise UnreadableAnswer(f"upstream answer is not JSON: {exc}") from None


# --------------------------------------------------------------------------- SSE


@dataclass(frozen=True, slots=True)
class WireEvent:
    """One server-sent event (or WebSocket message): its name, JSON data and arrival time."""

    at_ms: int
    name: str | None
    data: Any


def sse_events(chunks: Sequence[Chunk]) -> list[WireEvent]:
    """The events of an SSE stream, each timed by the chunk that completed it."""
    events: list[WireEvent] = []
    buffer = b""
    for chunk in chunks:
        buffer += chunk.data.replace(b"\r\n", b"\n")
        *frames, buffer = buffer.split(b"\n\n")
        events.extend(e for e in (_frame(f, chunk.at_ms) for f in frames) if e is not None)
    if buffer.strip():
        raise UnreadableAnswer("the upstream stream ended inside an event")
    return events


def _frame(frame: bytes, at_ms: int) -> WireEvent | None:
    name: str | None = None
    data: list[bytes] = []
    for line in frame.split(b"\n"):
        if line.startswith(b"event:"):
            name = line[6:].strip().decode("utf-8", "replace")
        elif line.startswith(b"data:"):
            data.append(line[5:].lstrip(b" "))
        elif line and not line.startswith(b":") and not line.startswith((b"id:", b"retry:")):
            raise UnreadableAnswer(f"not a server-sent event line: {line[:80]!r}")
    if not data:
        return None
    text = b"\n".join(data)
    if text.strip() == b"[DONE]":
        return WireEvent(at_ms, name, "[DONE]")
    try:
        return WireEvent(at_ms, name, orjson.loads(text))
    except ValueError:
        raise UnreadableAnswer(f"an event's data is not JSON: {text[:80]!r}") from None


@dataclass(slots=True)
class _Open:
    """A step being assembled from its deltas."""

    at_ms: int
    kind: str  # "thought", "said", "call", "custom"
    text: str = ""
    id: str = ""
    name: str = ""
    done: Any = None  # a whole item given at its end (Responses output_item.done)
    parts: list[str] = field(default_factory=list)
    times: list[int] = field(default_factory=list)  # when each text part arrived

    def add(self, text: str, at_ms: int) -> None:
        self.parts.append(text)
        self.times.append(at_ms)


#: a pause this long inside a streamed text starts a new step: a scenario's steps come back as
#: steps (their deltas arrive together, at each step's time), a model's token gaps do not
SPLIT_MS = 100


def fold_events(api: Api, events: Sequence[WireEvent], end_ms: int) -> Reading:
    """A stream's steps. A stream that never reached its end event is refused: the client saw
    an answer cut short, which a scenario cannot say."""
    fold = {"chat": _fold_chat, "responses": _fold_responses, "messages": _fold_messages,
            "gemini": _fold_gemini}[api]
    opened, failure, finished = fold(events)
    if failure is None and not finished:
        raise UnreadableAnswer("the upstream stream ended before its final event")
    steps = (step for o in opened for step in _closed(o))
    return Reading(steps=tuple(s for s in steps if _shown(s.item)), failure=failure,
                   end_ms=end_ms)


def _shown(item: Thought | Said | Call) -> bool:
    """Whether a step says anything (a reasoning item without a summary does not)."""
    return isinstance(item, Call) or bool(item.text)


def _closed(o: _Open) -> list[Step]:
    text = "".join(o.parts) or o.text
    if o.kind in ("thought", "said"):
        kind = Thought if o.kind == "thought" else Said
        if len(o.times) != len(o.parts) or not o.parts:
            return [Step(o.at_ms, kind(text))]
        return [Step(at, kind(piece)) for at, piece in _paused(o)]
    value = text if o.kind == "custom" else decode_arguments(text)
    return [Step(o.at_ms, Call(o.id, o.name, o.done if o.done is not None else value))]


def _paused(o: _Open) -> Iterator[tuple[int, str]]:
    """A streamed text cut where its deltas paused for :data:`SPLIT_MS` or more."""
    start, pieces, last = o.at_ms, [o.parts[0]], o.times[0]
    for piece, at in zip(o.parts[1:], o.times[1:], strict=True):
        if at - last >= SPLIT_MS:
            yield start, "".join(pieces)
            start, pieces = at, []
        pieces.append(piece)
        last = at
    yield start, "".join(pieces)


Folded = tuple[list[_Open], Failure | None, bool]


def _fold_chat(events: Sequence[WireEvent]) -> Folded:
    opened: list[_Open] = []
    calls: dict[int, _Open] = {}
    finished = False
    for ev in events:
        if ev.data == "[DONE]":
            finished = True
            continue
        if not isinstance(ev.data, dict):
            raise UnreadableAnswer("a Chat stream event is not an object")
        if "error" in ev.data:
            return opened, _event_error(ev), True
        for choice in ev.data.get("choices") or ():
            delta = choice.get("delta") or {}
            if choice.get("finish_reason"):
                finished = True
            for key, kind in (("reasoning_content", "thought"), ("content", "said")):
                if delta.get(key):
                    _extend(opened, ev.at_ms, kind, delta[key])
            for tc in delta.get("tool_calls") or ():
                index = tc.get("index", len(calls))
                fn = tc.get("function") or {}
                if index not in calls:
                    calls[index] = _Open(ev.at_ms, "call", id=str(tc.get("id", "")),
                                         name=str(fn.get("name", "")))
                    opened.append(calls[index])
                calls[index].parts.append(fn.get("arguments") or "")
    return opened, None, finished


def _extend(opened: list[_Open], at_ms: int, kind: str, text: str) -> None:
    if not opened or opened[-1].kind != kind:
        opened.append(_Open(at_ms, kind))
    opened[-1].add(text, at_ms)


def _fold_responses(events: Sequence[WireEvent]) -> Folded:
    opened: list[_Open] = []
    by_index: dict[int, _Open] = {}
    for ev in events:
        data = ev.data if isinstance(ev.data, dict) else {}
        kind = data.get("type") or ev.name
        if kind in ("response.failed", "error", "response.error"):
            return opened, _event_error(ev), True
        if kind == "response.completed" or kind == "response.incomplete":
            return opened, None, True
        if kind == "response.output_item.added":
            item = data.get("item") or {}
            o = _responses_open(ev.at_ms, item)
            if o is not None:
                by_index[int(data.get("output_index", len(by_index)))] = o
                opened.append(o)
        elif kind in ("response.output_text.delta", "response.reasoning_summary_text.delta"):
            o = by_index.get(int(data.get("output_index", -1)))
            if o is not None and isinstance(data.get("delta"), str):
                o.add(data["delta"], ev.at_ms)
        elif kind == "response.output_item.done":
            o = by_index.get(int(data.get("output_index", -1)))
            if o is not None:
                _responses_done(o, data.get("item") or {})
    return opened, None, False


def _responses_open(at_ms: int, item: Mapping[str, Any]) -> _Open | None:
    kind = item.get("type")
    if kind == "message":
        return _Open(at_ms, "said")
    if kind == "reasoning":
        return _Open(at_ms, "thought")
    if kind in ("function_call", "custom_tool_call"):
        return _Open(at_ms, "call" if kind == "function_call" else "custom",
                     id=str(item.get("call_id", "")), name=str(item.get("name", "")))
    return None


def _responses_done(o: _Open, item: Mapping[str, Any]) -> None:
    """The whole item at its end: its text, unless its deltas said it already."""
    if o.parts and o.kind in ("said", "thought"):
        return
    if o.kind == "said":
        o.text = "".join(_parts(item.get("content"), "output_text"))
    elif o.kind == "thought":
        o.text = "".join(_parts(item.get("summary"), "summary_text"))
    elif o.kind == "call":
        o.text = str(item.get("arguments") or "")
    else:
        o.text = str(item.get("input") or "")


def _parts(content: Any, kind: str) -> Iterator[str]:
    for p in content if isinstance(content, list) else ():
        if isinstance(p, dict) and p.get("type") == kind and isinstance(p.get("text"), str):
            yield p["text"]


def _fold_messages(events: Sequence[WireEvent]) -> Folded:
    opened: list[_Open] = []
    blocks: dict[int, _Open] = {}
    for ev in events:
        data = ev.data if isinstance(ev.data, dict) else {}
        kind = data.get("type") or ev.name
        if kind == "error":
            return opened, _event_error(ev), True
        if kind == "message_stop":
            return opened, None, True
        if kind == "content_block_start":
            block = data.get("content_block") or {}
            btype = block.get("type")
            o = (_Open(ev.at_ms, "thought") if btype == "thinking"
                 else _Open(ev.at_ms, "said", text=str(block.get("text") or "")) if btype == "text"
                 else _Open(ev.at_ms, "call", id=str(block.get("id", "")),
                            name=str(block.get("name", ""))) if btype == "tool_use" else None)
            if o is not None:
                blocks[int(data.get("index", len(blocks)))] = o
                opened.append(o)
        elif kind == "content_block_delta":
            o = blocks.get(int(data.get("index", -1)))
            delta = data.get("delta") or {}
            piece = delta.get("text", delta.get("thinking", delta.get("partial_json")))
            if o is not None and isinstance(piece, str):
                if not o.parts and o.text:
                    o.add(o.text, o.at_ms)
                if o.kind == "call":
                    o.parts.append(piece)
                else:
                    o.add(piece, ev.at_ms)
    return opened, None, False


def _fold_gemini(events: Sequence[WireEvent]) -> Folded:
    """Each event is a whole ``GenerateContentResponse`` holding the parts that are new; a
    ``finishReason`` ends the answer (Google's streams have no end event of their own)."""
    opened: list[_Open] = []
    finished = False
    for ev in events:
        data = ev.data if isinstance(ev.data, dict) else {}
        if "error" in data:
            return opened, _event_error(ev), True
        for candidate in (data.get("candidates") or ())[:1]:
            for item in _gemini_items(candidate):
                if isinstance(item, Call):
                    opened.append(_Open(ev.at_ms, "call", id=item.id, name=item.name,
                                        done=item.input))
                else:
                    _extend(opened, ev.at_ms, "thought" if isinstance(item, Thought)
                            else "said", item.text)
            finished = finished or bool(gemini_field(candidate, "finishReason"))
    return opened, None, finished


def _gemini_items(candidate: Mapping[str, Any]) -> Iterator[Thought | Said | Call]:
    content = candidate.get("content") or {}
    for part in content.get("parts") or () if isinstance(content, dict) else ():
        call = gemini_field(part, "functionCall") if isinstance(part, dict) else None
        if isinstance(call, dict):  # no id: chain.beats names it as history.py does
            yield Call(str(call.get("id") or ""), str(call.get("name", "")),
                       call.get("args") or {})
        elif isinstance(part, dict) and isinstance(part.get("text"), str) and part["text"]:
            yield Thought(part["text"]) if part.get("thought") else Said(part["text"])


def _array_events(body: bytes, at_ms: int) -> list[WireEvent]:
    """Gemini's stream without ``?alt=sse``: one JSON array of responses (timed as a whole:
    the pieces of an array are not events the client sees one by one)."""
    doc = _decoded(body)
    if not isinstance(doc, list):
        raise UnreadableAnswer("upstream stream is not a JSON array")
    return [WireEvent(at_ms, None, item) for item in doc]


def _event_error(ev: WireEvent) -> Failure:
    data = ev.data if isinstance(ev.data, dict) else {}
    err = data.get("error") or (data.get("response") or {}).get("error") or data
    err = err if isinstance(err, dict) else {}
    return Failure(500, str(err.get("message") or "upstream error in the stream"),
                   str(err.get("type") or err.get("code") or ""), None, ev.at_ms)


# --------------------------------------------------------------------------- whole bodies


def whole_items(api: Api, doc: Mapping[str, Any]) -> list[Thought | Said | Call]:
    """The steps of a non-streamed answer (``chat.completion``, ``response``, ``message``)."""
    items: list[Thought | Said | Call] = []
    if api == "chat":
        for choice in (doc.get("choices") or ())[:1]:
            msg = choice.get("message") or {}
            if msg.get("reasoning_content"):
                items.append(Thought(str(msg["reasoning_content"])))
            if msg.get("content"):
                items.append(Said(str(msg["content"])))
            for tc in msg.get("tool_calls") or ():
                fn = tc.get("function") or {}
                items.append(Call(str(tc.get("id", "")), str(fn.get("name", "")),
                                  decode_arguments(str(fn.get("arguments") or ""))))
    elif api == "responses":
        for item in doc.get("output") or ():
            o = _responses_open(0, item)
            if o is not None:
                _responses_done(o, item)
                items.extend(step.item for step in _closed(o))
    elif api == "gemini":
        for candidate in (doc.get("candidates") or ())[:1]:
            items.extend(_gemini_items(candidate))
    else:
        for block in doc.get("content") or ():
            btype = block.get("type")
            if btype == "text":
                items.append(Said(str(block.get("text", ""))))
            elif btype == "thinking":
                items.append(Thought(str(block.get("thinking", ""))))
            elif btype == "tool_use":
                items.append(Call(str(block.get("id", "")), str(block.get("name", "")),
                                  block.get("input")))
    if not items and not any(k in doc for k in ("choices", "output", "content", "candidates")):
        raise UnreadableAnswer(f"upstream answer has no {api} content")
    return [i for i in items if _shown(i)]
