"""The store contract, run against both implementations (SQLite and Redis)."""

from __future__ import annotations

import asyncio

import pytest

from scenarist.rest.store import SessionRow, Store, StoreUrlError, open_store


def row(sid: str, created: float, status: str = "queued") -> SessionRow:
    return SessionRow(id=sid, scenario="s", status=status, created_ms=created,
                      updated_ms=created, task={"prompt": [{"type": "text", "text": "é"}]})


async def test_rows_round_trip_in_creation_order(store: Store) -> None:
    await store.put(row("b", 2.0))
    await store.put(row("a", 1.0))
    await store.put(row("b", 2.0).but(status="running", merged=True))
    assert [r.id for r in await store.rows()] == ["a", "b"]
    b = await store.get("b")
    assert b is not None and b.status == "running" and b.merged and b.task["prompt"][0]["text"] == "é"
    assert await store.get("nope") is None
    assert await store.delete("a") and not await store.delete("a")
    assert [r.id for r in await store.rows()] == ["b"]


async def test_seq_counts_per_session_and_reads_are_after_n(store: Store) -> None:
    for n in range(5):
        assert await store.append("x", f'{{"n":{n}}}', pos=n) == n + 1
    assert await store.append("y", "{}") == 1
    assert await store.append("x", '{"made":"by a request"}') == 6
    assert await store.last_seq("x") == 6 and await store.last_seq("never") == 0
    after = await store.events("x", 2, 2)
    assert [(e.seq, e.pos, e.body) for e in after] == [(3, 2, {"n": 2}), (4, 3, {"n": 3})]
    assert await store.position("x") == 5  # planned events 0..4 were stored
    assert await store.events("x", 6, 10) == []


async def test_appends_are_fenced_by_the_lease(store: Store) -> None:
    assert await store.lease("s", "a", 5000)
    assert not await store.lease("s", "b", 5000)
    assert await store.append("s", "{}", 0, owner="a") == 1
    assert await store.append("s", "{}", 1, owner="b") is None
    await store.release("s", "b")  # not b's to release
    assert not await store.lease("s", "b", 5000)
    await store.release("s", "a")
    assert await store.lease("s", "b", 5000)
    assert await store.append("s", "{}", 1, owner="b") == 2


async def test_orphans_are_unfinished_sessions_nobody_holds(store: Store) -> None:
    await store.put(row("held", 1.0))
    await store.put(row("free", 2.0))
    await store.put(row("done", 3.0, status="completed"))
    assert await store.lease("held", "a", 5000)
    assert await store.orphans() == ["free"]


async def test_wait_wakes_on_append_and_returns_at_once_when_behind(store: Store) -> None:
    await store.append("w", "{}")
    await asyncio.wait_for(store.wait("w", 0, 30), 5)  # already behind: no wait

    async def later() -> None:
        await asyncio.sleep(0.05)
        await store.append("w", "{}")

    writer = asyncio.create_task(later())
    await asyncio.wait_for(store.wait("w", 1, 30), 10)
    await writer
    assert await store.last_seq("w") == 2


def test_store_urls() -> None:
    assert open_store("sqlite://").url == "sqlite://"
    for bad in ("postgres://x", "sqlite://relative.db"):
        with pytest.raises(StoreUrlError, match="sqlite://"):
            open_store(bad)


async def test_strikes_count_per_session_and_key_and_go_with_the_session(store: Store) -> None:
    assert [await store.strike("s", "3.0") for _ in range(3)] == [1, 2, 3]
    assert await store.strike("s", "5.0") == 1 and await store.strike("t", "3.0") == 1
    await store.put(row("s", 1.0))
    assert await store.delete("s")
    assert await store.strike("s", "3.0") == 1
