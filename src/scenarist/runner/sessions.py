"""The in-memory session database each run keeps: what ``complete``/``merge``/``status`` do.

Agent Harbor lists sessions with a status; the spec has ``complete`` mark the session
completed and ``merge`` keep a completed session in the listing (without it a completed
session is not listed). One SQLite database in memory per run, so runs never share state.
"""

from __future__ import annotations

import sqlite3

__all__ = ["SessionStore"]


class SessionStore:
    """One session row (the scenario's), created ``running``."""

    def __init__(self, session: str) -> None:
        self.session = session
        self._db = sqlite3.connect(":memory:")
        self._db.execute("CREATE TABLE sessions (id TEXT PRIMARY KEY, status TEXT NOT NULL, "
                         "merged INTEGER NOT NULL DEFAULT 0)")
        self._db.execute("INSERT INTO sessions (id, status) VALUES (?, 'running')", (session,))

    def set_status(self, status: str) -> None:
        self._db.execute("UPDATE sessions SET status = ? WHERE id = ?", (status, self.session))

    def complete(self, success: bool = True) -> None:
        self.set_status("completed" if success else "failed")

    def merge(self, merged: bool = True) -> None:
        self._db.execute("UPDATE sessions SET merged = ?, status = 'completed' WHERE id = ?",
                         (int(merged), self.session))

    def listed(self) -> list[str]:
        """Sessions a listing shows: those not completed, and completed ones that merged."""
        rows = self._db.execute("SELECT id FROM sessions WHERE status != 'completed' "
                                "OR merged = 1 ORDER BY id")
        return [row[0] for row in rows]

    def rows(self) -> tuple[tuple[str, str, bool], ...]:
        rows = self._db.execute("SELECT id, status, merged FROM sessions ORDER BY id")
        return tuple((sid, status, bool(merged)) for sid, status, merged in rows)

    def close(self) -> None:
        self._db.close()
