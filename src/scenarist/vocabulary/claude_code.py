"""Claude Code's tool table: a scenario tool record → Claude Code's tool call.

The one place that knows Claude Code's tool names and input shapes. Read by the model API
(``llm.profiles``: the call a real Claude Code is asked to make), the mock agent
(``agent.tools`` → ``claude-jsonl``: the call it logs) and checked against the ACP and
Codex front ends by ``tests/test_vocabulary_tables.py``.

Facts: the tool declarations Claude Code 2.1.330 sends (``tests/data/real-agent-requests/
claude_*_request.json``) and the input types of the pinned 2.1.332
(``tests/node/node_modules/@anthropic-ai/claude-code/sdk-tools.d.ts``, its binary's tool
registry). Decisions:

- ``task`` → ``Agent {description, prompt, subagent_type?}``: the sub-agent tool is
  ``Agent`` (``Task`` is only an old alias there). ``description`` is required by Claude
  Code; without one the prompt's first line stands in (cut to 60 characters).
- ``listDir`` → ``Glob {pattern, path}``: the pattern matches names at one level, ``**/``
  in front when ``recursive`` (``*`` when no pattern): the same entries the mock agent
  lists. ``find`` → ``Glob {pattern: "**/" + name}``.
- ``grep`` → ``Grep`` with the format's arguments as written (``-i``, ``glob``, ``-A``,
  ``output_mode``, ...: the format took Claude Code's spelling), ``path`` absolute.
- ``runCmd`` → ``Bash {command, timeout?, description?, run_in_background?}``; a ``cwd``
  becomes ``cd <absolute> && ...`` (:mod:`.shell`); ``sed`` → ``Bash`` with its command.
- file tools (``Read``/``Write``/``Edit``/``NotebookEdit``, ``Glob``/``Grep`` paths): absolute
  paths, as their schemas require.
- ``killShell`` → ``TaskStop {task_id}`` (``KillShell`` is an old alias of ``TaskStop``);
  ``slashCommand`` → ``Skill {skill, args?}`` (slash commands are run through Skill).
- ``bashOutput`` stays ``BashOutput {bash_id, filter?}``: 2.1.332 has no tool for it any
  more (it reads a background command's output file), so the model API fits it to what the
  request declares, as for any tool a request lacks.
- the inverse (:func:`scenario_tool`): ``Glob`` reads as ``listDir`` (a ``find`` renders as
  the same call), a ``Bash`` command as ``runCmd`` (``cd DIR && ...`` its ``cwd``) unless it
  is exactly a ``sed`` command; ``Task``/``KillShell``, old names, read as their tools.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

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
    Tool,
    WebFetch,
    WebSearch,
    WriteFile,
    tool_args,
    tool_from_args,
)
from scenarist.vocabulary import AgentCall, Resolve, given, relative
from scenarist.vocabulary.shell import run_cmd, shell_command, shell_tool

__all__ = ["NAMES", "TOOL_NAMES", "ToolResult", "scenario_tool", "tool_call", "tool_result"]

#: Claude Code's tool for each tool record of the format (others: called by their own name)
NAMES: Mapping[type[Any], str] = {
    RunCmd: "Bash", ReadFile: "Read", WriteFile: "Write", EditFile: "Edit", Grep: "Grep",
    ListDir: "Glob", Find: "Glob", Sed: "Bash", Task: "Agent", WebFetch: "WebFetch",
    WebSearch: "WebSearch", TodoWrite: "TodoWrite", NotebookEdit: "NotebookEdit",
    ExitPlanMode: "ExitPlanMode", BashOutput: "BashOutput", KillShell: "TaskStop",
    SlashCommand: "Skill",
}
#: the tools this table calls, in Claude Code's order (a ``stream-json`` init line lists them)
TOOL_NAMES: tuple[str, ...] = ("Agent", "Bash", "Glob", "Grep", "Read", "Edit", "Write",
                               "NotebookEdit", "WebFetch", "WebSearch", "TodoWrite",
                               "BashOutput", "TaskStop", "ExitPlanMode", "Skill")
_DESCRIPTION_CHARS = 60


def tool_call(tool: Tool, path: Resolve) -> AgentCall:
    """The call Claude Code makes for ``tool`` (``path``: scenario path → absolute): its row
    of :data:`_ROWS`, else the tool's name in :data:`NAMES` with the format's arguments."""
    row = _ROWS.get(type(tool))
    if row is not None:
        return row(tool, path)
    return AgentCall(NAMES.get(type(tool), tool.name), tool_args(tool))


def _bash(tool: RunCmd, path: Resolve) -> AgentCall:
    return AgentCall("Bash", {"command": run_cmd(tool.cmd, tool.cwd, path), **given(
        timeout=tool.timeout, description=tool.description,
        run_in_background=tool.run_in_background)})


def _write(tool: WriteFile, path: Resolve) -> AgentCall:
    return AgentCall("Write", {"file_path": path(tool.path), "content": tool.content})


def _edit(tool: EditFile, path: Resolve) -> AgentCall:
    return AgentCall("Edit", {"file_path": path(tool.path), "old_string": tool.old_string,
                              "new_string": tool.new_string,
                              **given(replace_all=tool.replace_all)})


def _read(tool: ReadFile, path: Resolve) -> AgentCall:
    return AgentCall("Read", {"file_path": path(tool.path),
                              **given(offset=tool.offset, limit=tool.limit)})


def _list(tool: ListDir, path: Resolve) -> AgentCall:
    glob = ("**/" if tool.recursive else "") + (tool.pattern or "*")
    return AgentCall("Glob", {"pattern": glob, "path": path(tool.path)})


def _find(tool: Find, path: Resolve) -> AgentCall:
    return AgentCall("Glob", {"pattern": "**/" + (tool.name_pattern or "*"),
                              "path": path(tool.path)})


def _sed(tool: Sed, path: Resolve) -> AgentCall:
    return AgentCall("Bash", {"command": shell_command(tool, path)})


def _grep(tool: Grep, path: Resolve) -> AgentCall:
    args = tool_args(tool)
    return AgentCall("Grep", args if tool.path is None else {**args, "path": path(tool.path)})


def _notebook(tool: NotebookEdit, path: Resolve) -> AgentCall:
    return AgentCall("NotebookEdit", {**tool_args(tool),
                                      "notebook_path": path(tool.notebook_path)})


def _agent(tool: Task, path: Resolve) -> AgentCall:
    about = tool.description or tool.prompt.strip().split("\n", 1)[0][:_DESCRIPTION_CHARS]
    return AgentCall("Agent", {"description": about, "prompt": tool.prompt,
                               **given(subagent_type=tool.subagent_type)})


def _task_stop(tool: KillShell, path: Resolve) -> AgentCall:
    return AgentCall("TaskStop", {"task_id": tool.shell_id})


def _skill(tool: SlashCommand, path: Resolve) -> AgentCall:
    skill, _, rest = tool.command.strip().lstrip("/").partition(" ")
    return AgentCall("Skill", {"skill": skill, **given(args=rest.strip() or None)})


#: the tools whose input Claude Code spells differently from the format (the rest: as written)
_ROWS: Mapping[type[Any], Callable[[Any, Resolve], AgentCall]] = {
    RunCmd: _bash, WriteFile: _write, EditFile: _edit, ReadFile: _read, ListDir: _list,
    Find: _find, Sed: _sed, Grep: _grep, NotebookEdit: _notebook, Task: _agent,
    KillShell: _task_stop, SlashCommand: _skill,
}


# -- results ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ToolResult:
    """A call's result as Claude Code reports it: the ``tool_result`` block's text and
    ``is_error`` (None: left out, as for a successful Write or Edit), and the
    ``tool_use_result`` of its ``stream-json`` line (None: none)."""

    content: str
    is_error: bool | None
    detail: dict[str, Any] | None


def tool_result(call: AgentCall, output: str, *, ok: bool, timed_out: bool = False,
                before: str | None = None, after: str | None = None) -> ToolResult:
    """How Claude Code reports ``call``'s result: ``output`` is what the tool printed,
    ``before``/``after`` the file a Write or Edit changed (``after`` None: unchanged)."""
    if call.name == "Bash":
        detail = {"stdout": output, "stderr": "", "interrupted": timed_out, "isImage": False,
                  "noOutputExpected": False}
        return ToolResult(output or "(Bash completed with no output)", not ok, detail)
    error = None if ok else True
    if call.name not in ("Write", "Edit") or after is None:
        return ToolResult(output, error, None)
    path = call.input.get("file_path", "")
    content = (f"File created successfully at: {path}" if before is None
               else f"The file {path} has been updated successfully.")
    detail = {"filePath": path, "originalFile": before, "structuredPatch": [],
              "userModified": False}
    if call.name == "Write":
        detail.update(type="create" if before is None else "update", content=after)
    else:
        detail.update(oldString=call.input.get("old_string", ""),
                      newString=call.input.get("new_string", ""),
                      replaceAll=bool(call.input.get("replace_all", False)))
    return ToolResult(content, error, detail)


# -- the inverse: Claude Code's call → the scenario's tool -----------------------------------


def scenario_tool(name: str, input: Mapping[str, Any], *, cwd: str | None = None) -> Tool:
    """The scenario tool a Claude Code call stands for (paths inside ``cwd`` made relative):
    the inverse of :func:`tool_call`, up to what the call does not say (a ``Glob`` reads as
    ``listDir``, a ``find`` one as well). A call no row reads, or one whose input does not
    fit its row, is a :class:`GenericTool` of its name and input, never an error."""
    rel = relative(cwd)
    row = _INVERSE_ROWS.get(name)
    try:
        if row is not None:
            tool = row(input, rel)
            if tool is not None:
                return tool
        elif name in _BY_NAME:
            return tool_from_args(_BY_NAME[name], input)
    except (ValueError, TypeError, KeyError, AttributeError):
        pass
    return GenericTool(name, dict(input))


def _text(value: Any) -> str:
    if not isinstance(value, str):
        raise ValueError("expected text")
    return value


def _path_of(input: Mapping[str, Any], key: str, rel: Callable[[str], str]) -> str:
    return rel(_text(input[key]))


def _from_bash(input: Mapping[str, Any], rel: Callable[[str], str]) -> Tool:
    tool = shell_tool(_text(input["command"]))
    if isinstance(tool, Sed) and not {"timeout", "description", "run_in_background"} & set(input):
        return Sed(tool.expression, rel(tool.path) if tool.path else None, tool.inplace)
    cmd, cwd = (tool.cmd, tool.cwd) if isinstance(tool, RunCmd) else (input["command"], None)
    return tool_from_args("runCmd", {
        "cmd": cmd, "cwd": rel(cwd) if cwd else None, "timeout": input.get("timeout"),
        "description": input.get("description"),
        "run_in_background": input.get("run_in_background")})


def _from_read(input: Mapping[str, Any], rel: Callable[[str], str]) -> Tool:
    return tool_from_args("readFile", {**input, "file_path": _path_of(input, "file_path", rel)})


def _from_write(input: Mapping[str, Any], rel: Callable[[str], str]) -> Tool:
    return WriteFile(_path_of(input, "file_path", rel), _text(input["content"]))


def _from_edit(input: Mapping[str, Any], rel: Callable[[str], str]) -> Tool:
    return tool_from_args("editFile", {**input, "file_path": _path_of(input, "file_path", rel)})


def _from_glob(input: Mapping[str, Any], rel: Callable[[str], str]) -> Tool | None:
    pattern = _text(input["pattern"])
    recursive = pattern.startswith("**/")
    name = pattern[3:] if recursive else pattern
    if "/" in name or set(input) - {"pattern", "path"}:
        return None  # a path pattern: no listing or find says it
    path = input.get("path")
    return ListDir(rel(_text(path)) if path is not None else None, recursive,
                   None if name == "*" else name)


def _from_grep(input: Mapping[str, Any], rel: Callable[[str], str]) -> Tool:
    path = input.get("path")
    return tool_from_args("grep", {**input, "path": rel(_text(path)) if path else None})


def _from_notebook(input: Mapping[str, Any], rel: Callable[[str], str]) -> Tool:
    return tool_from_args("notebookEdit", {
        **input, "notebook_path": _path_of(input, "notebook_path", rel)})


def _from_agent(input: Mapping[str, Any], rel: Callable[[str], str]) -> Tool:
    return tool_from_args("task", input)


def _from_task_stop(input: Mapping[str, Any], rel: Callable[[str], str]) -> Tool:
    return KillShell(_text(input.get("task_id", input.get("shell_id"))))


def _from_skill(input: Mapping[str, Any], rel: Callable[[str], str]) -> Tool:
    args = input.get("args")
    return SlashCommand("/" + _text(input["skill"]) + (f" {_text(args)}" if args else ""))


#: Claude Code's tools whose input differs from the format's, read back (the rest by name)
_INVERSE_ROWS: Mapping[str, Callable[[Mapping[str, Any], Callable[[str], str]], Tool | None]] = {
    "Bash": _from_bash, "Read": _from_read, "Write": _from_write, "Edit": _from_edit,
    "Glob": _from_glob, "Grep": _from_grep, "NotebookEdit": _from_notebook,
    "Agent": _from_agent, "Task": _from_agent, "TaskStop": _from_task_stop,
    "KillShell": _from_task_stop, "Skill": _from_skill,
}
#: the tools Claude Code calls with the format's arguments as written: its name → the format's
_BY_NAME: Mapping[str, str] = {
    "WebFetch": "webFetch", "WebSearch": "webSearch", "TodoWrite": "todoWrite",
    "ExitPlanMode": "exitPlanMode", "BashOutput": "bashOutput",
}
