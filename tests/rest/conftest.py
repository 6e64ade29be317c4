"""Shared fixtures of the REST/SSE server tests: a Redis server of our own, both stores, and
``scenarist rest`` as a subprocess on a free loopback port."""

from __future__ import annotations

import shutil
import socket
import subprocess
from collections.abc import AsyncIterator, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

from scenarist.llm.process import RunningServer, run_server, stop_group
from scenarist.rest.store import Store, open_store

HERE = Path(__file__).resolve().parent
SCENARIOS = HERE / "scenarios"
EXAMPLE = HERE.parents[1] / "examples" / "simulation-rest.yaml"
API = "/api/v1"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def running_redis(tmp: Path) -> Iterator[str]:
    """Debian's redis-server on a free loopback port, no persistence; its URL."""
    binary = shutil.which("redis-server")
    assert binary is not None, "redis-server is missing: scripts/test installs it with apt-get"
    port = free_port()
    proc = subprocess.Popen(
        [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
         "--dir", str(tmp)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        start_new_session=True)
    try:
        assert proc.stdout is not None
        seen = []
        for line in proc.stdout:
            seen.append(line)
            if "Ready to accept connections" in line:
                break
        else:
            raise AssertionError("redis-server did not start:\n" + "".join(seen))
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        stop_group(proc)
        if proc.stdout is not None:
            proc.stdout.close()


@pytest.fixture(scope="session")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with running_redis(tmp_path_factory.mktemp("redis")) as url:
        yield url


async def _flush(url: str) -> None:
    import redis.asyncio as aioredis

    client = aioredis.from_url(url)
    await client.flushdb()
    await client.aclose()


@pytest.fixture(params=["sqlite", "redis"])
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Store]:
    """Each store test runs against both implementations."""
    if request.param == "redis":
        url = request.getfixturevalue("redis_url")
        await _flush(url)
    else:
        url = f"sqlite:///{tmp_path / 'rest.db'}"
    opened = open_store(url)
    await opened.open()
    try:
        yield opened
    finally:
        await opened.close()


@contextmanager
def rest_server(*args: str, scenarios: Sequence[Path] = (SCENARIOS,)) -> Iterator[RunningServer]:
    """``scenarist rest`` on a free loopback port (stopped after the block)."""
    with run_server(list(scenarios), *args, command="rest") as server:
        yield server


@pytest.fixture
def client(server: RunningServer) -> Iterator[httpx.Client]:
    """A client of the module's ``server``."""
    with httpx.Client(base_url=server.base_url, timeout=30) as c:
        yield c


def problem(response: httpx.Response, status: int) -> dict[str, object]:
    """The problem+json body of ``response``, checked: its status, media type and fields."""
    assert response.status_code == status, response.text
    assert response.headers["content-type"] == "application/problem+json"
    body: dict[str, object] = response.json()
    assert body["status"] == status and body["title"] and body["detail"]
    assert str(body["type"]).startswith("https://")
    return body


def json_of(response: Any) -> Any:
    assert response.headers["content-type"].startswith("application/"), response.text
    return response.json()
