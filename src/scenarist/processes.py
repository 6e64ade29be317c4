"""Start a child so that everything it starts can be found and stopped: one rule everywhere.

Every front end that runs a program (the executor's program under test and its agents, the
mock agent's tool commands, ``acp-test``'s agent, the hub's agents, the ``scenarist llm``
helper) spawns it with a :class:`ProcessTree`. The tree is set up before the child runs, so
nothing the child starts can slip out of it, not even a double-forked daemon that called
``setsid``; :meth:`ProcessTree.stop` then ends all of it (SIGTERM, a short grace, SIGKILL,
reaped) and says what it found, pid and command line, so a caller can report it::

    tree = ProcessTree()
    proc = tree.popen(argv, env=env)   # or: env=tree.environ(env), preexec_fn=tree.enter,
    ...                                #     start_new_session=True, then tree.adopt(pid)
    stopped = tree.stop()          # (ProcessInfo(pid, cmdline), ...) of what was running

:func:`run_command` does all of that for a command that is waited for (a tool call, a user command).

How members are tracked, the first that works on this machine (``mode``):

``cgroup``
    A cgroup v2 of its own, made below this process's cgroup; the child joins it in
    ``preexec_fn`` before ``exec``, so every descendant is born in it whatever it does, and
    ``cgroup.kill`` ends them all in one write. Exact, but it needs a writable (delegated)
    cgroup v2 hierarchy: root in a container, or a systemd user slice with delegation. CI
    runners often have neither, hence the fallbacks.
``subreaper``
    ``prctl(PR_SET_CHILD_SUBREAPER)`` on this process: an orphan (a daemon whose parent
    exited) is re-parented to us instead of to init, so it stays below us and we reap it
    (in containers PID 1 often reaps nothing). Only while such a tree is live: orphans of
    unrelated children would otherwise pile up here as zombies. Members are found in ``/proc``: descendants of
    the child, its session and process group, and every process whose environment carries
    the tree's marker (:data:`MARKER`, inherited across ``fork``, ``setsid`` and ``exec``).
``session``
    Where ``prctl`` is missing (not Linux): the same ``/proc`` search without the re-parenting.
    A descendant that leaves the session *and* clears its environment is found only with a
    cgroup.

``SCENARIST_PROCESS_TRACKING=subreaper|session`` picks a weaker mode on purpose (the tests of
the fallbacks use it); ``cgroup`` is the default wherever it works.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import signal
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    import asyncio

__all__ = [
    "MARKER",
    "STOP_GRACE_S",
    "Finished",
    "ProcessInfo",
    "ProcessTree",
    "TrackingMode",
    "describe",
    "run_command",
    "stop_group",
]

TrackingMode = Literal["cgroup", "subreaper", "session"]
MARKER = "SCENARIST_PROCESS_TREE"  # environment variable naming the tree a process belongs to
STOP_GRACE_S = 0.5  # SIGTERM → SIGKILL: everything is gone within a second of the stop
_KILL_BOUND_S = 5.0  # SIGKILL cannot be ignored; this only bounds /proc and cgroup lag
_CMDLINE_CHARS = 300
_PR_SET_CHILD_SUBREAPER = 36
_MODES: tuple[TrackingMode, ...] = ("cgroup", "subreaper", "session")
_ids = itertools.count(1)
_state: dict[str, object] = {}  # per-process choices, made once: cgroup root, subreaper


@dataclass(frozen=True, slots=True)
class ProcessInfo:
    """A process that was running when its tree was stopped."""

    pid: int
    cmdline: str

    def __str__(self) -> str:
        return f"{self.pid} {self.cmdline}"


def describe(found: Iterable[ProcessInfo]) -> str:
    """``pid cmdline`` of each, joined by ``; `` (for one-line messages)."""
    return "; ".join(str(info) for info in found)


# -- /proc ---------------------------------------------------------------------------------


def _read(path: str, limit: int = 65536) -> bytes | None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return None
    try:
        return os.read(fd, limit)
    except OSError:
        return None
    finally:
        os.close(fd)


def _stat(pid: int | str) -> list[str] | None:
    """``/proc/PID/stat`` after the command name: state, ppid, pgrp, session, ...; ``None``
    for a process that is gone or a zombie (a zombie has already ended)."""
    raw = _read(f"/proc/{pid}/stat", 4096)
    if raw is None:
        return None
    fields = raw[raw.rfind(b")") + 2 :].decode("ascii", "replace").split()
    if len(fields) < 4 or fields[0] in ("Z", "X"):
        return None
    return fields


def _cmdline(pid: int) -> str:
    raw = _read(f"/proc/{pid}/cmdline")
    if raw:
        text = " ".join(part.decode("utf-8", "replace") for part in raw.rstrip(b"\0").split(b"\0"))
    else:
        comm = _read(f"/proc/{pid}/comm") or b"?"
        text = f"[{comm.decode('utf-8', 'replace').strip()}]"
    return text if len(text) <= _CMDLINE_CHARS else text[: _CMDLINE_CHARS - 1] + "…"


def _live_pids() -> list[int]:
    try:
        return [int(name) for name in os.listdir("/proc") if name.isdigit()]
    except OSError:
        return []


# -- the tracking modes ----------------------------------------------------------------------


def _cgroup_root() -> Path | None:
    """Where this process's cgroup v2 is mounted and lives; ``None`` without cgroup v2."""
    if "cgroup_root" in _state:
        root = _state["cgroup_root"]
        return root if isinstance(root, Path) else None
    found: Path | None = None
    mounts = (_read("/proc/self/mountinfo", 1 << 20) or b"").decode("utf-8", "replace")
    mount = next((line.split()[4] for line in mounts.splitlines() if " - cgroup2 " in line), None)
    own = (_read("/proc/self/cgroup") or b"").decode("utf-8", "replace")
    path = next((line[3:] for line in own.splitlines() if line.startswith("0::")), None)
    if mount is not None and path is not None and not path.endswith("(deleted)"):
        candidate = Path(mount) / path.lstrip("/")
        if (candidate / "cgroup.procs").is_file() and os.access(candidate, os.W_OK):
            found = candidate
    _state["cgroup_root"] = found
    if found is not None:
        _sweep(found)
    return found


def _sweep(root: Path) -> None:
    """Remove the empty cgroups of scenarist processes that died without cleaning up (killed
    with SIGKILL); a populated one stays, as rmdir refuses it."""
    with contextlib.suppress(OSError):
        for entry in os.scandir(root):
            pid = entry.name.split("-")[1] if entry.name.startswith("scenarist-") else ""
            if pid.isdigit() and not Path(f"/proc/{pid}").exists():
                _remove_cgroup(entry.path)


def _remove_cgroup(path: str | Path) -> None:
    """rmdir ``path`` and the cgroups below it, deepest first (a populated one stays)."""
    for folder, _, _ in os.walk(path, topdown=False):
        with contextlib.suppress(OSError):
            os.rmdir(folder)


def _subreaper(users: int) -> bool:
    """Count a tree in (+1) or out (-1) of subreaper mode; this process is a subreaper only
    while one is live, so orphans of unrelated children (which nobody here would reap) go
    to init the rest of the time. ``False`` where ``prctl`` is missing."""
    if _state.get("subreaper") is False:
        return False
    count = int(_state.get("subreaper_users", 0))  # type: ignore[call-overload]
    if (count == 0) != (count + users == 0):
        try:
            import ctypes  # only where there is no cgroup to use

            libc = ctypes.CDLL(None, use_errno=True)
            if libc.prctl(_PR_SET_CHILD_SUBREAPER, int(users > 0), 0, 0, 0) != 0:
                raise OSError(ctypes.get_errno(), "prctl")
        except (OSError, AttributeError):
            _state["subreaper"] = False
            return False
    _state["subreaper_users"] = max(count + users, 0)
    return True


def _wanted_modes() -> tuple[TrackingMode, ...]:
    asked = os.environ.get("SCENARIST_PROCESS_TRACKING", "cgroup")
    start = _MODES.index(asked) if asked in _MODES else 0  # type: ignore[arg-type]
    return _MODES[start:]


class ProcessTree:
    """One child and everything it starts. Make it before spawning; see the module doc."""

    def __init__(self) -> None:
        self.tag = f"{os.getpid()}-{next(_ids)}-{os.urandom(4).hex()}"
        self.leader: int | None = None
        self.cgroup: Path | None = None
        self.mode: TrackingMode = "session"
        self._closed = False
        for mode in _wanted_modes():
            if mode == "cgroup" and self._make_cgroup():
                self.mode = "cgroup"
                break
            if mode == "subreaper" and _subreaper(+1):
                self.mode = "subreaper"
                break
        self._procs = str(self.cgroup / "cgroup.procs").encode() if self.cgroup else None

    def _make_cgroup(self) -> bool:
        root = _cgroup_root()
        if root is None:
            return False
        path = root / f"scenarist-{self.tag}"
        try:
            path.mkdir()
        except OSError:
            _state["cgroup_root"] = None  # not writable after all: don't try again
            return False
        self.cgroup = path
        return True

    # -- spawning ------------------------------------------------------------------------

    def environ(self, env: Mapping[str, str] | None = None) -> dict[str, str]:
        """``env`` (default: ours) with the tree's marker, for the child."""
        return {**(os.environ if env is None else env), MARKER: self.tag}

    def enter(self) -> None:
        """``preexec_fn``: the child joins the cgroup before it ``exec``s (no-op otherwise).
        A failure is left for :meth:`adopt` to notice; raising here would fail the spawn."""
        if self._procs is not None:
            with contextlib.suppress(OSError):
                fd = os.open(self._procs, os.O_WRONLY)
                try:
                    os.write(fd, b"0")
                finally:
                    os.close(fd)

    def popen(self, argv: Sequence[str], **kwargs: Any) -> subprocess.Popen[Any]:
        """:class:`subprocess.Popen` for the tree's child: a session of its own, the marker in
        its environment (``env``, default ours), the cgroup joined before ``exec``, adopted.
        ``OSError`` if it cannot be started (the tree is closed then)."""
        env = self.environ(kwargs.pop("env", None))
        try:
            proc: subprocess.Popen[Any] = subprocess.Popen(
                argv, env=env, preexec_fn=self.enter, start_new_session=True, **kwargs)
        except BaseException:
            self.close()
            raise
        self.adopt(proc.pid)
        return proc

    async def create_subprocess_exec(self, *argv: str, **kwargs: Any) -> asyncio.subprocess.Process:
        """:func:`asyncio.create_subprocess_exec` for the tree's child, as :meth:`popen`."""
        import asyncio  # already imported: this runs on its loop

        env = self.environ(kwargs.pop("env", None))
        try:
            process = await asyncio.create_subprocess_exec(
                *argv, env=env, preexec_fn=self.enter, start_new_session=True, **kwargs)
        except BaseException:
            self.close()
            raise
        self.adopt(process.pid)
        return process

    async def subprocess_exec(
        self, protocol_factory: Callable[[], asyncio.SubprocessProtocol], *argv: str, **kwargs: Any
    ) -> tuple[asyncio.SubprocessTransport, asyncio.SubprocessProtocol]:
        """The running loop's ``subprocess_exec`` for the tree's child, as :meth:`popen`: for a
        caller that reads the pipes with its own protocol (the hub)."""
        import asyncio

        env = self.environ(kwargs.pop("env", None))
        try:
            transport, protocol = await asyncio.get_running_loop().subprocess_exec(
                protocol_factory, *argv, env=env, preexec_fn=self.enter, start_new_session=True,
                **kwargs)
        except BaseException:
            self.close()
            raise
        self.adopt(transport.get_pid())
        return transport, protocol

    def adopt(self, pid: int) -> None:
        """The child has been started as ``pid``. If it did not get into the cgroup (a
        hierarchy that refuses moves), fall back to the ``/proc`` search."""
        self.leader = pid
        refused = self.cgroup is not None and pid not in self._cgroup_members()
        if refused and _stat(pid) is not None:  # alive, yet not in it: moves are refused
            _state["cgroup_root"] = None  # the next trees go straight to the fallback
            self._drop_cgroup()
            self.mode = "subreaper" if _subreaper(+1) else "session"

    # -- finding -------------------------------------------------------------------------

    def _cgroup_members(self) -> set[int]:
        assert self.cgroup is not None
        pids: set[int] = set()
        for folder, _, _ in os.walk(self.cgroup):
            raw = _read(os.path.join(folder, "cgroup.procs"), 1 << 20) or b""
            pids.update(int(p) for p in raw.split())
        return pids

    def _marked(self, pid: int) -> bool:
        raw = _read(f"/proc/{pid}/environ", 1 << 20)
        return raw is not None and f"{MARKER}={self.tag}".encode() in raw.split(b"\0")

    def _searched_members(self) -> set[int]:
        """The fallback: the leader, its session and group, the processes carrying the
        marker, and every descendant of those."""
        stats = {pid: s for pid in _live_pids() if (s := _stat(pid)) is not None}
        me = os.getpid()
        leader = self.leader
        seeds = {
            pid
            for pid, s in stats.items()
            if leader is not None and leader in (pid, int(s[2]), int(s[3]))
        }
        seeds.update(pid for pid in stats if pid not in seeds and pid != me and self._marked(pid))
        children: dict[int, list[int]] = {}
        for pid, s in stats.items():
            children.setdefault(int(s[1]), []).append(pid)
        found: set[int] = set()
        todo = list(seeds)
        while todo:
            pid = todo.pop()
            if pid not in found:
                found.add(pid)
                todo.extend(children.get(pid, ()))
        found.discard(me)
        return found

    def members(self) -> list[int]:
        """Pids of the live (non-zombie) processes of the tree, the leader included."""
        pids = self._cgroup_members() if self.cgroup is not None else self._searched_members()
        return sorted(pid for pid in pids if _stat(pid) is not None)

    def alive(self) -> bool:
        return bool(self.members())

    def snapshot(self) -> list[ProcessInfo]:
        return [ProcessInfo(pid, _cmdline(pid)) for pid in self.members()]

    # -- stopping ------------------------------------------------------------------------

    def send(self, sig: int) -> list[ProcessInfo]:
        """Send ``sig`` to every live member; those it was sent to."""
        if sig == signal.SIGKILL and self.cgroup is not None:
            found = self.snapshot()
            with contextlib.suppress(OSError):
                (self.cgroup / "cgroup.kill").write_text("1")
                return found
        found = self.snapshot()
        for info in found:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(info.pid, sig)
        return found

    def stop(
        self, grace_s: float = STOP_GRACE_S, signals: tuple[int, ...] = (signal.SIGTERM,)
    ) -> tuple[ProcessInfo, ...]:
        """End the tree: ``signals`` (SIGTERM) to every member, SIGKILL to whatever is left
        after ``grace_s``, or :data:`STOP_GRACE_S` after the leader has gone if that comes
        first (the leader's grace is for its own clean exit, not its leftovers); orphans
        re-parented to us reaped, the cgroup removed. Returns what was running when the
        stop began or started during it."""
        seen: dict[int, ProcessInfo] = {}
        for sig in signals:  # the first look has the command line; a dying process has none
            for info in self.send(sig):
                seen.setdefault(info.pid, info)
        start = time.monotonic()
        deadline = start + grace_s
        while seen and time.monotonic() < deadline:
            members = self.members()
            if not members:
                break
            if self.leader not in members:
                deadline = min(deadline, time.monotonic() + STOP_GRACE_S)
            time.sleep(0.01)
        bound = time.monotonic() + _KILL_BOUND_S
        while time.monotonic() < bound:
            killed = self.send(signal.SIGKILL)
            if not killed:
                break
            for info in killed:
                seen.setdefault(info.pid, info)
            time.sleep(0.01)
        self._reap(seen)
        self.close()
        return tuple(seen[pid] for pid in sorted(seen))

    def _reap(self, seen: Mapping[int, ProcessInfo]) -> None:
        """Collect the zombies of members that became our children (a subreaper's orphans);
        the leader is left to whoever spawned it, which wants its exit status."""
        for pid in seen:
            if pid != self.leader:
                with contextlib.suppress(ChildProcessError, OSError):
                    os.waitpid(pid, os.WNOHANG)

    def close(self) -> None:
        """Remove the cgroup (and any left below it) once it is empty, or count this tree out
        of subreaper mode; safe to repeat."""
        if self.cgroup is not None and not self._cgroup_members():
            self._drop_cgroup()
        if self.mode == "subreaper" and not self._closed:
            self._closed = True
            _subreaper(-1)

    def _drop_cgroup(self) -> None:
        if self.cgroup is not None:
            _remove_cgroup(self.cgroup)
        self.cgroup = None
        self._procs = None


@dataclass(frozen=True, slots=True)
class Finished:
    """A command :func:`run_command` waited for, and what it left running (then stopped)."""

    returncode: int  # −N: ended by signal N (also when it was stopped at the timeout)
    output: bytes  # stdout and stderr as they interleaved, up to the limit
    truncated: bool  # the output went past the limit
    timed_out: bool
    stopped: tuple[ProcessInfo, ...]  # still running at the end (the command itself if timed out)


def run_command(
    argv: list[str],
    *,
    cwd: str | os.PathLike[str],
    env: Mapping[str, str],
    timeout_s: float,
    limit: int = 1 << 20,
) -> Finished:
    """Run ``argv`` in its own tree, wait for it (at most ``timeout_s``), then stop whatever
    it left running. Output goes to a file, not a pipe, so the wait is for the command
    itself (a daemon holding the pipe cannot stall it) and memory stays bounded.
    ``OSError`` if it cannot be started."""
    tree = ProcessTree()
    with tempfile.TemporaryFile() as sink:
        proc = tree.popen(
            argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=sink, stderr=subprocess.STDOUT
        )
        timed_out = False
        try:
            proc.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            timed_out = True
        finally:
            stopped = tree.stop()
            proc.wait()
        sink.seek(0)
        output = sink.read(limit + 1)
    return Finished(proc.returncode, output[:limit], len(output) > limit, timed_out, stopped)


def stop_group(proc: subprocess.Popen[Any], grace_s: float = STOP_GRACE_S) -> None:
    """SIGTERM ``proc``'s process group, SIGKILL it if it has not exited within ``grace_s``;
    anything left in the group after the leader exits (a child that ignored SIGTERM) is killed
    too. For a child started with ``start_new_session=True`` and no tree: a test's helper
    (redis, a CLI under test), where the group is all there is to stop."""
    if proc.poll() is None:
        try:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(grace_s)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        except ProcessLookupError:
            proc.wait()
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)  # stragglers of the group, if any
