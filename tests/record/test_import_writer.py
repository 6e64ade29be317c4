"""The scenario writer: a transcript becomes YAML that loads, validates and means the same."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from scenarist.record.from_scenario import transcript_of
from scenarist.record.normalise import normaliser
from scenarist.record.transcript import Failure, Text, Thinking, ToolCall, Transcript, Turn
from scenarist.record.writer import write_scenario
from scenarist.scenario import (
    AgentToolUse,
    EditFile,
    GenericTool,
    LlmResponse,
    RunCmd,
    WriteFile,
    compile_timeline,
    load_scenario,
    load_scenario_text,
)

EXAMPLES = sorted((Path(__file__).resolve().parents[2] / "examples").glob("*.yaml"))
PATCH = "*** Begin Patch\n*** Add File: /w/app/hello.py\n+print('hi')\n*** End Patch\n"
EDIT = ("*** Begin Patch\n*** Update File: /w/app/hello.py\n@@\n-print('hi')\n"
        "+print('hello')\n*** End Patch\n")

CODEX = Transcript("codex-session", (
    Turn("Write app/hello.py and run it", (
        Thinking("Plan:\n1. write the file\n2. run it", 40),
        Text("On it.", 10),
        ToolCall("apply_patch", PATCH, "Success. Updated the following files:\nA app/hello.py",
                 "ok", "call_1", 5),
        ToolCall("exec_command", {"cmd": "python3 hello.py", "workdir": "/w/app"}, "hi\n", "ok",
                 "call_2", 7),
        Failure("Rate limit reached", 429, "rate_limit_exceeded", 1.5, 3),
        ToolCall("apply_patch", EDIT, "Success.", "ok", "call_3", 0),
        Text("Done: `hello.py` prints hi.", 2),
    )),
    Turn("Thanks", (Text("You're welcome."),), 120),
), vocabulary="codex", cwd="/w", tags=("imported", "codex"))


def test_a_transcript_is_written_as_a_readable_scenario_that_loads() -> None:
    text = write_scenario(CODEX, header="imported from a Codex session")
    assert text.startswith("# imported from a Codex session\nname: codex-session\n")
    assert "tags: [imported, codex]" in text
    assert "content: |-\n              Plan:\n              1. write the file" in text
    assert "- [10, On it.]" in text  # the pair form for one-line steps
    scenario = load_scenario_text(text)
    tools = [e.tool for e in scenario.timeline if isinstance(e, AgentToolUse)]
    assert tools == [WriteFile("app/hello.py", "print('hi')\n"), RunCmd("python3 hello.py",
                     cwd="app"), EditFile("app/hello.py", "print('hi')\n", "print('hello')\n")]
    uses = [e for e in scenario.timeline if isinstance(e, AgentToolUse)]
    assert (uses[1].result, uses[1].status) == ("hi\n", "ok")
    errors = [s for e in scenario.timeline if isinstance(e, LlmResponse) for s in e.steps
              if s.kind == "error"]
    assert [(e.status_code, e.retry_after_seconds) for e in errors] == [(429, 1.5)]  # type: ignore[union-attr]
    # the timing: each step's delay, the tool delays as baseTimeDelta, the prompt's time absolute
    timeline = compile_timeline(scenario)
    assert timeline.duration_ms == 40 + 10 + 5 + 7 + 3 + 2 + 120


def test_keys_come_in_the_format_s_documented_order() -> None:
    doc = yaml.safe_load(write_scenario(CODEX))
    assert list(doc) == ["name", "tags", "timeline"]
    assert list(doc["timeline"][0]["userInputs"][0]) == ["relativeTime", "input"]
    run = next(item["runCmd"] for item in doc["timeline"] if "runCmd" in item)
    assert list(run) == ["cmd", "cwd", "result", "status"]


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.name)
def test_every_example_round_trips_through_transcript_and_writer(example: Path) -> None:
    before = transcript_of(load_scenario(example))
    after = transcript_of(load_scenario_text(write_scenario(before), strict=True))
    assert after == before
    assert before.turns  # each example has a prompt to carry


def test_a_call_no_table_reads_is_a_generic_tool_with_its_input() -> None:
    transcript = Transcript("odd", (Turn("go", (
        ToolCall("mcp__db__query", {"sql": "select 1"}, {"rows": [[1]]}, "ok"),
        ToolCall("Frobnicate", {"level": 3}),
    )),), vocabulary="claude-code")
    scenario = load_scenario_text(write_scenario(transcript), strict=True)
    uses = [e for e in scenario.timeline if isinstance(e, AgentToolUse)]
    assert [u.tool for u in uses] == [GenericTool("mcp__db__query", {"sql": "select 1"}),
                                      GenericTool("Frobnicate", {"level": 3})]
    assert uses[0].result == {"rows": [[1]]}


def test_secrets_are_never_written_and_normalisers_apply_to_what_is_said() -> None:
    key = "sk-ant-api03-" + "x" * 40
    transcript = Transcript("s", (Turn(
        "In /w/proj, at 2026-11-26T21:10:00Z, session 123e4567-e89b-12d3-a456-426614174000",
        (ToolCall("Bash", {"command": f"curl -H 'Authorization: Bearer {key}' x"},
                  f"x-api-key: {key}\nok", "ok"),)),), vocabulary="claude-code", cwd="/w/proj")
    text = write_scenario(transcript, normalise=normaliser("/w/proj"))
    assert key not in text and "Bearer" not in text.replace("Bearer [REDACTED]", "")
    assert "In <WORKSPACE>, at <TIMESTAMP>, session <UUID>" in text
    load_scenario_text(text, strict=True)
