"""Per-agent output history for late subscribers: the newest ``capacity`` bytes, oldest dropped.

Sizes are UTF-8 bytes of the decoded text. Appending is O(1) amortised; when the oldest chunk
must be cut, the cut lands on a character boundary (so replayed text is always valid).
"""

from __future__ import annotations

from collections import deque

from scenarist.hub.protocol import Stream


def utf8_len(text: str) -> int:
    """UTF-8 length without encoding ASCII text (``str.isascii`` is O(1) in CPython)."""
    return len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))


class OutputRing:
    """A byte-bounded FIFO of ``(stream, text)`` chunks."""

    def __init__(self, capacity: int) -> None:
        if capacity < 0:
            raise ValueError("ring capacity must be >= 0 bytes")
        self.capacity = capacity
        self.size = 0
        self.dropped = 0  # bytes evicted since creation
        self._chunks: deque[tuple[Stream, str, int]] = deque()

    def append(self, stream: Stream, text: str) -> None:
        n = utf8_len(text)
        if n == 0:
            return
        self._chunks.append((stream, text, n))
        self.size += n
        self._trim()

    def _trim(self) -> None:
        while self.size > self.capacity and self._chunks:
            stream, text, n = self._chunks.popleft()
            excess = self.size - self.capacity
            self.size -= n
            if n <= excess:
                self.dropped += n
                continue
            raw = text.encode("utf-8", "surrogatepass")[excess:]
            kept = raw.decode("utf-8", "ignore")  # drops a partial leading character
            kept_n = utf8_len(kept)
            self.dropped += n - kept_n
            if kept_n:
                self._chunks.appendleft((stream, kept, kept_n))
                self.size += kept_n

    def snapshot(self, frame_bytes: int = 64 * 1024) -> list[tuple[Stream, str]]:
        """The kept output, consecutive same-stream chunks joined up to ``frame_bytes`` each,
        so a replay is a few large frames rather than one per line."""
        out: list[tuple[Stream, str]] = []
        parts: list[str] = []
        current: Stream | None = None
        size = 0
        for stream, text, n in self._chunks:
            if parts and (stream != current or size + n > frame_bytes):
                out.append((current or stream, "".join(parts)))
                parts, size = [], 0
            parts.append(text)
            current = stream
            size += n
        if parts and current is not None:
            out.append((current, "".join(parts)))
        return out
