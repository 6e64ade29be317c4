"""The mock agent's progress file: how far its playback got, for the test executor.

The mock agent keeps its own clock (it starts when the user's prompt arrives), so a test
executor that schedules its asserts by its own clock races it. Instead ``scenarist run`` hands
the agent a file to append to (``--progress-file PATH``, or ``$SCENARIST_AGENT_PROGRESS``,
which reaches an agent that a host program starts from ``$SCENARIST_AGENT_CMD``) and waits on
it. A plain file, not a pipe: it never blocks the agent, survives any start order, and stays
in the run's log folder as a record. One line per fact, each written and flushed at once::

    start PID      playback begins; PID is the agent's process
    prompt N       the agent waits for the user's prompt of beat N (its marker is shown)
    beat N         beat N (its position in the compiled timeline) has been played
    end CODE       playback is over; the agent exits with CODE (0 matched, 1 mismatches)

Positions are those of :func:`scenarist.scenario.compile_timeline`, which both sides compute
from the same file and defines. :func:`parse_progress` is pure; :class:`ProgressReader` reads
the lines added since its last look.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TextIO

__all__ = ["PROGRESS_ENV", "Progress", "ProgressReader", "ProgressWriter", "parse_progress",
           "process_running"]

PROGRESS_ENV = "SCENARIST_AGENT_PROGRESS"


@dataclass(frozen=True, slots=True)
class Progress:
    """What the agent has reported: its pid, the last beat played and the last prompt it
    waits for or took (−1: none), its exit code."""

    pid: int | None = None
    reached: int = -1
    prompt: int = -1
    ended: int | None = None


def parse_progress(lines: Iterable[str], progress: Progress = Progress()) -> Progress:
    """``progress`` advanced by ``lines``; a line that is not one of the three is ignored
    (a half-written last line is not handed here: the reader keeps it for the next look)."""
    for line in lines:
        word, _, value = line.strip().partition(" ")
        try:
            number = int(value)
        except ValueError:
            continue
        if word == "start":
            progress = Progress(pid=number)
        elif word == "beat":
            progress = replace(progress, reached=max(progress.reached, number))
        elif word == "prompt":
            progress = replace(progress, prompt=max(progress.prompt, number))
        elif word == "end":
            progress = replace(progress, ended=number)
    return progress


class ProgressWriter:
    """The agent's side: appends each fact and flushes it, so a reader sees it at once."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self._file: TextIO = open(path, "a", encoding="utf-8")  # noqa: SIM115 closed by close()

    def _write(self, line: str) -> None:
        self._file.write(line + "\n")
        self._file.flush()

    def start(self) -> None:
        self._write(f"start {os.getpid()}")

    def prompt(self, position: int) -> None:
        self._write(f"prompt {position}")

    def beat(self, position: int) -> None:
        self._write(f"beat {position}")

    def end(self, code: int) -> None:
        self._write(f"end {code}")

    def close(self) -> None:
        self._file.close()


class ProgressReader:
    """The executor's side: :meth:`read` returns the progress so far, reading only new bytes."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._offset = 0
        self._partial = b""
        self.progress = Progress()

    def read(self) -> Progress:
        try:
            with self.path.open("rb") as file:
                file.seek(self._offset)
                data = file.read()
        except OSError:
            return self.progress
        self._offset += len(data)
        *lines, self._partial = (self._partial + data).split(b"\n")
        self.progress = parse_progress((line.decode("utf-8", "replace") for line in lines),
                                       self.progress)
        return self.progress


def process_running(pid: int) -> bool:
    """Whether ``pid`` is alive (an exited process that nobody has reaped yet is not)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as file:
            stat = file.read()
    except OSError:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True
        return True
    return stat[stat.rfind(b")") + 2:][:1] not in (b"Z", b"X")
