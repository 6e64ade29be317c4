"""The one place where scenario tools become ACP tool calls: kind, title, locations, diffs.

ACP shows a tool call by its ``kind`` (read, edit, search, execute, ...), a title and the
files it touches (``locations``), and an edit by its diff. Every other module of
``scenarist.acp`` asks this module; none reads a tool's arguments itself. (Written against
``AgentToolUse.tool_name``/``args`` until the typed tool records land on main.)
"""

from __future__ import annotations

import posixpath
from collections.abc import Mapping
from typing import Any, Literal

from scenarist.scenario.model import AgentToolUse
from scenarist.scenario.record import record

__all__ = ["ToolKind", "ToolView", "absolute", "describe_tool"]

ToolKind = Literal["read", "edit", "delete", "move", "search", "execute", "think", "fetch",
                   "switch_mode", "other"]

_KINDS: dict[str, ToolKind] = {
    "runCmd": "execute", "bashOutput": "execute", "killShell": "execute",
    "readFile": "read", "writeFile": "edit", "editFile": "edit", "sed": "edit",
    "notebookEdit": "edit", "grep": "search", "listDir": "search", "find": "search",
    "webFetch": "fetch", "webSearch": "fetch", "task": "think", "todoWrite": "think",
    "exitPlanMode": "switch_mode", "slashCommand": "other",
}
_PATH_ARG = {"readFile": "path", "writeFile": "path", "editFile": "path", "sed": "path",
             "notebookEdit": "notebook_path", "grep": "path", "listDir": "path", "find": "path"}
_TITLE_ARG = {"runCmd": "cmd", "grep": "pattern", "webFetch": "url", "webSearch": "query",
              "task": "description", "slashCommand": "command", "bashOutput": "bash_id",
              "killShell": "shell_id", "sed": "expression"}
_TITLE_VERB = {"readFile": "Read", "writeFile": "Write", "editFile": "Edit",
               "notebookEdit": "Edit", "listDir": "List", "find": "Find", "grep": "grep",
               "webFetch": "Fetch", "webSearch": "Search", "task": "Task",
               "todoWrite": "Update todos", "exitPlanMode": "Exit plan mode",
               "slashCommand": "Run", "bashOutput": "Output of", "killShell": "Kill",
               "sed": "sed"}


@record
class Diff:
    """A file change a tool call shows: ACP's ``{type: diff, path, oldText?, newText}``."""

    path: str
    new_text: str
    old_text: str | None = None


@record
class ToolView:
    """How a tool call looks in ACP, and what it asks of the client's files and terminal."""

    kind: ToolKind
    title: str
    paths: tuple[str, ...] = ()
    line: int | None = None
    diff: Diff | None = None
    command: str | None = None  # runCmd: what a client terminal runs
    command_cwd: str | None = None
    todos: tuple[Mapping[str, Any], ...] = ()  # todoWrite: shown as the plan too


def absolute(path: str, cwd: str) -> str:
    """``path`` made absolute against the session's ``cwd`` (ACP paths are absolute)."""
    return path if posixpath.isabs(path) else posixpath.normpath(posixpath.join(cwd, path))


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def describe_tool(use: AgentToolUse, cwd: str) -> ToolView:
    """The ACP view of ``use`` for a session in ``cwd``."""
    name, args = use.tool_name, use.args
    kind = _KINDS.get(name, "other")
    path = _text(args.get(_PATH_ARG.get(name, "")))
    full = absolute(path, cwd) if path else None
    subject = _text(args.get(_TITLE_ARG.get(name, ""))) or path
    verb = _TITLE_VERB.get(name)
    description = _text(args.get("description"))
    if name == "runCmd":
        title = description or subject or name
    elif verb and subject:
        title = f"{verb} {subject}"
    else:
        title = verb or name
    diff = None
    if name == "writeFile" and full and isinstance(args.get("content"), str):
        diff = Diff(full, args["content"])
    elif name == "editFile" and full and isinstance(args.get("new_string"), str):
        diff = Diff(full, args["new_string"], _text(args.get("old_string")))
    line = args.get("offset") if name == "readFile" else None
    cmd_cwd = _text(args.get("cwd"))
    todos = args.get("todos") if name == "todoWrite" else None
    return ToolView(
        kind=kind, title=title, paths=(full,) if full else (),
        line=line if isinstance(line, int) and line >= 0 else None, diff=diff,
        command=_text(args.get("cmd")) if name == "runCmd" else None,
        command_cwd=absolute(cmd_cwd, cwd) if cmd_cwd else None,
        todos=tuple(t for t in todos if isinstance(t, Mapping))
        if isinstance(todos, list | tuple) else (),
    )
