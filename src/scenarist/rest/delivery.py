"""Faults on the delivery of a session's SSE stream (issue 25), pure: no I/O, no clock.

A fault strikes a *stream*, never the stored history: every event is stored once, with its
``seq``, and a stream that was cut resumes with ``Last-Event-ID: n`` at event n+1 exactly.
A scenario's fault is attached to the planned event it strikes before
(:attr:`scenarist.rest.events.Planned.faults`); a stream *reaches* it when its next event
is at or past that place and it has sent (or resumed after) nothing at or past it. What
reaching it does:

- ``disconnect``: the connection closes with no final chunk (an incomplete body);
- ``truncate``: the response ends cleanly, without the rest of the session;
- ``malformed``: one frame without ``id`` whose data is the fault's ``text``, else the next
  event's JSON cut in half (same ``event:`` name, so a web UI's handler gets it), then the
  stream goes on;
- ``stall``: nothing, not even a heartbeat, for ``ms``; then the stream goes on or closes;
- ``duplicate``: the next frame is written twice, id and all;
- ``reorder``: the next two frames swap, ids and all (never past the final status);
- ``fragment``: from here on every frame is written in pieces of ``bytes`` bytes.

``slowFirstByte`` and ``httpStatus`` act on a stream *request* (headers wait, or a problem
answers it); :mod:`scenarist.rest.app` plays those. ``after_bytes`` moves a strike inside a
frame (a cut there leaves a partial frame, which SSE clients drop); kinds that insert or move
whole frames strike at the end of that frame.

:class:`Delivery` is one stream's faults in flight: the app arms the faults the stream
reaches, feeds it each outgoing frame and executes the :data:`Action` list it returns.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from scenarist.faults import CHANNELS, Close, End, Pause, Write
from scenarist.scenario.model import Fault

__all__ = [
    "CONNECT_KINDS",
    "Action",
    "Delivery",
    "FaultPoint",
    "Outgoing",
    "fault_points",
    "malformed_frame",
]

#: Kinds that act on the stream request rather than on its frames.
CONNECT_KINDS = frozenset({"slowFirstByte", "httpStatus"})
#: Kinds that strike between whole frames (an ``afterBytes`` strike waits for the frame's end).
_WHOLE_FRAME_KINDS = frozenset({"malformed", "duplicate", "reorder"})


@dataclass(frozen=True, slots=True)
class FaultPoint:
    """A scenario fault and the planned event it strikes before; ``key`` names it in the
    store's strike counts (``times``)."""

    pos: int
    fault: Fault
    key: str


def fault_points(faults_at: Sequence[Sequence[Fault]]) -> tuple[FaultPoint, ...]:
    """The fault points of a plan, given each planned event's faults, in plan order; the
    kinds a stream does not play (warned about at start) are left out."""
    played = CHANNELS["rest"].timeline
    return tuple(FaultPoint(pos, fault, f"{pos}.{k}")
                 for pos, faults in enumerate(faults_at) for k, fault in enumerate(faults)
                 if fault.kind in played)


@dataclass(frozen=True, slots=True)
class Outgoing:
    """One stored event about to be sent: its frame in the stream's dialect (None: the
    dialect has no event for it) and whether it ends the stream."""

    seq: int
    frame: bytes | None
    final: bool = False


#: what a stream's delivery does (the shared planner's actions: :mod:`scenarist.faults`)
Action = Write | Pause | Close | End


@dataclass(slots=True)
class _Armed:
    fault: Fault
    bytes_left: int | None  # None: strikes before the next frame


@dataclass(slots=True)
class Delivery:
    """One stream's armed faults, fragmenting and held frame (see the module doc)."""

    armed: list[_Armed] = field(default_factory=list)
    piece: int | None = None  # fragment: bytes per write
    swap: bool = False  # reorder: hold the next frame
    held: bytes | None = None  # reorder: the frame that goes after the next one
    done: bool = False  # a cut or an end was returned: nothing more goes out

    def arm(self, fault: Fault, after_bytes: int | None = None) -> None:
        """Strike ``fault`` before the next frame, or after ``after_bytes`` more bytes."""
        self.armed.append(_Armed(fault, after_bytes))

    def feed(self, out: Outgoing) -> list[Action]:
        """The actions that send ``out`` (and strike what is due on the way)."""
        if self.done or out.frame is None:
            return []
        actions: list[Action] = []
        copies = 1
        for armed in [a for a in self.armed if a.bytes_left is None]:
            self.armed.remove(armed)
            if armed.fault.kind == "duplicate":
                copies = 2
            elif armed.fault.kind == "reorder":
                self.swap = True
            elif armed.fault.kind == "malformed":
                actions.append(Write(malformed_frame(out.frame, armed.fault.text), out.seq))
            else:
                actions += self._strike(armed.fault)
                if self.done:
                    return actions
        frame = out.frame * copies
        if self.swap and not out.final:
            self.swap, self.held = False, frame
            return actions
        self.swap = False
        if self.held is not None:  # after the frame that overtook it; never past the end
            frame = self.held + frame if out.final else frame + self.held
            self.held = None
        return actions + self._emit(frame, out.seq)

    def _emit(self, data: bytes, seq: int) -> list[Action]:
        """``data`` written, cut where a byte-placed fault strikes inside it."""
        actions: list[Action] = []
        while (hit := self._byte_hit(len(data))) is not None:
            at, fault = hit
            actions += self._writes(data[:at], seq)
            actions += self._strike(fault)
            if self.done:
                return actions
            data = data[at:]
        return actions + self._writes(data, seq)

    def _byte_hit(self, size: int) -> tuple[int, Fault] | None:
        """The first byte-placed fault striking within the next ``size`` bytes, and where;
        the others' counts move on. Whole-frame kinds wait for the next frame boundary."""
        inside = [a for a in self.armed if a.bytes_left is not None and a.bytes_left < size]
        for armed in inside:
            if armed.fault.kind in _WHOLE_FRAME_KINDS:
                armed.bytes_left = None
        first = min((a for a in inside if a.bytes_left is not None),
                    key=lambda a: a.bytes_left or 0, default=None)
        at = size if first is None else first.bytes_left or 0
        if first is not None:
            self.armed.remove(first)
        for armed in self.armed:
            if armed.bytes_left is not None:
                armed.bytes_left -= at
        return None if first is None else (at, first.fault)

    def _writes(self, data: bytes, seq: int) -> list[Action]:
        if not data:
            return []
        if self.piece is None:
            return [Write(data, seq)]
        return [Write(data[n:n + self.piece], seq) for n in range(0, len(data), self.piece)]

    def _strike(self, fault: Fault) -> list[Action]:
        match fault.kind:
            case "disconnect":
                self.done = True
                return [Close()]
            case "truncate":
                self.done = True
                return [End()]
            case "stall" if fault.then == "close":
                self.done = True
                return [Pause(fault.ms), Close()]
            case "stall":
                return [Pause(fault.ms)]
            case "fragment":
                self.piece = max(1, fault.chunk_bytes)
                return []
            case _:  # request-level or process kinds: nothing to do on a stream's frames
                return []


def malformed_frame(frame: bytes, text: str | None) -> bytes:
    """A frame like ``frame`` (same ``event:`` name) but with no ``id`` and bad data: ``text``
    (one ``data:`` line per line), else the frame's own data cut in half."""
    lines = frame.decode().rstrip("\n").split("\n")
    names = [line for line in lines if line.startswith("event:")]
    data = "\n".join(line[5:].removeprefix(" ") for line in lines if line.startswith("data:"))
    bad = text if text is not None else data[:max(1, len(data) // 2)]
    body = "".join(f"data: {line}\n" for line in bad.split("\n"))
    return ("".join(f"{name}\n" for name in names) + body + "\n").encode()
