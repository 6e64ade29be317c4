"""Faults on the model API: which answer is faulted, and how, before it is sent.

A turn's ``fault`` (and ``--chaos`` / the ``x-scenarist-chaos`` header) is decided here, once
per delivery, after the answer is made and before anything is sent (docs/faults.md, "The model
API"): :class:`ModelFaults` counts the deliveries of each answer (a retry of the same request
is the same answer of the same conversation, so it is counted, and after ``times`` faulted
deliveries it goes out whole) and turns the answer's frames and the fault into the actions of
:func:`scenarist.faults.plan`; :mod:`scenarist.llm.fault_reply` sends them. Nothing here runs
for an answer without a fault when no chaos is asked for.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import orjson

from scenarist.faults import (
    CHANNELS,
    CHAOS_HEADER,
    Action,
    Chaos,
    End,
    Write,
    chaos_fault,
    describe,
    parse_chaos,
    plan,
)
from scenarist.json_out import dump_bytes
from scenarist.llm.answer import WIRE, Answer, Batch
from scenarist.llm.conversation import Api
from scenarist.llm.script import ModelTurn
from scenarist.scenario.errors import Issue
from scenarist.scenario.model import Fault, LlmResponse, Scenario
from scenarist.scenario.record import replace
from scenarist.wire import ReasoningDelta, ReasoningEnd, TextDelta, WireEvent, error_body
from scenarist.wire.gemini import gemini_error
from scenarist.wire.sse import Frame

__all__ = ["ModelFaults", "Struck", "faults_on_errors", "malformed_frame",
           "split_sse", "stream_error", "strike_event"]

#: how many faulted answers' delivery counts are kept (the oldest are forgotten first)
DELIVERIES_LIMIT = 65536
#: the payload of a ``malformed`` event when the scenario gives none: a cut JSON object
MALFORMED = '{"type": "malformed", "cut": "'


@dataclass(frozen=True, slots=True)
class Struck:
    """One faulted delivery: the actions, over these frames (each due at its ``at_ms``)."""

    actions: tuple[Action, ...]
    frames: tuple[Batch, ...]
    stream: bool  # an SSE / JSON-array stream (else one JSON body)
    sse: bool
    api: Api


@dataclass
class ModelFaults:
    """The server's faults: its chaos (``--chaos``, ``--seed``) and the deliveries so far."""

    chaos: Chaos | None = None
    seed: int = 0
    deliveries: dict[str, int] = field(default_factory=dict)  # of faulted answers only
    limit: int = DELIVERIES_LIMIT

    def _delivered(self, identity: str) -> int:
        """Count one more delivery of a faulted answer. The oldest counts are forgotten past
        ``limit`` (a long chaos run must not grow without end; a retry comes soon after)."""
        count = self.deliveries.pop(identity, 0) + 1
        self.deliveries[identity] = count  # re-inserted: the dict keeps recent ones last
        if len(self.deliveries) > self.limit:
            del self.deliveries[next(iter(self.deliveries))]
        return count

    def pick(self, api: Api, headers: Mapping[str, str], entry: dict[str, Any],
             answer: Answer, *, socket: bool = False) -> Struck | None:
        """What this delivery of ``answer`` does wrong (journalled in ``entry``), or None;
        ``socket``: over the Responses WebSocket, whose wire events are the messages (the
        events' JSON). Raises :class:`~scenarist.faults.ChaosError` for an unreadable chaos
        header."""
        turn, ref = answer.turn, answer.ref
        if turn is None or ref is None:
            return None
        chaos = self.chaos
        header = headers.get(CHAOS_HEADER)
        if header is not None:
            chaos = parse_chaos(header, self.seed, CHANNELS["llm"].response)
        fault = turn.fault
        if fault is None and chaos is None:
            return None
        identity = f"{ref.scenario}\0{ref.conversation}\0{ref.turn}\0{ref.part}"
        encoded = answer.encoded
        stream = encoded.body is None
        frames = (encoded.frames or (split_sse(encoded.batches) if encoded.sse
                                     else encoded.batches)) if stream else (
            Batch(encoded.end_ms, encoded.body or b""),)
        sse = encoded.sse and stream and not socket
        if socket:
            frames = tuple(Batch(f.at_ms, _payload(f.data)) for f in frames)
        at = encoded.strike
        if fault is None:
            assert chaos is not None
            fault = chaos_fault(chaos, identity.encode(), len(frames))
            if fault is None:
                return None
            entry["chaos"] = True
        elif not stream and fault.after_bytes is None and fault.after_events is None:
            at = 0
            if turn.fault_after != (0, 0):  # partway through the body
                fault = replace(fault, after_bytes=len(frames[0].data) // 2)
        delivery = self._delivered(identity)
        entry["delivery"] = delivery
        if delivery > fault.times:
            return None
        entry["fault"] = describe(fault)
        data = [f.data for f in frames]
        if not stream and fault.kind in ("malformed", "duplicate", "reorder"):
            # one body: malformed replaces it; it has no events to repeat or swap
            actions: tuple[Action, ...] = (
                (Write(malformed_frame(fault.text, False), 0), End())
                if fault.kind == "malformed" else (Write(data[0], 0), End()))
            return Struck(actions, frames, stream, sse, api)
        error = (stream_error(api, fault, _sequence(data, fault, at), data[0] if data else b"")
                 if sse or socket else None)
        actions = plan(data, fault, at=at, final=1 if stream else 0,
                       malformed=malformed_frame(fault.text, sse),
                       error=_payload(error) if socket and error is not None else error)
        return Struck(actions, frames, stream, sse, api)


def faults_on_errors(scenario: Scenario) -> list[Issue]:
    """Warnings for faults in an ``llmResponse`` that is an ``error``: the model API answers
    it with the error, so its fault is not played (named at start, never silently dropped)."""
    file = str(scenario.source_path or "<scenario>")
    return [Issue(file, e.fault.line, e.fault.col, f"{e.key_path}.fault",
                  f"this llmResponse is an error, which the model API sends instead of an "
                  f"answer; its {e.fault.kind} fault is not played",
                  "for a transient error, write the response with a fault of kind httpStatus "
                  "(and times) instead of the error element", "warning")
            for e in scenario.timeline
            if isinstance(e, LlmResponse) and e.fault is not None and e.error is not None]


def _announced(first: bytes) -> dict[str, Any]:
    """The response object of a Responses stream's first event (``response.created``)."""
    try:
        created = orjson.loads(_payload(first)) if first else None
    except ValueError:
        created = None
    response = created.get("response") if isinstance(created, dict) else None
    return dict(response) if isinstance(response, dict) else {"object": "response"}


def _payload(frame: bytes) -> bytes:
    """An SSE frame's data (what a WebSocket message carries)."""
    for line in frame.split(b"\n"):
        if line.startswith(b"data: "):
            return line[6:]
    return frame


def _sequence(frames: Sequence[bytes], fault: Fault, at: int) -> int:
    """The Responses ``sequence_number`` of an in-stream error: the frames before it."""
    if fault.after_events is not None:
        return min(fault.after_events, len(frames))
    return min(at, len(frames))


def strike_event(events: Sequence[WireEvent], turn: ModelTurn) -> int:
    """Where ``turn``'s fault strikes among its neutral events: after the deltas of the
    thinking and text written before it (a fault written first strikes before anything)."""
    thinking, text = turn.fault_after
    if thinking == 0 and text == 0:
        return 0
    kind: type[TextDelta] | type[ReasoningDelta] = TextDelta if text else ReasoningDelta
    wanted = sum(len(s.text) for s in (turn.text[:text] if text else turn.thinking[:thinking]))
    all_thinking = not text and thinking == len(turn.thinking)  # then after its end, too
    seen = 0
    after = 1  # after the message start, at least
    for i, event in enumerate(events):
        if isinstance(event, kind):
            seen += len(event.text)
            after = i + 1
            if seen >= wanted and not all_thinking:
                break
        elif isinstance(event, ReasoningEnd) and all_thinking:
            return i + 1
    return after


def split_sse(batches: Sequence[Batch]) -> tuple[Batch, ...]:
    """An SSE stream's batches as one item per event (a blank line ends each one)."""
    out: list[Batch] = []
    for batch in batches:
        for piece in batch.data.split(b"\n\n"):
            if piece:
                out.append(Batch(batch.at_ms, piece + b"\n\n"))
    return tuple(out)


def malformed_frame(text: str | None, sse: bool) -> bytes:
    """One event whose data is not valid JSON (``text``, else a cut object)."""
    payload = (text if text is not None else MALFORMED).encode()
    return b"data: " + payload + b"\n\n" if sse else payload


def stream_error(api: Api, fault: Fault, sequence: int, first: bytes = b"") -> bytes:
    """The API's own in-stream error event for an ``httpStatus`` fault once a stream has
    started: what each API sends when it fails mid-answer. On Responses that is
    ``response.failed`` (as the wire encodes a scripted error mid-stream), the response that
    ``first`` (the stream's ``response.created``) announced, failed: Codex reads a failed
    answer only from it (an ``error`` event left it waiting until its idle timeout)."""
    message = fault.message or ("Overloaded" if fault.status_code == 529 else
                                f"The server had an error (status {fault.status_code})")
    wire = WIRE[api]
    if wire == "openai_responses":
        body = error_body(wire, fault.status_code, message)["error"]
        response = _announced(first)
        response.update(status="failed", output=[],
                        error={"code": body.get("code") or body["type"], "message": message})
        return Frame({"type": "response.failed", "sequence_number": sequence,
                      "response": response}, event="response.failed").encode()
    if wire == "gemini":
        return b"data: " + dump_bytes(gemini_error(fault.status_code, message)) + b"\n\n"
    data: dict[str, Any] = error_body(wire, fault.status_code, message)
    return Frame(data, event="error" if wire == "anthropic" else None).encode()
