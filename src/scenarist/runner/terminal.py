"""A program in a pseudo-terminal of a given size, its output kept on a VT screen (pyte).

Every wait here is bounded by a deadline on the clock and is a wait for readiness: the pty
(output to read) and a pidfd (the program exited) are watched with ``select`` until the
deadline, so nothing sleeps a guessed amount. "The screen settled" means no output for
``quiet_ms``; when a deadline passes first, :class:`TerminalTimeout` carries the screen as it
was, so a failure shows what the user would have seen.

The program is started as a session leader (ptyprocess does ``setsid``) in a
:class:`scenarist.processes.ProcessTree`. :meth:`close` stops the whole tree, not only the
leader, so a shell's background jobs, an agent's tool processes or a double-forked daemon
never outlive a run, and says which processes it had to stop.
"""

from __future__ import annotations

import contextlib
import errno
import os
import select
import signal
import termios
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import BinaryIO

import ptyprocess
import pyte

from scenarist.play import RealClock
from scenarist.processes import ProcessInfo, ProcessTree
from scenarist.runner.errors import RunnerError
from scenarist.runner.feed import ScreenFeed
from scenarist.runner.screen import ScreenCapture, capture_screen, screen_text

__all__ = [
    "Terminal", "TerminalTimeout", "session_activity", "session_processes", "waiting_for_input",
]

_READ_SIZE = 65536
_READ_BATCH = 1 << 20
_DECCKM = 1 << 5  # pyte keeps private mode N as N << 5
_KILL_GRACE_S = 0.5
_EXIT_AFTER_EOF_MS = 1000.0


class TerminalTimeout(RunnerError):
    """A wait on the terminal passed its deadline; ``capture`` is the screen at that moment."""

    def __init__(self, what: str, capture: ScreenCapture) -> None:
        self.what = what
        self.capture = capture
        shown = screen_text(capture) or "(the screen is empty)"
        framed = "\n".join("  │" + line for line in shown.splitlines())
        super().__init__(f"{what}; the screen was:\n{framed}")


class _Screen(pyte.Screen):
    """pyte's screen, tolerant of xterm's private ``CSI ? … m`` / ``CSI > … m`` (modifyOtherKeys
    queries that vim sends): they set no style, pyte would raise on them."""

    def select_graphic_rendition(self, *attrs: int, private: bool = False) -> None:
        if not private:
            super().select_graphic_rendition(*attrs)


class Terminal:
    """``argv`` running in a ``width``×``height`` pty; output fed to a pyte screen."""

    def __init__(self, argv: Sequence[str], *, cwd: Path, env: Mapping[str, str], width: int,
                 height: int, transcript: BinaryIO | None = None) -> None:
        self.clock = RealClock()
        self._screen = _Screen(width, height)
        self._screen.write_process_input = self._answer  # type: ignore[method-assign]
        self._feed = ScreenFeed(self._screen, self._emulator_error)
        self._transcript = transcript
        self.tree = ProcessTree()
        try:
            self.process = ptyprocess.PtyProcess.spawn(
                list(argv), cwd=str(cwd), env=self.tree.environ(env), dimensions=(height, width),
                preexec_fn=self.tree.enter)
        except (OSError, ptyprocess.PtyProcessError) as exc:
            self.tree.close()
            raise RunnerError(f"cannot start {argv[0]!r} in a terminal: {exc}; check `ah.cmd` "
                              "(the program must be on PATH or an existing path)") from exc
        self.pid: int = self.process.pid
        self.tree.adopt(self.pid)
        self._fd: int = self.process.fd
        os.set_blocking(self._fd, False)  # read until the pty is empty, without a select each
        self._pidfd: int | None = _pidfd(self.pid)
        self.eof = False
        self.exit_code: int | None = None
        self.stopped = False  # still running at close: its exit code is our hang-up's
        self.last_output_ms = self.clock.now_ms()  # of the last output or input
        self.bytes_read = 0
        self._cpu_ticks = -1
        self.emulator_errors: list[str] = []  # sequences the emulator could not take
        self._left: tuple[ProcessInfo, ...] = ()  # what the program left when it exited

    # -- reading ---------------------------------------------------------------------

    @property
    def screen(self) -> pyte.Screen:
        """The screen model, current with everything read so far."""
        self._feed.flush()
        return self._screen

    def _emulator_error(self, exc: Exception) -> None:
        self.emulator_errors.append(f"{type(exc).__name__}: {exc}")

    def _answer(self, data: str) -> None:
        """The emulator answers a query (device attributes, cursor position) to the program."""
        with contextlib.suppress(OSError):
            os.write(self._fd, data.encode())

    def _read_available(self) -> bool:
        """Read what the pty holds now (a pty hands out about 4 KB a read: read again until
        it is empty, up to ``_READ_BATCH``); ``False`` when nothing came."""
        chunks: list[bytes] = []
        size = 0
        while size < _READ_BATCH:
            try:
                data = os.read(self._fd, _READ_SIZE)
            except BlockingIOError:
                break
            except OSError as exc:
                if exc.errno not in (errno.EIO, errno.EBADF):
                    raise
                data = b""
            if not data:  # the program closed the terminal
                self.eof = True
                break
            chunks.append(data)
            size += len(data)
        if not chunks:
            return False
        data = b"".join(chunks)
        self.bytes_read += size
        self.last_output_ms = self.clock.now_ms()
        if self._transcript is not None:
            self._transcript.write(data)
        self._feed.write(data)
        return True

    def _watch(self, timeout_ms: float) -> tuple[bool, bool]:
        """Wait up to ``timeout_ms`` for output or exit: (output was read, the program exited)."""
        fds = [] if self.eof else [self._fd]
        if self._pidfd is not None and self.exit_code is None:
            fds.append(self._pidfd)
        if not fds:
            return False, self.exit_code is not None
        ready, _, _ = select.select(fds, [], [], max(timeout_ms, 0.0) / 1000)
        got = self._fd in ready and self._read_available()
        exited = self._pidfd is not None and self._pidfd in ready
        if exited:
            self._reap()
        return got, exited or self.exit_code is not None

    def pump_until(self, deadline_ms: float) -> None:
        """Keep the screen current until ``deadline_ms``; return earlier when the program
        exits (what it wrote before is read), so an early exit is seen at once."""
        while True:
            left = deadline_ms - self.clock.now_ms()
            if left <= 0:
                return
            if self.eof and (self.exit_code is not None or self._pidfd is None):
                return  # nothing left to watch
            if self._watch(left)[1]:
                self.drain()
                return

    def poll_exit(self) -> int | None:
        """The program's exit code if it has exited (and is reaped), else ``None``.

        Does not wait, but for one case: once the program has closed the terminal (end of
        output) it is normally exiting, so its exit is waited for up to
        ``_EXIT_AFTER_EOF_MS``; reading the code before the reap would take a crash for a
        program still running."""
        if self.exit_code is None:
            self._watch(0)
        if self.exit_code is None and self._pidfd is None and not self.process.isalive():
            self._reap()
        if self.exit_code is None and self.eof:
            with contextlib.suppress(TerminalTimeout):
                self.wait_exit(self.clock.now_ms() + _EXIT_AFTER_EOF_MS)
        return self.exit_code

    def drain(self) -> None:
        """Read whatever output is already waiting, without waiting for more."""
        while not self.eof and self._watch(0)[0]:
            pass

    def settle(self, quiet_ms: float, deadline_ms: float, what: str = "the screen") -> None:
        """Return once no output came for ``quiet_ms`` and the program is idle, or it ended
        and its output is read; raise :class:`TerminalTimeout` if that does not happen by
        ``deadline_ms``.

        Idle: no process of the program's session is running, and they used no CPU time
        between two looks ``quiet_ms / 2`` apart (read from ``/proc``; a program that is
        still starting or computing is not ready, even when it prints nothing). Idleness
        cannot be waited for, so while the screen is quiet it is looked at every
        ``quiet_ms / 2``, output still ending the wait at once.
        """
        while True:
            now = self.clock.now_ms()
            if self.eof:
                return
            wait = self.last_output_ms + quiet_ms - now
            if wait <= 0 and self._watch(0)[0]:
                continue  # output was waiting while this process was not running: not quiet
            if wait <= 0:
                if self._idle_since_last_look():
                    return
                wait = quiet_ms / 2
            if now >= deadline_ms:
                why = ("it keeps writing" if self.last_output_ms + quiet_ms > now
                       else "it keeps running without waiting for input")
                raise TerminalTimeout(f"{what} did not settle ({why}; settled means "
                                      f"{quiet_ms:g} ms without output, the program idle) "
                                      "within the wait deadline", self.capture())
            self._watch(min(wait, deadline_ms - now))

    def ready(self, quiet_ms: float, deadline_ms: float, *, drawn: bool = False) -> None:
        """Return once the program is ready for its user: settled (:meth:`settle`) and either
        it drew something or one of its processes waits for input (``/proc/PID/wchan``:
        blocked in read/poll/select/epoll). A program that prints nothing until spoken to
        (``bc -q``) is ready when it waits to read; one still starting is not, even when it
        is quiet for a moment. With ``drawn`` only a drawn screen counts (a program known to
        draw one). :class:`TerminalTimeout` at ``deadline_ms``."""
        while True:
            self.settle(quiet_ms, deadline_ms, "the program's first screen")
            if self.eof or self.bytes_read > 0 or (
                    not drawn and waiting_for_input(self.pid) is not False):
                return
            now = self.clock.now_ms()
            if now >= deadline_ms:
                raise TerminalTimeout("the program's first screen did not come (it has drawn "
                                      "nothing and does not wait for input)", self.capture())
            self._watch(min(quiet_ms / 2, deadline_ms - now))

    def _idle_since_last_look(self) -> bool:
        busy, ticks = session_activity(self.pid)
        idle = not busy and ticks == self._cpu_ticks
        self._cpu_ticks = ticks
        return idle

    def wait_exit(self, deadline_ms: float) -> int:
        """The program's exit code once it exits (−N for signal N), reading output meanwhile;
        :class:`TerminalTimeout` if it still runs at ``deadline_ms``."""
        while self.exit_code is None:
            now = self.clock.now_ms()
            if now >= deadline_ms:
                raise TerminalTimeout("the program did not exit before its deadline",
                                      self.capture())
            if self._pidfd is None and not self.process.isalive():
                self._reap()
                break
            self._watch(deadline_ms - now if self._pidfd is not None else min(
                deadline_ms - now, 50.0))
        self.drain()
        assert self.exit_code is not None
        return self.exit_code

    def _reap(self) -> None:
        """Collect the exit code once the program has exited, and stop what it left running
        then, not only at :meth:`close` (as a closing terminal hangs up its jobs)."""
        if self.exit_code is not None:
            return
        with contextlib.suppress(ptyprocess.PtyProcessError, ChildProcessError):
            self.process.wait()
        status = self.process.exitstatus
        signalled = self.process.signalstatus
        self.exit_code = int(status) if status is not None else -int(signalled or 0)
        self._left += self.tree.stop(_KILL_GRACE_S, (signal.SIGHUP, signal.SIGTERM))

    # -- writing, capturing, ending ------------------------------------------------------

    def send(self, data: bytes) -> None:
        """Type ``data`` into the program (as keystrokes arrive from a terminal).

        Input counts as activity: the screen settles only ``quiet_ms`` after the last
        keystroke too, and the program has to be seen idle afresh (it may not have woken
        up to read the keys yet)."""
        self.last_output_ms = self.clock.now_ms()
        self._cpu_ticks = -1
        view = memoryview(data)
        while view:
            try:
                written = os.write(self._fd, view)
            except BlockingIOError:
                self._watch(10.0)  # let the program read: its input queue is full
                continue
            except OSError as exc:
                raise RunnerError(f"cannot type into the program: {exc} (it has ended?)") from exc
            view = view[written:]

    @property
    def translates_cr(self) -> bool:
        """The tty turns a typed CR into NL (``ICRNL``, as in cooked mode). A program in raw
        mode has it off; with it on, Enter reaches a raw-mode TUI as Ctrl+J, which Codex
        reads as "insert a newline" (seen in CI: three Enters left three newlines)."""
        try:
            return bool(termios.tcgetattr(self._fd)[0] & termios.ICRNL)
        except termios.error:  # the program has ended and the pty is gone
            return False

    @property
    def application_cursor(self) -> bool:
        """The program switched the cursor keys to application mode (DECCKM)."""
        return _DECCKM in self.screen.mode

    def capture(self) -> ScreenCapture:
        return capture_screen(self.screen)

    @property
    def alive(self) -> bool:
        return self.exit_code is None and bool(self.process.isalive())

    def close(self) -> tuple[ProcessInfo, ...]:
        """Stop the program and everything it started; the processes that were still running.

        SIGHUP + SIGTERM to each (what closing a terminal does), SIGKILL to whatever is left
        after a short grace (:meth:`ProcessTree.stop`).
        """
        self.stopped = self.exit_code is None and bool(self.process.isalive())
        stopped = self.tree.stop(_KILL_GRACE_S, (signal.SIGHUP, signal.SIGTERM))
        self._reap()
        self._pidfd_close()
        with contextlib.suppress(OSError):
            self.process.close(force=True)
        return self._left + stopped

    def _pidfd_close(self) -> None:
        if self._pidfd is not None:
            os.close(self._pidfd)
            self._pidfd = None


def _pidfd(pid: int) -> int | None:
    opener = getattr(os, "pidfd_open", None)
    if opener is None:
        return None
    try:
        fd: int = opener(pid)
    except OSError:
        return None
    return fd


def _session_stats(sid: int) -> dict[int, list[str]]:
    """Pid → the ``/proc/PID/stat`` fields after the command name, for the live processes of
    session ``sid`` (Linux; empty elsewhere). Zombies are left out. Plain ``os`` calls: this
    reads every process's stat file, and pathlib made it several times slower."""
    found: dict[int, list[str]] = {}
    try:
        names = os.listdir("/proc")
    except OSError:
        return found
    marker = f" {sid} ".encode()
    for name in names:
        if not name.isdigit():
            continue
        try:
            fd = os.open(f"/proc/{name}/stat", os.O_RDONLY)
        except OSError:
            continue
        try:
            stat = os.read(fd, 4096)
        except OSError:
            continue
        finally:
            os.close(fd)
        if marker not in stat:
            continue
        fields = stat[stat.rfind(b")") + 2:].decode().split()  # state, ppid, pgrp, session
        if len(fields) > 14 and fields[0] not in "ZX" and int(fields[3]) == sid:
            found[int(name)] = fields
    return found


def session_activity(sid: int) -> tuple[bool, int]:
    """(a process of session ``sid`` is running or in disk I/O, the CPU clock ticks its
    processes and their reaped children have used)."""
    stats = _session_stats(sid).values()
    busy = any(fields[0] in "RD" for fields in stats)
    return busy, sum(int(f) for fields in stats for f in fields[11:15])


_INPUT_WAITS = ("poll_schedule_timeout", "do_select", "core_sys_select", "ep_poll",
                "do_epoll_wait", "n_tty_read", "wait_woken", "tty_read")


def waiting_for_input(sid: int) -> bool | None:
    """Whether a process of session ``sid`` is blocked waiting for input (read, poll, select,
    epoll); ``None`` when the kernel does not say (``/proc/PID/wchan`` reads ``0``)."""
    known = False
    for pid in _session_stats(sid):
        try:
            wchan = Path(f"/proc/{pid}/wchan").read_text().strip()
        except OSError:
            continue
        if wchan and wchan != "0":
            known = True
            if wchan.startswith(_INPUT_WAITS):
                return True
    return False if known else None


def session_processes(sid: int) -> list[int]:
    """Pids of the live processes in session ``sid``."""
    return sorted(_session_stats(sid))
