"""``--replay FILE.jsonl``: re-emit a recorded stream.

Each non-blank line is one of: a ``codex/event`` notification (any envelope:
JSON-RPC, the original fake agent's, ``codex proto``'s ``{"id","msg"}``) whose
``msg`` is re-emitted as an event; a bare EventMsg (an object with a string
``type``); ``{"type": "sleep", "ms": N}`` for a pause; anything else (other
notifications, approval responses) is written back verbatim. Events of known
types are checked like ``emit``, so a corrupt recording fails with its line number.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from scenarist.codex.errors import CodexUsageError
from scenarist.codex.events import check_event
from scenarist.codex.turn import MAX_PAUSE_MS, Raw, Sleep

if TYPE_CHECKING:
    from typing import Any

    from scenarist.codex.turn import Step


def parse_replay(text: str, source: str) -> list[Step]:
    """The steps of a recording; ``source`` (the file name) prefixes error messages."""
    steps: list[Step] = []
    for lineno, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except ValueError as exc:
            raise CodexUsageError(f"{source}:{lineno}: bad JSON ({exc})") from None
        steps.append(_step(value, f"{source}:{lineno}"))
    return steps


def _step(value: Any, where: str) -> Step:
    if not isinstance(value, dict):
        return Raw(value)
    if value.get("type") == "sleep" and "ms" in value:
        ms = value["ms"]
        if isinstance(ms, bool) or not isinstance(ms, int) or not 0 <= ms <= MAX_PAUSE_MS:
            raise CodexUsageError(f'{where}: "ms" of a sleep must be a whole number from 0 to '
                             f"{MAX_PAUSE_MS} (one day), got {ms!r}")
        return Sleep(ms)
    msg: Any = None
    method = value.get("method")
    if isinstance(method, str):
        params = value.get("params")
        if method.startswith("codex/event") and isinstance(params, dict):
            msg = params.get("msg")
    elif isinstance(value.get("type"), str):
        msg = value
    elif "msg" in value and "id" in value:
        msg = value["msg"]
    if not isinstance(msg, dict):
        return Raw(value)
    problem = check_event(msg)
    if problem is not None:
        raise CodexUsageError(f"{where}: {problem}")
    return msg
