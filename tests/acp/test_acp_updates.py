"""The pure side of scenarist.acp: beats → ACP updates (golden, schema-valid), tool views,
turns, expected-subset comparison.

Regenerate the golden files with ``SCENARIST_UPDATE_GOLDEN=1 pytest tests/acp`` and review
the diff.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from acpkit import ACP_EXAMPLES, EXAMPLES, check

from scenarist.acp.client import client_steps
from scenarist.acp.compare import differences, overlay
from scenarist.acp.tools import absolute, describe_tool
from scenarist.acp.turns import script_of
from scenarist.acp.updates import (
    BeatRenderer,
    permission_options,
    permission_tool_call,
    stop_reason,
    usage,
)
from scenarist.scenario import (
    AgentPermissionRequest,
    AgentToolUse,
    compile_timeline,
    load_scenario,
    load_scenario_text,
)

GOLDEN = Path(__file__).parent / "golden"
ALL_EXAMPLES = sorted(p.stem for p in EXAMPLES.glob("*.yaml"))


def dump(model: Any) -> dict[str, Any]:
    data: dict[str, Any] = model.model_dump(mode="json", by_alias=True, exclude_none=True)
    return data


def rendered(name: str) -> list[dict[str, Any]]:
    """Every beat of an example as the updates a client without fs/terminal sees."""
    scenario = load_scenario(EXAMPLES / f"{name}.yaml")
    renderer = BeatRenderer("/workspace")
    return [dump(u) for beat in compile_timeline(scenario).beats for u in renderer.render(beat)]


@pytest.mark.parametrize("name", ALL_EXAMPLES)
def test_every_example_renders_schema_valid_updates(name: str) -> None:
    updates = rendered(name)
    for update in updates:
        check("SessionUpdate", update)
    assert updates or name == "rate-limit-retry"


@pytest.mark.parametrize("name", ACP_EXAMPLES)
def test_acp_examples_match_their_golden_updates(name: str) -> None:
    updates = rendered(name)
    for update in updates:  # media payloads are long and checked by the schema; keep a stub
        content = update.get("content")
        if isinstance(content, dict) and "data" in content:
            content["data"] = content["data"][:16] + "..."
    golden = GOLDEN / f"{name}.json"
    text = json.dumps(updates, indent=2, ensure_ascii=False) + "\n"
    if os.environ.get("SCENARIST_UPDATE_GOLDEN"):
        golden.parent.mkdir(exist_ok=True)
        golden.write_text(text)
    assert text == golden.read_text()


def _use(yaml_tool: str) -> AgentToolUse:
    scenario = load_scenario_text(f"name: t\ntimeline:\n  - {yaml_tool}\n")
    (event,) = scenario.timeline
    assert isinstance(event, AgentToolUse)
    return event


@pytest.mark.parametrize(("tool", "kind", "title", "paths"), [
    ("runCmd: {cmd: ls -la}", "execute", "ls -la", ()),
    ("runCmd: {cmd: make, description: Build it}", "execute", "Build it", ()),
    ("readFile: {path: src/a.py, offset: 3}", "read", "Read src/a.py", ("/w/src/a.py",)),
    ("writeFile: {path: /abs/b.txt, content: x}", "edit", "Write /abs/b.txt", ("/abs/b.txt",)),
    ("editFile: {path: c.py, old_string: a, new_string: b}", "edit", "Edit c.py", ("/w/c.py",)),
    ("grep: {pattern: TODO, path: src}", "search", "grep TODO", ("/w/src",)),
    ("listDir: {path: .}", "search", "List .", ("/w",)),
    ("webFetch: {url: 'https://x.test'}", "fetch", "Fetch https://x.test", ()),
    ("webSearch: {query: acp}", "fetch", "Search acp", ()),
    ("task: {prompt: p, description: Explore}", "think", "Task Explore", ()),
    ("exitPlanMode: {plan: p}", "switch_mode", "Exit plan mode", ()),
    ("slashCommand: {command: /help}", "other", "Run /help", ()),
    ("agentToolUse: {toolName: customThing, args: {a: 1}}", "other", "customThing", ()),
])
def test_tool_views(tool: str, kind: str, title: str, paths: tuple[str, ...]) -> None:
    view = describe_tool(_use(tool), "/w")
    assert (view.kind, view.title, view.paths) == (kind, title, paths)


def test_tool_call_start_and_result_shapes() -> None:
    use = _use("readFile: {path: src/config.json, offset: 2}")
    renderer = BeatRenderer("/w")
    scenario = load_scenario_text("name: t\ntimeline:\n  - readFile: {path: src/config.json, "
                                  "offset: 2, result: '{}', status: ok}\n")
    start, end = compile_timeline(scenario).beats
    assert [dump(u) for u in renderer.render(start)] == [{
        "sessionUpdate": "tool_call", "toolCallId": use.tool_call_id,
        "title": "Read src/config.json", "kind": "read", "status": "pending",
        "locations": [{"path": "/w/src/config.json", "line": 2}],
        "rawInput": {"path": "src/config.json", "offset": 2}}]
    assert [dump(u) for u in renderer.render(end)] == [{
        "sessionUpdate": "tool_call_update", "toolCallId": use.tool_call_id,
        "status": "completed", "content": [{"type": "content",
                                            "content": {"type": "text", "text": "{}"}}],
        "rawOutput": "{}"}]


def test_tool_output_accumulates_and_exit_code_decides_the_status() -> None:
    scenario = load_scenario_text("""\
name: t
timeline:
  - runCmd:
      cmd: make
      progress: [[10, building]]
      toolExecution:
        startTimeMs: 0
        events:
          - {type: stdout, timeMs: 20, content: "compiling\\n"}
          - {type: completion, timeMs: 30, exitCode: 2}
""")
    renderer = BeatRenderer("/w")
    updates = [dump(u) for b in compile_timeline(scenario).beats for u in renderer.render(b)]
    texts = [u["content"][0]["content"]["text"] for u in updates[1:]]
    assert texts == ["building\n", "building\ncompiling\n", "building\ncompiling\n"]
    assert updates[-1]["status"] == "failed" and updates[-1]["rawOutput"] == {
        "result": None, "exitCode": 2}


def test_todo_write_is_also_shown_as_the_plan() -> None:
    use = _use("todoWrite: {todos: [{content: a, status: completed}, {content: b}]}")
    scenario = load_scenario_text("name: t\ntimeline:\n  - todoWrite: {todos: [{content: a, "
                                  "status: completed}, {content: b}]}\n")
    beat = compile_timeline(scenario).beats[0]
    start, plan = (dump(u) for u in BeatRenderer("/w").render(beat))
    assert start["kind"] == "think" and start["toolCallId"] == use.tool_call_id
    assert plan == {"sessionUpdate": "plan", "entries": [
        {"content": "a", "priority": "medium", "status": "completed"},
        {"content": "b", "priority": "medium", "status": "pending"}]}


def test_permission_request_maps_the_scenario_spelling() -> None:
    scenario = load_scenario_text("""\
name: t
timeline:
  - agentPermissionRequest:
      toolCall: {toolCallId: p1, title: file_write, kind: fs/write_text_file}
      options:
        - {id: allow, label: Allow once, kind: allow_once}
        - {id: deny, label: Deny once, kind: reject_once}
      granted: true
""")
    (event,) = scenario.timeline
    assert isinstance(event, AgentPermissionRequest)
    request = {"sessionId": "s", "toolCall": dump(permission_tool_call(event)),
               "options": [dump(o) for o in permission_options(event)]}
    check("RequestPermissionRequest", request)
    assert request["toolCall"] == {"toolCallId": "p1", "title": "file_write", "kind": "other"}
    assert request["options"][0] == {"optionId": "allow", "name": "Allow once",
                                     "kind": "allow_once"}


def test_stop_reason_and_usage() -> None:
    assert stop_reason(None) == "end_turn"
    assert stop_reason({"stopReason": "completed"}) == "end_turn"
    assert stop_reason({"stopReason": "max_tokens"}) == "max_tokens"
    assert stop_reason({"stopReason": "bogus"}) == "end_turn"
    got = usage({"usage": {"inputTokens": 12, "outputTokens": 34}})
    assert got is not None and dump(got) == {"inputTokens": 12, "outputTokens": 34,
                                             "totalTokens": 46}
    assert usage({}) is None


def test_turns_of_a_loaded_session() -> None:
    script = script_of(load_scenario(EXAMPLES / "load-session.yaml"))
    assert [b.kind for b in script.history] == ["userInputs", "assistant", "agentPlan",
                                                "agentEdits"]
    (turn,) = script.turns
    assert turn.prompt is not None and turn.prompt.text == "Now run it"
    assert turn.origin_ms == 200 and turn.beats[0].kind == "think"


def test_turns_of_the_capabilities_example() -> None:
    script = script_of(load_scenario(EXAMPLES / "acp-capabilities.yaml"))
    first, second = script.turns
    assert script.session_id == "acp-caps-1"
    assert first.expected == {"sessionId": "acp-caps-1", "stopReason": "end_turn",
                              "usage": {"inputTokens": 12, "outputTokens": 34}}
    assert [b.kind for b in first.beats] == ["agentFileReads", "agentPermissionRequest",
                                             "assistant"]
    assert second.cancels and second.origin_ms == 400
    assert second.expected == {"stopReason": "cancelled"}


def test_a_live_lead_in_joins_the_first_turn() -> None:
    scenario = load_scenario_text("""\
name: t
acp: {capabilities: {loadSession: true}}
timeline:
  - userInputs: [[0, old]]
  - sessionStart: {sessionId: s1}
  - llmResponse: [{assistant: [[10, lead-in]]}]
  - userInputs: [[500, next]]
  - llmResponse: [{assistant: [[10, answer]]}]
""")
    (turn,) = script_of(scenario).turns
    assert turn.prompt is not None and turn.prompt.text == "next"
    assert [b.step.text for b in turn.beats] == ["lead-in", "answer"] and turn.origin_ms == 0
    no_prompt = load_scenario_text("""\
name: t
acp: {capabilities: {loadSession: true}}
timeline:
  - userInputs: [[0, old]]
  - sessionStart
  - llmResponse: [{assistant: [[10, lead-in]]}]
""")
    (turn,) = script_of(no_prompt).turns
    assert turn.prompt is None and [b.step.text for b in turn.beats] == ["lead-in"]


def test_a_scripted_error_ends_its_prompt_and_the_rest_is_a_retry() -> None:
    scenario = load_scenario_text("""\
name: t
timeline:
  - userInputs:
      - relativeTime: 0
        input: go
        expectedResponse: {stopReason: max_tokens}
  - llmResponse: [{error: {errorType: overloaded_error, statusCode: 529, message: busy}}]
  - llmResponse: [{assistant: [[40, done]]}]
  - userInputs: [[100, again]]
  - llmResponse: [{error: {errorType: api_error, message: down}}]
""")
    script = script_of(scenario)
    shape = [(t.prompt.text if t.prompt else None, t.retry, t.fails, [b.kind for b in t.beats])
             for t in script.turns]
    assert shape == [("go", False, True, ["error"]), ("go", True, False, ["assistant"]),
                     ("again", False, True, ["error"])]
    assert script.turns[1].origin_ms == script.turns[0].beats[-1].at_ms
    # the prompt's expected answer is the retry's: the error part answers an error
    assert [t.expected for t in script.turns[:2]] == [None, {"stopReason": "max_tokens"}]
    steps = client_steps(script)
    assert [(st.kind, st.turn.retry if st.turn else None) for st in steps] == [
        ("prompt", False), ("prompt", True), ("prompt", False)]


def test_differences_read_the_expectation_as_a_subset() -> None:
    assert differences({"a": {"b": 1}}, {"a": {"b": 1, "c": 2}, "d": 3}) == []
    assert differences({"a": {"b": 1}}, {"a": {"b": 2}}) == ["a.b: expected 1, got 2"]
    assert differences({"x": [1, 2]}, {"x": [1]}) == ["x: expected [1, 2], got [1]"]
    assert differences({"stopReason": "completed"}, {"stopReason": "end_turn"}) == []
    assert differences({"k": True}, {"k": 1}) == ["k: expected True, got 1"]
    assert differences({"k": 1}, {}) == ["k: missing (expected 1)"]
    assert overlay({"a": {"b": 1}}, {"a": {"c": 2}}) == {"a": {"b": 1, "c": 2}}


def test_absolute_paths() -> None:
    assert absolute("a/../b.txt", "/w") == "/w/b.txt"
    assert absolute("/x/y", "/w") == "/x/y"
