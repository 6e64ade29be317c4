"""pytest plugin registered through the ``pytest11`` entry point.

Fixtures for tests of code that calls a model:

- ``fake_model``: a factory, ``fake_model(script=[...])`` → :class:`scenarist.fake.FakeModel`
  (same keywords), in-process, nothing to stop;
- ``scenarist_llm``: a factory, ``scenarist_llm("scenario.yaml", *extra_cli_args)`` → the base
  URL (``http://127.0.0.1:PORT``) of the mock model server (``scenarist llm``) started on a free
  port in its own process group; every server a test starts is stopped after it.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

STARTUP_TIMEOUT_S = 60.0


@pytest.fixture
def fake_model() -> Callable[..., Any]:
    """``fake_model(**kw)`` → ``FakeModel(**kw)``."""
    from scenarist.fake import FakeModel

    def make(**kw: Any) -> FakeModel:
        return FakeModel(**kw)

    return make


class ServerStartError(RuntimeError):
    """The mock model server did not say where it listens."""


def start_llm_server(scenario: str | os.PathLike[str], *args: str,
                     timeout_s: float = STARTUP_TIMEOUT_S) -> tuple[subprocess.Popen[str], str]:
    """Start ``scenarist llm --scenario PATH --port 0 ARGS...``; return it and its base URL."""
    cmd = [sys.executable, "-m", "scenarist", "llm", "--scenario", str(Path(scenario)),
           "--port", "0", *args]
    proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    found: list[str] = []
    errors: list[str] = []
    ready = threading.Event()

    def read_stdout() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            if not found and line.startswith("listening on "):
                found.append(line.removeprefix("listening on ").strip())
                ready.set()
        ready.set()

    def drain_stderr() -> None:  # never let a full pipe block the server
        assert proc.stderr is not None
        for line in proc.stderr:
            errors.append(line)
            del errors[:-200]

    readers = [threading.Thread(target=f, daemon=True) for f in (read_stdout, drain_stderr)]
    for reader in readers:
        reader.start()
    if not ready.wait(timeout_s) or not found:
        stop_process(proc)
        for reader in readers:
            reader.join(5)
        raise ServerStartError(
            f"`{' '.join(cmd)}` did not print 'listening on URL' (exit code "
            f"{proc.returncode}, waited up to {timeout_s:.0f} s); its stderr:\n{''.join(errors).strip()}")
    return proc, found[0]


def stop_process(proc: subprocess.Popen[str], grace_s: float = 10.0) -> None:
    """SIGTERM the process group, then SIGKILL it if it has not exited within ``grace_s``."""
    if proc.poll() is None:
        try:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(grace_s)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        except ProcessLookupError:
            proc.wait()


@pytest.fixture
def scenarist_llm() -> Iterator[Callable[..., str]]:
    """``scenarist_llm(scenario, *cli_args)`` → base URL of a running mock model server."""
    running: list[subprocess.Popen[str]] = []

    def start(scenario: str | os.PathLike[str], *args: str) -> str:
        proc, url = start_llm_server(scenario, *args)
        running.append(proc)
        return url

    try:
        yield start
    finally:
        for proc in running:
            stop_process(proc)
