"""Per-agent output history for late subscribers: the newest ``capacity`` bytes, oldest dropped.

Sizes are UTF-8 bytes of the decoded text. Appending is O(1) and never copies text: whole
chunks are dropped only once the rest still covers ``capacity``, so up to one chunk more is
held, and the oldest chunk is cut (on a character boundary, so replayed text is always valid)
only when someone asks — a replay, not every 1 MiB read of a flooding agent.
"""

from __future__ import annotations

from collections import deque

from scenarist.hub.protocol import OutputStream


def utf8_len(text: str) -> int:
    """UTF-8 length without encoding ASCII text (``str.isascii`` is O(1) in CPython)."""
    return len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))


class OutputRing:
    """A byte-bounded FIFO of ``(stream, text)`` chunks."""

    def __init__(self, capacity: int) -> None:
        if capacity < 0:
            raise ValueError("ring capacity must be >= 0 bytes")
        self.capacity = capacity
        self._held = 0  # bytes in _chunks, at most one chunk beyond capacity
        self._evicted = 0  # bytes of whole chunks dropped since creation
        self._chunks: deque[tuple[OutputStream, str, int]] = deque()

    def append(self, stream: OutputStream, text: str) -> None:
        n = utf8_len(text)
        if n == 0:
            return
        self._chunks.append((stream, text, n))
        self._held += n
        while self._chunks and self._held - self._chunks[0][2] >= self.capacity:
            self._held -= self._chunks[0][2]
            self._evicted += self._chunks.popleft()[2]

    def _head_cut(self) -> tuple[str, int] | None:
        """The kept tail of the oldest chunk and its size, if it sticks out beyond capacity."""
        excess = self._held - self.capacity
        if excess <= 0 or not self._chunks:
            return None
        _, text, _ = self._chunks[0]
        if text.isascii():
            return text[excess:], len(text) - excess
        kept = text.encode("utf-8", "surrogatepass")[excess:].decode("utf-8", "ignore")
        return kept, utf8_len(kept)  # the decode drops a partial leading character

    @property
    def held(self) -> int:
        """Bytes held in memory: at most ``capacity`` plus the oldest chunk."""
        return self._held

    @property
    def size(self) -> int:
        """Bytes a replay returns (at most ``capacity``)."""
        cut = self._head_cut()
        return self._held if cut is None else self._held - self._chunks[0][2] + cut[1]

    @property
    def dropped(self) -> int:
        """Bytes evicted since creation."""
        cut = self._head_cut()
        return self._evicted if cut is None else self._evicted + self._chunks[0][2] - cut[1]

    def snapshot(self, frame_bytes: int = 64 * 1024) -> list[tuple[OutputStream, str]]:
        """The kept output, consecutive same-stream chunks joined up to ``frame_bytes`` each,
        so a replay is a few large frames rather than one per line."""
        out: list[tuple[OutputStream, str]] = []
        parts: list[str] = []
        current: OutputStream | None = None
        size = 0
        cut = self._head_cut()
        for i, (stream, text, n) in enumerate(self._chunks):
            if i == 0 and cut is not None:
                text, n = cut
                if not n:
                    continue
            if parts and (stream != current or size + n > frame_bytes):
                out.append((current or stream, "".join(parts)))
                parts, size = [], 0
            parts.append(text)
            current = stream
            size += n
        if parts and current is not None:
            out.append((current, "".join(parts)))
        return out
