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

import orjson

__all__ = ["BYTE_LIMIT", "ENTRY_LIMIT", "STRING_LIMIT", "Journal", "clip"]

STRING_LIMIT = 2048  # characters kept of any string in an entry (a prompt, an error message)
BYTE_LIMIT = 8 * 1024 * 1024  # the settled entries together, as JSON, about
ENTRY_LIMIT = 10_000

Entry = dict[str, Any]
_IN_FLIGHT = -1  # the size recorded for an entry not yet settled


def clip(value: Any, limit: int = STRING_LIMIT) -> Any:
    """``value`` with every string longer than ``limit`` cut, saying how long it was."""
    return _clipped(value, limit)[0]


def _clip_str(text: str, limit: int) -> str:
    return f"{text[:limit]}… [clipped: {len(text)} characters]"


def _clipped(value: Any, limit: int) -> tuple[Any, int]:
    """``value`` clipped, and about its size as JSON. One walk, and containers are rebuilt
    only when something in them was clipped: settling an entry is on every request's path."""
    if isinstance(value, str):
        if len(value) <= limit:
            return value, len(value) + 2
        cut = _clip_str(value, limit)
        return cut, len(cut) + 2
    if isinstance(value, dict):
        size, changed = 2, {}
        for key, item in value.items():
            new, n = _clipped(item, limit)
            size += n + len(str(key)) + 4
            if new is not item:
                changed[key] = new
        return ({**value, **changed} if changed else value), size
    if isinstance(value, (list, tuple)):  # a tuple: a union is slower in isinstance
        size, items, dirty = 2, [], False
        for item in value:
            new, n = _clipped(item, limit)
            size += n + 1
            items.append(new)
            dirty = dirty or new is not item
        return (items if dirty else value), size
    return value, 8


def _small_size(entry: Entry) -> int | None:
    """The size of ``entry`` as JSON when it is too small to hold a string to clip, else None.

    Settling is on every request's path: one ``orjson.dumps`` (0.6 µs for a usual entry of
    about 25 keys) replaces the walk of :func:`_clipped` (5 µs) whenever the whole entry fits
    in :data:`STRING_LIMIT`. A larger entry (or one holding a value JSON cannot encode) is walked.
    A huge entry is encoded once for nothing: 11 ms for a 16 MiB prompt, against 19 ms to parse
    its request (the server clips the notes of such requests off the event loop first).
    """
    try:
        data = orjson.dumps(entry)
    except TypeError:
        return None
    return len(data) if len(data) <= STRING_LIMIT else None


class Journal:
    """Entries in arrival order. :meth:`add` an entry when a request arrives (it may still be
    filled in), :meth:`settle` it when it is answered: then it is clipped and counted."""

    def __init__(self, *, byte_limit: int = BYTE_LIMIT, entry_limit: int = ENTRY_LIMIT) -> None:
        self.byte_limit = byte_limit
        self.entry_limit = entry_limit
        self._entries: deque[Entry] = deque()
        # id() of every entry in the journal → its counted size once settled, -1 before
        self._sizes: dict[int, int] = {}
        self._bytes = 0
        self.dropped = 0  # settled entries dropped to stay within the limits

    def add(self, entry: Entry) -> Entry:
        self._entries.append(entry)
        self._sizes[id(entry)] = _IN_FLIGHT
        return entry

    def record(self, entry: Entry) -> Entry:
        """An entry that is complete when it arrives: add and settle it."""
        return self.settle(self.add(entry))

    def settle(self, entry: Entry) -> Entry:
        """Clip ``entry``'s strings in place, count it, and drop the oldest settled entries
        while the journal is over its limits."""
        size = _small_size(entry)
        if size is None:
            size = 2
            for key, value in entry.items():  # in place: the entry is shared with the server
                new, n = _clipped(value, STRING_LIMIT)
                if new is not value:
                    entry[key] = new
                size += n + len(str(key)) + 4
        counted = self._sizes.get(id(entry))
        if counted is None:  # cleared while it was being answered
            return entry
        self._sizes[id(entry)] = size
        self._bytes += size - max(counted, 0)
        if self._bytes > self.byte_limit or len(self._entries) > self.entry_limit:
            self._evict()
        return entry

    def _evict(self) -> None:
        entries = self._entries
        while (self._bytes > self.byte_limit or len(entries) > self.entry_limit) and entries:
            oldest = entries[0]
            if self._sizes[id(oldest)] == _IN_FLIGHT:  # an older stream still being answered
                found = next((e for e in entries if self._sizes[id(e)] != _IN_FLIGHT), None)
                if found is None:
                    return
                oldest = found
                entries.remove(oldest)
            else:
                entries.popleft()
            self._bytes -= self._sizes.pop(id(oldest))
            self.dropped += 1

    def clear(self) -> None:
        self._entries.clear()
        self._sizes.clear()
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
