"""The neutral description of one model turn, shared by every wire encoder.

A model turn is a sequence of small events (message start, reasoning, text, tool calls,
finish, error). Front ends produce them (from a scenario or a fake-model script); encoders turn
them into one API's wire format. Each event carries ``at_ms``, its offset from the start of the
response, so a server can pace a stream; nothing here sleeps or does I/O.

:class:`TurnBuilder` folds events into a :class:`Turn` (the whole answer at once). The
non-streaming encoders and the final ``response.completed`` object are built from it, so the
streamed and the non-streamed shape of one turn can never disagree.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Literal

ToolKind = Literal["function", "custom"]
"""``function``: arguments are JSON text. ``custom``: Codex-style freeform input (raw text)."""

FinishReason = Literal["stop", "tool_calls", "length", "content_filter"]

DEFAULT_MODEL = "mock-model"

CREATED = 1_700_000_000
"""The fixed ``created``/``created_at`` time (2023-11-14T22:13:20Z) of every encoded answer and
listed model when no time is passed, so output is deterministic (servers pass the time)."""
CREATED_AT = "2023-11-14T22:13:20Z"
""":data:`CREATED` as the RFC 3339 text Anthropic's model list carries."""


@dataclass(frozen=True, slots=True)
class Usage:
    """Token counts of one turn (what the APIs report; nothing here is estimated)."""

    input_tokens: int = 0
    output_tokens: int = 0
    cached_input_tokens: int = 0
    reasoning_tokens: int = 0

    @property
    def total_tokens(self) -> int:
        return self.input_tokens + self.output_tokens


@dataclass(frozen=True, slots=True)
class MessageStart:
    """Opens the turn. ``input_tokens`` is reported up front (Anthropic's ``message_start``)."""

    id: str = "msg_0"
    model: str = DEFAULT_MODEL
    input_tokens: int = 0
    at_ms: int = 0


@dataclass(frozen=True, slots=True)
class ReasoningDelta:
    """A piece of reasoning (Responses reasoning summary, Anthropic thinking)."""

    text: str
    at_ms: int = 0


@dataclass(frozen=True, slots=True)
class ReasoningEnd:
    """Ends a reasoning segment; ``signature`` is Anthropic's / Responses' encrypted content."""

    signature: str = ""
    at_ms: int = 0


@dataclass(frozen=True, slots=True)
class TextDelta:
    """A piece of assistant text, as streamed."""

    text: str
    at_ms: int = 0


@dataclass(frozen=True, slots=True)
class ToolCallStart:
    """Opens a tool call; ``id`` is the call id the client echoes back with the result."""

    id: str
    name: str
    kind: ToolKind = "function"
    at_ms: int = 0


@dataclass(frozen=True, slots=True)
class ToolCallDelta:
    """A fragment of a call's input: JSON text for ``function``, raw text for ``custom``."""

    id: str
    text: str
    at_ms: int = 0


@dataclass(frozen=True, slots=True)
class ToolCallEnd:
    """A tool call's arguments are complete."""

    id: str
    at_ms: int = 0


@dataclass(frozen=True, slots=True)
class Finish:
    """Ends the turn. ``reason=None`` means: ``tool_calls`` if the turn made any, else ``stop``."""

    reason: FinishReason | None = None
    usage: Usage = field(default_factory=Usage)
    at_ms: int = 0


@dataclass(frozen=True, slots=True)
class Error:
    """A failure. First in a turn it is an HTTP error; later, an in-stream error event."""

    message: str
    type: str | None = None
    status: int = 500
    code: str | None = None
    at_ms: int = 0


WireEvent = (
    MessageStart
    | ReasoningDelta
    | ReasoningEnd
    | TextDelta
    | ToolCallStart
    | ToolCallDelta
    | ToolCallEnd
    | Finish
    | Error
)


def resolve_finish(reason: FinishReason | None, made_tool_calls: bool) -> FinishReason:
    """The finish reason to report: explicit wins, else inferred from the turn's content."""
    if reason is not None:
        return reason
    return "tool_calls" if made_tool_calls else "stop"


# --- the whole turn ---------------------------------------------------------------------------


@dataclass(slots=True)
class TextPart:
    """Assistant text of a whole (non-streamed) response."""

    text: str = ""


@dataclass(slots=True)
class ReasoningPart:
    """Reasoning text of a whole (non-streamed) response."""

    text: str = ""
    signature: str = ""
    done: bool = False


@dataclass(slots=True)
class ToolCallPart:
    """A tool call of a whole (non-streamed) response."""

    id: str
    name: str
    kind: ToolKind = "function"
    arguments: str = ""
    done: bool = False


Part = TextPart | ReasoningPart | ToolCallPart


@dataclass(slots=True)
class Turn:
    """A model turn folded from its events, in output order."""

    id: str = "msg_0"
    model: str = DEFAULT_MODEL
    input_tokens: int = 0
    parts: list[Part] = field(default_factory=list)
    finish_reason: FinishReason | None = None
    usage: Usage | None = None
    error: Error | None = None

    @property
    def text(self) -> str:
        return "".join(p.text for p in self.parts if isinstance(p, TextPart))

    @property
    def reasoning(self) -> str:
        return "".join(p.text for p in self.parts if isinstance(p, ReasoningPart))

    @property
    def tool_calls(self) -> list[ToolCallPart]:
        return [p for p in self.parts if isinstance(p, ToolCallPart)]

    @property
    def resolved_finish(self) -> FinishReason:
        return resolve_finish(self.finish_reason, bool(self.tool_calls))

    @property
    def resolved_usage(self) -> Usage:
        """The finish usage, with ``input_tokens`` from the start when the finish has none."""
        usage = self.usage or Usage()
        if usage.input_tokens == 0 and self.input_tokens:
            return Usage(self.input_tokens, usage.output_tokens, usage.cached_input_tokens,
                         usage.reasoning_tokens)
        return usage


class TurnBuilder:
    """Folds events one at a time into a :class:`Turn` (used by streams and bodies alike)."""

    __slots__ = ("_calls", "_open", "turn")

    def __init__(self) -> None:
        self.turn = Turn()
        self._calls: dict[str, ToolCallPart] = {}
        self._open: TextPart | ReasoningPart | None = None

    def add(self, event: WireEvent) -> None:
        turn = self.turn
        if isinstance(event, TextDelta):
            self.add_text(event.text)
        elif isinstance(event, ReasoningDelta):
            if not isinstance(self._open, ReasoningPart):
                self._open = ReasoningPart()
                turn.parts.append(self._open)
            self._open.text += event.text
        elif isinstance(event, ReasoningEnd):
            part = self._open if isinstance(self._open, ReasoningPart) else ReasoningPart()
            if part is not self._open:
                turn.parts.append(part)
            part.signature, part.done = event.signature, True
            self._open = None
        elif isinstance(event, ToolCallStart):
            call = ToolCallPart(event.id, event.name, event.kind)
            self._calls[event.id] = call
            turn.parts.append(call)
            self._open = None
        elif isinstance(event, ToolCallDelta):
            self.call(event.id).arguments += event.text
        elif isinstance(event, ToolCallEnd):
            self.call(event.id).done = True
        elif isinstance(event, MessageStart):
            turn.id, turn.model, turn.input_tokens = event.id, event.model, event.input_tokens
        elif isinstance(event, Finish):
            turn.finish_reason, turn.usage = event.reason, event.usage
        else:
            turn.error = event

    def add_text(self, text: str) -> None:
        """What a :class:`TextDelta` of ``text`` adds (one call for a run of them: see
        :func:`fold`)."""
        if not isinstance(self._open, TextPart):
            self._open = TextPart()
            self.turn.parts.append(self._open)
        self._open.text += text

    def call(self, call_id: str) -> ToolCallPart:
        try:
            return self._calls[call_id]
        except KeyError:
            raise ValueError(
                f"tool call delta for unknown call id {call_id!r}: emit ToolCallStart(id={call_id!r}, "
                "name=...) before its deltas"
            ) from None


def fold(events: Iterable[WireEvent]) -> Turn:
    """The whole turn described by ``events``.

    A run of text deltas (most of an answer's events: a ~100-word text is ~36) is added as
    one text, as the deltas one by one would add it: folding a 41-event agent answer took
    17 µs, 10 µs so (timed alone on the loaded shared machine)."""
    builder = TurnBuilder()
    run: list[str] = []
    for event in events:
        if type(event) is TextDelta:
            run.append(event.text)
            continue
        if run:
            builder.add_text("".join(run))
            run = []
        builder.add(event)
    if run:
        builder.add_text("".join(run))
    return builder.turn


def split_start(events: Iterable[WireEvent]) -> tuple[MessageStart, Iterator[WireEvent]]:
    """The turn's :class:`MessageStart` (a default one if the events lack it) and the rest.

    Reads at most one event, so a lazy source stays lazy until the encoder is iterated.
    """
    it = iter(events)
    first = next(it, None)
    if isinstance(first, MessageStart):
        return first, it
    if first is None:
        return MessageStart(), it
    return MessageStart(at_ms=first.at_ms), itertools.chain((first,), it)


def leading_error(events: Iterable[WireEvent]) -> tuple[Error | None, Iterator[WireEvent]]:
    """An :class:`Error` that comes before any output (to answer as an HTTP error), and the rest.

    Skips over a leading :class:`MessageStart`; the returned iterator still yields everything
    that was read when there is no leading error.
    """
    it = iter(events)
    head: list[WireEvent] = []
    for event in it:
        head.append(event)
        if not isinstance(event, MessageStart):
            break
    if head and isinstance(head[-1], Error):
        return head[-1], it
    return None, itertools.chain(head, it)


CUSTOM_OPEN = '{"input":"'
CUSTOM_CLOSE = '"}'
"""APIs without freeform tools carry a ``custom`` call's raw text as ``{"input": "<text>"}``;
a stream opens with ``CUSTOM_OPEN``, sends :func:`json_fragment` of each delta, ends with
``CUSTOM_CLOSE``."""


def json_fragment(text: str) -> str:
    """``text`` escaped as the inside of a JSON string."""
    return json.dumps(text, ensure_ascii=False)[1:-1]


def call_arguments_json(call: ToolCallPart) -> str:
    """A call's arguments as JSON text (``custom`` input wrapped as ``{"input": ...}``)."""
    if call.kind == "custom":
        return json.dumps({"input": call.arguments}, ensure_ascii=False, separators=(",", ":"))
    return call.arguments
