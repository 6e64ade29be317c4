"""The journal: what the mock model server was asked and what it answered, bounded in bytes.

A test reads it (``GET /_scenarist/journal``) to prove what happened: which scenario each
request selected, at which position, what it was answered, which asserts held. It must not grow
with what clients send: it once kept whole prompts (twelve 16 MiB requests took the server from
57 to 463 MiB). So every string is clipped to :data:`STRING_LIMIT` characters when an entry is
settled, and settled entries are dropped oldest first beyond :data:`BYTE_LIMIT` bytes or
:data:`ENTRY_LIMIT` entries. Entries still being answered (a stream in flight) are kept whole
until they settle; there are as many of those as concurrent requests.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator
from typing import Any

__all__ = ["BYTE_LIMIT", "ENTRY_LIMIT", "STRING_LIMIT", "Journal", "clip"]

STRING_LIMIT = 2048  # characters kept of any string in an entry (a prompt, an error message)
BYTE_LIMIT = 8 * 1024 * 1024  # the settled entries together, as JSON, about
ENTRY_LIMIT = 10_000

Entry = dict[str, Any]


def clip(value: Any, limit: int = STRING_LIMIT) -> Any:
    """``value`` with every string longer than ``limit`` cut, saying how long it was."""
    if isinstance(value, str):
        if len(value) <= limit:
            return value
        return f"{value[:limit]}… [clipped: {len(value)} characters]"
    if isinstance(value, dict):
        return {k: clip(v, limit) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [clip(v, limit) for v in value]
    return value


def _size(value: Any) -> int:
    """About the size of ``value`` as JSON (strings and the structure around them)."""
    if isinstance(value, str):
        return len(value) + 2
    if isinstance(value, dict):
        return 2 + sum(len(str(k)) + 4 + _size(v) for k, v in value.items())
    if isinstance(value, list | tuple):
        return 2 + sum(_size(v) + 1 for v in value)
    return 8


class Journal:
    """Entries in arrival order. :meth:`add` an entry when a request arrives (it may still be
    filled in), :meth:`settle` it when it is answered: then it is clipped and counted."""

    def __init__(self, *, byte_limit: int = BYTE_LIMIT, entry_limit: int = ENTRY_LIMIT) -> None:
        self.byte_limit = byte_limit
        self.entry_limit = entry_limit
        self._entries: deque[Entry] = deque()
        self._sizes: dict[int, int] = {}  # id(entry) → counted size, for settled entries
        self._members: set[int] = set()  # id() of every entry in the journal
        self._bytes = 0
        self.dropped = 0  # settled entries dropped to stay within the limits

    def add(self, entry: Entry) -> Entry:
        self._entries.append(entry)
        self._members.add(id(entry))
        return entry

    def record(self, entry: Entry) -> Entry:
        """An entry that is complete when it arrives: add and settle it."""
        return self.settle(self.add(entry))

    def settle(self, entry: Entry) -> Entry:
        """Clip ``entry``'s strings in place, count it, and drop the oldest settled entries
        while the journal is over its limits."""
        entry.update(clip(entry))
        if id(entry) not in self._members:  # cleared while it was being answered
            return entry
        if id(entry) in self._sizes:
            self._bytes -= self._sizes.pop(id(entry))
        size = _size(entry)
        self._sizes[id(entry)] = size
        self._bytes += size
        self._evict()
        return entry

    def _evict(self) -> None:
        while (self._bytes > self.byte_limit or len(self._entries) > self.entry_limit) and (
            oldest := next((e for e in self._entries if id(e) in self._sizes), None)
        ) is not None:
            self._entries.remove(oldest)
            self._members.discard(id(oldest))
            self._bytes -= self._sizes.pop(id(oldest))
            self.dropped += 1

    def clear(self) -> None:
        self._entries.clear()
        self._sizes.clear()
        self._members.clear()
        self._bytes = 0
        self.dropped = 0

    @property
    def bytes(self) -> int:
        """About the size of the settled entries as JSON."""
        return self._bytes

    def __iter__(self) -> Iterator[Entry]:
        return iter(tuple(self._entries))

    def __reversed__(self) -> Iterator[Entry]:
        return reversed(tuple(self._entries))

    def __len__(self) -> int:
        return len(self._entries)

    def __getitem__(self, index: int) -> Entry:
        return self._entries[index]
