"""Hostile session files and tool inputs: ``scenarist import`` and the inverse tables never
raise anything but their own clear error (seeded, bounded)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scenarist.record.lines import SessionFileError
from scenarist.record.sessions import read_session
from scenarist.record.writer import write_scenario
from scenarist.scenario import load_scenario_text
from scenarist.vocabulary import claude_code, codex

pytestmark = pytest.mark.fuzz

SETTINGS = settings(max_examples=150, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.function_scoped_fixture])
KEYS = ["type", "payload", "message", "content", "role", "text", "name", "arguments", "input",
        "call_id", "output", "cwd", "timestamp", "sessionId", "tool_use_id", "id", "summary",
        "jsonrpc", "method", "params", "update", "sessionUpdate", "rawInput", "toolCallId",
        "status", "kind", "direction", "thinking", "is_error", "isSidechain", "action"]
WORDS = ["user", "assistant", "response_item", "session_meta", "event_msg", "message",
         "function_call", "custom_tool_call", "function_call_output", "reasoning", "tool_use",
         "tool_result", "exec_command", "apply_patch", "exec", "Bash", "Write", "Edit", "Glob",
         "2.0", "session/prompt", "session/update", "tool_call", "tool_call_update",
         "agent_message_chunk", "completed", "error", "*** Begin Patch", "/w", "{}", "[1",
         "Output:\n", "2026-11-26T10:00:00Z"]
JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 5) | st.sampled_from(WORDS) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4)
    | st.dictionaries(st.sampled_from(KEYS), inner, max_size=6),
    max_leaves=25)
FIELDS = st.dictionaries(st.sampled_from(KEYS), JSON, max_size=6)
PROMPT = {"type": "response_item", "payload": {"type": "message", "role": "user", "content": [
    {"type": "input_text", "text": "go"}]}}
CODEX = st.builds(lambda kind, fields: {"type": "response_item", "payload": {**fields,
                                                                           "type": kind}},
                  st.sampled_from(["message", "reasoning", "function_call", "custom_tool_call",
                                   "local_shell_call", "web_search_call", "function_call_output",
                                   "custom_tool_call_output"]), FIELDS)
CLAUDE = st.builds(lambda kind, fields, content: {
    "type": kind, "sessionId": "s", **fields, "message": {"role": kind, "content": content}},
    st.sampled_from(["user", "assistant"]), FIELDS, JSON)
ACP = st.builds(lambda method, fields: {"jsonrpc": "2.0", "method": method, "params": fields},
                st.sampled_from(["session/new", "session/prompt", "session/update"]), FIELDS)
#: lines of no kind, then lines shaped like each kind's (a prompt first, so readers go deep)
LINES = st.one_of(
    st.lists(st.dictionaries(st.sampled_from(KEYS), JSON, min_size=1, max_size=6),
             min_size=1, max_size=12),
    st.lists(CODEX, max_size=10).map(lambda rest: [PROMPT, *rest]),
    st.lists(CLAUDE, max_size=10).map(
        lambda rest: [{"type": "user", "sessionId": "s", "message": {"content": "go"}}, *rest]),
    st.lists(ACP, max_size=10).map(lambda rest: [
        {"jsonrpc": "2.0", "method": "session/prompt", "params": {"prompt": [
            {"type": "text", "text": "go"}]}}, *rest]),
)


@SETTINGS
@given(lines=LINES)
def test_any_json_lines_import_or_fail_clearly(lines: list[dict[str, Any]],
                                               tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    try:
        _, transcript = read_session(path)
    except SessionFileError as exc:
        assert "s.jsonl" in str(exc)
        return
    load_scenario_text(write_scenario(transcript))  # what is written always loads


@SETTINGS
@given(name=st.sampled_from(["Bash", "Write", "Edit", "Glob", "Grep", "Read", "Agent", "Skill",
                             "TaskStop", "NotebookEdit", "WebFetch", "Other"]),
       input=st.dictionaries(st.sampled_from([*KEYS, "command", "file_path", "pattern",
                                              "old_string", "new_string", "skill"]),
                             JSON, max_size=5))
def test_claude_code_s_inverse_never_raises(name: str, input: dict[str, Any]) -> None:
    claude_code.scenario_tool(name, input, cwd="/w")


@SETTINGS
@given(name=st.sampled_from(["exec_command", "shell", "apply_patch", "exec", "web_search",
                             "runCmd", "x.y"]),
       input=st.one_of(st.text(max_size=200), st.sampled_from([
           "text(await tools.exec_command({cmd: 'ls', workdir: \"/w\"}));",
           "await tools.apply_patch(`*** Begin Patch\n*** Add File: a\n+x\n*** End Patch`)",
           "tools.x({a: [1, {b: '\\u00e9'}], c: `t`})", "tools.y('\\uZZZZ')", "tools.z({"]),
           st.dictionaries(st.sampled_from(["cmd", "command", "workdir", "query", "input"]),
                           JSON, max_size=3)))
def test_codex_s_inverse_never_raises(name: str, input: Any) -> None:
    assert codex.scenario_tools(name, input, cwd="/w")
