"""Writing lines out, paced or at full speed.

At cadence 0 lines are gathered and written in large blocks (the fast path);
with a cadence, or for an interactive host, every line is flushed as it is made.
Pauses follow an absolute schedule (``t0 + sum of pauses``), so sleeping late
once never shifts the lines after it.
"""

from __future__ import annotations

import time

from scenarist.codex.encode import CodexEventEncoder, dumps, raw_line
from scenarist.codex.turn import Raw

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable
    from typing import BinaryIO

    from scenarist.codex.turn import Step

_BLOCK = 2048  # lines per write on the fast path


class Writer:
    """Writes encoded steps to a binary stream; ``clock``/``sleep`` are injectable for tests."""

    def __init__(
        self,
        stream: BinaryIO,
        *,
        cadence_ms: int = 0,
        flush_each: bool = False,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self._stream = stream
        self._cadence = cadence_ms / 1000.0
        self._flush_each = flush_each or cadence_ms > 0
        self._clock = clock
        self._sleep = sleep
        self._t0: float | None = None
        self._due = 0.0
        self.lines = 0

    def write(self, steps: Iterable[Step], encode: Callable[[dict[str, object]], str]) -> None:
        """Encode and write every step; ``encode`` turns an event into zero or more lines."""
        if self._t0 is None:
            self._t0 = self._clock()
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
                self._pause(step.ms / 1000.0)
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
            else:
                self._pause(step.ms / 1000.0)
                continue
            for line in text.splitlines(keepends=True):
                self._emit([line])
                self._pause(self._cadence)

    def _emit(self, lines: list[str]) -> None:
        text = "".join(lines)
        if not text:
            return
        self._stream.write(text.encode("utf-8"))
        self._stream.flush()
        self.lines += text.count("\n")

    def _pause(self, seconds: float) -> None:
        """Wait until ``seconds`` more of the schedule have passed since the first line."""
        if seconds <= 0:
            return
        if self._t0 is None:
            self._t0 = self._clock()
        self._due += seconds
        delay = self._t0 + self._due - self._clock()
        if delay > 0:
            self._sleep(delay)
