"""pytest plugin registered through the ``pytest11`` entry point.

Fixtures for tests of code that calls a model:

- ``fake_model``: a factory, ``fake_model(script=[...])`` → :class:`scenarist.fake.FakeModel`
  (same keywords), in-process, nothing to stop;
- ``scenarist_llm``: a factory, ``scenarist_llm("scenario.yaml", *extra_cli_args)`` → the base
  URL (``http://127.0.0.1:PORT``) of the mock model server (``scenarist llm``) started on a free
  port in its own process group; every server a test starts is stopped after it;
- ``scenarist_llm_shared``: the same factory, but one server per scenario and arguments for
  the whole session, reset (``POST /_scenarist/reset``) when a test first asks for it, so
  every test meets the scenario's scripted errors (a 429 is otherwise answered once per
  conversation shape for the server's life) and an empty journal;
- ``scenarist_run``: ``scenarist_run("scenario.yaml", **run_options)`` →
  :class:`scenarist.runner.RunResult`: the scenario played against its program in a
  pseudo-terminal (``scenarist run``), one per test, so pytest-xdist can spread a suite.
  Options ``--scenarist-target``, ``--scenarist-update-golden``, ``--scenarist-speed``.

Harnesses outside pytest start the server with :mod:`scenarist.llm.process` directly.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from scenarist.llm.process import RunningServer, start_server


@pytest.fixture
def fake_model() -> Callable[..., Any]:
    """``fake_model(**kw)`` → ``FakeModel(**kw)``."""
    from scenarist.fake import FakeModel

    def make(**kw: Any) -> FakeModel:
        return FakeModel(**kw)

    return make


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


@pytest.fixture(scope="session")
def _scenarist_llm_servers() -> Iterator[dict[tuple[str, ...], RunningServer]]:
    """The session's shared mock model servers, by scenario and arguments; stopped at the end."""
    servers: dict[tuple[str, ...], RunningServer] = {}
    try:
        yield servers
    finally:
        for server in servers.values():
            server.stop()


@pytest.fixture
def scenarist_llm_shared(
    _scenarist_llm_servers: dict[tuple[str, ...], RunningServer],
) -> Callable[..., str]:
    """``scenarist_llm_shared(scenario, *cli_args)`` → base URL of a server shared by the
    session and reset for this test (once, when the test first asks for it)."""
    reset_here: set[tuple[str, ...]] = set()

    def get(scenario: str | os.PathLike[str], *args: str) -> str:
        key = (str(Path(scenario).resolve()), *args)
        server = _scenarist_llm_servers.get(key)
        if server is None or server.process.poll() is not None:
            server = _scenarist_llm_servers[key] = start_server(scenario, *args)
        elif key not in reset_here:
            server.reset()
        reset_here.add(key)
        return server.base_url

    return get


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("scenarist", "scenarist run (terminal scenarios)")
    group.addoption("--scenarist-target", metavar="DIR", default=None,
                    help="where scenarist_run keeps goldens and logs (default: tmp_path)")
    group.addoption("--scenarist-update-golden", action="store_true", default=False,
                    help="scenarist_run writes screenshots over their goldens")
    group.addoption("--scenarist-speed", type=float, default=None, metavar="F",
                    help="scenarist_run plays at this speed factor")


@pytest.fixture
def scenarist_run(request: pytest.FixtureRequest, tmp_path: Any) -> Callable[..., Any]:
    """``scenarist_run(scenario, **RunOptions fields)`` → ``RunResult``."""
    from scenarist.runner.pytest_entry import run_for_test

    config = request.config
    defaults: dict[str, Any] = {"target": config.getoption("--scenarist-target") or tmp_path,
                                "update_golden": config.getoption("--scenarist-update-golden")}
    speed = config.getoption("--scenarist-speed")
    if speed is not None:
        defaults["speed"] = speed

    def run(scenario: str | os.PathLike[str], **options: Any) -> Any:
        return run_for_test(scenario, defaults, **options)

    return run
