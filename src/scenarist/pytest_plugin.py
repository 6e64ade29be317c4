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
import subprocess
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from scenarist.llm.process import (
    STARTUP_TIMEOUT_S,
    RunningServer,
    ServerStartError,
    start_server,
    stop_group,
)

__all__ = ["ServerStartError", "start_llm_server", "stop_process"]

_started: dict[int, RunningServer] = {}  # pid -> server, so stop_process also closes its pipes


@pytest.fixture
def fake_model() -> Callable[..., Any]:
    """``fake_model(**kw)`` → ``FakeModel(**kw)``."""
    from scenarist.fake import FakeModel

    def make(**kw: Any) -> FakeModel:
        return FakeModel(**kw)

    return make


def start_llm_server(scenario: str | os.PathLike[str], *args: str,
                     timeout_s: float = STARTUP_TIMEOUT_S) -> tuple[subprocess.Popen[str], str]:
    """Start ``scenarist llm --scenario PATH --port 0 ARGS...``; return it and its base URL
    (:func:`scenarist.llm.process.start_server` underneath; stop it with :func:`stop_process`)."""
    server = start_server(scenario, *args, timeout_s=timeout_s)
    _started[server.pid] = server
    return server.process, server.base_url


def stop_process(proc: subprocess.Popen[str], grace_s: float = 10.0) -> None:
    """SIGTERM the process group, then SIGKILL it if it has not exited within ``grace_s``."""
    server = _started.pop(proc.pid, None)
    if server is not None and server.process is proc:
        server.stop(grace_s)
    else:
        stop_group(proc, grace_s)


@pytest.fixture
def scenarist_llm() -> Iterator[Callable[..., str]]:
    """``scenarist_llm(scenario, *cli_args)`` → base URL of a running mock model server."""
    running: list[RunningServer] = []

    def start(scenario: str | os.PathLike[str], *args: str) -> str:
        server = start_server(scenario, *args)
        running.append(server)
        return server.base_url

    try:
        yield start
    finally:
        for server in running:
            server.stop()
