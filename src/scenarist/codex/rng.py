"""A tiny seeded generator (SplitMix64) for ids, chunk sizes and choices.

Our own arithmetic rather than :mod:`random`, so a seed yields byte-identical
output on every Python version and the CLI pays nothing to import it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

T = TypeVar("T")

_MASK = (1 << 64) - 1
_GOLDEN = 0x9E3779B97F4A7C15


class Rng:
    """Deterministic 64-bit generator; ``Rng(seed).fork(label)`` derives a sub-stream."""

    __slots__ = ("_state",)

    def __init__(self, seed: int) -> None:
        self._state = seed & _MASK

    def next_u64(self) -> int:
        self._state = z = (self._state + _GOLDEN) & _MASK
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        """An integer in ``[0, n)``; ``n`` must be positive."""
        return self.next_u64() % n

    def between(self, lo: int, hi: int) -> int:
        """An integer in ``[lo, hi]``."""
        return lo + self.next_u64() % (hi - lo + 1)

    def chance(self, percent: int) -> bool:
        return self.next_u64() % 100 < percent

    def choice(self, items: Sequence[T]) -> T:
        return items[self.next_u64() % len(items)]

    def hex(self, digits: int = 16) -> str:
        return format(self.next_u64(), "016x")[:digits]

    def uuid(self) -> str:
        """A UUID-shaped string (version 4 layout), like Codex session ids."""
        h = format(self.next_u64(), "016x") + format(self.next_u64(), "016x")
        return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-a{h[17:20]}-{h[20:32]}"

    def fork(self, label: int) -> Rng:
        """An independent stream for ``label`` (e.g. a turn number) that leaves this one untouched."""
        z = (self._state ^ ((label + 1) * 0xD1B54A32D192ED03)) & _MASK
        return Rng(Rng(z).next_u64())


def seeded_chunks(text: str, rng: Rng, lo: int, hi: int) -> list[str]:
    """Split ``text`` into pieces of ``lo``..``hi`` characters (never an empty piece)."""
    if len(text) <= lo:
        return [text] if text else []
    out: list[str] = []
    i, n = 0, len(text)
    span = hi - lo + 1
    nxt = rng.next_u64
    while i < n:
        j = i + lo + nxt() % span
        out.append(text[i:j])
        i = j
    return out
