"""Faults on a process's line output (fake-codex's JSONL, the mock agent's formats): the rules.

Pure: lines and faults in, :data:`scenarist.faults.Action`\\ s out (write these bytes, pause,
write to stderr, exit, end); :mod:`scenarist.fault_output` carries them out. The rules are
those of :func:`scenarist.faults.plan`, which faults one response's frames at once; a
process writes its lines as it makes them (paced, turn by turn, for as long as stdin brings
prompts) and a ``fragment`` lasts for the rest of the output, so here they are applied line
by line, to several faults at a time. The wire events are the lines: ``afterEvents: N``
strikes after N lines and ``afterBytes: N`` after N bytes, counted from where
:meth:`LineFaults.fault` was told about the fault (:func:`reaching`: at the first line of the
fault's response, or at the fault's moment without either key).

What each kind does to the lines (docs/faults.md, "fake-codex and the mock agent"):

- ``exit``: what was written stays written, then the process ends with ``code`` (default 1)
  or dies of ``signal``; with ``afterBytes`` inside a line, the line is cut there.
- ``truncate``: the output stops there and the process exits 0, without the final events.
- ``stall``: no bytes for ``ms``, then the rest (``then: close``: the output stops, exit 0).
- ``stderr``: ``text`` on stderr (a newline added), the output goes on.
- ``malformed``: one extra line that is not JSON before the next line (``text``, or the next
  line cut in half), then the stream goes on: nothing is lost.
- ``duplicate``: the next line written twice; ``reorder``: the next two lines swapped.
- ``fragment``: from here on every line is written in pieces of ``bytes`` bytes, each its
  own write and flush.

Counting is on what goes out (a duplicated line counts twice). A fault whose count is not
reached when the output ends strikes at its end (an ``exit`` is still an exit).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from scenarist.faults import Action, Close, End, Exit, Pause, Stderr, Write
from scenarist.scenario.beats import FaultBeat
from scenarist.scenario.model import LlmResponse

if TYPE_CHECKING:
    from scenarist.scenario.beats import Beat
    from scenarist.scenario.model import Fault

__all__ = ["LineFaults", "cut_line", "reaching"]

#: what a ``stderr`` fault without ``text`` writes (chaos makes such faults)
_NOISE = "warning: stderr noise (a scenarist fault)"
#: kinds that act on whole lines: with ``afterBytes`` they strike at the end of the line
_LINE_KINDS = frozenset({"malformed", "duplicate", "reorder"})


@dataclass(slots=True)
class _Armed:
    """A fault waiting for its count of lines or bytes."""

    fault: Fault
    lines: int | None
    nbytes: int | None


def reaching(beat: Beat, armed: set[int]) -> Fault | None:
    """The fault that reaches the output at ``beat``, if any: a counted one (``afterEvents`` /
    ``afterBytes``) at the first beat of its response, since it counts from the response's
    start (``armed`` remembers the responses already seen); any other at its own beat."""
    event = beat.event
    if isinstance(event, LlmResponse) and event.fault is not None and (
            event.fault.after_events is not None or event.fault.after_bytes is not None):
        if id(event) in armed:
            return None
        armed.add(id(event))
        return event.fault
    return beat.step if isinstance(beat, FaultBeat) else None


def cut_line(line: bytes) -> bytes:
    """The default payload of ``malformed``: ``line`` cut in half (a JSON object never
    closed), as one line of its own."""
    body = line.rstrip(b"\r\n")
    half = body[: max(1, len(body) // 2)] if body else b'{"type":'
    return half + b"\n"


@dataclass(slots=True)
class LineFaults:
    """The fault state of one output stream: feed it faults and lines, carry out what it says."""

    ended: bool = False
    _armed: list[_Armed] = field(default_factory=list)
    _pending: list[Fault] = field(default_factory=list)  # line kinds, for the next lines
    _held: bytes | None = None  # reorder: the first line, until the second comes
    _chunk: int = 0  # fragment: piece size, 0 = whole lines
    _frame: int = 0  # lines written so far (each Write names the line it belongs to)

    def fault(self, fault: Fault) -> list[Action]:
        """A fault reaches the output: it strikes now, or after its ``afterEvents`` lines /
        ``afterBytes`` bytes from here."""
        if self.ended:
            return []
        if fault.after_events is None and fault.after_bytes is None:
            return self._strike(fault)
        self._armed.append(_Armed(fault, fault.after_events, fault.after_bytes))
        out: list[Action] = []
        self._due(out)  # afterEvents: 0 strikes at once
        return out

    def write(self, data: bytes) -> list[Action]:
        """Lines for the output (a last piece without a newline is taken as a line too)."""
        out: list[Action] = []
        for line in data.splitlines(keepends=True):
            for wire in self._transform(line):
                self._wire(wire, out)
                if self.ended:
                    return out
        return out

    def end(self) -> list[Action]:
        """The output ends: a held line goes out, faults still counting strike now."""
        out: list[Action] = []
        if self.ended:
            return out
        if self._held is not None:
            held, self._held = self._held, None
            self._put(held, out)
        for fault in self._pending:
            if fault.kind == "malformed":
                self._put(_malformed(fault, b""), out)
        self._pending.clear()
        while self._armed and not self.ended:
            out += self._strike(self._armed.pop(0).fault)
        return out

    # -- the stages a line goes through ---------------------------------------------------------

    def _transform(self, line: bytes) -> list[bytes]:
        """Line faults: what goes out for ``line`` (none yet when it is held for a swap)."""
        if self._held is not None:
            held, self._held = self._held, None
            return [line, held]
        if not self._pending:
            return [line]
        fault = self._pending.pop(0)
        if fault.kind == "duplicate":
            return [line, line]
        if fault.kind == "malformed":
            return [_malformed(fault, line), line]
        self._held = line  # reorder
        return []

    def _wire(self, data: bytes, out: list[Action]) -> None:
        """Count ``data`` against the armed faults, cutting it where one strikes inside it."""
        while not self.ended:
            cut = min((a for a in self._armed if a.nbytes is not None
                       and a.fault.kind not in _LINE_KINDS and 0 < a.nbytes < len(data)),
                      key=lambda a: a.nbytes or 0, default=None)
            if cut is None:
                break
            n = cut.nbytes or 0
            self._put(data[:n], out)
            self._count(n, lines=0)
            data = data[n:]
            self._due(out)
        if self.ended:
            return
        self._put(data, out)
        self._count(len(data), lines=1 if data.endswith(b"\n") else 0)
        self._due(out)

    def _count(self, nbytes: int, *, lines: int) -> None:
        for armed in self._armed:
            if armed.nbytes is not None:
                armed.nbytes -= nbytes
            if armed.lines is not None:
                armed.lines -= lines

    def _due(self, out: list[Action]) -> None:
        for armed in [a for a in self._armed if (a.lines is not None and a.lines <= 0)
                      or (a.nbytes is not None and a.nbytes <= 0)]:
            self._armed.remove(armed)
            if not self.ended:
                out += self._strike(armed.fault)

    def _put(self, data: bytes, out: list[Action]) -> None:
        if not data:
            return
        frame = self._frame
        if data.endswith(b"\n"):
            self._frame += 1
        if not self._chunk:
            out.append(Write(data, frame))
            return
        size = self._chunk
        out += [Write(data[i : i + size], frame) for i in range(0, len(data), size)]

    def _strike(self, fault: Fault) -> list[Action]:
        match fault.kind:
            case "exit":
                self.ended = True
                code = fault.exit_code if fault.exit_code is not None else 1
                return [Exit(None if fault.signal else code, fault.signal)]
            case "truncate":
                self.ended = True
                return [End()]
            case "stall":
                if fault.then == "close":
                    self.ended = True
                    return [Pause(fault.ms), Close()]
                return [Pause(fault.ms)]
            case "stderr":
                return [Stderr(fault.text if fault.text is not None else _NOISE)]
            case "fragment":
                self._chunk = max(1, fault.chunk_bytes)
                return []
            case "malformed" | "duplicate" | "reorder":
                self._pending.append(fault)
                return []
            case _:
                return []  # not a line channel's (faults.CHANNELS): warned about at start


def _malformed(fault: Fault, line: bytes) -> bytes:
    if fault.text is None:
        return cut_line(line)
    text = fault.text.encode("utf-8")
    return text if text.endswith(b"\n") else text + b"\n"
