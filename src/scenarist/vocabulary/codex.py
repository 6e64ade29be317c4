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
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from scenarist.scenario.tools import (
    EditFile,
    RunCmd,
    Tool,
    WebSearch,
    WriteFile,
    tool_args,
)
from scenarist.vocabulary import AgentCall, Resolve
from scenarist.vocabulary.shell import shell_command

__all__ = ["APPLY_PATCH", "EXEC", "EXEC_COMMAND", "MCP_SERVER", "WAIT", "WEB_SEARCH",
           "ApplyPatch", "CodexCall", "ExecCommand", "McpCall", "WebSearchCall", "tool_call"]

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
