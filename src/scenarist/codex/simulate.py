"""Random mode: a plausible Codex turn for any prompt, governed by the seed.

The order follows the original fake agent: reasoning, then tool sequences (each
kind switchable), optional warning and stream error, the streamed answer that
quotes the prompt, and a closing background event. Everything comes from the
turn's :class:`~scenarist.codex.rng.Rng`, so a seed reproduces it byte for byte.
"""

from __future__ import annotations

import shlex
from typing import TYPE_CHECKING

from scenarist.codex import build

if TYPE_CHECKING:
    from collections.abc import Collection

    from scenarist.codex.turn import CodexEvent, CodexTurn

TOOL_KINDS: tuple[str, ...] = ("exec", "apply_patch", "mcp", "web_search")

_THOUGHTS = (
    "Let me look at the repository layout first, then decide where the change belongs.",
    "I should read the relevant files before touching anything.",
    "The request is small; a quick check of the tests will tell me what to change.",
    "Start by finding where this is handled, then make a focused edit.",
)

_COMMANDS: tuple[tuple[list[str], str], ...] = (
    (
        ["ls", "-la"],
        "total 24\ndrwxr-xr-x  5 dev dev 4096 .\n-rw-r--r--  1 dev dev  812 README.md\n",
    ),
    (["git", "status", "--short"], " M src/app.py\n?? notes.md\n"),
    (["rg", "-n", "TODO"], "src/app.py:12:# TODO: handle the empty case\n"),
    (["cat", "README.md"], "# Demo project\n\nA small project used to try agents.\n"),
    (
        ["pytest", "-q"],
        "....                                                [100%]\n4 passed in 0.12s\n",
    ),
)

_FILES = ("src/app.py", "README.md", "notes.md", "tests/test_app.py")

_QUERIES = ("python pathlib relative_to", "pytest parametrize ids", "git worktree add")

_ANSWERS = (
    'I looked into "{prompt}". The change is in place and the checks pass.',
    'Done: "{prompt}". I read the code, made a focused edit and ran the tests.',
    'Here is what I found for "{prompt}": nothing blocks it, and the summary is below.',
)


def random_turn(
    turn: CodexTurn,
    prompt: str,
    *,
    tools: Collection[str] = TOOL_KINDS,
    reasoning: bool = True,
    errors: bool = False,
) -> list[CodexEvent]:
    """The events of one simulated turn answering ``prompt`` (no lifecycle, no session)."""
    rng = turn.rng
    out: list[CodexEvent] = []
    if reasoning:
        out += build.reasoning(turn, rng.choice(_THOUGHTS))
    if "exec" in tools:
        for _ in range(rng.between(1, 2)):
            argv, stdout = rng.choice(_COMMANDS)
            out += build.exec_command(turn, build.shell_argv(shlex.join(argv)), stdout=stdout,
                                      approvals=turn.approvals)
    if "apply_patch" in tools:
        path = f"{turn.cwd.rstrip('/')}/{rng.choice(_FILES)}"
        diff = f"@@ -1,2 +1,2 @@\n-# old\n+# {_quote(prompt, 40)}\n"
        change = build.file_change("update", diff=diff)
        out += build.apply_patch(turn, {path: change}, approvals=turn.approvals)
    if "mcp" in tools and rng.chance(60):
        out += build.mcp_call(
            turn, "docs", "search", {"query": _quote(prompt, 60)}, result="2 matching pages"
        )
    if "web_search" in tools and rng.chance(50):
        out += build.web_search(turn, rng.choice(_QUERIES))
    if errors:
        out.append(build.note("warning", "fake warning: the repository has uncommitted changes"))
        out.append(build.note("stream_error", "fake stream error: reconnecting... 1/5"))
    out += build.message(turn, rng.choice(_ANSWERS).format(prompt=_quote(prompt, 200)))
    out.append(build.note("background_event", "fake-codex: turn finished"))
    return out


def _quote(prompt: str, limit: int) -> str:
    """The prompt on one line, cut to ``limit`` characters."""
    flat = " ".join(prompt.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"
