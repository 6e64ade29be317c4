"""Faults on a process's output, carried out: the I/O edge of :mod:`scenarist.fault_lines`.

:class:`FaultedOutput` stands in front of a binary stream (fake-codex's stdout, the mock
agent's): lines pass through :class:`~scenarist.fault_lines.LineFaults` and its actions are
done here — bytes written and flushed piece by piece, pauses through the front end's own
clock (``pause``, so time stays in :mod:`scenarist.play`), text on stderr, and an exit
raised as :class:`FaultExit`. The program's entry point catches that after everything has
unwound (a tool's processes stopped, files closed) and ends the process with
:func:`exit_status`: the code, or a real death by the signal.
"""

from __future__ import annotations

import contextlib
import os
import signal as signals
import sys
from typing import IO, TYPE_CHECKING, Any

from scenarist.errors import ScenaristError
from scenarist.fault_lines import LineFaults
from scenarist.faults import Close, End, Exit, Pause, Stderr, Write

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

    from scenarist.faults import Action
    from scenarist.scenario.model import Fault

__all__ = ["FaultExit", "FaultedOutput", "FaultedText", "exit_status"]

#: signals whose default action does not end a process (it ignores, stops or continues)
_NOT_LETHAL = frozenset({"SIGCHLD", "SIGCONT", "SIGSTOP", "SIGTSTP", "SIGTTIN", "SIGTTOU",
                         "SIGURG", "SIGWINCH"})


class FaultExit(ScenaristError):
    """A scenario's ``exit`` fault (or the end of the output that ``truncate`` and a
    closing ``stall`` make): the process must end now, with ``code`` or by ``signal``; what
    it wrote before is flushed."""

    def __init__(self, code: int, signal: str | None) -> None:
        super().__init__(f"fault: exit by {signal}" if signal else f"fault: exit {code}")
        self.code = code
        self.signal = signal


class FaultedOutput:
    """A binary stream that plays faults; ``write`` takes whole lines (a last piece without a
    newline counts as one)."""

    def __init__(self, out: IO[bytes], err: IO[str], pause: Callable[[int], None]) -> None:
        self._out = out
        self._err = err
        self._pause = pause
        self.lines = LineFaults()
        self.paused_ms = 0  # stalls so far (scenario time): a player shifts what follows

    def write(self, data: bytes) -> int:
        self._run(self.lines.write(data))
        return len(data)

    def flush(self) -> None:
        self._out.flush()

    def fault(self, fault: Fault) -> None:
        """``fault`` reaches the output here (see :meth:`LineFaults.fault`)."""
        self._run(self.lines.fault(fault))

    def end(self) -> None:
        """The output is complete: what the faults still hold or owe is done now."""
        self._run(self.lines.end())

    def _run(self, actions: Iterable[Action]) -> None:
        for action in actions:
            match action:
                case Write(data=data):
                    self._out.write(data)
                    self._out.flush()
                case Pause(ms=ms):
                    self._out.flush()
                    self._pause(ms)
                    self.paused_ms += ms
                case Stderr(text=text):
                    self._out.flush()
                    self._err.write(text if text.endswith("\n") else text + "\n")
                    self._err.flush()
                case Exit(code=code, signal=signal):
                    self._out.flush()
                    raise FaultExit(code or 0, signal)
                case End() | Close():  # the output stops: a process ends cleanly, with 0
                    self._out.flush()
                    raise FaultExit(0, None)



class FaultedText:
    """The text face of a :class:`FaultedOutput`, for writers of ``str`` (a rich console, the
    JSON renderers); anything else is asked of the stream beneath (``isatty``, ``fileno``)."""

    def __init__(self, output: FaultedOutput, beneath: IO[str]) -> None:
        self.output = output
        self._beneath = beneath
        self.encoding = "utf-8"

    def write(self, text: str) -> int:
        self._beneath.flush()  # whatever went around us (a prompt marker) goes first
        self.output.write(text.encode("utf-8"))
        return len(text)

    def flush(self) -> None:
        self.output.flush()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._beneath, name)


def exit_status(exc: FaultExit) -> int:
    """End as ``exc`` says: the exit code to return, or, for a signal, a real death by it
    (its default action restored first, so a handler cannot turn it into something else)."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # closed, or a pipe nobody reads
            stream.flush()
    if exc.signal is None:
        return exc.code
    signum = getattr(signals, exc.signal, None)
    if not isinstance(signum, signals.Signals):
        return 128  # the loader names only real signals; nothing else to die of here
    if signum.name in _NOT_LETHAL:  # would stop, or not end, the process: the code it stands for
        return 128 + signum
    with contextlib.suppress(OSError):  # SIGKILL has no handler to reset
        signals.signal(signum, signals.SIG_DFL)
    signals.pthread_sigmask(signals.SIG_UNBLOCK, {signum})
    os.kill(os.getpid(), signum)
    return 128 + signum  # not reached: the signal ended the process
