"""The embedded store: SQLite from the standard library, in memory or in a WAL file.

Calls run on the event loop's thread: each is a few microseconds against an indexed table,
cheaper than handing it to a thread. Waiting subscribers are woken in-process, so a file
store serves one process (it keeps sessions across restarts: unfinished ones resume from
their stored position); several replicas need the Redis store.
"""

from __future__ import annotations

import asyncio
import sqlite3
from contextlib import suppress
from urllib.parse import unquote

from scenarist.rest.events import FINAL_STATUSES
from scenarist.rest.store import SessionRow, StoredEvent, StoreUrlError

__all__ = ["SqliteStore"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS sessions (id TEXT PRIMARY KEY, created REAL, data TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS events (
  sid TEXT NOT NULL, seq INTEGER NOT NULL, pos INTEGER NOT NULL, data TEXT NOT NULL,
  PRIMARY KEY (sid, seq)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS strikes (
  sid TEXT NOT NULL, key TEXT NOT NULL, n INTEGER NOT NULL, PRIMARY KEY (sid, key)) WITHOUT ROWID;
"""


class SqliteStore:
    """``sqlite://`` (memory) or ``sqlite:///FILE`` (WAL journal)."""

    def __init__(self, url: str) -> None:
        path = unquote(url.removeprefix("sqlite://"))
        if path not in ("", "/:memory:") and not path.startswith("/"):
            raise StoreUrlError(f"--store {url!r}: write sqlite:///FILE with three slashes "
                                "(sqlite:////abs/path for an absolute path) or sqlite:// "
                                "for memory")
        self.url = url
        self.path = ":memory:" if path in ("", "/:memory:") else path[1:]
        self._db: sqlite3.Connection | None = None
        self._seq: dict[str, int] = {}
        self._changed: dict[str, asyncio.Event] = {}
        self._leases: dict[str, str] = {}

    @property
    def db(self) -> sqlite3.Connection:
        if self._db is None:
            raise RuntimeError("SqliteStore used before open()")
        return self._db

    async def open(self) -> None:
        self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        if self.path != ":memory:":
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.executescript(_SCHEMA)

    async def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None

    async def put(self, row: SessionRow) -> None:
        self.db.execute("INSERT INTO sessions (id, created, data) VALUES (?, ?, ?) "
                        "ON CONFLICT(id) DO UPDATE SET data = excluded.data",
                        (row.id, row.created_ms, row.to_json()))
        self._wake(row.id)

    async def get(self, sid: str) -> SessionRow | None:
        found = self.db.execute("SELECT data FROM sessions WHERE id = ?", (sid,)).fetchone()
        return None if found is None else SessionRow.from_json(found[0])

    async def rows(self) -> list[SessionRow]:
        cursor = self.db.execute("SELECT data FROM sessions ORDER BY created, id")
        return [SessionRow.from_json(data) for (data,) in cursor]

    async def delete(self, sid: str) -> bool:
        with self.db:
            gone = self.db.execute("DELETE FROM sessions WHERE id = ?", (sid,)).rowcount
            self.db.execute("DELETE FROM events WHERE sid = ?", (sid,))
            self.db.execute("DELETE FROM strikes WHERE sid = ?", (sid,))
        self._seq.pop(sid, None)
        self._leases.pop(sid, None)
        self._wake(sid)
        return gone > 0

    async def append(self, sid: str, data: str, pos: int = -1,
                     owner: str | None = None) -> int | None:
        if owner is not None and self._leases.get(sid) != owner:
            return None
        seq = await self.last_seq(sid) + 1
        self.db.execute("INSERT INTO events (sid, seq, pos, data) VALUES (?, ?, ?, ?)",
                        (sid, seq, pos, data))
        self._seq[sid] = seq
        self._wake(sid)
        return seq

    async def events(self, sid: str, after: int, limit: int) -> list[StoredEvent]:
        cursor = self.db.execute(
            "SELECT seq, data, pos FROM events WHERE sid = ? AND seq > ? ORDER BY seq LIMIT ?",
            (sid, after, limit))
        return [StoredEvent(seq, data, pos) for seq, data, pos in cursor]

    async def last_seq(self, sid: str) -> int:
        seq = self._seq.get(sid)
        if seq is None:
            found = self.db.execute("SELECT MAX(seq) FROM events WHERE sid = ?", (sid,))
            seq = self._seq[sid] = found.fetchone()[0] or 0
        return seq

    async def position(self, sid: str) -> int:
        found = self.db.execute("SELECT MAX(pos) FROM events WHERE sid = ?", (sid,)).fetchone()
        return 0 if found[0] is None else int(found[0]) + 1

    async def wait(self, sid: str, after: int, timeout_s: float) -> None:
        if await self.last_seq(sid) > after:
            return
        changed = self._changed.setdefault(sid, asyncio.Event())
        with suppress(TimeoutError):
            await asyncio.wait_for(changed.wait(), timeout_s)

    async def lease(self, sid: str, owner: str, ttl_ms: int) -> bool:
        return self._leases.setdefault(sid, owner) == owner

    async def release(self, sid: str, owner: str) -> None:
        if self._leases.get(sid) == owner:
            del self._leases[sid]

    async def orphans(self) -> list[str]:
        return [row.id for row in await self.rows()
                if row.status not in FINAL_STATUSES and row.id not in self._leases]

    async def strike(self, sid: str, key: str) -> int:
        found = self.db.execute(
            "INSERT INTO strikes (sid, key, n) VALUES (?, ?, 1) ON CONFLICT(sid, key) "
            "DO UPDATE SET n = n + 1 RETURNING n", (sid, key)).fetchone()
        return int(found[0])

    def _wake(self, sid: str) -> None:
        changed = self._changed.pop(sid, None)
        if changed is not None:
            changed.set()
