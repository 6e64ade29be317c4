"""Codex's tool table: a scenario tool record → what Codex does for it.

The one place that knows Codex's tools. Read by the model API (``llm.profiles``: the call a
real Codex is asked to make; ``llm.code_mode`` wraps the same call in an ``exec`` cell), the
mock agent's ``codex-jsonl`` output and ``fake-codex --scenario`` (the events Codex prints
for that call), and checked by ``tests/test_vocabulary_tables.py``.

Facts: the tool declarations Codex 0.169 sends (``tests/data/real-agent-requests/
codex_*_request.json``; the pinned CLI is 0.171.0): ``exec_command {cmd, workdir, ...}`` runs
every command, ``apply_patch`` (a freeform tool, the ``*** Begin Patch`` grammar) changes
files, ``web_search`` is built in; there is no read, search or list tool. Decisions:

- ``runCmd`` → ``exec_command {cmd, workdir}``: the command as written, its ``cwd`` as the
  absolute ``workdir`` (the agent's own directory when it has none); Codex's events show
  the command as ``/bin/bash -lc <cmd>`` run in that directory.
- ``readFile``, ``grep``, ``listDir``, ``find``, ``sed`` → ``exec_command`` with the shell
  command of :mod:`.shell` (``cat``, ``grep -rn``, ``ls -la``, ``find``, ``sed``), in the
  agent's directory; a ``sed -i`` is a command, not a patch, as it is for Codex.
- ``writeFile``, ``editFile`` → ``apply_patch`` on that file (the patch text needs the
  file's current text: ``llm.profiles`` builds it).
- ``webSearch`` → Codex's own web search (``web_search_begin``/``web_search_end``).
- with Codex's default model ("code mode") each of these calls is made from the JavaScript of
  one ``exec`` cell (``llm.code_mode``); a cell that yields is resumed with ``wait``.
- any other tool (``notebookEdit`` too: Codex has no notebook tool) → an MCP tool call of the same name on server :data:`MCP_SERVER` with the
  format's arguments (Codex has no such tool of its own).
- the inverse (:func:`scenario_tools`) reads a command back through :func:`.shell_tool`,
  a patch through :mod:`.patch`, a cell through :mod:`.code_cell`; one call may stand for
  several tools (a patch of two files), so it returns a tuple.
"""

from __future__ import annotations

import posixpath
import shlex
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from scenarist.scenario.tools import (
    EditFile,
    GenericTool,
    RunCmd,
    Tool,
    WebSearch,
    WriteFile,
    tool_args,
    tool_from_args,
)
from scenarist.vocabulary import AgentCall, Resolve, relative, relative_paths
from scenarist.vocabulary.code_cell import nested_calls
from scenarist.vocabulary.patch import patch_tools
from scenarist.vocabulary.shell import shell_command, shell_tool

__all__ = ["APPLY_PATCH", "EXEC", "EXEC_COMMAND", "MCP_SERVER", "WAIT", "WEB_SEARCH",
           "ApplyPatch", "CodexCall", "ExecCommand", "McpCall", "WebSearchCall", "scenario_tool",
           "scenario_tools", "tool_call"]

EXEC_COMMAND = "exec_command"
EXEC = "exec"  # code mode: the freeform tool whose JavaScript cell calls the others
WAIT = "wait"  # code mode: the function that resumes a cell that yielded
APPLY_PATCH = "apply_patch"
WEB_SEARCH = "web_search"
MCP_SERVER = "scenarist"  # the MCP server a tool Codex lacks is shown on


@dataclass(frozen=True, slots=True)
class ExecCommand:
    """``exec_command``: ``cmd`` run by a login shell in ``workdir``."""

    cmd: str
    workdir: str | None

    def agent_call(self) -> AgentCall:
        return AgentCall(EXEC_COMMAND, {"cmd": self.cmd, **(
            {"workdir": self.workdir} if self.workdir else {})})


@dataclass(frozen=True, slots=True)
class ApplyPatch:
    """``apply_patch`` on one file: ``path`` as the scenario writes it (the patch's header),
    ``absolute`` where it is."""

    path: str
    absolute: str


@dataclass(frozen=True, slots=True)
class WebSearchCall:
    """Codex's built-in web search."""

    query: str


@dataclass(frozen=True, slots=True)
class McpCall:
    """A tool Codex does not have: an MCP call of ``tool`` with the format's ``arguments``."""

    tool: str
    arguments: Mapping[str, Any]

    def agent_call(self) -> AgentCall:
        return AgentCall(self.tool, self.arguments)


CodexCall = ExecCommand | ApplyPatch | WebSearchCall | McpCall


def tool_call(tool: Tool, path: Resolve, cwd: str | None) -> CodexCall:
    """What Codex does for ``tool``; ``path`` resolves scenario paths, ``cwd`` is Codex's
    working directory (the ``workdir`` of a command that names none; None: unknown)."""
    if isinstance(tool, RunCmd):
        return ExecCommand(tool.cmd, path(tool.cwd) if tool.cwd else cwd)
    if isinstance(tool, WriteFile | EditFile):
        return ApplyPatch(tool.path, path(tool.path))
    if isinstance(tool, WebSearch):
        return WebSearchCall(tool.query)
    command = shell_command(tool, path)
    if command is not None:
        return ExecCommand(command, cwd)
    return McpCall(tool.name, tool_args(tool))


# -- the inverse: Codex's call → the scenario's tools ----------------------------------------


def scenario_tools(name: str, input: Mapping[str, Any] | str, *,
                   cwd: str | None = None) -> tuple[Tool, ...]:
    """The scenario tools one Codex call stands for, in order (paths inside ``cwd``
    relative): ``exec_command``/``shell`` → the tool its command is (:func:`.shell_tool`:
    ``cat`` a ``readFile``, ...; else ``runCmd``), ``apply_patch`` → a ``writeFile`` per
    added file and an ``editFile`` per hunk (:mod:`.patch`), ``web_search`` →
    ``webSearch``, a code-mode ``exec`` cell → the nested calls it makes
    (:mod:`.code_cell`). Anything else, or an input these cannot read, is one
    :class:`GenericTool` of its name and input, never an error."""
    rel = relative(cwd)
    try:
        tools = _read_call(name, input, cwd, rel)
    except (ValueError, TypeError, KeyError):
        tools = None
    if tools:
        return tools
    return (GenericTool(name, dict(input) if isinstance(input, Mapping) else {"input": input}),)


def scenario_tool(name: str, input: Mapping[str, Any] | str, *,
                  cwd: str | None = None) -> Tool:
    """The one scenario tool a Codex call stands for (:func:`scenario_tools`); a call that
    stands for several (a patch of two files, a cell of two calls) is kept as a
    :class:`GenericTool`."""
    tools = scenario_tools(name, input, cwd=cwd)
    if len(tools) == 1:
        return tools[0]
    return GenericTool(name, dict(input) if isinstance(input, Mapping) else {"input": input})


def _read_call(name: str, input: Mapping[str, Any] | str, cwd: str | None,
               rel: Callable[[str], str]) -> tuple[Tool, ...] | None:
    if name == APPLY_PATCH:
        text = input if isinstance(input, str) else input.get("input", input.get("patch"))
        tools = patch_tools(text) if isinstance(text, str) else None
        return tuple(relative_paths(t, rel) for t in tools) if tools else None
    if name == EXEC and isinstance(input, str):
        return _read_cell(input, cwd, rel)
    if isinstance(input, str):
        return None
    if name in (EXEC_COMMAND, "shell", "local_shell", "container.exec"):
        return (_command(input, cwd, rel),)
    if name == WEB_SEARCH:
        return (tool_from_args("webSearch", {"query": input["query"]}),)
    if "." in name or name not in _FORMAT_NAMES:
        return None
    return (tool_from_args(name, input),)


def _command(input: Mapping[str, Any], cwd: str | None, rel: Callable[[str], str]) -> Tool:
    cmd = input.get("cmd", input.get("command"))
    if isinstance(cmd, list):  # ``shell``: argv, usually ["bash", "-lc", script]
        cmd = cmd[2] if len(cmd) == 3 and cmd[1] in ("-lc", "-c") else shlex.join(cmd)
    if not isinstance(cmd, str):
        raise ValueError("no command")
    workdir = input.get("workdir")
    tool = relative_paths(shell_tool(cmd), rel)
    if isinstance(workdir, str) and workdir and (cwd is None or
                                                posixpath.normpath(workdir) != cwd):
        if isinstance(tool, RunCmd) and tool.cwd is None:
            return RunCmd(tool.cmd, cwd=rel(workdir))
        if not isinstance(tool, RunCmd):
            return RunCmd(cmd, cwd=rel(workdir))
    return tool


def _read_cell(source: str, cwd: str | None, rel: Callable[[str], str]) -> tuple[Tool, ...] | None:
    calls = nested_calls(source)
    if not calls:
        return None
    out: list[Tool] = []
    for nested, argument in calls:
        tools = _read_call(nested, argument, cwd, rel)
        if not tools:
            return None
        out.extend(tools)
    return tuple(out)


#: the format's own tool names (a model API client's generic tools, MCP tools of that name)
_FORMAT_NAMES = frozenset({"runCmd", "readFile", "writeFile", "editFile", "grep", "listDir",
                           "find", "sed", "task", "webFetch", "webSearch", "todoWrite",
                           "notebookEdit", "exitPlanMode", "bashOutput", "killShell",
                           "slashCommand"})
