"""Gemini CLI's tool table: a scenario tool record → Gemini CLI's function call.

The one place that knows Gemini CLI's tool names and argument shapes. Read by the model API
(``llm.profiles``: the call a real Gemini CLI is asked to make) and checked by
``tests/test_vocabulary_tables.py``.

Facts: the ``functionDeclarations`` Gemini CLI 0.61.0 (the pinned ``tests/node`` CLI) sends
in headless ``-p`` mode with API-key auth (``tests/data/real-agent-requests/
gemini_cli_*_request.json``): ``run_shell_command {command, description?, dir_path?,
is_background?, delay_ms?}``, ``write_file {file_path, content}``, ``replace {file_path,
instruction, old_string, new_string, allow_multiple?}`` (all four required), ``read_file
{file_path, start_line?, end_line?}`` (1-based, inclusive), ``list_directory {dir_path}``,
``glob {pattern, dir_path?}``, ``grep_search {pattern, dir_path?, include_pattern?,
names_only?, ...}`` (0.61's name: ``search_file_content`` is gone), ``web_fetch {prompt}``
(the URLs go inside the prompt), ``google_web_search {query}``, ``invoke_agent {agent_name,
prompt}``, ``activate_skill {name}``, ``read_background_output {pid}``; the bundle also
names ``write_todos {todos: [{description, status}]}`` and ``exit_plan_mode``, which it
declares only in some modes. The system prompt asks for absolute paths. Decisions:

- ``runCmd`` → ``run_shell_command {command, description?, dir_path?, is_background?}``:
  a ``cwd`` becomes the absolute ``dir_path`` (not a ``cd``: the tool takes a directory);
  ``timeout`` has no place (the CLI has its own) and is left out.
- ``writeFile`` → ``write_file``; ``editFile`` → ``replace`` with ``allow_multiple`` for
  ``replace_all`` and an ``instruction`` (required) that says what changes in which file;
  ``readFile`` → ``read_file`` with ``offset``/``limit`` as ``start_line``/``end_line``.
- ``listDir`` → ``list_directory {dir_path}``; with ``recursive`` or a ``pattern`` (which
  ``list_directory`` cannot express) → ``glob`` (``**/`` in front when recursive), as for
  Claude Code. ``find`` → ``glob {pattern: "**/" + name}``.
- ``grep`` → ``grep_search {pattern, dir_path?, include_pattern? (glob), names_only?
  (files_with_matches)}``; what it cannot express (``-i``, context lines, counts) → the
  table's shell ``grep`` (:mod:`.shell`) through ``run_shell_command``, like ``sed``.
- ``webFetch`` → ``web_fetch {prompt}``: the format's prompt, then the URL; ``webSearch`` →
  ``google_web_search``; ``task`` → ``invoke_agent`` (``subagent_type`` as ``agent_name``,
  ``generalist`` without one: the CLI's general sub-agent); ``slashCommand`` →
  ``activate_skill {name}`` (the command's first word); ``todoWrite`` → ``write_todos``
  (``content`` as ``description``); ``exitPlanMode`` → ``exit_plan_mode``.
- ``bashOutput`` of a numeric id → ``read_background_output {pid}``; other ids, and any
  tool Gemini CLI lacks (``notebookEdit``, ``killShell``, unknown tools: MCP tools are
  called by their own name), stay the format's name and arguments, which the model API fits
  to what the request declares.
- file tools: absolute paths, as the system prompt asks.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from scenarist.scenario.tools import (
    BashOutput,
    EditFile,
    ExitPlanMode,
    Find,
    Grep,
    ListDir,
    ReadFile,
    RunCmd,
    Sed,
    SlashCommand,
    Task,
    TodoWrite,
    Tool,
    WebFetch,
    WebSearch,
    WriteFile,
    tool_args,
)
from scenarist.vocabulary import AgentCall, Resolve, given
from scenarist.vocabulary.shell import shell_command

__all__ = ["MARKED", "MARKERS", "SHELL", "tool_call"]

SHELL = "run_shell_command"
#: tool names of Gemini CLI that other clients hardly use (``read_file`` and ``write_file``
#: are common names): a request that declares :data:`MARKED` of them is Gemini CLI's
MARKERS = frozenset({SHELL, "replace", "list_directory", "glob", "grep_search",
                     "google_web_search"})
MARKED = 3
_SUB_AGENT = "generalist"  # the sub-agent 0.61 runs for a general task


def tool_call(tool: Tool, path: Resolve) -> AgentCall:
    """The call Gemini CLI makes for ``tool`` (``path``: scenario path → absolute): its row
    of :data:`_ROWS`, else the format's name and arguments."""
    row = _ROWS.get(type(tool))
    call = row(tool, path) if row is not None else None
    return call if call is not None else AgentCall(tool.name, tool_args(tool))


def _shell(tool: RunCmd, path: Resolve) -> AgentCall:
    return AgentCall(SHELL, {"command": tool.cmd, **given(
        description=tool.description, dir_path=path(tool.cwd) if tool.cwd else None,
        is_background=tool.run_in_background)})


def _as_shell(tool: Tool, path: Resolve) -> AgentCall:
    return AgentCall(SHELL, {"command": shell_command(tool, path)})


def _write(tool: WriteFile, path: Resolve) -> AgentCall:
    return AgentCall("write_file", {"file_path": path(tool.path), "content": tool.content})


def _replace(tool: EditFile, path: Resolve) -> AgentCall:
    which = "every occurrence of the" if tool.replace_all else "the"
    instruction = f"In {tool.path}, replace {which} exact old text with the new text."
    return AgentCall("replace", {"file_path": path(tool.path), "instruction": instruction,
                                 "old_string": tool.old_string, "new_string": tool.new_string,
                                 **given(allow_multiple=tool.replace_all)})


def _read(tool: ReadFile, path: Resolve) -> AgentCall:
    first = max(tool.offset or 1, 1) if tool.offset or tool.limit else None
    last = first + tool.limit - 1 if first is not None and tool.limit else None
    return AgentCall("read_file", {"file_path": path(tool.path),
                                   **given(start_line=first, end_line=last)})


def _list(tool: ListDir, path: Resolve) -> AgentCall:
    if not tool.recursive and not tool.pattern:
        return AgentCall("list_directory", {"dir_path": path(tool.path)})
    glob = ("**/" if tool.recursive else "") + (tool.pattern or "*")
    return AgentCall("glob", {"pattern": glob, "dir_path": path(tool.path)})


def _find(tool: Find, path: Resolve) -> AgentCall:
    return AgentCall("glob", {"pattern": "**/" + (tool.name_pattern or "*"),
                              "dir_path": path(tool.path)})


def _grep(tool: Grep, path: Resolve) -> AgentCall:
    if (tool.case_insensitive or tool.output_mode == "count" or tool.before_context
            or tool.after_context or tool.context):
        return _as_shell(tool, path)
    return AgentCall("grep_search", {"pattern": tool.pattern, **given(
        dir_path=path(tool.path) if tool.path is not None else None,
        include_pattern=tool.glob, names_only=tool.output_mode == "files_with_matches")})


def _web_fetch(tool: WebFetch, path: Resolve) -> AgentCall:
    prompt = f"{tool.prompt}: {tool.url}" if tool.prompt else tool.url
    return AgentCall("web_fetch", {"prompt": prompt})


def _web_search(tool: WebSearch, path: Resolve) -> AgentCall:
    return AgentCall("google_web_search", {"query": tool.query})


def _agent(tool: Task, path: Resolve) -> AgentCall:
    return AgentCall("invoke_agent", {"agent_name": tool.subagent_type or _SUB_AGENT,
                                      "prompt": tool.prompt})


def _skill(tool: SlashCommand, path: Resolve) -> AgentCall:
    skill = tool.command.strip().lstrip("/").split(" ", 1)[0]
    return AgentCall("activate_skill", {"name": skill})


def _todos(tool: TodoWrite, path: Resolve) -> AgentCall:
    todos = [{"description": str(t.get("content", "")), "status": str(t.get("status", "pending"))}
             if isinstance(t, Mapping) else t for t in tool.todos]
    return AgentCall("write_todos", {"todos": todos})


def _exit_plan(tool: ExitPlanMode, path: Resolve) -> AgentCall:
    return AgentCall("exit_plan_mode", tool_args(tool))


def _background(tool: BashOutput, path: Resolve) -> AgentCall | None:
    return AgentCall("read_background_output", {"pid": int(tool.bash_id)}) if (
        tool.bash_id.isdigit()) else None


#: the tools Gemini CLI calls by its own name and shape (None from a row: no such call)
_ROWS: Mapping[type[Any], Callable[[Any, Resolve], AgentCall | None]] = {
    RunCmd: _shell, WriteFile: _write, EditFile: _replace, ReadFile: _read, ListDir: _list,
    Find: _find, Grep: _grep, Sed: _as_shell, WebFetch: _web_fetch, WebSearch: _web_search,
    Task: _agent, SlashCommand: _skill, TodoWrite: _todos, ExitPlanMode: _exit_plan,
    BashOutput: _background,
}
