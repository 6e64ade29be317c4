"""One running agent process: its own session and process group, pipes, and a clean death.

Agents are started in a new session inside a :class:`scenarist.processes.ProcessTree`, so
everything they start stays findable, double-forked ``setsid`` daemons included; stopping an
agent signals the whole tree (SIGTERM, a grace period, SIGKILL), and when the leader exits on
its own, whatever it left behind is stopped the same way within
:data:`scenarist.processes.STOP_GRACE_S` (``stopped`` lists it). No orphans, even for wrappers
(like codex-acp's Node launcher) whose native child outlives them.

Output arrives through asyncio pipe callbacks and is handed on synchronously, so a reader never
waits on a consumer: consumers must not block (the hub's fan-out only appends to queues).
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import fcntl
import os
import signal as signals
from collections.abc import Callable
from typing import cast

from scenarist.errors import ScenaristError
from scenarist.hub.config import AgentSpec
from scenarist.hub.protocol import OutputStream
from scenarist.processes import STOP_GRACE_S, ProcessInfo, ProcessTree

OutputCallback = Callable[[OutputStream, str], None]
ExitCallback = Callable[[int | None, str | None], None]

PIPE_BYTES = 1024 * 1024
# One read, one output frame under a flood. Measured (bench_hub_stream.py, uvloop, picows):
# 80–112 KiB reads beat both 64 KiB (per-frame overhead) and 256 KiB–1 MiB, where each chunk's
# decode, escape and send passes no longer stay in cache and the client waits longer per frame.
READ_BYTES = 96 * 1024
_PIPE_CLOSE_WAIT_S = 2.0  # after the group is gone, how long an escaped process may hold a pipe


class StdinError(ScenaristError, RuntimeError):
    """The agent cannot take more input (it closed stdin, exited, or is not reading)."""


class _Exit(asyncio.SubprocessProtocol):
    def __init__(self, owner: AgentProcess) -> None:
        self.owner = owner

    def process_exited(self) -> None:
        self.owner._leader_exited()


class _PipeReader:
    """One output pipe (1 = stdout, 2 = stderr) of an agent, read with ``loop.add_reader``.

    Each read lands in one preallocated :data:`READ_BYTES` buffer that is reused for the
    agent's whole life and decoded straight from a view of it: no fresh ``bytes`` (and its
    page faults) per read, and both event loops read the same size (uvloop's pipe transport
    reads 256 KB, asyncio's what it is told). A trickled line is read, and sent, at once.
    """

    def __init__(self, owner: AgentProcess, fd: int, pipe: int) -> None:
        self.owner = owner
        self.fd = fd
        self._pipe = pipe
        self._buffer = bytearray(READ_BYTES)
        self._view = memoryview(self._buffer)
        self._loop = asyncio.get_running_loop()
        self._closed = False
        self._paused = False
        self._loop.add_reader(pipe, self._readable)

    def _readable(self) -> None:
        try:
            n = os.readv(self._pipe, (self._buffer,))
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            n = 0  # e.g. EIO: treat like end of file
        if n:
            self.owner._data(self.fd, self._view[:n])
        else:
            self.close()

    def is_closing(self) -> bool:
        return self._closed

    def pause_reading(self) -> None:
        if not self._closed and not self._paused:
            self._paused = True
            self._loop.remove_reader(self._pipe)

    def resume_reading(self) -> None:
        if not self._closed and self._paused:
            self._paused = False
            self._loop.add_reader(self._pipe, self._readable)

    def close(self) -> None:
        """Stop reading, close the pipe, and report it closed (once)."""
        if self._closed:
            return
        self._closed = True
        if not self._paused:
            self._loop.remove_reader(self._pipe)
        os.close(self._pipe)
        self.owner._pipe_closed(self.fd)


def _output_pipe() -> tuple[int, int]:
    """A pipe widened to :data:`PIPE_BYTES` where Linux allows: a flooding agent then blocks
    less often, and each read hands the hub up to that much at once — one large frame
    instead of many small ones, while a trickle still arrives as soon as it is written."""
    read_end, write_end = os.pipe()
    setpipe = getattr(fcntl, "F_SETPIPE_SZ", None)
    if setpipe is not None:
        with contextlib.suppress(OSError):  # above /proc/sys/fs/pipe-max-size: keep the default
            fcntl.fcntl(write_end, setpipe, PIPE_BYTES)
    return read_end, write_end


class AgentProcess:
    """A started agent. Create with :meth:`start`; :attr:`finished` is set after ``on_exit``.

    Output pipes are made here rather than by the event loop (uvloop would use socket pairs),
    so both loops read real, widened pipes, :data:`READ_BYTES` at a time (see
    :class:`_PipeReader`).
    """

    def __init__(self, on_output: OutputCallback, on_exit: ExitCallback, grace_s: float,
                 stdin_limit: int) -> None:
        self._on_output = on_output
        self._on_exit = on_exit
        self._grace_s = grace_s
        self._stdin_limit = stdin_limit
        self._partial = {1: b"", 2: b""}  # the start of a character split across reads
        self._open_pipes = {1, 2}
        self._pipes_closed = asyncio.Event()
        self._kill_deadline: float | None = None
        self._transport: asyncio.SubprocessTransport | None = None
        self._readers: dict[int, _PipeReader] = {}
        self._finisher: asyncio.Task[None] | None = None
        self.finished = asyncio.Event()
        self.pid = 0
        self.killed = False
        self.tree = ProcessTree()
        self.stopped: tuple[ProcessInfo, ...] = ()  # what was still running when it ended

    @classmethod
    async def start(cls, spec: AgentSpec, on_output: OutputCallback, on_exit: ExitCallback, *,
                    grace_s: float = 3.0, stdin_limit: int = 1024 * 1024) -> AgentProcess:
        """Spawn ``spec.argv`` (no shell). Raises ``OSError`` (e.g. FileNotFoundError) if it
        cannot be executed; the caller reports that to clients."""
        self = cls(on_output, on_exit, grace_s, stdin_limit)
        pipes = {1: _output_pipe(), 2: _output_pipe()}
        try:
            transport, _ = await self.tree.subprocess_exec(
                lambda: _Exit(self), *spec.argv,
                stdin=asyncio.subprocess.PIPE, stdout=pipes[1][1], stderr=pipes[2][1],
                cwd=spec.cwd, env={**os.environ, **spec.env}, close_fds=True)
        except BaseException:
            for read_end, _ in pipes.values():
                os.close(read_end)
            raise
        finally:
            for _, write_end in pipes.values():
                os.close(write_end)  # the agent holds its own copies
        self._transport = transport
        self.pid = transport.get_pid()
        for fd, (read_end, _) in pipes.items():
            os.set_blocking(read_end, False)
            self._readers[fd] = _PipeReader(self, fd, read_end)
        return self

    @property
    def exiting(self) -> bool:
        """The leader has exited; the group is being cleaned up and ``on_exit`` is coming."""
        return self._finisher is not None

    # -- input ---------------------------------------------------------------------------------

    def write(self, text: str) -> None:
        """Write ``text`` to the agent's stdin without waiting; refuse if it stopped reading."""
        # Duck-typed: uvloop's pipe transports are not asyncio.WriteTransport subclasses.
        pipe = self._transport.get_pipe_transport(0) if self._transport else None
        if pipe is None or pipe.is_closing() or self.finished.is_set():
            raise StdinError("the agent's stdin is closed (it has exited or closed its input)")
        stdin = cast(asyncio.WriteTransport, pipe)
        if stdin.get_write_buffer_size() > self._stdin_limit:
            raise StdinError(f"the agent is not reading its stdin ({stdin.get_write_buffer_size()}"
                             " bytes unread); wait for it or kill it")
        stdin.write(text.encode("utf-8"))

    def pause_reading(self, paused: bool) -> None:
        """Stop (or resume) reading stdout and stderr; the agent blocks once its pipes fill."""
        for pipe in self._readers.values():
            if not pipe.is_closing():
                if paused:
                    pipe.pause_reading()
                else:
                    pipe.resume_reading()

    # -- output and exit -----------------------------------------------------------------------

    def _data(self, fd: int, data: memoryview) -> None:
        # codecs' IncrementalDecoder would copy the view (``buffer + input``) on every read;
        # its own primitive decodes the view in place, and only a split character is kept.
        partial = self._partial[fd]
        chunk: bytes | memoryview = partial + data if partial else data
        text, used = codecs.utf_8_decode(chunk, "replace", False)
        self._partial[fd] = bytes(chunk[used:])
        if text:
            self._on_output("stdout" if fd == 1 else "stderr", text)

    def _pipe_closed(self, fd: int) -> None:
        if fd in self._partial and fd in self._open_pipes:
            self._open_pipes.discard(fd)
            tail, _ = codecs.utf_8_decode(self._partial.pop(fd), "replace", True)
            if tail:
                self._on_output("stdout" if fd == 1 else "stderr", tail)
            if not self._open_pipes:
                self._pipes_closed.set()

    def _leader_exited(self) -> None:
        if self._finisher is None:
            self._finisher = asyncio.get_running_loop().create_task(self._finish())

    async def _finish(self) -> None:
        assert self._transport is not None
        loop = asyncio.get_running_loop()
        if self.tree.alive():
            leftovers = loop.time() + min(self._grace_s, STOP_GRACE_S)
            if self._kill_deadline is None or self._kill_deadline > leftovers:
                self._kill_deadline = leftovers  # the leader is gone: no grace to wait out
                self._term()
            await self._wait_group_gone(self._kill_deadline)
        self.tree.close()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._pipes_closed.wait(), _PIPE_CLOSE_WAIT_S)
        returncode = self._transport.get_returncode()
        self._transport.close()
        for fd in tuple(self._open_pipes):  # an escaped process still holds it: stop reading
            self._readers[fd].close()
            self._pipe_closed(fd)
        code: int | None = returncode
        sig: str | None = None
        if returncode is not None and returncode < 0:
            code, sig = None, _signal_name(-returncode)
        try:
            self._on_exit(code, sig)
        finally:
            self.finished.set()

    async def _wait_group_gone(self, deadline: float) -> None:
        loop = asyncio.get_running_loop()
        delay = 0.005
        while self.tree.alive():
            if loop.time() >= deadline:
                self._note(self.tree.send(signals.SIGKILL))
                deadline = loop.time() + 5.0  # SIGKILL cannot be ignored; this only bounds /proc lag
                if not self.tree.alive():
                    return
            await asyncio.sleep(delay)
            delay = min(delay * 2, 0.05)

    # -- stopping ------------------------------------------------------------------------------

    def _term(self) -> None:
        self._note(self.tree.send(signals.SIGTERM))

    def _note(self, found: list[ProcessInfo]) -> None:
        known = {p.pid for p in self.stopped}
        self.stopped += tuple(p for p in found if p.pid not in known)

    async def kill(self) -> None:
        """SIGTERM the whole group, SIGKILL it after the grace period, and wait until finished."""
        if self.finished.is_set():
            return
        loop = asyncio.get_running_loop()
        self.killed = True
        if self._kill_deadline is None:
            self._kill_deadline = loop.time() + self._grace_s
            self._term()
        if self._finisher is None:
            # The leader is still alive: SIGKILL the group at the deadline if it lingers.
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.finished.wait(),
                                       max(0.0, self._kill_deadline - loop.time()))
            if not self.finished.is_set() and self._finisher is None:
                self._note(self.tree.send(signals.SIGKILL))
        await self.finished.wait()


def _signal_name(signum: int) -> str:
    try:
        return signals.Signals(signum).name
    except ValueError:
        return f"SIG{signum}"
