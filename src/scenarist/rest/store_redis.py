"""The shared store: Redis, so several ``scenarist rest`` replicas serve the same sessions.

Each session's history is a stream (``ev:{id}``) whose entry ids are ``{seq}-0``: the SSE
``id`` is the stream id, ``XRANGE (N-0 +`` is "everything after N", and ``XREAD BLOCK`` wakes
waiting subscribers on any replica. An append runs as one Lua script that checks the
player's lease (fencing a replica that lost it), takes the next seq and records the played
position, so a replica taking over resumes exactly where the last append left off.
Rows are JSON strings (``s:{id}``) ordered by a sorted set of creation times.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from contextlib import suppress
from typing import Any, TypeVar

from scenarist.rest.events import FINAL_STATUSES
from scenarist.rest.store import SessionRow, StoredEvent

__all__ = ["RedisStore"]

T = TypeVar("T")

_PREFIX = "scenarist:"
_COMMAND_CONNECTIONS = 64
_BLOCK_S = 5.0
_FETCH = 5000  # entries per XRANGE  # longest single XREAD BLOCK (well under the client's socket timeouts)

_APPEND = """
if ARGV[3] ~= '' and redis.call('GET', KEYS[4]) ~= ARGV[3] then return -1 end
local n = redis.call('INCR', KEYS[2])
redis.call('XADD', KEYS[1], n .. '-0', 'd', ARGV[1], 'p', ARGV[2])
local pos = tonumber(ARGV[2])
if pos >= 0 then redis.call('SET', KEYS[3], pos + 1) end
return n
"""
_LEASE = """
local v = redis.call('GET', KEYS[1])
if not v then redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2]) return 1 end
if v == ARGV[1] then redis.call('PEXPIRE', KEYS[1], ARGV[2]) return 1 end
return 0
"""
_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""


async def _whole(command: Awaitable[T]) -> T:
    """Run a command to its end even if the caller is cancelled (a client hanging up): a
    command cut off mid-reply would leave its answer on a pooled connection, to be read as
    the answer of the next command sent on it."""
    return await asyncio.shield(command)


class RedisStore:
    """``redis://HOST:PORT/N`` (the ``redis`` package's asyncio client)."""

    def __init__(self, url: str) -> None:
        self.url = url
        self._redis: Any = None
        self._blocking: Any = None
        self._scripts: dict[str, Any] = {}
        self._watch: dict[str, asyncio.Future[Any]] = {}
        self._cache: dict[str, list[StoredEvent]] = {}  # each session's history so far
        self._fetching: dict[str, asyncio.Future[None]] = {}

    @property
    def r(self) -> Any:
        if self._redis is None:
            raise RuntimeError("RedisStore used before open()")
        return self._redis

    async def open(self) -> None:
        import redis.asyncio as aioredis
        from redis.asyncio.retry import Retry
        from redis.backoff import NoBackoff

        # Commands share a bounded pool and queue for a free connection (a burst of
        # subscribers must not fail with "too many connections"); the blocking reads, one
        # per watched session, have their own pool so they never starve the commands.
        # No socket timeouts and no retries: a retried append whose first reply was only
        # late would store an event twice; a slow reply is waited for instead.
        options: dict[str, Any] = {"decode_responses": True, "socket_timeout": None,
                                   "retry": Retry(NoBackoff(), 0)}
        pool = aioredis.BlockingConnectionPool.from_url(
            self.url, max_connections=_COMMAND_CONNECTIONS, timeout=None, **options)
        self._redis = aioredis.Redis(connection_pool=pool)
        self._blocking = aioredis.from_url(self.url, max_connections=100_000, **options)
        await self._redis.ping()
        for name, lua in (("append", _APPEND), ("lease", _LEASE), ("release", _RELEASE)):
            self._scripts[name] = self._redis.register_script(lua)

    async def close(self) -> None:
        for future in (*self._watch.values(), *self._fetching.values()):
            future.cancel()
        if self._redis is not None:
            await self._redis.aclose()
            await self._redis.connection_pool.disconnect()
            await self._blocking.aclose()
            self._redis = None

    @staticmethod
    def _k(kind: str, sid: str) -> str:
        return f"{_PREFIX}{kind}:{sid}"

    async def put(self, row: SessionRow) -> None:
        async with self.r.pipeline(transaction=True) as pipe:
            pipe.set(self._k("s", row.id), row.to_json())
            pipe.zadd(_PREFIX + "sessions", {row.id: row.created_ms}, nx=True)
            await _whole(pipe.execute())

    async def get(self, sid: str) -> SessionRow | None:
        data = await _whole(self.r.get(self._k("s", sid)))
        return None if data is None else SessionRow.from_json(data)

    async def rows(self) -> list[SessionRow]:
        ids = await _whole(self.r.zrange(_PREFIX + "sessions", 0, -1))
        if not ids:
            return []
        found = await _whole(self.r.mget([self._k("s", sid) for sid in ids]))
        return [SessionRow.from_json(data) for data in found if data is not None]

    async def delete(self, sid: str) -> bool:
        async with self.r.pipeline(transaction=True) as pipe:
            pipe.delete(*(self._k(k, sid) for k in ("s", "ev", "seq", "pos", "lease",
                                                    "strikes")))
            pipe.zrem(_PREFIX + "sessions", sid)
            gone, _ = await _whole(pipe.execute())
        self._cache.pop(sid, None)
        return bool(gone)

    async def append(self, sid: str, data: str, pos: int = -1,
                     owner: str | None = None) -> int | None:
        keys = [self._k(k, sid) for k in ("ev", "seq", "pos", "lease")]
        seq = int(await _whole(self._scripts["append"](keys=keys,
                                                        args=[data, pos, owner or ""])))
        return None if seq < 0 else seq

    async def events(self, sid: str, after: int, limit: int) -> list[StoredEvent]:
        cached = self._cache.get(sid)
        if cached is None or len(cached) <= after:
            await self._fill(sid)
            cached = self._cache.get(sid, [])
        return cached[after:after + limit]

    async def _fill(self, sid: str) -> None:
        """Bring this replica's copy of the history up to date: one XRANGE per session at a
        time, however many subscribers are waiting for it. Histories never change once
        written (seq n is entry n), so the copy is always right, only maybe short."""
        pending = self._fetching.get(sid)
        if pending is None or pending.done():
            pending = self._fetching[sid] = asyncio.ensure_future(self._fetch(sid))
        await asyncio.shield(pending)

    async def _fetch(self, sid: str) -> None:
        cached = self._cache.setdefault(sid, [])
        while True:
            found = await self.r.xrange(self._k("ev", sid), f"({len(cached)}-0", "+",
                                        count=_FETCH)
            cached += [StoredEvent(int(eid.split("-", 1)[0]), fields["d"], int(fields["p"]))
                       for eid, fields in found]
            if len(found) < _FETCH:
                return

    async def last_seq(self, sid: str) -> int:
        return int(await _whole(self.r.get(self._k("seq", sid))) or 0)

    async def position(self, sid: str) -> int:
        return int(await _whole(self.r.get(self._k("pos", sid))) or 0)

    async def wait(self, sid: str, after: int, timeout_s: float) -> None:
        if len(self._cache.get(sid, ())) > after:
            return
        watch = self._watch.get(sid)
        if watch is None or watch.done():  # one blocking read per session per replica
            watch = asyncio.ensure_future(self._xread(sid, after, timeout_s))
            self._watch[sid] = watch
        with suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(watch), timeout_s)

    async def _xread(self, sid: str, after: int, timeout_s: float) -> None:
        """One blocking read; any outcome (data, timeout, a dropped connection) wakes the
        waiters, who read the store again."""
        from redis.exceptions import RedisError

        try:
            await self._blocking.xread({self._k("ev", sid): f"{after}-0"}, count=1,
                               block=max(1, int(min(timeout_s, _BLOCK_S) * 1000)))
        except RedisError:
            return
        finally:
            if self._watch.get(sid) is asyncio.current_task():
                del self._watch[sid]

    async def lease(self, sid: str, owner: str, ttl_ms: int) -> bool:
        return bool(await _whole(self._scripts["lease"](keys=[self._k("lease", sid)],
                                                         args=[owner, ttl_ms])))

    async def release(self, sid: str, owner: str) -> None:
        await _whole(self._scripts["release"](keys=[self._k("lease", sid)], args=[owner]))

    async def strike(self, sid: str, key: str) -> int:
        return int(await _whole(self.r.hincrby(self._k("strikes", sid), key, 1)))

    async def orphans(self) -> list[str]:
        rows = [r for r in await self.rows() if r.status not in FINAL_STATUSES]
        if not rows:
            return []
        async with self.r.pipeline(transaction=False) as pipe:
            for row in rows:
                pipe.exists(self._k("lease", row.id))
            held = await _whole(pipe.execute())
        return [row.id for row, h in zip(rows, held, strict=True) if not h]
