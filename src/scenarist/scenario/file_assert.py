"""The rule of the format's ``assert.fs.contains`` (pure), shared by every front end that
checks asserts (the model server, the test executor), so a scenario means the same to both.

A file passes when its text (UTF-8; an invalid byte reads as U+FFFD) holds every given text
as written: case, spaces and line ends count. The message names what is missing and shows
the start of the file, which is usually enough to see why.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["MAX_FILE_BYTES", "file_contains"]

MAX_FILE_BYTES = 16 * 1024 * 1024  # the largest file an assert reads
_SHOWN = 120  # characters of the file a failure shows


def file_contains(text: str, needles: Sequence[str]) -> tuple[bool, str]:
    """Whether ``text`` holds every one of ``needles``, and a message saying so."""
    missing = [needle for needle in needles if needle not in text]
    if not missing:
        return True, "contains " + ", ".join(repr(needle) for needle in needles)
    start = text[:_SHOWN] + ("…" if len(text) > _SHOWN else "")
    return False, (f"does not contain {', '.join(repr(needle) for needle in missing)}; "
                   f"it holds {len(text)} characters: {start!r}")
