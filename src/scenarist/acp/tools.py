"""The one place where scenario tools become ACP tool calls: kind, title, locations, diffs.

ACP shows a tool call by its ``kind`` (read, edit, search, execute, ...), a title and the
files it touches (``locations``), and an edit by its diff. This module matches on the
format's typed tool records (:mod:`scenarist.scenario.tools`); no other module of
``scenarist.acp`` looks at a tool's arguments. ACP names no tool, so the agents' tables
(:mod:`scenarist.vocabulary`) give only what ACP shares with them: paths are absolute
against the session's cwd as in every table, and a ``runCmd`` runs in a client terminal
as Codex's ``exec_command`` runs: the command as written, in its absolute ``workdir``.
``tests/test_vocabulary_tables.py`` holds the locations and the terminal to the tables.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from scenarist.scenario.model import AgentToolUse
from scenarist.scenario.tools import (
    BashOutput,
    EditFile,
    ExitPlanMode,
    Find,
    GenericTool,
    Grep,
    KillShell,
    ListDir,
    NotebookEdit,
    ReadFile,
    RunCmd,
    Sed,
    SlashCommand,
    Task,
    TodoWrite,
    WebFetch,
    WebSearch,
    WriteFile,
)
from scenarist.vocabulary import against, codex

__all__ = ["Diff", "ToolKind", "ToolView", "absolute", "describe_tool"]

ToolKind = Literal["read", "edit", "delete", "move", "search", "execute", "think", "fetch",
                   "switch_mode", "other"]


@dataclass(frozen=True, slots=True)
class Diff:
    """A file change a tool call shows: ACP's ``{type: diff, path, oldText?, newText}``."""

    path: str
    new_text: str
    old_text: str | None = None


@dataclass(frozen=True, slots=True)
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
    return against(cwd)(path)


def describe_tool(use: AgentToolUse, cwd: str) -> ToolView:
    """The ACP view of ``use`` for a session in ``cwd``."""
    def at(path: str | None) -> tuple[str, ...]:
        return (absolute(path, cwd),) if path else ()

    match use.tool:
        case RunCmd(cmd=cmd, description=description):
            run = codex.tool_call(use.tool, against(cwd), None)
            assert isinstance(run, codex.ExecCommand)  # the table runs every runCmd so
            return ToolView("execute", description or cmd, command=run.cmd,
                            command_cwd=run.workdir)
        case ReadFile(path=path, offset=offset):
            line = offset if offset is not None and offset >= 0 else None
            return ToolView("read", f"Read {path}", at(path), line=line)
        case WriteFile(path=path, content=content):
            return ToolView("edit", f"Write {path}", at(path),
                            diff=Diff(absolute(path, cwd), content))
        case EditFile(path=path, old_string=old, new_string=new):
            return ToolView("edit", f"Edit {path}", at(path),
                            diff=Diff(absolute(path, cwd), new, old or None))
        case Sed(expression=expression, path=path, inplace=inplace):
            return ToolView("edit" if inplace else "read", f"sed {expression}", at(path))
        case NotebookEdit(notebook_path=path):
            return ToolView("edit", f"Edit {path}", at(path))
        case Grep(pattern=pattern, path=path):
            return ToolView("search", f"grep {pattern}", at(path))
        case ListDir(path=path):
            return ToolView("search", f"List {path}" if path else "List", at(path))
        case Find(path=path, name_pattern=pattern):
            return ToolView("search", f"Find {pattern or path or ''}".rstrip(), at(path))
        case WebFetch(url=url):
            return ToolView("fetch", f"Fetch {url}")
        case WebSearch(query=query):
            return ToolView("fetch", f"Search {query}")
        case Task(description=description, prompt=prompt):
            return ToolView("think", f"Task {description or prompt}")
        case TodoWrite(todos=todos):
            return ToolView("think", "Update todos",
                            todos=tuple(t for t in todos if isinstance(t, Mapping)))
        case ExitPlanMode():
            return ToolView("switch_mode", "Exit plan mode")
        case BashOutput(bash_id=bash_id):
            return ToolView("execute", f"Output of {bash_id}")
        case KillShell(shell_id=shell_id):
            return ToolView("execute", f"Kill {shell_id}")
        case SlashCommand(command=command):
            return ToolView("other", f"Run {command}")
        case GenericTool(name=name):
            return ToolView("other", name)
