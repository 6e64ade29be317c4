"""pytest plugin registered through the ``pytest11`` entry point.

Fixtures for tests of code that calls a model:

- ``fake_model``: a factory, ``fake_model(script=[...])`` → :class:`scenarist.fake.FakeModel`
  (same keywords), in-process, nothing to stop;
- ``scenarist_llm``: a factory, ``scenarist_llm("scenario.yaml", *extra_cli_args)`` → the base
  URL (``http://127.0.0.1:PORT``) of the mock model server (``scenarist llm``) started on a free
  port in its own process group; every server a test starts is stopped after it.

Harnesses outside pytest start the server with :mod:`scenarist.llm.process` directly.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
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
