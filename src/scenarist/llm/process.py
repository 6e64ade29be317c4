"""Run ``scenarist llm`` as a subprocess: start it on a free port, learn its URL, always stop it.

The one way the project starts the mock model server out of process (the pytest fixture,
``scenarist demo``, the test helpers and the benchmarks). It only spawns and reads pipes, so
it imports no web framework: a caller pays for Starlette/uvicorn only in the child.

The child runs in a :class:`scenarist.processes.ProcessTree` (its own session, and a cgroup
where the machine has one to give); stopping sends SIGTERM to everything in it, then SIGKILL
to what has not gone within the grace period, and closes the pipes. Both pipes are drained by
daemon threads for the child's whole life, so a chatty server never blocks on a full pipe.

    with run_server("scenario.yaml", "--strict", workspace=tmp) as server:
        client = openai.OpenAI(base_url=f"{server.base_url}/v1", api_key="x")
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from scenarist.errors import ScenaristError
from scenarist.processes import ProcessInfo, ProcessTree, stop_group

__all__ = [
    "STARTUP_TIMEOUT_S",
    "RunningServer",
    "ServerStartError",
    "run_server",
    "server_argv",
    "start_server",
]

STARTUP_TIMEOUT_S = 60.0
STOP_GRACE_S = 10.0
_STDERR_LINES = 200  # the tail of the child's stderr that is kept for error messages
_READY = "listening on "

PathArg = str | os.PathLike[str]


class ServerStartError(ScenaristError, RuntimeError):
    """The server did not say where it listens; ``stderr`` is what it wrote."""

    def __init__(self, message: str, *, stderr: str = "", returncode: int | None = None) -> None:
        super().__init__(message)
        self.stderr = stderr
        self.returncode = returncode


@dataclass
class RunningServer:
    """A started ``scenarist llm`` child process and where it listens."""

    base_url: str  # http://HOST:PORT, no trailing slash
    process: subprocess.Popen[str]
    argv: tuple[str, ...]
    tree: ProcessTree | None = field(default=None, repr=False)
    stopped: tuple[ProcessInfo, ...] = ()  # what was still running when it was stopped
    _stderr: list[str] = field(default_factory=list, repr=False)
    _readers: list[threading.Thread] = field(default_factory=list, repr=False)

    @property
    def pid(self) -> int:
        """The child's pid, which is also its process group id."""
        return self.process.pid

    @property
    def port(self) -> int:
        return int(self.base_url.rsplit(":", 1)[1])

    @property
    def stderr(self) -> str:
        """What the server wrote to stderr so far (its last 200 lines)."""
        return "".join(self._stderr)

    def journal(self, timeout_s: float = 10.0) -> list[dict[str, Any]]:
        """The server's request journal (``GET /_scenarist/journal``)."""
        import urllib.request  # here: most callers never read the journal this way

        url = f"{self.base_url}/_scenarist/journal"
        with urllib.request.urlopen(url, timeout=timeout_s) as resp:
            requests: list[dict[str, Any]] = json.load(resp)["requests"]
        return requests

    def check(
        self, scenario: str | None = None, workspace: PathArg | None = None, timeout_s: float = 30
    ) -> dict[str, Any]:
        """``POST /_scenarist/check``: the scenario's asserts after its last model turn,
        evaluated against ``workspace`` (default: the server's choice, see the docs). The
        report's ``ok`` says whether they all hold; ``results`` has each one."""
        import urllib.error
        import urllib.request

        body = {"scenario": scenario, "workspace": None if workspace is None else str(workspace)}
        req = urllib.request.Request(
            f"{self.base_url}/_scenarist/check",
            data=json.dumps({k: v for k, v in body.items() if v is not None}).encode(),
            headers={"content-type": "application/json"},
            method="POST",
        )
        try:
            with urllib.request.urlopen(req, timeout=timeout_s) as resp:
                report: dict[str, Any] = json.load(resp)
        except urllib.error.HTTPError as exc:
            if exc.code != 422:  # 422: an assertion failed, the body is the report
                raise
            report = json.load(exc)
        return report

    def reset(self, timeout_s: float = 10.0) -> dict[str, Any]:
        """``POST /_scenarist/reset``: forget the scripted errors already answered and clear
        the journal, so the next test meets the scenario's scripted errors again."""
        import urllib.request

        req = urllib.request.Request(f"{self.base_url}/_scenarist/reset", data=b"",
                                     method="POST")
        with urllib.request.urlopen(req, timeout=timeout_s) as resp:
            answer: dict[str, Any] = json.load(resp)
        return answer

    def stop(self, grace_s: float = STOP_GRACE_S) -> int | None:
        """Stop the server and all it started (SIGTERM, then SIGKILL after ``grace_s``),
        close the pipes; the exit code. Safe to call more than once."""
        if self.tree is None:
            stop_group(self.process, grace_s)
        else:
            self.stopped += self.tree.stop(grace_s)
            self.process.wait()
        _close(self.process, self._readers)
        return self.process.returncode


def server_argv(
    scenarios: PathArg | Sequence[PathArg],
    *args: str,
    workspace: PathArg | None = None,
    port: int = 0,
    python: str | None = None,
    command: str = "llm",
) -> list[str]:
    """``python -m scenarist COMMAND --scenario ... --port PORT [--workspace DIR] ARGS``
    (``command``: ``llm`` or another serving subcommand that prints ``listening on URL``,
    e.g. ``rest``)."""
    paths = [scenarios] if isinstance(scenarios, str | os.PathLike) else list(scenarios)
    argv = [python or sys.executable, "-m", "scenarist", command]
    for path in paths:
        argv += ["--scenario", str(Path(path))]
    argv += ["--port", str(port)]
    if workspace is not None:
        argv += ["--workspace", str(Path(workspace))]
    return argv + list(args)


def start_server(
    scenarios: PathArg | Sequence[PathArg],
    *args: str,
    workspace: PathArg | None = None,
    timeout_s: float = STARTUP_TIMEOUT_S,
    env: Mapping[str, str] | None = None,
    cwd: PathArg | None = None,
    command: str = "llm",
) -> RunningServer:
    """Start the server on a free loopback port; return once it printed its URL.

    ``args`` are further ``scenarist llm`` flags. Raises :class:`ServerStartError` with the
    child's stderr (e.g. a scenario's file:line error) if it exits or stays silent for
    ``timeout_s``; the child is stopped by then. Call :meth:`RunningServer.stop` afterwards,
    or use :func:`run_server`.
    """
    argv = server_argv(scenarios, *args, workspace=workspace, command=command)
    tree = ProcessTree()
    proc = tree.popen(
        argv,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=None if env is None else {**os.environ, **env},
        cwd=cwd,
    )
    found: list[str] = []
    errors: list[str] = []
    ready = threading.Event()

    def read_stdout() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:  # keeps draining after the URL line
            if not found and line.startswith(_READY):
                found.append(line.removeprefix(_READY).strip())
                ready.set()
        ready.set()  # EOF: the child has exited (or closed stdout) without a URL

    def drain_stderr() -> None:
        assert proc.stderr is not None
        for line in proc.stderr:
            errors.append(line)
            del errors[:-_STDERR_LINES]

    readers = [threading.Thread(target=f, daemon=True) for f in (read_stdout, drain_stderr)]
    for reader in readers:
        reader.start()
    answered = ready.wait(timeout_s)  # set by the URL line or by EOF (the child exited)
    if not answered or not found:
        silent = not answered
        tree.stop(STOP_GRACE_S)
        proc.wait()
        _close(proc, readers)
        stderr = "".join(errors).strip()
        why = f"printed nothing within {timeout_s:g} s" if silent else "exited"
        raise ServerStartError(
            f"`{' '.join(argv)}` did not print 'listening on URL' (it {why}; exit code "
            f"{proc.returncode}); its stderr:\n{stderr or '(empty)'}",
            stderr=stderr,
            returncode=proc.returncode,
        )
    return RunningServer(found[0], proc, tuple(argv), tree, (), errors, readers)


@contextmanager
def run_server(
    scenarios: PathArg | Sequence[PathArg],
    *args: str,
    workspace: PathArg | None = None,
    timeout_s: float = STARTUP_TIMEOUT_S,
    env: Mapping[str, str] | None = None,
    cwd: PathArg | None = None,
    command: str = "llm",
) -> Iterator[RunningServer]:
    """:func:`start_server` as a context manager: the process group is stopped when the block
    ends, also when it raises."""
    server = start_server(
        scenarios, *args, workspace=workspace, timeout_s=timeout_s, env=env, cwd=cwd,
        command=command,
    )
    try:
        yield server
    finally:
        server.stop()


def _close(proc: subprocess.Popen[Any], readers: Sequence[threading.Thread]) -> None:
    for reader in readers:
        reader.join(5)
    for pipe in (proc.stdout, proc.stderr):
        if pipe is not None:
            with suppress(OSError):
                pipe.close()
