"""Shared fixtures of the REST/SSE server tests: a Redis server of our own, both stores, and a
client of a module's ``server`` (helpers that tests import are in :mod:`restkit`)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import httpx
import pytest
from restkit import running_redis

from scenarist.llm.process import RunningServer
from scenarist.rest.store import Store, open_store


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


@pytest.fixture
def client(server: RunningServer) -> Iterator[httpx.Client]:
    """A client of the module's ``server``."""
    with httpx.Client(base_url=server.base_url, timeout=30) as c:
        yield c
