"""Script entries (what a test writes) and their rules: shapes, validation, call lists.

Two shapes share the same constructors, as in the spec:

- **entry lists** (one list = one call): ``text``, ``tool_call``, ``tool_call_delta``, ``usage``,
  ``raw_chunk``, ``finish``, ``error(reason)``, ``delay`` (``sleep`` is its deprecated alias),
  and the streaming harness entries ``text_delta``, ``preflight_error``, ``error_event``,
  ``stream_error``;
- **harness result lists** (one entry = one call): a ``script`` whose first entry is ``ok(...)``
  or an ``error(reason, **details)`` *with details* (the spec's 3-tuple ``{:error, reason, kw}``;
  a bare ``error(reason)`` is the 2-tuple entry form).
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

FinishReason = Literal["stop", "tool_calls", "length", "content_filter"]
FINISH_REASONS: tuple[FinishReason, ...] = ("stop", "tool_calls", "length", "content_filter")
ToolKind = Literal["function", "custom"]


@dataclass(frozen=True, slots=True)
class Text:
    text: str
    tag: str = "text"


@dataclass(frozen=True, slots=True)
class ToolCall:
    """A whole tool call. ``raw_arguments`` is the exact text sent (JSON, or raw for custom)."""

    id: str
    name: str
    raw_arguments: str
    kind: ToolKind = "function"


@dataclass(frozen=True, slots=True)
class ToolCallDelta:
    """A fragment of a call's arguments; the first fragment of an id starts the call."""

    id: str
    arguments_delta: str
    name: str = ""
    kind: ToolKind = "function"


@dataclass(frozen=True, slots=True)
class UsageEntry:
    counts: Mapping[str, int]


@dataclass(frozen=True, slots=True)
class RawChunk:
    chunk: Any


@dataclass(frozen=True, slots=True)
class Finish:
    reason: FinishReason


@dataclass(frozen=True, slots=True)
class Delay:
    ms: float


ErrorMode = Literal["entry", "result", "event", "preflight", "raise"]


@dataclass(frozen=True, slots=True)
class ErrorEntry:
    """A scripted failure. ``mode`` says how it surfaces (see :func:`error` and friends)."""

    reason: str
    details: Mapping[str, Any] = field(default_factory=dict)
    mode: ErrorMode = "entry"


@dataclass(frozen=True, slots=True)
class Ok:
    """A whole non-streaming result (harness shape): ``output_text``, ``tool_calls``, ..."""

    result: Mapping[str, Any]


Entry = Text | ToolCall | ToolCallDelta | UsageEntry | RawChunk | Finish | Delay | ErrorEntry | Ok


# --- constructors -----------------------------------------------------------------------------


def text(s: str) -> Text:
    """Assistant text, streamed as one ``text_delta``."""
    return Text(s)


def text_delta(s: str) -> Text:
    """Harness-shape spelling of :func:`text`."""
    return Text(s, tag="text_delta")


def tool_call(*, id: str, name: str, arguments: Mapping[str, Any] | None = None,
              raw_arguments: str | None = None, kind: ToolKind = "function") -> ToolCall:
    """A complete tool call: ``arguments`` as a dict (sent as JSON) or ``raw_arguments`` text.

    ``kind="custom"`` is a freeform call (Codex's ``apply_patch``): give ``raw_arguments``.
    """
    if (arguments is None) == (raw_arguments is None):
        raise ValueError(f"tool_call(id={id!r}): give exactly one of arguments= (a dict) or "
                         "raw_arguments= (the exact text)")
    raw = raw_arguments if raw_arguments is not None else json.dumps(arguments)
    return ToolCall(id, name, raw, kind)


def tool_call_delta(*, id: str, arguments_delta: str, name: str = "",
                    kind: ToolKind = "function") -> ToolCallDelta:
    """A fragment of a call's arguments, for streaming arguments piece by piece.

    The first delta of an ``id`` starts the call (give ``name`` there); the call completes when
    the message does.
    """
    return ToolCallDelta(id, arguments_delta, name, kind)


def usage(**counts: int) -> UsageEntry:
    """Token counts reported with ``message_completed`` (e.g. ``input_tokens=3``)."""
    bad = [k for k, v in counts.items() if not isinstance(v, int) or isinstance(v, bool) or v < 0]
    if bad:
        raise ValueError(f"usage(): counts must be non-negative ints; bad: {', '.join(bad)}")
    return UsageEntry(dict(counts))


def raw_chunk(obj: Any) -> RawChunk:
    """An opaque provider chunk, passed through as a ``raw_chunk`` event."""
    return RawChunk(obj)


def finish(reason: str = "stop") -> Finish:
    """Ends the message with ``reason`` (``stop``, ``tool_calls``, ``length``, ``content_filter``)."""
    if reason not in FINISH_REASONS:
        raise ValueError(f"finish({reason!r}): reason must be one of {', '.join(FINISH_REASONS)}")
    return Finish(reason)  # type: ignore[arg-type]


def error(reason: str, **details: Any) -> ErrorEntry:
    """A failure with ``reason``. In an entry list it ends the call with an ``error`` event
    (``generate`` raises); leading a ``script`` *with details* it is a harness per-call result.

    ``details`` may include ``message`` and ``status`` (HTTP status used by the SDK clients).
    """
    return ErrorEntry(reason, dict(details), "result" if details else "entry")


def delay(ms: float) -> Delay:
    """Wait ``ms`` before the next entry (a first delay delays ``message_started``)."""
    if not ms >= 0:
        raise ValueError(f"delay({ms!r}): ms must be >= 0")
    return Delay(ms)


_warned_sleep = False


def sleep(ms: float) -> Delay:
    """Deprecated alias of :func:`delay` (warns once per process)."""
    global _warned_sleep
    if not _warned_sleep:
        _warned_sleep = True
        warnings.warn("scenarist.fake.sleep() is deprecated; use delay()", DeprecationWarning,
                      stacklevel=2)
    return delay(ms)


def ok(result: Mapping[str, Any] | None = None, **fields: Any) -> Ok:
    """A whole result (harness shape): ``ok(output_text="hi", finish_reason="stop")``."""
    return Ok({**(result or {}), **fields})


def preflight_error(reason: str, **details: Any) -> ErrorEntry:
    """The call fails before any stream opens (``stream()`` raises at once)."""
    return ErrorEntry(reason, dict(details), "preflight")


def error_event(reason: str, **details: Any) -> ErrorEntry:
    """An ``error`` event inside the stream, which then ends."""
    return ErrorEntry(reason, dict(details), "event")


def stream_error(reason: str, **details: Any) -> ErrorEntry:
    """The stream breaks: iterating it raises :class:`FakeModelError` at this point."""
    return ErrorEntry(reason, dict(details), "raise")


# --- rules ------------------------------------------------------------------------------------


def is_harness_results(script: Sequence[Entry]) -> bool:
    """The spec's disambiguation: a leading ``ok`` or 3-tuple-style ``error`` → one entry a call."""
    first = script[0] if script else None
    return isinstance(first, Ok) or (isinstance(first, ErrorEntry) and first.mode == "result")


def _where(key: str, call: int | None, index: int) -> str:
    return f"{key}[{call}][{index}]" if call is not None else f"{key}[{index}]"


def validate_call(entries: Sequence[Any], key: str, call: int | None = None) -> list[Entry]:
    """Check one call's entry list; errors name the entry and how to fix it."""
    out: list[Entry] = []
    ended: str | None = None
    for i, entry in enumerate(entries):
        where = _where(key, call, i)
        if not isinstance(entry, Entry):
            raise ValueError(f"{where}: {entry!r} is not a script entry; build entries with "
                             "scenarist.fake.text(), tool_call(), finish(), ...")
        if ended is not None and not isinstance(entry, Delay | UsageEntry):
            raise ValueError(f"{where}: {type(entry).__name__} after {ended}; {ended} ends the "
                             "call, so move it last (only delay/usage may follow)")
        if isinstance(entry, ErrorEntry) and entry.mode == "preflight" and any(
                not isinstance(e, Delay) for e in out):
            raise ValueError(f"{where}: preflight_error must come before any output; use "
                             "error_event() or stream_error() for a failure mid-stream")
        if isinstance(entry, Ok) and len(entries) > 1:
            raise ValueError(f"{where}: ok(...) is a whole call's result; give it alone in its "
                             "call (or lead a script= list with it: one ok/error per call)")
        if isinstance(entry, Finish):
            ended = "finish()"
        elif isinstance(entry, ErrorEntry):
            ended = f"{entry.reason!r} error"
        out.append(entry)
    return out


def calls_of(key: str, value: Sequence[Any], nested: bool) -> list[list[Entry]]:
    """Normalize ``script=`` (``nested=False``) or ``scripts=``/``stream_scripts=`` into calls."""
    if isinstance(value, str | bytes) or not isinstance(value, Sequence):
        raise ValueError(f"{key} must be a list, got {type(value).__name__}")
    if not nested:
        if is_harness_results(value):
            return [validate_call([e], key, None) for e in value]
        return [validate_call(value, key)]
    calls = []
    for n, call in enumerate(value):
        if isinstance(call, str | bytes) or not isinstance(call, Sequence):
            raise ValueError(f"{key}[{n}] must be a list of entries (one list per call), got "
                             f"{type(call).__name__}; for one call use script=[...]")
        calls.append(validate_call(call, key, n))
    return calls
