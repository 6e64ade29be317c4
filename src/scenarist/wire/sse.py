"""Server-sent-event frames: what every streaming encoder yields, and their bytes."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import orjson


@dataclass(frozen=True, slots=True)
class Frame:
    """One SSE message: an optional ``event:`` name and a JSON object (or raw text) as data.

    ``at_ms`` is copied from the neutral event that produced the frame, so a server can pace
    the stream without knowing which API it speaks.
    """

    data: dict[str, Any] | str
    event: str | None = None
    at_ms: int = 0

    def encode(self) -> bytes:
        data = self.data.encode() if isinstance(self.data, str) else dump_bytes(self.data)
        if self.event is None:
            return b"data: " + data + b"\n\n"
        return b"event: " + self.event.encode() + b"\ndata: " + data + b"\n\n"


def dump_bytes(obj: Any) -> bytes:
    """Compact UTF-8 JSON with non-ASCII kept as is (what the real APIs send).

    orjson does the work (JSON encoding was most of the cost of a long stream); the stdlib
    encoder, which writes the same bytes, takes what orjson refuses (e.g. non-str keys).
    """
    try:
        return orjson.dumps(obj)
    except TypeError:
        return json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode()


def encode_frames(frames: Iterable[Frame]) -> Iterator[bytes]:
    """The bytes of each frame, lazily."""
    for frame in frames:
        yield frame.encode()


SSE_HEADERS = {"content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache"}
"""Response headers for an SSE body."""
