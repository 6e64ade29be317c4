"""A Codex CLI session file (``$CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl``) read as a
transcript.

Facts (rollouts of the pinned Codex 0.171.0, made against ``scenarist llm``): each line is
``{timestamp, type, payload}``; ``session_meta``/``turn_context`` carry the ``cwd``; the
conversation is in ``response_item`` payloads, the Responses API's own items: ``message``
(role ``user``: a prompt, unless it is context Codex adds itself, a ``<tag>...</tag>`` block
or the AGENTS.md instructions; ``assistant``: text; ``developer``: instructions, skipped),
``reasoning`` (its ``summary``/``content`` texts), ``function_call`` (``arguments`` a JSON
string), ``custom_tool_call`` (``apply_patch``, code mode's ``exec``: raw ``input``),
``local_shell_call``, ``web_search_call``, and the ``*_output`` items matched by
``call_id``. A command's output has a header (``Process exited with code N``/``Exit code:
N`` ... ``Output:``): the text after it is the result, the code its status. ``event_msg``
``error`` lines are the API errors Codex gave up on.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from scenarist.record.lines import as_list, as_mapping, json_lines, timestamp_ms
from scenarist.record.steps import TurnBuilder
from scenarist.record.transcript import Failure, Text, Thinking, ToolCall, Transcript

__all__ = ["is_codex_line", "read_codex_session"]

_CONTEXT_RE = re.compile(r"^\s*<([\w-]+)>.*</\1>\s*$", re.DOTALL)
_EXIT_RE = re.compile(r"(?:Process exited with code|Exit code:)\s*(-?\d+)")
_STATUS_RE = re.compile(r"\b([45]\d\d)\b")
_TYPES = ("session_meta", "response_item", "event_msg", "turn_context")


def is_codex_line(line: dict[str, Any]) -> bool:
    return line.get("type") in _TYPES and isinstance(line.get("payload"), dict)


def read_codex_session(path: Path) -> Transcript:
    turns = TurnBuilder()
    cwd: str | None = None
    session = None
    for _, line in json_lines(path):
        payload, kind = line.get("payload"), line.get("type")
        if not isinstance(payload, dict):
            continue
        at = timestamp_ms(line.get("timestamp"))
        if kind in ("session_meta", "turn_context") and isinstance(payload.get("cwd"), str):
            cwd = cwd or payload["cwd"]
            session = session or payload.get("id")
        elif kind == "response_item":
            _item(payload, at, turns)
        elif kind == "event_msg" and payload.get("type") in ("error", "stream_error"):
            message = str(payload.get("message", "error"))
            code = _STATUS_RE.search(message)
            turns.step(Failure(message, int(code.group(1)) if code else 500), at)
    done = turns.close()
    name = " ".join(done[0].prompt.split()[:8]) if done else path.stem
    return Transcript(name or path.stem, tuple(done), "codex", cwd, tags=("imported", "codex"))


def _item(item: dict[str, Any], at: int | None, turns: TurnBuilder) -> None:
    kind = item.get("type")
    if kind == "message":
        text = "\n".join(p["text"] for p in as_list(item.get("content"))
                         if isinstance(p, dict) and isinstance(p.get("text"), str))
        role = item.get("role")
        if role == "user" and text and not _is_context(text):
            turns.prompt(text, at)
        elif role == "assistant" and text:
            turns.step(Text(text), at)
    elif kind == "reasoning":
        parts = [p.get("text") for key in ("summary", "content")
                 for p in as_list(item.get(key)) if isinstance(p, dict)]
        text = "\n\n".join(p for p in parts if isinstance(p, str) and p)
        if text:
            turns.step(Thinking(text), at)
    elif kind == "function_call":
        arguments = item.get("arguments")
        if isinstance(arguments, str):
            try:
                arguments = json.loads(arguments or "{}")
            except json.JSONDecodeError:
                arguments = {"arguments": arguments}
        if not isinstance(arguments, dict):
            arguments = {"arguments": arguments}
        turns.step(ToolCall(str(item.get("name")), arguments, call_id=item.get("call_id")), at)
    elif kind == "custom_tool_call":
        turns.step(ToolCall(str(item.get("name")), str(item.get("input", "")),
                            call_id=item.get("call_id")), at)
    elif kind == "local_shell_call":
        action = as_mapping(item.get("action"))
        turns.step(ToolCall("shell", {"command": action.get("command"),
                                      "workdir": action.get("working_directory")},
                            call_id=item.get("call_id")), at)
    elif kind == "web_search_call":
        query = as_mapping(item.get("action")).get("query")
        if isinstance(query, str):
            turns.step(ToolCall("web_search", {"query": query}), at)
    elif kind in ("function_call_output", "custom_tool_call_output"):
        turns.result(item.get("call_id"), *_output(item.get("output")))


def _is_context(text: str) -> bool:
    """Text Codex adds to the conversation itself (environment, instructions)."""
    return bool(_CONTEXT_RE.match(text)) or text.lstrip().startswith("# AGENTS.md instructions")


def _output(output: Any) -> tuple[str, str]:
    """A tool output's result text and status (``error`` for a non-zero exit or a failed
    script)."""
    if isinstance(output, dict):  # {content, success}
        text, ok = str(output.get("content", "")), output.get("success") is not False
    elif isinstance(output, list):
        text = "".join(p["text"] for p in output
                       if isinstance(p, dict) and isinstance(p.get("text"), str))
        ok = True
    else:
        text, ok = str(output or ""), True
    head, sep, body = text.partition("Output:\n")
    code = _EXIT_RE.search(head) if sep else None
    if code is not None or (sep and head.startswith("Script ")):
        text = body
        if head.startswith("Script failed"):
            ok = False
        text, ok = _nested_output(body, ok)
    if code is not None:
        ok = ok and code.group(1) == "0"
    return text, "ok" if ok else "error"


def _nested_output(body: str, ok: bool) -> tuple[str, bool]:
    """A code-mode cell's output: a nested command's JSON result (``{"output", "exit_code",
    ...}``) is its output text and exit code; ``{}`` (a patch that applied) is no text."""
    try:
        value = json.loads(body)
    except json.JSONDecodeError:
        return body, ok
    if value == {}:
        return "", ok
    if isinstance(value, dict) and isinstance(value.get("output"), str):
        code = value.get("exit_code")
        return value["output"], ok and code in (0, None)
    return body, ok
