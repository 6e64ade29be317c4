"""Every tool of the format, rendered by every front end, matches the one table per agent.

Claude Code's, Codex's and Gemini CLI's vocabularies live in :mod:`scenarist.vocabulary`
(issue 22 item 2, issue 24). This test plays one scenario that calls each tool of the format, plus one tool the
format does not know, through each front end that imitates or answers those agents and
compares what it produced with what the table says, call by call:

- the model API (``scenarist llm``'s answer function) for an Anthropic request that
  declares Claude Code's tools, a Responses request that declares Codex's and a Gemini
  request that declares Gemini CLI's (the names of its captured request);
- the mock agent (``scenarist agent``, a real process) in ``claude-jsonl`` and
  ``codex-jsonl``;
- ``fake-codex --scenario`` (its events for the same beats);
- the ACP agent's ``tool_call`` updates (ACP names no tool: their locations are the table's
  paths and a command's terminal is Codex's ``exec_command``).
"""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path
from typing import Any

import pytest

from scenarist.acp.tools import describe_tool
from scenarist.acp.updates import tool_call_start
from scenarist.codex.build import shell_argv
from scenarist.codex.play_scenario import scenario_steps
from scenarist.codex.rng import Rng
from scenarist.codex.turn import CodexTurn
from scenarist.llm.answer import Answer, Answerer, ModelRequest
from scenarist.llm.gemini_request import Route
from scenarist.llm.plan import build_script
from scenarist.llm.selection import Selector
from scenarist.scenario import (
    TOOLS,
    AgentToolUse,
    GenericTool,
    compile_timeline,
    load_scenario,
)
from scenarist.vocabulary import AgentCall, against, claude_code, codex, gemini_cli

sys.path.append(str(Path(__file__).resolve().parent / "agent"))
from agentkit import agent, jsonl

#: what Gemini CLI 0.61.0 sent (its tool declarations)
CAPTURED = (Path(__file__).resolve().parent / "data" / "real-agent-requests"
            / "gemini_cli_turn2_followup_request.json")
#: one call of every tool of the format (their arguments exercise the tables' decisions)
CALLS = """\
  - runCmd: {cmd: echo hi, cwd: sub, timeout: 5000, description: say hi}
  - readFile: {path: sub/a.txt, offset: 1, limit: 2}
  - writeFile: {path: sub/new.txt, content: "new\\n"}
  - editFile: {path: sub/a.txt, old_string: one, new_string: uno}
  - grep: {pattern: uno, path: sub, glob: "*.txt", -i: true, output_mode: content}
  - listDir: {path: sub, recursive: true, pattern: "*.txt"}
  - find: {path: sub, name: "*.txt", type: file}
  - sed: {expression: s/two/dos/, path: sub/a.txt, inplace: true}
  - task: {prompt: "Find the flaky tests\\nand list them"}
  - webFetch: {url: "https://example.com/", prompt: summarise}
  - webSearch: {query: pytest xfail}
  - todoWrite: {todos: [{content: fix it, status: pending, activeForm: fixing it}]}
  - notebookEdit: {notebook_path: nb.ipynb, new_source: "print(1)", edit_mode: insert}
  - exitPlanMode: {plan: fix the tests}
  - bashOutput: {bash_id: shell-1}
  - killShell: {shell_id: shell-1}
  - slashCommand: {command: /review the diff}
  - agentToolUse: {toolName: my_tool, args: {level: 3}, result: done}
"""
SCENARIO = f"""\
name: every-tool
timeline:
  - userInputs: [[0, use every tool]]
  - llmResponse: [{{assistant: [[0, On it.]]}}]
{CALLS}"""


@pytest.fixture
def work(tmp_path: Path) -> Path:
    """The workspace the agents act in, with the files the calls read and edit."""
    root = tmp_path / "work"
    (root / "sub").mkdir(parents=True)
    (root / "sub" / "a.txt").write_text("one\ntwo\nthree\n")
    notebook = {"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    (root / "nb.ipynb").write_text(json.dumps(notebook))
    (tmp_path / "every-tool.yaml").write_text(SCENARIO)
    return root.resolve()


def uses(work: Path) -> list[AgentToolUse]:
    scenario = load_scenario(work.parent / "every-tool.yaml")
    return [e for e in scenario.timeline if isinstance(e, AgentToolUse)]


def claude_calls(work: Path) -> list[AgentCall]:
    return [claude_code.tool_call(u.tool, against(str(work))) for u in uses(work)]


def codex_calls(work: Path) -> list[codex.CodexCall]:
    return [codex.tool_call(u.tool, against(str(work)), str(work)) for u in uses(work)]


def gemini_calls(work: Path) -> list[AgentCall]:
    return [gemini_cli.tool_call(u.tool, against(str(work))) for u in uses(work)]


def test_the_scenario_calls_every_tool_of_the_format(work: Path) -> None:
    kinds = {type(u.tool) for u in uses(work)}
    assert kinds == {*TOOLS.values(), GenericTool}


def test_the_tables_decide_what_the_copies_disagreed_on(work: Path) -> None:
    root = str(work)
    run, read, _, _, grep, glob, _, sed, task, *_ = claude_calls(work)
    assert run == AgentCall("Bash", {"command": f"cd {root}/sub && echo hi", "timeout": 5000,
                                     "description": "say hi"})
    assert glob == AgentCall("Glob", {"pattern": "**/*.txt", "path": f"{root}/sub"})
    assert grep.input == {"pattern": "uno", "path": f"{root}/sub", "glob": "*.txt", "-i": True,
                          "output_mode": "content"}
    assert task == AgentCall("Agent", {"description": "Find the flaky tests",
                                       "prompt": "Find the flaky tests\nand list them"})
    assert read.input == {"file_path": f"{root}/sub/a.txt", "offset": 1, "limit": 2}
    assert sed == AgentCall("Bash", {"command": f"sed -i s/two/dos/ {root}/sub/a.txt"})
    runs, reads, _, _, greps, lists = codex_calls(work)[:6]
    assert runs == codex.ExecCommand("echo hi", f"{root}/sub")
    assert reads == codex.ExecCommand(f"sed -n '1,2p' {root}/sub/a.txt", root)
    assert greps == codex.ExecCommand(f"grep -rni --include='*.txt' -e uno {root}/sub", root)
    assert lists == codex.ExecCommand(f"find {root}/sub -name '*.txt'", root)
    listing = codex.tool_call(TOOLS["listDir"](path="sub"), against(root), root)
    assert listing == codex.ExecCommand(f"ls -la {root}/sub", root)


def test_the_gemini_cli_table_follows_its_schemas(work: Path) -> None:
    root = str(work)
    (run, read, write, edit, grep, glob, find, sed, task, fetch, search, todos, notebook, plan,
     output, kill, skill, mine) = gemini_calls(work)
    assert run == AgentCall("run_shell_command", {"command": "echo hi", "description": "say hi",
                                                  "dir_path": f"{root}/sub"})
    assert read == AgentCall("read_file", {"file_path": f"{root}/sub/a.txt", "start_line": 1,
                                           "end_line": 2})
    assert write == AgentCall("write_file", {"file_path": f"{root}/sub/new.txt",
                                             "content": "new\n"})
    assert edit.name == "replace" and {k: v for k, v in edit.input.items()
                                       if k != "instruction"} == {
        "file_path": f"{root}/sub/a.txt", "old_string": "one", "new_string": "uno"}
    assert "sub/a.txt" in edit.input["instruction"]
    # -i has no place in grep_search: the table's shell grep
    assert grep == AgentCall("run_shell_command", {
        "command": f"grep -rni --include='*.txt' -e uno {root}/sub"})
    assert glob == AgentCall("glob", {"pattern": "**/*.txt", "dir_path": f"{root}/sub"})
    assert find == glob
    assert sed == AgentCall("run_shell_command", {"command": f"sed -i s/two/dos/ {root}/sub/a.txt"})
    assert task == AgentCall("invoke_agent", {"agent_name": "generalist",
                                              "prompt": "Find the flaky tests\nand list them"})
    assert fetch == AgentCall("web_fetch", {"prompt": "summarise: https://example.com/"})
    assert search == AgentCall("google_web_search", {"query": "pytest xfail"})
    assert todos == AgentCall("write_todos", {"todos": [{"description": "fix it",
                                                         "status": "pending"}]})
    assert plan == AgentCall("exit_plan_mode", {"plan": "fix the tests"})
    assert skill == AgentCall("activate_skill", {"name": "review"})
    # no such tool in Gemini CLI: the format's name and arguments, fitted by the model API
    assert [c.name for c in (notebook, output, kill, mine)] == [
        "notebookEdit", "bashOutput", "killShell", "my_tool"]
    resolve = against(root)
    assert gemini_cli.tool_call(TOOLS["listDir"](path="sub"), resolve) == AgentCall(
        "list_directory", {"dir_path": f"{root}/sub"})
    assert gemini_cli.tool_call(TOOLS["grep"](pattern="x", glob="*.py",
                                              output_mode="files_with_matches"), resolve) == (
        AgentCall("grep_search", {"pattern": "x", "include_pattern": "*.py", "names_only": True}))
    assert gemini_cli.tool_call(TOOLS["bashOutput"](bash_id="4242"), resolve) == AgentCall(
        "read_background_output", {"pid": 4242})


# -- the model API -------------------------------------------------------------------------


def answer(work: Path, api: str, body: dict[str, Any]) -> dict[str, Any]:
    script = build_script(load_scenario(work.parent / "every-tool.yaml"))
    result = Answerer(Selector([script]), workspace=work).answer(
        ModelRequest(api, {}, json.dumps(body).encode(), 1_700_000_000),  # type: ignore[arg-type]
        lambda _key: False)
    assert isinstance(result, Answer) and result.encoded.body is not None
    reply: dict[str, Any] = json.loads(result.encoded.body)
    return reply


def test_model_api_asks_claude_code_for_the_table_s_calls(work: Path) -> None:
    expected = claude_calls(work)
    declared = sorted({*claude_code.TOOL_NAMES, *(c.name for c in expected)})
    body = {"model": "m", "max_tokens": 1000, "messages": [{"role": "user",
                                                           "content": "use every tool"}],
            "tools": [{"name": n, "input_schema": {"type": "object"}} for n in declared]}
    blocks = [b for b in answer(work, "messages", body)["content"] if b["type"] == "tool_use"]
    assert [AgentCall(b["name"], b["input"]) for b in blocks] == expected


def test_model_api_asks_codex_for_the_table_s_calls(work: Path) -> None:
    expected = codex_calls(work)
    functions = {"exec_command", *(c.tool for c in expected if isinstance(c, codex.McpCall)),
                 "webSearch"}  # Codex's own web search is hosted: the model API calls it by name
    tools: list[dict[str, Any]] = [{"type": "function", "name": n,
                                    "parameters": {"type": "object"}} for n in sorted(functions)]
    tools.append({"type": "custom", "name": "apply_patch", "description": "patch files"})
    body = {"model": "m", "input": [{"role": "user", "content": "use every tool"}],
            "tools": tools}
    items = [i for i in answer(work, "responses", body)["output"]
             if i["type"] in ("function_call", "custom_tool_call")]
    assert len(items) == len(expected)
    for item, call in zip(items, expected, strict=True):
        match call:
            case codex.ExecCommand():
                assert (item["name"], json.loads(item["arguments"])) == (
                    call.agent_call().name, call.agent_call().input)
            case codex.ApplyPatch(path=path):
                assert item["name"] == "apply_patch"
                assert f"File: {path}\n" in item["input"]
            case codex.McpCall(tool=tool, arguments=arguments):
                assert (item["name"], json.loads(item["arguments"])) == (tool, arguments)
            case codex.WebSearchCall(query=query):
                assert (item["name"], json.loads(item["arguments"])) == (
                    "webSearch", {"query": query})


def test_model_api_asks_gemini_cli_for_the_table_s_calls(work: Path) -> None:
    """A Gemini request with the tools Gemini CLI 0.61 declares (and the format's names of the
    tools it lacks, which the model API would otherwise fit) gets the table's calls."""
    expected = gemini_calls(work)
    sent = json.loads(CAPTURED.read_text())["body"]["tools"]
    real = {d["name"] for t in sent for d in t["functionDeclarations"]}
    names = sorted(real | {c.name for c in expected})
    body = {"contents": [{"role": "user", "parts": [{"text": "use every tool"}]}],
            "tools": [{"functionDeclarations": [{"name": n, "parameters": {"type": "OBJECT"}}
                                                for n in names]}]}
    script = build_script(load_scenario(work.parent / "every-tool.yaml"))
    route = Route("gemini-3.1-pro-preview", False, False).key()
    result = Answerer(Selector([script]), workspace=work).answer(
        ModelRequest("gemini", {}, json.dumps(body).encode(), 1_700_000_000, route),
        lambda _key: False)
    assert isinstance(result, Answer) and result.encoded.body is not None
    assert result.notes["profile"] == "gemini"
    parts = json.loads(result.encoded.body)["candidates"][0]["content"]["parts"]
    calls = [AgentCall(p["functionCall"]["name"], p["functionCall"]["args"]) for p in parts
             if "functionCall" in p]
    assert calls == expected


# -- the mock agent --------------------------------------------------------------------------


def played(work: Path, fmt: str) -> list[dict[str, Any]]:
    result = agent("--scenario", work.parent / "every-tool.yaml", "--workspace", work,
                   "--speed", "0.01", "--format", fmt)
    assert result.returncode in (0, 1), result.stderr  # 1: a result differed from the script
    return jsonl(result.stdout)


def test_mock_agent_logs_claude_code_s_calls(work: Path) -> None:
    lines = played(work, "claude-jsonl")
    blocks = [b for line in lines if line["type"] == "assistant"
              for b in line["message"]["content"] if b["type"] == "tool_use"]
    assert [AgentCall(b["name"], b["input"]) for b in blocks] == claude_calls(work)
    init = lines[0]
    assert {c.name for c in claude_calls(work)} - set(init["tools"]) == {"my_tool"}


def codex_item(call: codex.CodexCall, work: Path) -> dict[str, Any]:
    """The fields of the ``codex exec --json`` item Codex prints for ``call``."""
    match call:
        case codex.ExecCommand(cmd=cmd):
            return {"type": "command_execution", "command": shlex.join(shell_argv(cmd))}
        case codex.ApplyPatch(absolute=absolute):
            return {"type": "file_change", "paths": [absolute]}
        case codex.WebSearchCall(query=query):
            return {"type": "web_search", "query": query}
        case codex.McpCall(tool=tool, arguments=arguments):
            return {"type": "mcp_tool_call", "server": codex.MCP_SERVER, "tool": tool,
                    "arguments": dict(arguments)}


def shown(item: dict[str, Any]) -> dict[str, Any]:
    if item["type"] == "file_change":
        return {"type": "file_change", "paths": [c["path"] for c in item["changes"]]}
    keys = {"command_execution": ("command",), "web_search": ("query",),
            "mcp_tool_call": ("server", "tool", "arguments")}[item["type"]]
    return {"type": item["type"], **{k: item[k] for k in keys}}


def test_mock_agent_logs_codex_s_calls(work: Path) -> None:
    expected = [codex_item(c, work) for c in codex_calls(work)]
    items = [shown(line["item"]) for line in played(work, "codex-jsonl")
             if line["type"] == "item.completed"
             and line["item"]["type"] in ("command_execution", "file_change", "web_search",
                                          "mcp_tool_call")]
    assert items == expected


# -- fake-codex ------------------------------------------------------------------------------


def test_fake_codex_shows_codex_s_calls(work: Path) -> None:
    beats = compile_timeline(load_scenario(work.parent / "every-tool.yaml")).beats
    turn = CodexTurn(Rng(1), cwd=str(work))
    events = [e for e in scenario_steps(beats, turn, time_scale=0) if isinstance(e, dict)]
    starts = [e for e in events if e["type"] in ("exec_command_begin", "patch_apply_begin",
                                                  "web_search_end", "mcp_tool_call_begin")]
    assert len(starts) == len(codex_calls(work))
    for event, call in zip(starts, codex_calls(work), strict=True):
        match call:
            case codex.ExecCommand(cmd=cmd, workdir=workdir):
                assert (event["command"], event["cwd"]) == (shell_argv(cmd), workdir)
            case codex.ApplyPatch(absolute=absolute):
                assert list(event["changes"]) == [absolute]
            case codex.WebSearchCall(query=query):
                assert event["query"] == query
            case codex.McpCall(tool=tool, arguments=arguments):
                assert event["invocation"] == {"server": codex.MCP_SERVER, "tool": tool,
                                               "arguments": dict(arguments)}


# -- ACP -------------------------------------------------------------------------------------

_PATH_KEYS = ("file_path", "notebook_path", "path")


def test_acp_tool_calls_show_the_table_s_files_and_commands(work: Path) -> None:
    cwd = str(work)
    for use, claude, call in zip(uses(work), claude_calls(work), codex_calls(work),
                                 strict=True):
        view = describe_tool(use, cwd)
        update = tool_call_start(use, view)
        locations = [loc.path for loc in update.locations or ()]
        named = [claude.input[k] for k in _PATH_KEYS if k in claude.input]
        if claude.name != "Bash":  # a command's files are in its text, not a location
            assert locations == named, use.tool
        if isinstance(use.tool, TOOLS["runCmd"]):
            assert isinstance(call, codex.ExecCommand)
            assert (view.command, view.command_cwd) == (call.cmd, call.workdir)
