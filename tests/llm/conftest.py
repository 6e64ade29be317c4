"""Shared helpers for the mock model API server tests."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
CAPTURED = REPO / "tests" / "data" / "real-agent-requests"


def captured(name: str) -> dict[str, Any]:
    """A captured real-agent request: ``{"path", "headers", "body"}`` with tools put back in."""
    data: dict[str, Any] = json.loads((CAPTURED / name).read_text())
    body = dict(data["body"])
    if data.get("tools"):
        body["tools"] = data["tools"]
    return {"path": data["path"], "headers": data["headers"], "body": body}


@pytest.fixture(name="captured")
def captured_fixture() -> Any:
    """The :func:`captured` loader, for tests."""
    return captured


class Served:
    """A mock model server running in a background thread on a free loopback port."""

    def __init__(self, server: Any) -> None:
        import threading

        import uvicorn

        from scenarist.llm.cli import uvicorn_config
        from scenarist.serving import bind

        self.server = server
        sock = bind("127.0.0.1", 0)
        self.port = sock.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        config = uvicorn_config(server, timeout_graceful_shutdown=1)  # as `scenarist llm` serves
        self.uvicorn = uvicorn.Server(config)
        self.thread = threading.Thread(
            target=self.uvicorn.run, kwargs={"sockets": [sock]}, daemon=True
        )
        self.thread.start()
        import time

        deadline = time.monotonic() + 10
        while not self.uvicorn.started:
            if time.monotonic() > deadline:
                raise RuntimeError("the mock model server did not start within 10 s")
            time.sleep(0.005)

    @property
    def journal(self) -> list[dict[str, Any]]:
        return list(self.server.journal)

    def stop(self) -> None:
        self.uvicorn.should_exit = True
        self.thread.join(timeout=10)


@pytest.fixture
def serve() -> Any:
    """``serve(scripts, **options)`` → a running :class:`Served`; stopped after the test."""
    from scenarist.llm.server import MockModelServer, Options

    running: list[Served] = []

    def start(scripts: Any, **options: Any) -> Served:
        served = Served(MockModelServer(list(scripts), Options(**options)))
        running.append(served)
        return served

    yield start
    for served in running:
        served.stop()
