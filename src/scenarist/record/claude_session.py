"""A Claude Code transcript (``<config dir>/projects/<project>/<session>.jsonl``) read as a
transcript.

Facts (transcripts of the pinned Claude Code 2.1.332 against ``scenarist llm``): lines of
``type`` ``user`` and ``assistant`` carry ``message`` (the Anthropic API's own message),
``timestamp``, ``cwd`` and ``isSidechain`` (a sub-agent's lines: left out, the ``Agent``
call stands for them); a user line whose content is a string is a prompt (``isMeta``,
``isCompactSummary`` and ``<command-...>`` lines are Claude Code's own), one with
``tool_result`` blocks the results of calls (``is_error``); an assistant line holds one
block: ``thinking``, ``text`` or ``tool_use``. An API error Claude Code gave up on is an
assistant line with ``isApiErrorMessage`` (``API Error: 429 ...``). Other line types
(attachments, queue operations, request shapes, costs) are Claude Code's bookkeeping.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from scenarist.record.lines import as_list, json_lines, timestamp_ms
from scenarist.record.steps import TurnBuilder
from scenarist.record.transcript import Failure, Text, Thinking, ToolCall, Transcript

__all__ = ["is_claude_line", "read_claude_session"]

_STATUS_RE = re.compile(r"\b([45]\d\d)\b")


def is_claude_line(line: dict[str, Any]) -> bool:
    return line.get("type") in ("user", "assistant") and isinstance(line.get("message"), dict) \
        and "sessionId" in line


def read_claude_session(path: Path) -> Transcript:
    turns = TurnBuilder()
    cwd: str | None = None
    for _, line in json_lines(path):
        if not is_claude_line(line) or line.get("isSidechain"):
            continue
        cwd = cwd or (line["cwd"] if isinstance(line.get("cwd"), str) else None)
        at = timestamp_ms(line.get("timestamp"))
        content = line["message"].get("content")
        if line["type"] == "user":
            _user(line, content, at, turns)
        elif line.get("isApiErrorMessage"):
            text = _text_of(content)
            code = _STATUS_RE.search(text)
            turns.step(Failure(text, int(code.group(1)) if code else 500), at)
        else:
            for block in content if isinstance(content, list) else ():
                _assistant(block, at, turns)
    done = turns.close()
    name = " ".join(done[0].prompt.split()[:8]) if done else path.stem
    return Transcript(name or path.stem, tuple(done), "claude-code", cwd,
                      tags=("imported", "claude-code"))


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "\n".join(b["text"] for b in as_list(content)
                     if isinstance(b, dict) and isinstance(b.get("text"), str))


def _user(line: dict[str, Any], content: Any, at: int | None, turns: TurnBuilder) -> None:
    if line.get("isMeta") or line.get("isCompactSummary"):
        return
    results = [b for b in content if isinstance(b, dict) and b.get("type") == "tool_result"] \
        if isinstance(content, list) else []
    for block in results:
        status = "error" if block.get("is_error") else "ok"
        turns.result(block.get("tool_use_id"), _text_of(block.get("content")), status)
    if results:
        return
    text = _text_of(content)
    if text and not text.lstrip().startswith(("<command-", "<local-command")):
        turns.prompt(text, at)


def _assistant(block: Any, at: int | None, turns: TurnBuilder) -> None:
    if not isinstance(block, dict):
        return
    kind = block.get("type")
    if kind == "thinking" and block.get("thinking"):
        turns.step(Thinking(str(block["thinking"])), at)
    elif kind == "text" and block.get("text"):
        turns.step(Text(str(block["text"])), at)
    elif kind == "tool_use":
        given = block.get("input")
        turns.step(ToolCall(str(block.get("name")), given if isinstance(given, dict) else {},
                            call_id=block.get("id")), at)
