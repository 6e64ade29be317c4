"""Where sessions and their event history live: the :class:`Store` protocol and its records.

Every event a client receives is read from the store by its per-session ``seq``, never from
an in-memory broadcast: a subscriber reads "everything after N", then waits for the store to
say something new arrived. That one rule gives exactly-once delivery whatever the timing of
a connection or the speed of a reader, and lets any replica serve any session.

Two implementations, chosen by URL (:func:`open_store`): ``sqlite://`` (in memory, the
default), ``sqlite:///FILE`` (WAL) and ``redis://HOST:PORT/N`` (streams; several replicas).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, replace
from typing import Any, Protocol

from scenarist.errors import UsageError

__all__ = ["SessionRow", "Store", "StoreUrlError", "StoredEvent", "open_store"]


@dataclass(frozen=True, slots=True)
class SessionRow:
    """A session's state. Times are epoch milliseconds; ``t0_ms`` is when the scenario's
    time 0 was (or is) due, moved on by every pause, so any replica can resume the
    schedule; ``position`` is how many planned events had been played at the last status
    change (the store's ``position()`` is the exact figure)."""

    id: str
    scenario: str
    status: str
    created_ms: float
    updated_ms: float
    task: dict[str, Any] = field(default_factory=dict)
    speed: float = 1.0
    t0_ms: float | None = None
    paused_ms: float | None = None  # when the current pause began
    ended_ms: float | None = None
    merged: bool = False
    position: int = 0
    requested: str | None = None  # pause/resume/stop asked of a replica that does not play it

    def to_json(self) -> str:
        return json.dumps(asdict(self), separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str | bytes) -> SessionRow:
        return cls(**json.loads(text))

    def but(self, **changes: Any) -> SessionRow:
        return replace(self, **changes)


@dataclass(frozen=True, slots=True)
class StoredEvent:
    """One event of a session: ``seq`` counts from 1 per session; ``data`` is the event's
    JSON (typed dialect, with ``ts``); ``pos`` the planned event it played (-1: made by a
    request, e.g. a prompt)."""

    seq: int
    data: str
    pos: int = -1

    @property
    def body(self) -> dict[str, Any]:
        value: dict[str, Any] = json.loads(self.data)
        return value


class Store(Protocol):
    """Sessions and event history. ``append`` with ``owner`` is fenced: it is refused
    (returns None) unless ``owner`` holds the session's lease."""

    url: str

    async def open(self) -> None: ...

    async def close(self) -> None: ...

    async def put(self, row: SessionRow) -> None: ...

    async def get(self, sid: str) -> SessionRow | None: ...

    async def rows(self) -> list[SessionRow]:
        """Every session, oldest first."""
        ...

    async def delete(self, sid: str) -> bool: ...

    async def append(self, sid: str, data: str, pos: int = -1,
                     owner: str | None = None) -> int | None:
        """Store one event; its ``seq`` (None: ``owner`` does not hold the lease)."""
        ...

    async def events(self, sid: str, after: int, limit: int) -> list[StoredEvent]:
        """Up to ``limit`` events with ``seq > after``, in order."""
        ...

    async def last_seq(self, sid: str) -> int: ...

    async def position(self, sid: str) -> int:
        """How many planned events were stored: the next ``pos`` to play."""
        ...

    async def wait(self, sid: str, after: int, timeout_s: float) -> None:
        """Return when an event after ``after`` may exist, the session changed, or after
        ``timeout_s``."""
        ...

    async def lease(self, sid: str, owner: str, ttl_ms: int) -> bool:
        """Take or renew the right to play ``sid`` for ``ttl_ms``; whether ``owner`` has it."""
        ...

    async def release(self, sid: str, owner: str) -> None: ...

    async def orphans(self) -> list[str]:
        """Unfinished sessions that nobody holds a lease on (a replica died)."""
        ...

    async def strike(self, sid: str, key: str) -> int:
        """Count one more strike of the scenario fault ``key`` on ``sid``'s streams; the
        count with this one (1 the first time). Shared by every replica, so a fault's
        ``times`` holds across them; deleted with the session."""
        ...


class StoreUrlError(UsageError, ValueError):
    """A ``--store`` URL this server cannot open; the message names the accepted forms."""


def open_store(url: str) -> Store:
    """The store for ``url`` (not yet opened): ``sqlite://``, ``sqlite:///FILE`` or
    ``redis://HOST:PORT/N``."""
    if url.startswith("sqlite://"):
        from scenarist.rest.store_sqlite import SqliteStore

        return SqliteStore(url)
    if url.startswith(("redis://", "rediss://", "unix://")):
        from scenarist.rest.store_redis import RedisStore

        return RedisStore(url)
    raise StoreUrlError(f"--store {url!r}: use sqlite:// (memory), sqlite:///FILE or "
                        "redis://HOST:PORT/N")
