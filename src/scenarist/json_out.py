"""How scenarist writes JSON: a message onto the wire, and a scenario's value shown as text.

:func:`dump_bytes` is the one way a server writes a JSON message: compact UTF-8 bytes. The
model API's SSE frames and the hub's WebSocket frames carry the same kind of payload (much
of it escaped agent or model text) and want the same bytes: no spaces, non-ASCII kept as is
(what the real APIs send). orjson does the work — the stdlib encoder manages ~200 MB/s on
newline-heavy text, orjson several GB/s, and both the hub's throughput and a long stream's cost
depend on it; the stdlib takes what orjson refuses (non-``str`` keys, a lone surrogate, which
is escaped as ``\\udxxx`` so the bytes stay valid UTF-8).

:func:`as_text` is how every front end shows a value a scenario wrote where text goes (a tool
result, an expected result, a timeline entry): a string as written, anything else as JSON with
non-ASCII kept, as a person wrote it.
"""

from __future__ import annotations

import json
from typing import Any

import orjson

__all__ = ["as_text", "dump_bytes"]


def dump_bytes(obj: Any) -> bytes:
    """``obj`` as compact UTF-8 JSON (see the module doc)."""
    try:
        return orjson.dumps(obj)
    except TypeError:  # orjson.JSONEncodeError is one
        text = json.dumps(obj, ensure_ascii=False, separators=(",", ":"))
        try:
            return text.encode()
        except UnicodeEncodeError:  # a lone surrogate
            return json.dumps(obj, separators=(",", ":")).encode("ascii")


def as_text(value: Any) -> str:
    """A scenario's value where text goes: a string as is, ``None`` as nothing, anything else
    as JSON (see the module doc)."""
    if value is None:
        return ""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
