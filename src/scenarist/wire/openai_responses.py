"""OpenAI Responses API: neutral events → Responses SSE events or a ``response`` object.

The full event set of the real API, each with an ``event:`` line and a ``sequence_number``:
``response.created`` and ``response.in_progress``; per output item ``response.output_item.added``
… ``response.output_item.done``; for a message ``response.content_part.added``,
``response.output_text.delta``/``.done`` and ``response.content_part.done``; for reasoning a
``summary_text`` part with ``response.reasoning_summary_text.delta``/``.done``; for tool calls
``function_call`` items with ``response.function_call_arguments.delta``/``.done`` or Codex's
freeform ``custom_tool_call`` items with ``response.custom_tool_call_input.delta``/``.done``;
then ``response.completed`` (``response.incomplete`` for ``length``/``content_filter``) carrying
the whole response and its usage. An error mid stream is ``response.failed``.

Item ids derive from the response id and the output index, so the streamed items and the final
``response`` object (built from the same :class:`~scenarist.wire.events.Turn`) always agree.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from scenarist.wire.events import (
    CREATED,
    Error,
    Finish,
    MessageStart,
    Part,
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
    TurnBuilder,
    Usage,
    WireEvent,
    fold,
    split_start,
)
from scenarist.wire.sse import RawFrame

_INCOMPLETE = {"length": "max_output_tokens", "content_filter": "content_filter"}
_PREFIX = {TextPart: "msg", ReasoningPart: "rs"}


def response_id(message_id: str) -> str:
    return message_id if message_id.startswith("resp_") else f"resp_{message_id}"


def item_id(resp_id: str, part: Part, index: int) -> str:
    if isinstance(part, ToolCallPart):
        prefix = "ctc" if part.kind == "custom" else "fc"
    else:
        prefix = _PREFIX[type(part)]
    return f"{prefix}_{resp_id.removeprefix('resp_')}_{index}"


def usage_body(usage: Usage) -> dict[str, Any]:
    return {
        "input_tokens": usage.input_tokens,
        "input_tokens_details": {"cached_tokens": usage.cached_input_tokens,
                                 "cache_write_tokens": 0},
        "output_tokens": usage.output_tokens,
        "output_tokens_details": {"reasoning_tokens": usage.reasoning_tokens},
        "total_tokens": usage.total_tokens,
    }


def _text_part(text: str) -> dict[str, Any]:
    return {"type": "output_text", "text": text, "annotations": [], "logprobs": []}


def _summary(text: str) -> dict[str, Any]:
    return {"type": "summary_text", "text": text}


def item_body(resp_id: str, part: Part, index: int, done: bool = True) -> dict[str, Any]:
    """One output item as ``response.output_item.added`` (``done=False``) or ``.done`` shows it."""
    iid = item_id(resp_id, part, index)
    status = "completed" if done else "in_progress"
    if isinstance(part, TextPart):
        return {"id": iid, "type": "message", "status": status, "role": "assistant",
                "content": [_text_part(part.text)] if done else []}
    if isinstance(part, ReasoningPart):
        item: dict[str, Any] = {"id": iid, "type": "reasoning",
                                "summary": [_summary(part.text)] if done and part.text else []}
        if done and part.signature:
            item["encrypted_content"] = part.signature
        return item
    if part.kind == "custom":
        return {"id": iid, "type": "custom_tool_call", "call_id": part.id, "name": part.name,
                "input": part.arguments if done else ""}
    return {"id": iid, "type": "function_call", "status": status, "call_id": part.id,
            "name": part.name, "arguments": part.arguments if done else ""}


#: request fields a ``response`` object repeats as the request set them (else its defaults)
ECHOED = ("previous_response_id", "store", "parallel_tool_calls")


def response_object(turn: Turn, *, created: int = CREATED, status: str | None = None,
                    output: bool = True, echo: Mapping[str, Any] | None = None
                    ) -> dict[str, Any]:
    """The ``response`` object: for a non-streamed answer and for lifecycle events.
    ``echo``: the request's values of :data:`ECHOED` fields (others are ignored)."""
    rid = response_id(turn.id)
    incomplete = _INCOMPLETE.get(turn.resolved_finish) if turn.finish_reason else None
    if status is None:
        status = "failed" if turn.error else "incomplete" if incomplete else "completed"
    final = status != "in_progress"
    obj = {
        "id": rid,
        "object": "response",
        "created_at": created,
        "status": status,
        "background": False,
        "error": ({"code": turn.error.code or turn.error.type or "server_error",
                   "message": turn.error.message} if turn.error and final else None),
        "incomplete_details": {"reason": incomplete} if incomplete and final else None,
        "instructions": None,
        "max_output_tokens": None,
        "model": turn.model,
        "output": _output(rid, turn, status) if output else [],
        "parallel_tool_calls": True,
        "previous_response_id": None,
        "reasoning": {"effort": None, "summary": None},
        "store": True,  # the API's default
        "temperature": 1.0,
        "text": {"format": {"type": "text"}},
        "tool_choice": "auto",
        "tools": [],
        "top_p": 1.0,
        "truncation": "disabled",
        "usage": usage_body(turn.resolved_usage) if final and not turn.error else None,
        "metadata": {},
    }
    for key in ECHOED:
        if echo is not None and echo.get(key) is not None:
            obj[key] = echo[key]
    return obj


def _output(rid: str, turn: Turn, status: str) -> list[dict[str, Any]]:
    items = [item_body(rid, p, i) for i, p in enumerate(turn.parts)]
    if status == "failed":  # what was cut off is not complete
        for item in items:
            if "status" in item:
                item["status"] = "incomplete"
    return items


class _Stream:
    """The encoder's state: the folded turn so far, the open items and the sequence number."""

    def __init__(self, start: MessageStart, created: int,
                 echo: Mapping[str, Any] | None = None) -> None:
        self.builder = TurnBuilder()
        self.builder.add(start)
        self.rid = response_id(start.id)
        self.created = created
        self.echo = echo
        self.seq = 0
        self.open: TextPart | ReasoningPart | None = None
        self.open_index = -1
        self.open_iid = ""  # the open item's id, made once: every text delta repeats it
        self.calls: dict[str, tuple[int, ToolCallPart]] = {}
        self.closed_calls: set[str] = set()

    def frame(self, type_: str, at_ms: int, **fields: Any) -> RawFrame:
        body = {"type": type_, **fields, "sequence_number": self.seq}
        self.seq += 1
        return body, type_, at_ms

    def lifecycle(self, type_: str, at_ms: int, status: str | None = None) -> RawFrame:
        turn = self.builder.turn
        live = status == "in_progress"
        return self.frame(type_, at_ms, response=response_object(
            turn, created=self.created, status=status, output=not live, echo=self.echo))

    def text_delta(self, event: TextDelta) -> RawFrame:
        """The frame of a text delta while a text item is open: most of a streamed answer's
        frames (an agent's ~100-word answer is ~20), so it skips :meth:`feed`'s generator and
        :meth:`frame`'s keyword merge (measured: a Codex answer's frames took 56 µs, now 40),
        and adds the text to the open part itself: the builder's open part is that part
        (:meth:`open_part`), and its generic dispatch cost ~0.25 µs a delta."""
        assert isinstance(self.open, TextPart)
        self.open.text += event.text
        seq = self.seq
        self.seq = seq + 1
        return ({"type": "response.output_text.delta", "item_id": self.open_iid,
                 "output_index": self.open_index, "content_index": 0, "delta": event.text,
                 "logprobs": [], "sequence_number": seq},
                "response.output_text.delta", event.at_ms)

    def feed(self, event: WireEvent) -> Iterator[RawFrame]:
        turn = self.builder.turn
        at = event.at_ms
        if isinstance(event, TextDelta):
            if not isinstance(self.open, TextPart):
                yield from self.close_open(at)
                self.builder.add(event)
                yield from self.open_part(at, content_part=True)
            else:
                self.builder.add(event)
            yield self.frame("response.output_text.delta", at, item_id=self.open_id,
                             output_index=self.open_index, content_index=0, delta=event.text,
                             logprobs=[])
        elif isinstance(event, ReasoningDelta):
            if not isinstance(self.open, ReasoningPart):
                yield from self.close_open(at)
                self.builder.add(event)
                yield from self.open_part(at, content_part=False)
            else:
                self.builder.add(event)
            yield self.frame("response.reasoning_summary_text.delta", at, item_id=self.open_id,
                             output_index=self.open_index, summary_index=0, delta=event.text)
        elif isinstance(event, ReasoningEnd):
            if not isinstance(self.open, ReasoningPart):
                yield from self.close_open(at)
                self.builder.add(event)
                self.open = None
                part = turn.parts[-1]
                index = len(turn.parts) - 1
                yield self.frame("response.output_item.added", at, output_index=index,
                                 item=item_body(self.rid, part, index, done=False))
                yield self.frame("response.output_item.done", at, output_index=index,
                                 item=item_body(self.rid, part, index))
            else:
                self.builder.add(event)
                yield from self.close_open(at)
        elif isinstance(event, ToolCallStart):
            yield from self.close_open(at)
            self.builder.add(event)
            index = len(turn.parts) - 1
            call = turn.parts[index]
            assert isinstance(call, ToolCallPart)
            self.calls[event.id] = (index, call)
            yield self.frame("response.output_item.added", at, output_index=index,
                             item=item_body(self.rid, call, index, done=False))
        elif isinstance(event, ToolCallDelta):
            self.builder.add(event)
            index, call = self.calls[event.id]
            kind = "custom_tool_call_input" if call.kind == "custom" else "function_call_arguments"
            yield self.frame(f"response.{kind}.delta", at, item_id=item_id(self.rid, call, index),
                             output_index=index, delta=event.text)
        elif isinstance(event, ToolCallEnd):
            self.builder.add(event)
            yield from self.close_call(event.id, at)
        elif isinstance(event, MessageStart | Finish | Error):
            self.builder.add(event)

    @property
    def open_id(self) -> str:
        assert self.open is not None
        return self.open_iid

    def open_part(self, at: int, content_part: bool) -> Iterator[RawFrame]:
        turn = self.builder.turn
        part = turn.parts[-1]
        assert isinstance(part, TextPart | ReasoningPart)
        self.open, self.open_index = part, len(turn.parts) - 1
        self.open_iid = item_id(self.rid, part, self.open_index)
        yield self.frame("response.output_item.added", at, output_index=self.open_index,
                         item=item_body(self.rid, part, self.open_index, done=False))
        if content_part:
            yield self.frame("response.content_part.added", at, item_id=self.open_id,
                             output_index=self.open_index, content_index=0, part=_text_part(""))
        else:
            yield self.frame("response.reasoning_summary_part.added", at, item_id=self.open_id,
                             output_index=self.open_index, summary_index=0, part=_summary(""))

    def close_open(self, at: int) -> Iterator[RawFrame]:
        part, index = self.open, self.open_index
        if part is None:
            return
        iid = self.open_id
        self.open = None
        if isinstance(part, TextPart):
            yield self.frame("response.output_text.done", at, item_id=iid, output_index=index,
                             content_index=0, text=part.text, logprobs=[])
            yield self.frame("response.content_part.done", at, item_id=iid, output_index=index,
                             content_index=0, part=_text_part(part.text))
        else:
            yield self.frame("response.reasoning_summary_text.done", at, item_id=iid,
                             output_index=index, summary_index=0, text=part.text)
            yield self.frame("response.reasoning_summary_part.done", at, item_id=iid,
                             output_index=index, summary_index=0, part=_summary(part.text))
        yield self.frame("response.output_item.done", at, output_index=index,
                         item=item_body(self.rid, part, index))

    def close_call(self, call_id: str, at: int) -> Iterator[RawFrame]:
        if call_id in self.closed_calls:
            return
        self.closed_calls.add(call_id)
        index, call = self.calls[call_id]
        iid = item_id(self.rid, call, index)
        if call.kind == "custom":
            yield self.frame("response.custom_tool_call_input.done", at, item_id=iid,
                             output_index=index, input=call.arguments)
        else:
            yield self.frame("response.function_call_arguments.done", at, item_id=iid,
                             output_index=index, arguments=call.arguments)
        yield self.frame("response.output_item.done", at, output_index=index,
                         item=item_body(self.rid, call, index))


def stream(events: Iterable[WireEvent], *, created: int = CREATED,
           echo: Mapping[str, Any] | None = None) -> Iterator[RawFrame]:
    """The SSE frames of a streamed response (lazy: one neutral event at a time), as
    :data:`~scenarist.wire.sse.RawFrame` tuples; ``echo``: see :func:`response_object`."""
    start, rest = split_start(events)
    state = _Stream(start, created, echo)
    created_frame = state.lifecycle("response.created", start.at_ms, "in_progress")
    yield created_frame
    # the same response object (nothing happened in between), built once
    announced = created_frame[0]
    assert isinstance(announced, dict)
    yield state.frame("response.in_progress", start.at_ms, response=announced["response"])
    end_at = start.at_ms
    for event in rest:
        end_at = event.at_ms
        if isinstance(event, TextDelta) and isinstance(state.open, TextPart):
            yield state.text_delta(event)
            continue
        if isinstance(event, Error):
            state.builder.add(event)
            yield state.lifecycle("response.failed", end_at)
            return
        yield from state.feed(event)
        if isinstance(event, Finish):
            break
    yield from state.close_open(end_at)
    for call_id in list(state.calls):
        yield from state.close_call(call_id, end_at)
    turn = state.builder.turn
    status_event = "response.incomplete" if (
        turn.finish_reason and _INCOMPLETE.get(turn.resolved_finish)) else "response.completed"
    yield state.lifecycle(status_event, end_at)


def response_body(events: Iterable[WireEvent], *, created: int = CREATED,
                  echo: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The ``response`` object for a non-streamed request."""
    return response_object(fold(events), created=created, echo=echo)
