"""Reading a session file as JSON lines, with the limits and errors ``scenarist import`` owes
its user: every problem names ``file:line``, a line over :data:`MAX_LINE_BYTES` is refused
before it is parsed, and a last line cut off mid-write says the file looks truncated."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

from scenarist.errors import ScenaristError

__all__ = ["MAX_LINE_BYTES", "SessionFileError", "as_list", "as_mapping", "json_lines", "timestamp_ms"]

MAX_LINE_BYTES = 4 * 1024 * 1024  # one JSON line of a session file (a real one: < 1 MB)


class SessionFileError(ScenaristError, ValueError):
    """A session file ``scenarist import`` cannot read: the message names file:line."""


def json_lines(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """Each non-blank line of ``path`` as (line number, JSON object)."""
    try:
        handle = path.open("rb")
    except OSError as exc:
        raise SessionFileError(f"{path}: cannot read: {exc.strerror or exc}") from None
    with handle:
        number = 0
        while True:
            raw = handle.readline(MAX_LINE_BYTES + 1)
            if not raw:
                return
            number += 1
            if len(raw) > MAX_LINE_BYTES and not raw.endswith(b"\n"):
                raise SessionFileError(
                    f"{path}:{number}: line longer than {MAX_LINE_BYTES // (1024 * 1024)} MiB; "
                    "a session file has one JSON event per line: is this the right file?")
            if not raw.strip():
                continue
            try:
                value = json.loads(raw)
            except (UnicodeDecodeError, json.JSONDecodeError) as exc:
                if not raw.endswith(b"\n") and handle.read(1) == b"":
                    raise SessionFileError(
                        f"{path}:{number}: the last line is cut off ({exc}); the file looks "
                        "truncated (was the agent still writing it?)") from None
                raise SessionFileError(f"{path}:{number}: not a JSON line: {exc}") from None
            if not isinstance(value, dict):
                raise SessionFileError(f"{path}:{number}: expected a JSON object, got "
                                       f"{type(value).__name__}")
            yield number, value


def timestamp_ms(value: Any) -> int | None:
    """Milliseconds since the epoch of an ISO-8601 timestamp (None: absent or not one)."""
    if not isinstance(value, str):
        return None
    try:
        return int(datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp() * 1000)
    except ValueError:
        return None


def as_list(value: Any) -> list[Any]:
    """``value`` when it is a list, else empty: a session line's fields are not trusted."""
    return value if isinstance(value, list) else []


def as_mapping(value: Any) -> dict[str, Any]:
    """``value`` when it is an object, else empty."""
    return value if isinstance(value, dict) else {}
