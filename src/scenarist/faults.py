"""Faults, pure: which kinds each channel plays, the warnings for those it does not, seeded
chaos, and the planner that turns a channel's frames and a fault into what to do.

Every front end reads the scenario's faults (:class:`~scenarist.scenario.model.Fault`, in an
``llmResponse`` or as a ``fault`` event) and plays them at its edge. What is shared is here,
without I/O, so every channel faults the same way and a test can check each rule alone:

- :data:`CHANNELS`: the kinds each channel plays, in a response and between events; a
  channel's branch adds a kind here when it plays it. :func:`unplayed` lists the scenario's
  faults a channel does not play, as located warnings each front end prints at start (a
  fault is never silently ignored).
- :class:`Chaos` (``--chaos RATE[:kind,kind] --seed N``): :func:`chaos_fault` decides for
  one request from the seed and what identifies the request (its conversation and position),
  never from arrival order or a clock, so the same seed gives the same faults on the same
  requests, byte for byte.
- :func:`plan`: a channel's frames (bytes, in order) and a fault → :data:`Action`\\ s (write,
  pause, close, end, reject, exit, stderr) for the channel to execute. ``docs/faults.md``
  says what each kind does per channel.
"""

from __future__ import annotations

import hashlib
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Literal

from scenarist.errors import UsageError
from scenarist.scenario.errors import Issue
from scenarist.scenario.model import (
    FAULT_KINDS,
    Fault,
    FaultEvent,
    FaultKind,
    LlmResponse,
    Scenario,
)

__all__ = [
    "CHANNELS", "CHAOS_HEADER", "Action", "Channel", "Chaos", "ChaosError", "Close", "End", "Exit", "Pause",
    "Plays", "Reject", "Stderr", "Write", "chaos_fault", "describe", "parse_chaos", "plan",
    "unplayed",
]

Channel = Literal["llm", "rest", "acp", "codex", "agent", "hub"]
#: the request header that asks a server for chaos on that one request (``RATE[:kind,kind]``)
CHAOS_HEADER = "x-scenarist-chaos"


@dataclass(frozen=True, slots=True)
class Plays:
    """What one channel plays: its name in messages, and the fault kinds it plays inside an
    ``llmResponse`` and as a timeline ``fault`` event."""

    name: str
    response: frozenset[FaultKind] = frozenset()
    timeline: frozenset[FaultKind] = frozenset()


#: the ACP agent's kinds: its stdio transport's (scenarist.acp.faulty) and its late answer
_ACP: frozenset[FaultKind] = frozenset({
    "disconnect", "truncate", "malformed", "stall", "duplicate", "reorder", "exit", "stderr",
    "fragment", "lateResponse"})

#: what an SSE stream of the REST server plays, wherever the fault is written
_REST_STREAM: frozenset[FaultKind] = frozenset({
    "disconnect", "truncate", "malformed", "stall", "slowFirstByte", "duplicate", "reorder",
    "httpStatus", "fragment"})
#: what a process's line output plays (:mod:`scenarist.fault_lines`)
_LINES: frozenset[FaultKind] = frozenset({"exit", "truncate", "stall", "stderr", "malformed",
                                          "duplicate", "reorder", "fragment"})
#: the kinds each channel plays (docs/faults.md, one section per channel)
CHANNELS: dict[Channel, Plays] = {
    "llm": Plays("the model API (scenarist llm)", response=frozenset({
        "disconnect", "truncate", "malformed", "stall", "slowFirstByte", "duplicate", "reorder",
        "httpStatus"})),
    "rest": Plays("the REST/SSE server (scenarist rest)", _REST_STREAM, _REST_STREAM),
    "acp": Plays("the ACP agent (scenarist acp)", _ACP, _ACP),
    "codex": Plays("fake-codex", _LINES, _LINES),
    "agent": Plays("the mock agent (scenarist agent)", _LINES, _LINES),
    "hub": Plays("the hub (scenarist hub)"),
}


def unplayed(scenario: Scenario, channel: Channel) -> list[Issue]:
    """The scenario's faults ``channel`` does not play, as warnings at their place."""
    plays = CHANNELS[channel]
    out: list[Issue] = []
    file = str(scenario.source_path or "<scenario>")
    for event in scenario.timeline:
        if isinstance(event, LlmResponse) and event.fault is not None:
            fault, kinds, where = event.fault, plays.response, "in an llmResponse"
        elif isinstance(event, FaultEvent):
            fault, kinds, where = event.fault, plays.timeline, "as a timeline event"
        else:
            continue
        if fault.kind in kinds:
            continue
        played = ", ".join(k for k in FAULT_KINDS if k in kinds) or "none"
        out.append(Issue(file, fault.line or event.line, fault.col or event.col,
                         f"{event.key_path}.fault" if isinstance(event, LlmResponse)
                         else event.key_path,
                         f"{plays.name} does not play {fault.kind} faults {where}; "
                         "it is ignored here",
                         f"the kinds it plays {where}: {played} (docs/faults.md)", "warning"))
    return out


def describe(fault: Fault) -> dict[str, object]:
    """``fault`` as the scenario spells it (its keys that differ from the defaults), for
    journals and listings."""
    out: dict[str, object] = {"kind": fault.kind}
    default = Fault(fault.kind)
    for key, name in _SPELLED:
        value = getattr(fault, name)
        if value is not None and value != getattr(default, name):
            out[key] = value
    return out


_SPELLED = (("afterEvents", "after_events"), ("afterBytes", "after_bytes"), ("ms", "ms"),
            ("then", "then"), ("statusCode", "status_code"), ("message", "message"),
            ("retryAfterSeconds", "retry_after_seconds"), ("code", "exit_code"),
            ("signal", "signal"), ("text", "text"), ("bytes", "chunk_bytes"),
            ("times", "times"))


# -- seeded chaos ---------------------------------------------------------------------------


class ChaosError(UsageError):
    """A ``--chaos`` value (or the per-request header) that cannot be read."""


@dataclass(frozen=True, slots=True)
class Chaos:
    """``--chaos RATE[:kind,kind] --seed N``: each request is faulted with probability
    ``rate``, by one of ``kinds``, decided by :func:`chaos_fault`."""

    rate: float
    kinds: tuple[FaultKind, ...]
    seed: int = 0


def parse_chaos(text: str, seed: int, allowed: Collection[FaultKind]) -> Chaos:
    """``RATE[:kind,kind]`` (RATE in 0..1; kinds among ``allowed``, all of them if none)."""
    rate_text, _, kinds_text = text.strip().partition(":")
    try:
        rate = float(rate_text)
    except ValueError:
        raise ChaosError(f"chaos {text!r}: the rate {rate_text!r} is not a number; write "
                         "RATE[:kind,kind] with RATE in 0..1, e.g. 0.2:disconnect,stall") from None
    if not 0 <= rate <= 1:
        raise ChaosError(f"chaos {text!r}: the rate {rate} is outside 0..1; e.g. 0.2 faults "
                         "one request in five")
    ordered = tuple(k for k in FAULT_KINDS if k in allowed)
    if not kinds_text.strip():
        return Chaos(rate, ordered, seed)
    kinds: list[FaultKind] = []
    for name in (n.strip() for n in kinds_text.split(",")):
        kind = next((k for k in ordered if k == name), None)
        if kind is None:
            raise ChaosError(f"chaos {text!r}: {name!r} is not a fault kind played here; "
                             f"use some of: {', '.join(ordered)}")
        if kind not in kinds:
            kinds.append(kind)
    return Chaos(rate, tuple(kinds), seed)


#: what a chaos fault's parameters are drawn from
CHAOS_MS = (100, 200, 300, 500, 800, 1000)
CHAOS_STATUS = (429, 500, 503)


def chaos_fault(chaos: Chaos, identity: bytes, events: int) -> Fault | None:
    """The fault ``chaos`` puts on the request ``identity`` names (e.g. its conversation and
    position), whose answer has ``events`` wire events; None for no fault. A pure function of
    the seed and ``identity``: the same request gets the same fault in every run."""
    if chaos.rate <= 0 or not chaos.kinds:
        return None
    digest = hashlib.blake2b(identity, digest_size=32,
                             key=chaos.seed.to_bytes(16, "big", signed=True)).digest()
    draw = int.from_bytes(digest[:8], "big") / 2**64
    if draw >= chaos.rate:
        return None
    pick, where, param = (int.from_bytes(digest[i:i + 8], "big") for i in (8, 16, 24))
    fault = Fault(chaos.kinds[pick % len(chaos.kinds)])
    if fault.kind != "slowFirstByte":
        fault.after_events = where % max(events, 1)
    if fault.kind in ("stall", "slowFirstByte"):
        fault.ms = CHAOS_MS[param % len(CHAOS_MS)]
    elif fault.kind == "httpStatus":
        fault.status_code = CHAOS_STATUS[param % len(CHAOS_STATUS)]
    return fault


# -- the planner ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Write:
    """Write ``data`` (and flush); it comes from frame ``frame``, so it is due when that
    frame is."""

    data: bytes
    frame: int


@dataclass(frozen=True, slots=True)
class Pause:
    """Send nothing for ``ms`` milliseconds (unscaled: the channel's clock applies speed)."""

    ms: int


@dataclass(frozen=True, slots=True)
class Close:
    """Cut the connection (or stream, or stdout) here: no final event, no clean end."""


@dataclass(frozen=True, slots=True)
class End:
    """End the stream as the channel always does (what was written is all there is)."""


@dataclass(frozen=True, slots=True)
class Reject:
    """Nothing was sent yet: answer with the API's error (``status``, ``message``,
    ``retry-after``) instead of the response."""

    status: int
    message: str
    retry_after_seconds: float | None = None


@dataclass(frozen=True, slots=True)
class Exit:
    """The process exits (after flushing what was written) with ``code`` or by ``signal``."""

    code: int | None
    signal: str | None = None


@dataclass(frozen=True, slots=True)
class Stderr:
    """Write ``text`` to stderr; the process goes on."""

    text: str


Action = Write | Pause | Close | End | Reject | Exit | Stderr

_DEFAULT_MESSAGE = {429: "Rate limit reached (a scenarist fault)",
                    529: "Overloaded (a scenarist fault)"}


def plan(frames: Sequence[bytes], fault: Fault, *, at: int, final: int = 0,
         malformed: bytes = b"", error: bytes | None = None) -> tuple[Action, ...]:
    """What to do to send ``frames`` (a channel's wire events, in order) with ``fault``.

    ``at``: how many frames precede the fault where the scenario placed it (the frames of
    the steps written before it); ``afterEvents`` / ``afterBytes`` override it. ``final``:
    how many trailing frames are the final events a ``truncate`` leaves out. ``malformed``:
    the bad frame a ``malformed`` fault inserts, framed by the channel. ``error``: the
    channel's in-stream error frame for ``httpStatus`` once bytes were sent (without one, the
    stream is cut there)."""
    pieces = [(i, data) for i, data in enumerate(frames)]
    n = len(pieces)
    if fault.after_events is not None:
        k = min(fault.after_events, n)
    elif fault.after_bytes is not None:
        k = _split(pieces, fault.after_bytes, whole=fault.kind in _WHOLE)
        n = len(pieces)
    else:
        k = max(0, min(at, n))
    out: list[Action] = []
    kind = fault.kind

    def write(part: Sequence[tuple[int, bytes]]) -> None:
        out.extend(Write(data, frame) for frame, data in part if data)

    def frame_at(index: int) -> int:
        return pieces[index][0] if index < n else (pieces[-1][0] if pieces else 0)

    if kind == "slowFirstByte":
        out.append(Pause(fault.ms))
        write(pieces)
        out.append(End())
    elif kind == "disconnect":
        write(pieces[:k])
        out.append(Close())
    elif kind == "truncate":
        last = n - final if fault.after_bytes is None else n
        write(pieces[:min(k, max(last, 0))])
        out.append(End())
    elif kind == "malformed":
        write(pieces[:k])
        out.append(Write(malformed, frame_at(k)))
        write(pieces[k:])
        out.append(End())
    elif kind == "stall":
        write(pieces[:k])
        out.append(Pause(fault.ms))
        if fault.then == "close":
            out.append(Close())
        else:
            write(pieces[k:])
            out.append(End())
    elif kind in ("duplicate", "reorder"):
        k = max(0, min(k, n - (1 if kind == "duplicate" else 2)))
        write(pieces[:k])
        if kind == "duplicate":
            write(pieces[k:k + 1] * 2)
            write(pieces[k + 1:])
        else:
            write(pieces[k + 1:k + 2] + pieces[k:k + 1])
            write(pieces[k + 2:])
        out.append(End())
    elif kind == "httpStatus":
        message = fault.message or _DEFAULT_MESSAGE.get(
            fault.status_code, f"Service unavailable (a scenarist fault, status "
                               f"{fault.status_code})")
        if k == 0:
            out.append(Reject(fault.status_code, message, fault.retry_after_seconds))
        else:
            write(pieces[:k])
            if error is None:
                out.append(Close())
            else:
                out.append(Write(error, frame_at(k - 1)))
                out.append(End())
    elif kind == "exit":
        write(pieces[:k])
        out.append(Exit(fault.exit_code, fault.signal))
    elif kind == "stderr":
        write(pieces[:k])
        out.append(Stderr(fault.text or ""))
        write(pieces[k:])
        out.append(End())
    elif kind == "lateResponse":  # ACP's, about a cancel (scenarist.acp.agent): no frame changes
        write(pieces)
        out.append(End())
    else:  # fragment
        write(pieces[:k])
        size = fault.chunk_bytes
        for frame, data in pieces[k:]:
            write([(frame, data[j:j + size]) for j in range(0, len(data), size)])
        out.append(End())
    return tuple(out)


#: kinds that strike between whole frames: ``afterBytes`` rounds up to the next boundary
_WHOLE = frozenset({"malformed", "duplicate", "reorder", "httpStatus"})


def _split(pieces: list[tuple[int, bytes]], after: int, *, whole: bool) -> int:
    """How many pieces come before byte ``after``; the frame holding it is split in two
    there (in place) unless ``whole``, then the strike moves to that frame's end."""
    total = 0
    for i, (frame, data) in enumerate(pieces):
        if total + len(data) > after:
            cut = after - total
            if cut == 0:
                return i
            if whole:
                return i + 1
            pieces[i:i + 1] = [(frame, data[:cut]), (frame, data[cut:])]
            return i + 1
        total += len(data)
    return len(pieces)
