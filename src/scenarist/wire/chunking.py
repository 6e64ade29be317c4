"""Deterministic splitting of text into stream deltas."""

from __future__ import annotations

import re

_WORDS = re.compile(r"\s*\S+|\s+")


def chunk_text(text: str, max_chars: int = 16) -> list[str]:
    """Split ``text`` into deltas of at most ``max_chars`` characters, preferring word breaks.

    Each word keeps the whitespace before it, so ``"".join(chunk_text(t)) == t`` always holds;
    words longer than ``max_chars`` are cut. The same input always gives the same chunks.
    """
    if max_chars < 1:
        raise ValueError(f"max_chars must be at least 1, got {max_chars}")
    chunks: list[str] = []
    current = ""
    for word in _WORDS.findall(text):
        if len(current) + len(word) <= max_chars:
            current += word
            continue
        if current:
            chunks.append(current)
        while len(word) > max_chars:
            chunks.append(word[:max_chars])
            word = word[max_chars:]
        current = word
    if current:
        chunks.append(current)
    return chunks
