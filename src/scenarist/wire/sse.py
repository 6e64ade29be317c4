"""Server-sent-event frames: what every streaming encoder yields, and their bytes."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any


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
        data = self.data if isinstance(self.data, str) else dumps(self.data)
        if self.event is None:
            return f"data: {data}\n\n".encode()
        return f"event: {self.event}\ndata: {data}\n\n".encode()


def dumps(obj: Any) -> str:
    """Compact JSON with non-ASCII kept as is (what the real APIs send)."""
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


def encode_frames(frames: Iterable[Frame]) -> Iterator[bytes]:
    """The bytes of each frame, lazily."""
    for frame in frames:
        yield frame.encode()


SSE_HEADERS = {"content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache"}
"""Response headers for an SSE body."""
