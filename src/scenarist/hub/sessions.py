"""Agents and who watches them: one :class:`AgentSession` per configured agent, owned by :class:`Hub`.

A session spawns its agent on the first command (and again after it exits), keeps the last
``ring_bytes`` of output for late subscribers, fans every output chunk out to its subscribers'
outboxes (encoding the frame once), tells when each command is done, times only the commands
still running, and reports exit, kill and spawn failures. Nothing here touches a socket: clients are :class:`~scenarist.hub.outbox.Outbox`.

Pacing: when *every* pacing subscriber is ``pace_bytes`` behind, the session stops reading the
agent's pipes until one catches up, so a client that keeps up receives every byte of even a
100 MB flood. A pause that lasts longer than ``pace_window_s`` ends anyway and the clients still
behind stop pacing (until they drain): a slow or stuck client delays the agent at most that
window once, never stalls it, and never holds back another client — it skips output instead.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections import deque
from collections.abc import Coroutine
from typing import Any

from scenarist.hub import protocol
from scenarist.hub.config import AgentSpec, HubConfig
from scenarist.hub.outbox import Outbox
from scenarist.hub.process import AgentProcess, StdinError
from scenarist.hub.protocol import (
    ClientMessage,
    Command,
    Kill,
    OutputStream,
    Restart,
    State,
    Subscribe,
)
from scenarist.hub.ring import OutputRing, utf8_len

EXIT_NOT_FOUND = 127  # shell convention: command not found
EXIT_CANNOT_EXECUTE = 126  # shell convention: found but not executable
MAX_MARKER_LINE = 64 * 1024  # a done marker is looked for in the first 64 KiB of a line


class CommandTracker:
    """Which commands an agent is still working on, by its done marker (pure, no I/O).

    Commands sent to a long-running agent queue on its stdin and finish in order: each line of
    stdout that matches the marker finishes the oldest. Lines are matched whole, across output
    chunks."""

    def __init__(self, marker: str | None) -> None:
        self.marker = re.compile(marker) if marker else None
        self.sent_at: deque[float] = deque()  # when each unfinished command was sent
        self._partial = ""

    def sent(self, now: float) -> None:
        self.sent_at.append(now)

    def finished_by(self, text: str) -> list[float]:
        """Feed stdout; returns the send times of the commands that this output finished."""
        if self.marker is None:
            return []
        lines = (self._partial + text).split("\n")
        self._partial = lines.pop()[:MAX_MARKER_LINE]
        done: list[float] = []
        for line in lines:
            if self.sent_at and self.marker.search(line, 0, MAX_MARKER_LINE):
                done.append(self.sent_at.popleft())
        return done

    def clear(self) -> None:
        """The process ended: nothing is running any more."""
        self.sent_at.clear()
        self._partial = ""


class AgentSession:
    def __init__(self, spec: AgentSpec, config: HubConfig) -> None:
        self.spec = spec
        self.name = spec.name
        self.timeout_s = config.timeout_for(spec)
        self._limits = config.limits
        self.state: State = "idle"
        self.ring = OutputRing(config.limits.ring_bytes)
        self.subscribers: set[Outbox] = set()
        self.process: AgentProcess | None = None
        self.last_exit: tuple[int | None, str | None] | None = None
        self._spawn_lock = asyncio.Lock()
        self._timer: asyncio.TimerHandle | None = None
        self.commands = CommandTracker(spec.done_marker)
        self._pace_timer: asyncio.TimerHandle | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    # -- fan-out -------------------------------------------------------------------------------

    def _broadcast(self, frame: bytes) -> None:
        for client in tuple(self.subscribers):
            client.push(frame, self.name)

    def _set_state(self, state: State) -> None:
        self.state = state
        self._broadcast(protocol.status(self.name, state))

    def _on_output(self, stream: OutputStream, text: str) -> None:
        self.ring.append(stream, text)
        finished = self.commands.finished_by(text) if stream == "stdout" else []
        self._fan_out(stream, text)
        if finished:
            now = asyncio.get_running_loop().time()
            for sent in finished:
                self._broadcast(protocol.done(self.name, now - sent))
            if self.commands.sent_at:
                self._arm_timer()  # the next queued command is running now
            else:
                self._cancel_timer()

    def _fan_out(self, stream: OutputStream, text: str) -> None:
        if not self.subscribers:
            return
        frame = protocol.output(stream, self.name, text)
        nbytes = utf8_len(text)
        for client in tuple(self.subscribers):
            client.push_output(self.name, frame, nbytes)
        if self._pace_timer is None and self._all_pacers_behind():
            assert self.process is not None
            self.process.pause_reading(True)
            self._pace_timer = asyncio.get_running_loop().call_later(
                self._limits.pace_window_s, self._pace_expired)

    # -- pacing --------------------------------------------------------------------------------

    def _all_pacers_behind(self) -> bool:
        pacers = [c.pending_bytes for c in self.subscribers if c.pacing and not c.closed]
        return bool(pacers) and min(pacers) >= self._limits.pace_bytes

    def _resume(self) -> None:
        if self._pace_timer is not None:
            self._pace_timer.cancel()
            self._pace_timer = None
            if self.process is not None:
                self.process.pause_reading(False)

    def _pace_expired(self) -> None:
        for client in self.subscribers:
            if client.pending_bytes >= self._limits.pace_bytes:
                client.pacing = False  # too slow to pace: it skips until it drains
        self._resume()

    def client_drained(self, client: Outbox) -> None:
        """A subscriber caught up (or left): resume reading unless every pacer is still behind."""
        if self._pace_timer is not None and not self._all_pacers_behind():
            self._resume()

    def _on_exit(self, code: int | None, signal: str | None) -> None:
        self._cancel_timer()
        self.commands.clear()
        self._resume()
        killed = self.process is not None and self.process.killed
        self.process = None
        self.last_exit = (code, signal)
        if killed:
            self._broadcast(protocol.killed(self.name))
        self._broadcast(protocol.exit_(self.name, code, signal))
        self._set_state("exited")

    # -- client requests -----------------------------------------------------------------------

    def subscribe(self, client: Outbox, replay: bool = True) -> None:
        """Add a watcher; with ``replay`` it first gets the buffered output, then the state."""
        self.subscribers.add(client)
        if not replay:
            return
        for stream, text in self.ring.snapshot():
            client.push_output(self.name, protocol.output(stream, self.name, text), utf8_len(text))
        client.push(protocol.status(self.name, self.state), self.name)
        if self.state == "exited" and self.last_exit is not None:
            client.push(protocol.exit_(self.name, *self.last_exit), self.name)

    async def command(self, text: str, client: Outbox) -> None:
        """Spawn the agent if it is not running, then write ``text`` + newline to its stdin."""
        if client not in self.subscribers:
            self.subscribe(client, replay=False)
        async with self._spawn_lock:
            if self.process is not None and self.process.exiting:
                await self.process.finished.wait()
            if self.process is None and not await self._spawn():
                return
            assert self.process is not None
            try:
                self.process.write(text + "\n")
            except StdinError as exc:
                client.push(protocol.error(f"agent {self.name!r}: {exc}", self.name), self.name)
                return
            self.commands.sent(asyncio.get_running_loop().time())
            # With a done marker the oldest unfinished command is timed (a later one waits its
            # turn on stdin); without one, the time since the last command is.
            if self._timer is None or self.commands.marker is None:
                self._arm_timer()

    async def restart(self, client: Outbox) -> None:
        """Stop the running process, if any (``killed`` then ``exit``, as a kill), and start a
        new one without writing to it: an agent that died mid-output (or hangs) gets a fresh
        process, and the buffer keeps the previous runs' output. In message order: the
        sender's next frame is handled once the new process runs (or failed to start)."""
        if client not in self.subscribers:
            self.subscribe(client, replay=False)
        async with self._spawn_lock:
            process = self.process
            if process is not None and process.exiting:  # it ended on its own: no "killed"
                await process.finished.wait()
            elif process is not None:
                await process.kill()
            await self._spawn()

    async def _spawn(self) -> bool:
        self._set_state("starting")
        try:
            self.process = await AgentProcess.start(
                self.spec, self._on_output, self._on_exit,
                grace_s=self._limits.kill_grace_s, stdin_limit=self._limits.stdin_buffer_bytes)
        except OSError as exc:
            self._spawn_failed(exc)
            return False
        self._set_state("running")
        return True

    def _spawn_failed(self, exc: OSError) -> None:
        program = self.spec.argv[0]
        if isinstance(exc, FileNotFoundError):
            what = (f"program {program!r} was not found"
                    + (" on PATH" if "/" not in program else "")
                    + (f" or cwd {self.spec.cwd!r} does not exist" if self.spec.cwd else ""))
            code = EXIT_NOT_FOUND
        else:
            what = f"cannot start {program!r}: {exc.strerror or exc}"
            code = EXIT_CANNOT_EXECUTE
        self.last_exit = (code, None)
        self._broadcast(protocol.error(
            f"agent {self.name!r}: {what}; install it or set [agents.{self.name}] argv in the "
            "hub's --config file", self.name))
        self._broadcast(protocol.exit_(self.name, code, None))
        self._set_state("error")

    def request_kill(self, client: Outbox) -> None:
        """A client's ``kill``, decided in message order: it stops the agent that is running
        (or being started) now, never one that a later command starts. Only the wait through
        the grace period runs in the background, so the client stays responsive."""
        if self.process is None and self.state != "starting":
            client.push(protocol.error(f"agent {self.name!r} is not running; nothing to kill",
                                       self.name), self.name)
            return
        if client not in self.subscribers:
            self.subscribe(client, replay=False)
        self.spawn_task(self._stop(self.process))

    async def kill(self) -> None:
        """Stop the agent's whole process group now; subscribers get ``killed`` then ``exit``."""
        await self._stop(self.process)

    async def _stop(self, process: AgentProcess | None) -> None:
        if process is None:  # being started when the kill came: stop what that start produces
            async with self._spawn_lock:
                process = self.process
            if process is None:
                return  # the start failed; its error and exit were already sent
        await process.kill()

    # -- timeout -------------------------------------------------------------------------------

    def _arm_timer(self) -> None:
        self._cancel_timer()
        self._timer = asyncio.get_running_loop().call_later(self.timeout_s, self._timed_out)

    def _cancel_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _timed_out(self) -> None:
        self._timer = None
        if self.process is None:
            return
        self._broadcast(protocol.timeout(self.name, self.timeout_s))
        if self.spec.kill_on_timeout:
            self.spawn_task(self._stop(self.process))

    def spawn_task(self, coro: Coroutine[Any, Any, None]) -> None:
        """Run ``coro`` in the background, keeping a reference until it is done."""
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)


class Hub:
    """All agent sessions of one hub, and the dispatch of client messages to them."""

    def __init__(self, config: HubConfig) -> None:
        self.config = config
        self.sessions = {name: AgentSession(spec, config) for name, spec in config.agents.items()}

    def hello(self) -> bytes:
        return protocol.hello(list(self.sessions))

    async def handle(self, message: ClientMessage, client: Outbox) -> None:
        session = self.sessions.get(message.agent)
        if session is None:
            client.push(protocol.error(
                f"unknown agent {message.agent!r}; configured agents: {', '.join(self.sessions)} "
                "(the hub only starts agents from its configuration)"))
            return
        if isinstance(message, Command):
            await session.command(message.text, client)
        elif isinstance(message, Kill):
            session.request_kill(client)
        elif isinstance(message, Restart):
            await session.restart(client)
        elif isinstance(message, Subscribe):
            session.subscribe(client)

    def connect(self, client: Outbox) -> None:
        client.on_drain = self._drained

    def _drained(self, client: Outbox) -> None:
        for session in self.sessions.values():
            session.client_drained(client)

    def disconnect(self, client: Outbox) -> None:
        for session in self.sessions.values():
            session.subscribers.discard(client)
            session.client_drained(client)

    async def shutdown(self) -> None:
        """Kill every running agent (whole process groups) and wait until they are gone."""
        await asyncio.gather(*(s.kill() for s in self.sessions.values() if s.process is not None))
        for session in self.sessions.values():
            for task in tuple(session._tasks):
                with contextlib.suppress(asyncio.CancelledError):
                    await task
