"""Exactness under faults: 200 clients at random moments (some reconnecting mid-session with
Last-Event-ID) each receive the whole sequence exactly once, on both stores; with Redis, the
replica playing a session is killed mid-stream and the session finishes on another."""

from __future__ import annotations

import asyncio
import os
import random
import signal
from pathlib import Path

import httpx
import pytest
from restkit import SCENARIOS, rest_server
from sse import API, Frame, aread_stream

from scenarist.play import RealClock

pytestmark = pytest.mark.slow

PACED = SCENARIOS / "paced.yaml"
PACED_EVENTS = 2 + 1 + 120 + 1  # queued, running, the prompt, 120 thoughts, completed


async def flush(url: str) -> None:
    import redis.asyncio as aioredis

    client = aioredis.from_url(url)
    await client.flushdb()
    await client.aclose()


async def follow(clients: list[httpx.AsyncClient], sid: str, rng: random.Random,
                 clock: RealClock, reconnects: int) -> list[Frame]:
    """Read the session to its end, dropping the connection ``reconnects`` times at random
    and resuming with Last-Event-ID (with the next client when a replica stops answering)."""
    frames: list[Frame] = []
    turn = 0
    while True:
        stop_after = rng.randint(1, 40) if reconnects > 0 else None
        last = frames[-1].id if frames else None
        try:
            got = await aread_stream(clients[turn % len(clients)], sid, last_id=last,
                                     stop_after=stop_after)
        except (httpx.TransportError, httpx.HTTPStatusError):
            turn += 1  # this replica is gone: the next one
            await clock.sleep_until(clock.now_ms() + 50)
            continue
        frames += got
        if frames and frames[-1].data["type"] == "status" and frames[-1].data["status"] in (
                "completed", "failed", "stopped", "cancelled"):
            return frames
        if stop_after is not None and len(got) >= stop_after:
            reconnects -= 1
            await clock.sleep_until(clock.now_ms() + rng.uniform(0, 300))
        elif not got:
            return frames  # 204: nothing more


def pool(base: str) -> httpx.AsyncClient:
    return httpx.AsyncClient(base_url=base, timeout=60,
                             limits=httpx.Limits(max_connections=1000))


async def crowd(client: httpx.AsyncClient, sid: str, n: int, seed: int) -> list[list[Frame]]:
    """``n`` clients connecting within the session's 3.5 s, a third of them reconnecting."""
    clock = RealClock()
    start = clock.now_ms()

    async def one(k: int) -> list[Frame]:
        mine = random.Random(seed * 1000 + k)
        await clock.sleep_until(start + mine.uniform(0, 3500))
        return await follow([client], sid, mine, clock, reconnects=mine.choice([0, 0, 1, 2]))

    return await asyncio.gather(*(one(k) for k in range(n)))


@pytest.mark.parametrize("store", ["sqlite", "redis"])
async def test_200_clients_at_random_moments_each_get_every_event_once(
        store: str, request: pytest.FixtureRequest) -> None:
    args = ["--speed", "1"]
    if store == "redis":
        url = request.getfixturevalue("redis_url")
        await flush(url)
        args += ["--store", url]
    with rest_server(*args, scenarios=[PACED]) as srv:
        async with pool(srv.base_url) as client:
            created = await client.post(f"{API}/tasks", json={"prompt": "Count"})
            sid = created.json()["session_ids"][0]
            reference, results = await asyncio.gather(aread_stream(client, sid),
                                                      crowd(client, sid, 200, seed=15))
        assert [f.id for f in reference] == list(range(1, PACED_EVENTS + 1))
    for frames in results:
        assert [f.id for f in frames] == [f.id for f in reference]
        assert [f.data for f in frames] == [f.data for f in reference]


async def test_killing_the_playing_replica_moves_the_session_to_another(
        redis_url: str, tmp_path: Path) -> None:
    await flush(redis_url)
    args = ("--store", redis_url, "--lease-ms", "600", "--speed", "1")
    with rest_server(*args, scenarios=[PACED]) as a, rest_server(*args, scenarios=[PACED]) as b:
        async with httpx.AsyncClient(base_url=a.base_url) as client:
            created = await client.post(f"{API}/tasks", json={"prompt": "Count"})
            sid = created.json()["session_ids"][0]
            info = (await client.get(f"{API}/sessions/{sid}/info")).json()
            assert info["fleet"]["leader"] is not None  # a plays it
        clock = RealClock()
        async with pool(a.base_url) as on_a, pool(b.base_url) as on_b:
            readers = [asyncio.create_task(follow([on_a, on_b], sid, random.Random(k), clock,
                                                  reconnects=k % 2)) for k in range(10)]
            readers += [asyncio.create_task(follow([on_b], sid, random.Random(100 + k), clock,
                                                   reconnects=k % 2)) for k in range(10)]
            partial = await aread_stream(on_b, sid, stop_after=30)  # a has played 30 events
            os.killpg(a.pid, signal.SIGKILL)
            results = await asyncio.gather(*readers)
        async with httpx.AsyncClient(base_url=b.base_url) as client:
            session = (await client.get(f"{API}/sessions/{sid}")).json()
            history = (await client.get(f"{API}/sessions/{sid}/events?sort=asc&perPage=200")
                       ).json()
    assert len(partial) == 30 and session["status"] == "completed"
    ids = [e["id"] for e in history["items"]]
    assert ids == list(range(1, PACED_EVENTS + 1))
    thoughts = [e["thought"] for e in history["items"] if e["type"] == "thought"]
    assert thoughts == [f"step {n}" for n in range(1, 121)]  # each planned event once
    for frames in results:
        assert [f.id for f in frames] == ids
