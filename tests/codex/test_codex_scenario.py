"""``--scenario``: scenario files played as Codex events (our examples and test scenarios)."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest
from codexkit import REPO, assert_valid_stream, fake_codex

from scenarist.codex.play_scenario import scenario_steps, split_turns
from scenarist.codex.rng import Rng
from scenarist.codex.turn import CodexTurn, Sleep
from scenarist.scenario import compile_timeline, load_scenario_text, turns_of

MAPPING = """\
name: codex_mapping
timeline:
  - userInputs:
      - relativeTime: 0
        input: "Fix the tests"
  - llmResponse:
      - think:
          - relativeTime: 100
            content: "Looking at the failing test."
      - assistant:
          - relativeTime: 50
            content: "Running the tests first."
  - agentToolUse:
      toolName: runCmd
      args:
        cmd: "pytest -q"
      result: "1 failed"
      status: error
  - agentToolUse:
      toolName: webSearch
      args:
        query: "pytest xfail strict"
      status: ok
  - agentToolUse:
      toolName: readFile
      args:
        path: "src/app.py"
      result: "print('hi')"
      status: ok
  - agentToolUse:
      toolName: task
      args:
        prompt: "Find flaky tests"
      result: "none"
  - agentToolUse:
      toolName: writeFile
      args:
        path: "notes.md"
        content: "notes"
      status: ok
  - userInputs:
      - relativeTime: 10
        input: "And now?"
  - llmResponse:
      - error:
          errorType: rate_limit_error
          message: "slow down"
          statusCode: 429
"""


@pytest.fixture
def mapping_file(tmp_path: Path) -> Path:
    path = tmp_path / "mapping.yaml"
    path.write_text(MAPPING)
    return path


EXAMPLES = REPO / "examples"


@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("*.yaml")), ids=lambda p: p.stem)
def test_examples_play_as_valid_streams(path: Path) -> None:
    result = fake_codex("--seed", "1", "--time-scale", "0", "--scenario", str(path), "go")
    assert result.code == 0, result.stderr
    assert_valid_stream(result)
    assert result.types[0] == "session_configured" and result.types[-1] == "task_complete"


def test_tool_execution_output_and_exit_code_reach_exec_events() -> None:
    result = fake_codex(
        "--seed", "1", "--time-scale", "0", "--scenario", str(EXAMPLES / "simulation-rest.yaml"), "x"
    )
    assert_valid_stream(result)
    events = result.events
    begin = next(e for e in events if e["type"] == "exec_command_begin")
    assert begin["command"][-1] == "npm test"
    chunks = [
        base64.b64decode(e["chunk"]).decode()
        for e in events
        if e["type"] == "exec_command_output_delta"
    ]
    end = next(e for e in events if e["type"] == "exec_command_end")
    assert end["stdout"] == "> npm test\nPASS src/App.test.js\n"
    assert "".join(chunks) == "> npm test\nPASS src/App.test.js\nwarning: slow test\n"
    assert end["exit_code"] == 0 and end["status"] == "completed"
    patch = next(e for e in events if e["type"] == "patch_apply_begin")
    assert list(patch["changes"]) == ["/repo/TESTING.md"]  # absolute, from the cwd, as Codex
    assert patch["changes"]["/repo/TESTING.md"]["unified_diff"].count("\n+") == 3
    assert events[-1]["last_agent_message"] == "Running the test suite."


def test_every_kind_of_beat_is_mapped(mapping_file: Path) -> None:
    result = fake_codex("--seed", "2", "--time-scale", "0", "--scenario", str(mapping_file), "x")
    assert_valid_stream(result)
    body = [
        t
        for t in result.types
        if not t.endswith("_delta") and t not in ("session_configured", "token_count")
    ]
    assert body == [
        "task_started",
        "agent_reasoning",
        "agent_message",
        "exec_command_begin",
        "exec_command_end",
        "web_search_begin",
        "web_search_end",
        "exec_command_begin",
        "exec_command_end",
        "mcp_tool_call_begin",
        "mcp_tool_call_end",
        "patch_apply_begin",
        "patch_apply_end",
        "error",
        "task_complete",
    ]
    by_type = {e["type"]: e for e in result.events}
    first, read = [e for e in result.events if e["type"] == "exec_command_end"]
    assert first["stdout"] == "1 failed\n" and first["exit_code"] == 1
    # Codex has no read tool: a readFile is the shell command that reads the file
    assert read["command"] == ["/bin/bash", "-lc", "cat /repo/src/app.py"]
    assert read["stdout"] == "print('hi')\n" and read["exit_code"] == 0
    assert by_type["web_search_end"]["query"] == "pytest xfail strict"
    assert by_type["mcp_tool_call_end"]["invocation"] == {
        "server": "scenarist", "tool": "task", "arguments": {"prompt": "Find flaky tests"}}
    assert by_type["patch_apply_begin"]["changes"] == {
        "/repo/notes.md": {"type": "add", "content": "notes"}
    }
    assert by_type["error"]["message"] == "rate_limit_error: slow down"


def test_interactive_plays_one_turn_per_prompt(mapping_file: Path) -> None:
    result = fake_codex(
        "--seed",
        "2",
        "--time-scale",
        "0",
        "--interactive",
        "--scenario",
        str(mapping_file),
        stdin=b"first\nsecond\nthird\n",
    )
    assert_valid_stream(result)
    turns: dict[str, list[str]] = {}
    for line in result.lines:
        turns.setdefault(line["params"]["id"], []).append(line["params"]["msg"]["type"])
    assert "exec_command_begin" in turns["1"] and "error" not in turns["1"]
    assert turns["2"] == ["task_started", "error", "token_count", "task_complete"]
    assert "agent_message" in turns["3"]  # past the end: says there is nothing more


def test_scenario_in_exec_json_format(mapping_file: Path) -> None:
    lines = fake_codex(
        "exec", "--json", "--seed", "2", "--time-scale", "0", "--scenario", str(mapping_file), "x"
    ).lines
    assert lines[0]["type"] == "thread.started"
    assert lines[-1] == {"type": "turn.failed", "error": {"message": "rate_limit_error: slow down"}}


def test_gaps_between_beats_become_scaled_pauses() -> None:
    scenario = load_scenario_text(MAPPING)
    beats = split_turns(turns_of(compile_timeline(scenario)))[0]
    turn = CodexTurn(Rng(1))
    sleeps = [s.ms for s in scenario_steps(beats, turn, time_scale=0.5) if isinstance(s, Sleep)]
    assert sleeps == [25]  # think at 100, assistant and tools at 150: one 50 ms gap, halved
    assert not [
        s for s in scenario_steps(beats, CodexTurn(Rng(1)), time_scale=0) if isinstance(s, Sleep)
    ]


def test_bad_scenario_file_is_a_clean_error(tmp_path: Path) -> None:
    missing = fake_codex("--scenario", str(tmp_path / "absent.yaml"), "x")
    assert missing.code == 1 and missing.stdout == b""
    assert missing.stderr.startswith("fake-codex: ") and missing.stderr.count("\n") == 1
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: x\ntimeline:\n  - llmResponse: 5\n")
    result = fake_codex("--scenario", str(bad), "x")
    assert result.code == 1 and f"{bad}:" in result.stderr and result.stderr.count("\n") == 1


def test_edit_file_is_the_unified_diff_of_old_string_to_new_string(tmp_path: Path) -> None:
    path = tmp_path / "edit.yaml"
    path.write_text(
        "name: edit\ntimeline:\n"
        "  - editFile:\n"
        "      path: /work/src/calc.py\n"
        '      old_string: "import math\\n\\ndef area(r):\\n    return 3.14 * r * r\\n"\n'
        '      new_string: "import math\\n\\ndef area(r):\\n    return math.pi * r ** 2\\n"\n'
        "      status: ok\n"
    )
    result = fake_codex("--seed", "1", "--time-scale", "0", "--scenario", str(path), "x")
    assert_valid_stream(result)
    end = next(e for e in result.events if e["type"] == "patch_apply_end")
    assert end["success"] is True
    assert end["changes"] == {
        "/work/src/calc.py": {
            "type": "update",
            "unified_diff": "@@ -3,2 +3,2 @@\n def area(r):\n-    return 3.14 * r * r\n"
            "+    return math.pi * r ** 2\n",
            "move_path": None,
        }
    }
