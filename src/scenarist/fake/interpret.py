"""One call's script entries → the ordered steps of its answer (pure, lazy).

A step is an :class:`~scenarist.fake.events.FakeEvent`, a :class:`Wait` (a scripted delay: the
steps after it are due that much later, see :func:`timed_steps`; delays are *front-loaded*), or a
:class:`Raise` (``stream_error``). Ordering rules (the spec's):

- ``message_started`` first, after any leading delays;
- one event per entry in script order; a ``tool_call`` is started → delta → completed;
- at the end: calls built from ``tool_call_delta`` complete, then ``text_completed`` (only if
  text was emitted), then ``message_completed`` (synthesized when there is no ``finish``:
  ``tool_calls`` if the message made calls, else ``stop``), with the merged usage;
- an error entry emits ``error`` and ends the call (no ``message_completed``).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from scenarist.fake.events import ErrorEvent as ErrorEv
from scenarist.fake.events import (
    FakeEvent,
    FakeModelError,
    MessageCompleted,
    MessageStarted,
    RawChunkEvent,
    TextCompleted,
    TextDelta,
    ToolCallCompleted,
    ToolCallDelta,
    ToolCallStarted,
    error_from,
)
from scenarist.fake.script import (
    Delay,
    Entry,
    ErrorEntry,
    Finish,
    FinishReason,
    Ok,
    RawChunk,
    Text,
    ToolCall,
    ToolKind,
    UsageEntry,
)
from scenarist.fake.script import ToolCallDelta as DeltaEntry


@dataclass(frozen=True, slots=True)
class Wait:
    ms: float


@dataclass(frozen=True, slots=True)
class Raise:
    error: FakeModelError


Step = FakeEvent | Wait | Raise
T = TypeVar("T")


def timed_steps(steps: Iterator[T | Wait | Raise]) -> Iterator[tuple[float, T | Raise]]:
    """Each step with its time, ``(at_ms, step)``: ms after the call began, the scripted
    delays before it summed (each :class:`Wait` folded into the steps after it; lazy).

    Consumers pace these through a :class:`scenarist.play.Schedule` (one absolute start for
    the call), never by sleeping each delay in turn.
    """
    at = 0.0
    for step in steps:
        if isinstance(step, Wait):
            at += step.ms
        else:
            yield at, step


def parse_arguments(raw: str, kind: ToolKind) -> dict[str, Any] | None:
    if kind != "function":
        return None
    try:
        value = json.loads(raw) if raw.strip() else {}
    except json.JSONDecodeError:
        return None
    return value if isinstance(value, dict) else None


def preflight(entries: Sequence[Entry]) -> FakeModelError | None:
    """The error a call fails with before any stream opens, if it starts with one."""
    for entry in entries:
        if isinstance(entry, ErrorEntry) and entry.mode == "preflight":
            return error_from(entry.reason, entry.details)
        if not isinstance(entry, Delay):
            return None
    return None


def _ok_entries(result: Mapping[str, Any]) -> list[Entry]:
    """A harness ``ok`` result as ordinary entries."""
    entries: list[Entry] = []
    if result.get("output_text"):
        entries.append(Text(str(result["output_text"])))
    for call in result.get("tool_calls") or ():
        args = call.get("arguments", {})
        raw = args if isinstance(args, str) else json.dumps(args)
        entries.append(ToolCall(str(call["id"]), str(call["name"]), raw,
                                call.get("kind", "function")))
    if result.get("usage"):
        entries.append(UsageEntry(dict(result["usage"])))
    if result.get("finish_reason"):
        entries.append(Finish(result["finish_reason"]))
    return entries


def steps(entries: Sequence[Entry], *, request_id: str | None, model: str) -> Iterator[Step]:
    """The steps of one call (see the module doc). Generated lazily, one entry at a time."""
    flat: list[Entry] = []
    for entry in entries:
        flat.extend(_ok_entries(entry.result) if isinstance(entry, Ok) else [entry])
    i = 0
    while i < len(flat) and isinstance(flat[i], Delay):
        yield Wait(flat[i].ms)  # type: ignore[union-attr]
        i += 1
    yield MessageStarted(request_id, model)
    text: list[str] = []
    pending: dict[str, tuple[str, ToolKind, list[str]]] = {}
    made_calls = False
    counts: dict[str, int] = {}
    reason: FinishReason | None = None
    for entry in flat[i:]:
        if isinstance(entry, Text):
            text.append(entry.text)
            yield TextDelta(entry.text)
        elif isinstance(entry, ToolCall):
            made_calls = True
            yield ToolCallStarted(entry.id, entry.name, entry.kind)
            if entry.raw_arguments:
                yield ToolCallDelta(entry.id, entry.raw_arguments)
            yield ToolCallCompleted(entry.id, entry.name, entry.raw_arguments,
                                    parse_arguments(entry.raw_arguments, entry.kind), entry.kind)
        elif isinstance(entry, DeltaEntry):
            made_calls = True
            if entry.id not in pending:
                pending[entry.id] = (entry.name, entry.kind, [])
                yield ToolCallStarted(entry.id, entry.name, entry.kind)
            pending[entry.id][2].append(entry.arguments_delta)
            yield ToolCallDelta(entry.id, entry.arguments_delta)
        elif isinstance(entry, UsageEntry):
            for key, value in entry.counts.items():
                counts[key] = counts.get(key, 0) + value
        elif isinstance(entry, RawChunk):
            yield RawChunkEvent(entry.chunk)
        elif isinstance(entry, Delay):
            yield Wait(entry.ms)
        elif isinstance(entry, Finish):
            reason = entry.reason
        elif isinstance(entry, ErrorEntry):
            error = error_from(entry.reason, entry.details)
            if entry.mode == "raise":
                yield Raise(error)
            else:
                yield ErrorEv(error)
            return
    for call_id, (name, kind, parts) in pending.items():
        raw = "".join(parts)
        yield ToolCallCompleted(call_id, name, raw, parse_arguments(raw, kind), kind)
    if text:
        yield TextCompleted("".join(text))
    if reason is None:
        reason = "tool_calls" if made_calls else "stop"
    yield MessageCompleted(reason, counts)
