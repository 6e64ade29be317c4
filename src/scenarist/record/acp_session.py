"""An ACP session log read as a transcript: ``scenarist acp-test --transcript`` output
(``{"direction", "message"}`` lines) or any log of bare JSON-RPC messages, one a line.

ACP names no tool. A ``tool_call`` update says what the call does by its ``kind``
(``execute``, ``read``, ``edit``, ``search``, ``fetch``, ...) and, where the agent gives it,
its ``rawInput``; the tool is the format's tool whose arguments ``rawInput`` fits (required
ones present, no unknown ones), those of the ``kind`` tried first (scenarist's own ACP agent
sends the format's arguments as ``rawInput``). An ``edit`` with only a diff is a
``writeFile`` (no old text) or an ``editFile``; anything else keeps its title as a generic
tool. Prompts are the ``session/prompt`` requests; text and thinking are the
``agent_message_chunk``/``agent_thought_chunk`` updates, consecutive chunks joined; a
``tool_call_update`` gives the result (``rawOutput``, else its text content) and status.
The log has no times: every delay is 0.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from scenarist.record.lines import as_list, json_lines
from scenarist.record.steps import TurnBuilder
from scenarist.record.transcript import Text, Thinking, ToolCall, Transcript
from scenarist.scenario.tools import TOOLS, tool_spec

__all__ = ["is_acp_line", "read_acp_session"]

#: the format's tools an ACP tool kind is tried as first, in order
_KIND_TOOLS: Mapping[str, tuple[str, ...]] = {
    "execute": ("runCmd", "bashOutput", "killShell"), "read": ("readFile",),
    "edit": ("editFile", "writeFile", "sed", "notebookEdit"),
    "search": ("grep", "find", "listDir", "webSearch"), "fetch": ("webFetch", "webSearch"),
    "think": ("task", "todoWrite", "exitPlanMode"),
}


def is_acp_line(line: dict[str, Any]) -> bool:
    message = line.get("message") if "direction" in line else line
    return isinstance(message, dict) and message.get("jsonrpc") == "2.0"


def read_acp_session(path: Path) -> Transcript:
    turns = TurnBuilder()
    cwd: str | None = None
    said: list[tuple[type[Text] | type[Thinking], str]] = []
    for _, line in json_lines(path):
        message = line.get("message") if "direction" in line else line
        if not isinstance(message, dict):
            continue
        method, params = message.get("method"), message.get("params")
        if not isinstance(params, dict):
            continue
        if method == "session/new" and isinstance(params.get("cwd"), str):
            cwd = cwd or params["cwd"]
        elif method == "session/prompt":
            _flush(said, turns)
            turns.prompt(_blocks_text(params.get("prompt")))
        elif method == "session/update" and isinstance(params.get("update"), dict):
            _update(params["update"], said, turns)
    _flush(said, turns)
    done = turns.close()
    name = " ".join(done[0].prompt.split()[:8]) if done else path.stem
    return Transcript(name or path.stem, tuple(done), "format", cwd,
                      tags=("imported", "acp"))


def _blocks_text(blocks: Any) -> str:
    if isinstance(blocks, dict):
        blocks = [blocks]
    return "".join(b["text"] for b in as_list(blocks)
                   if isinstance(b, dict) and isinstance(b.get("text"), str))


def _flush(said: list[tuple[type[Text] | type[Thinking], str]], turns: TurnBuilder) -> None:
    if said:
        kind = said[0][0]
        turns.step(kind("".join(text for _, text in said)))
        said.clear()


def _update(update: dict[str, Any], said: list[tuple[type[Text] | type[Thinking], str]],
            turns: TurnBuilder) -> None:
    kind = update.get("sessionUpdate")
    if kind in ("agent_message_chunk", "agent_thought_chunk"):
        step = Text if kind == "agent_message_chunk" else Thinking
        if said and said[0][0] is not step:
            _flush(said, turns)
        said.append((step, _blocks_text(update.get("content"))))
        return
    if kind == "tool_call":
        _flush(said, turns)
        name, given = _tool(update)
        turns.step(ToolCall(name, given, call_id=update.get("toolCallId")))
        if update.get("status") in ("completed", "failed"):
            turns.result(update.get("toolCallId"), *_outcome(update))
    elif kind == "tool_call_update" and update.get("status") in ("completed", "failed"):
        turns.result(update.get("toolCallId"), *_outcome(update))


def _outcome(update: dict[str, Any]) -> tuple[Any, str]:
    raw = update.get("rawOutput")
    if isinstance(raw, dict) and "result" in raw:
        raw = raw["result"]
    if raw is None:
        raw = "\n".join(_blocks_text(c.get("content")) for c in as_list(update.get("content"))
                        if isinstance(c, dict) and c.get("type") == "content") or None
    return raw, "ok" if update.get("status") == "completed" else "error"


def _tool(update: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """The format's tool name and arguments of a ``tool_call``, else its title and input."""
    raw = update.get("rawInput")
    kind = update.get("kind")
    if isinstance(raw, dict):
        preferred = _KIND_TOOLS.get(kind, ()) if isinstance(kind, str) else ()
        for name in (*preferred, *TOOLS):
            if _fits(name, raw):
                return name, raw
    diff = next((c for c in as_list(update.get("content"))
                 if isinstance(c, dict) and c.get("type") == "diff"), None)
    if kind == "edit" and diff is not None and isinstance(diff.get("path"), str):
        if diff.get("oldText") is None:
            return "writeFile", {"path": diff["path"], "content": diff.get("newText", "")}
        return "editFile", {"path": diff["path"], "old_string": diff["oldText"],
                            "new_string": diff.get("newText", "")}
    title = update.get("title")
    return (title if isinstance(title, str) and title else str(kind or "tool"),
            raw if isinstance(raw, dict) else {})


def _fits(name: str, raw: dict[str, Any]) -> bool:
    spec = tool_spec(TOOLS[name])
    known = {a.key for a in spec.args} | {alias for a in spec.args for alias in a.aliases}
    return all(a.key in raw for a in spec.required) and set(raw) <= known
