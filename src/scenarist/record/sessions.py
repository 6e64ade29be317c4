"""Which kind of session file a path holds, read from its content, and its transcript.

The kind is decided by the first JSON lines (up to :data:`SNIFF_LINES`): Codex rollout lines
have ``type`` + ``payload``, Claude Code's ``user``/``assistant`` lines a ``message`` and a
``sessionId``, ACP logs JSON-RPC messages. The file name is not trusted: a copy renamed
``session.jsonl`` imports the same.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

from scenarist.record.acp_session import is_acp_line, read_acp_session
from scenarist.record.claude_session import is_claude_line, read_claude_session
from scenarist.record.codex_session import is_codex_line, read_codex_session
from scenarist.record.lines import SessionFileError, json_lines
from scenarist.record.transcript import Transcript

__all__ = ["SNIFF_LINES", "SessionKind", "read_session", "session_kind"]

SessionKind = Literal["codex", "claude-code", "acp"]
SNIFF_LINES = 200

_KINDS: tuple[tuple[SessionKind, Callable[[dict[str, Any]], bool],
                    Callable[[Path], Transcript]], ...] = (
    ("codex", is_codex_line, read_codex_session),
    ("claude-code", is_claude_line, read_claude_session),
    ("acp", is_acp_line, read_acp_session),
)


def session_kind(path: Path) -> SessionKind:
    """The kind of session ``path`` holds (:class:`SessionFileError` when none fits)."""
    seen = 0
    for _, line in json_lines(path):
        for kind, fits, _ in _KINDS:
            if fits(line):
                return kind
        seen += 1
        if seen >= SNIFF_LINES:
            break
    what = "is empty" if seen == 0 else f"has no line of a known session in its first {seen}"
    raise SessionFileError(
        f"{path}:1: unknown kind of session file: it {what}; expected a Codex CLI session "
        "($CODEX_HOME/sessions/.../rollout-*.jsonl), a Claude Code transcript "
        "(<config dir>/projects/<project>/<session>.jsonl) or an ACP JSON-RPC line log "
        "(scenarist acp-test --transcript)")


def read_session(path: Path) -> tuple[SessionKind, Transcript]:
    """The kind of ``path`` and its transcript (every line read: a bad one is an error)."""
    kind = session_kind(path)
    reader = next(read for name, _, read in _KINDS if name == kind)
    transcript = reader(path)
    if not transcript.turns:
        raise SessionFileError(f"{path}:1: a {kind} session with no prompt of the user: "
                               "nothing to import")
    return kind, transcript
