"""The tool vocabulary: the loader turns every tool event into its typed record."""

from __future__ import annotations

import pytest
from scenario_testutil import errors, load, one_error, timeline

from scenarist.scenario import AgentToolUse
from scenarist.scenario.tools import (
    TOOLS,
    EditFile,
    Find,
    GenericTool,
    Grep,
    ReadFile,
    RunCmd,
    Tool,
    WebSearch,
    WriteFile,
    tool_args,
    tool_from_args,
    tool_spec,
)

SPEC_TOOLS = ("runCmd", "readFile", "writeFile", "editFile", "grep", "listDir", "find", "sed",
              "task", "webFetch", "webSearch", "todoWrite", "notebookEdit", "exitPlanMode",
              "bashOutput", "killShell", "slashCommand")


def tools_of(body: str) -> list[Tool]:
    s = load(timeline(body))
    return [e.tool for e in s.timeline if isinstance(e, AgentToolUse)]


def test_every_tool_of_the_spec_has_a_record() -> None:
    assert tuple(TOOLS) == SPEC_TOOLS
    for name, cls in TOOLS.items():
        assert cls.name == name and tool_spec(cls).name == name


def test_records_are_typed_with_the_yaml_spellings_read() -> None:
    grep, find, search, run = tools_of("""
        - grep: {pattern: TODO, -A: 2, -i: true, output_mode: count}
        - find: {path: src, name: "*.py", type: file}
        - webSearch: {query: q, allowed_domains: [a.org, b.org]}
        - runCmd: {cmd: 42, timeout: 3000}
    """)
    assert grep == Grep("TODO", output_mode="count", after_context=2, case_insensitive=True)
    assert find == Find(path="src", name_pattern="*.py", type="file")
    assert search == WebSearch("q", allowed_domains=("a.org", "b.org"))
    assert run == RunCmd("42", timeout=3000)  # a number where text is wanted: kept as written
    assert tool_args(grep) == {"pattern": "TODO", "output_mode": "count", "-A": 2, "-i": True}
    assert tool_args(search) == {"query": "q", "allowed_domains": ["a.org", "b.org"]}


def test_aliases_are_resolved_once_in_the_loader() -> None:
    run, write, read, edit = tools_of("""
        - agentToolUse: {toolName: run_command, args: {command: ls}}
        - writeFile: {path: a.txt, contents: hi}
        - agentToolUse: {toolName: read_file, args: {file_path: a.txt}}
        - editFile: {file_path: a.txt, old_string: a, new_string: b}
    """)
    assert run == RunCmd("ls") and write == WriteFile("a.txt", "hi")
    assert read == ReadFile("a.txt") and edit == EditFile("a.txt", "a", "b")


def test_old_argument_name_warning_points_at_the_old_key() -> None:
    s = load(timeline("- writeFile: {path: a.txt, text: hi}\n"))
    (warning,) = s.warnings
    assert (warning.line, warning.col, warning.path) == (3, 30, "timeline[0].writeFile.text")


def test_unknown_tool_names_stay_generic_with_their_arguments() -> None:
    (tool,) = tools_of("- agentToolUse: {toolName: my_mcp_tool, args: {q: 1, deep: {x: [1]}}}\n")
    assert tool == GenericTool("my_mcp_tool", {"q": 1, "deep": {"x": [1]}})
    assert tool_args(tool) == {"q": 1, "deep": {"x": [1]}}


def test_unknown_arguments_are_warned_and_left_out() -> None:
    s = load(timeline("- readFile: {path: a, bogus: 1}\n"))
    (event,) = s.timeline
    assert isinstance(event, AgentToolUse) and event.tool == ReadFile("a")
    assert "no argument 'bogus'; it is ignored" in s.warnings[0].message


@pytest.mark.parametrize(("body", "needle", "path"), [
    ("- readFile: {path: a, offset: x}", "expected a whole number", "timeline[0].readFile.offset"),
    ("- grep: {pattern: x, output_mode: lines}", "expected one of content, files_with_matches",
     "timeline[0].grep.output_mode"),
    ("- editFile: {path: a, old_string: x, new_string: y, replace_all: yes}",
     "expected true or false", "timeline[0].editFile.replace_all"),
    ("- webSearch: {query: q, blocked_domains: {a: 1}}", "expected a list of strings",
     "timeline[0].webSearch.blocked_domains"),
    ("- agentToolUse: {toolName: todoWrite, args: {todos: 3}}", "expected a list",
     "timeline[0].agentToolUse.args.todos"),
    ("- runCmd: {cwd: .}", "runCmd needs argument 'cmd'", "timeline[0].runCmd"),
])
def test_argument_types_come_from_the_declaration(body: str, needle: str, path: str) -> None:
    issue = one_error(timeline(body + "\n"), needle)
    assert issue.path == path and issue.line == 3


def test_a_bare_string_is_the_first_required_argument() -> None:
    assert tools_of("- runCmd: ls\n- readFile: a.py\n") == [RunCmd("ls"), ReadFile("a.py")]
    assert errors(timeline("- listDir: src\n"))[0].message.startswith("expected a mapping")


def test_agent_tool_use_keeps_tool_name_and_args_as_derived_views() -> None:
    s = load(timeline("- runCmd: {cmd: ls, run_in_background: true}\n"))
    (event,) = s.timeline
    assert isinstance(event, AgentToolUse) and event.tool_name == "runCmd"
    assert dict(event.args) == {"cmd": "ls", "run_in_background": True}


def test_tool_from_args_builds_records_in_code_and_refuses_bad_arguments() -> None:
    assert tool_from_args("run_cmd", {"command": "ls", "cwd": None}) == RunCmd("ls")
    assert tool_from_args("weather", {"city": "Paris"}) == GenericTool("weather", {"city": "Paris"})
    for name, args, needle in [("runCmd", {}, "needs argument 'cmd'"),
                               ("runCmd", {"cmd": "ls", "shell": "zsh"}, "no argument 'shell'"),
                               ("readFile", {"path": "a", "limit": "x"}, "a whole number")]:
        with pytest.raises(ValueError, match=needle):
            tool_from_args(name, args)
