"""Writing lines out, paced or at full speed.

At cadence 0 lines are gathered and written in large blocks (the fast path);
with a cadence, or for an interactive host, every line is flushed as it is made.
Pauses are kept by a :class:`scenarist.play.Schedule` started at the first write:
each line is due at ``t0 + sum of pauses before it``, so sleeping late once never
shifts the lines after it. The player is imported only when a first pause is due,
so output without pauses starts as fast as before.

A scenario's fault (a :class:`~scenarist.codex.turn.Strike` step) puts a
:class:`scenarist.fault_output.FaultedOutput` in front of the stream from then on, so runs
without faults keep the block-writing fast path untouched; a stall is a pause of this
schedule (scaled by ``time_scale``), so the lines after it keep their spacing.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from scenarist.codex.encode import CodexEventEncoder, dumps, raw_line
from scenarist.codex.turn import Raw, Sleep

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable
    from typing import IO, BinaryIO

    from scenarist.codex.turn import Step, Strike
    from scenarist.fault_output import FaultedOutput
    from scenarist.play import Clock, Schedule

_BLOCK = 2048  # lines per write on the fast path


def _monotonic_ms() -> float:
    """A reading on :class:`scenarist.play.RealClock`'s axis, without importing the player."""
    return time.monotonic_ns() / 1e6


class Writer:
    """Writes encoded steps to a binary stream; ``clock`` (a :class:`scenarist.play.Clock`,
    default the real one) is injectable for tests."""

    def __init__(
        self,
        stream: BinaryIO,
        *,
        cadence_ms: int = 0,
        flush_each: bool = False,
        clock: Clock | None = None,
        stderr: IO[str] | None = None,
        time_scale: float = 1.0,
    ) -> None:
        self._raw = stream
        self._stream: BinaryIO | FaultedOutput = stream
        self._stderr = stderr
        self._time_scale = time_scale
        self._faults: FaultedOutput | None = None
        self._cadence_ms = cadence_ms
        self._flush_each = flush_each or cadence_ms > 0
        self._clock = clock
        self._t0_ms: float | None = None
        self._schedule: Schedule | None = None
        self._due_ms = 0.0
        self.lines = 0

    def write(self, steps: Iterable[Step], encode: Callable[[dict[str, object]], str]) -> None:
        """Encode and write every step; ``encode`` turns an event into zero or more lines."""
        if self._t0_ms is None:
            self._t0_ms = self._clock.now_ms() if self._clock is not None else _monotonic_ms()
        if self._flush_each:
            self._write_paced(steps, encode)
        else:
            self._write_fast(steps, encode)

    def _write_fast(
        self, steps: Iterable[Step], encode: Callable[[dict[str, object]], str]
    ) -> None:
        buf: list[str] = []
        append = buf.append
        first = self.lines == 0
        # inline the codex-event envelope: one call fewer per event on the hot path
        prefix = encode.prefix if isinstance(encode, CodexEventEncoder) else None
        for step in steps:
            if isinstance(step, dict):
                if prefix is None:
                    append(encode(step))
                else:
                    append(prefix + dumps(step) + "}}\n")
            elif isinstance(step, Raw):
                append(raw_line(step.value))
            else:
                self._emit(buf)
                buf.clear()
                if isinstance(step, Sleep):
                    self._pause(step.ms)
                else:
                    self._strike(step)
                continue
            if first or len(buf) >= _BLOCK:
                first = False
                self._emit(buf)
                buf.clear()
        self._emit(buf)

    def _write_paced(
        self, steps: Iterable[Step], encode: Callable[[dict[str, object]], str]
    ) -> None:
        for step in steps:
            if isinstance(step, dict):
                text = encode(step)
            elif isinstance(step, Raw):
                text = raw_line(step.value)
            elif isinstance(step, Sleep):
                self._pause(step.ms)
                continue
            else:
                self._strike(step)
                continue
            for line in text.splitlines(keepends=True):
                self._emit([line])
                self._pause(self._cadence_ms)

    def _emit(self, lines: list[str]) -> None:
        text = "".join(lines)
        if not text:
            return
        self._stream.write(text.encode("utf-8"))
        self._stream.flush()
        self.lines += text.count("\n")

    def _strike(self, step: Strike) -> None:
        if self._faults is None:
            import sys

            from scenarist.fault_output import FaultedOutput

            def pause(ms: int) -> None:
                self._pause(ms * self._time_scale)

            self._faults = FaultedOutput(self._raw, self._stderr or sys.stderr, pause)
            self._stream = self._faults
        self._faults.fault(step.fault)

    def warn(self, text: str) -> None:
        """One ``fake-codex: ...`` line on stderr (``text`` says it is a warning)."""
        import sys

        err = self._stderr or sys.stderr
        err.write(f"fake-codex: {text}\n")
        err.flush()

    def close(self) -> None:
        """The output is complete: faults still owed strike now (an unreached ``exit``
        still exits)."""
        if self._faults is not None:
            self._faults.end()

    def _pause(self, ms: float) -> None:
        """Wait until ``ms`` more of the schedule have passed (see the module doc)."""
        if ms <= 0:
            return
        self._due_ms += ms
        if self._schedule is None:
            self._schedule = self._start_schedule()
        self._schedule.wait_sync(self._due_ms)

    def _start_schedule(self) -> Schedule:
        from scenarist.play import RealClock, Schedule

        clock = self._clock if self._clock is not None else RealClock()
        return Schedule(clock, start_ms=self._t0_ms)
