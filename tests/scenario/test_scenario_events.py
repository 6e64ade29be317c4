"""Every timeline event, its aliases and both step forms become the right typed event."""

from __future__ import annotations

from pathlib import Path

from scenario_testutil import EXAMPLES, errors, load, one_error, timeline

from scenarist.scenario import (
    AgentEdits,
    AgentFileReads,
    AgentPermissionRequest,
    AgentPlan,
    AgentToolUse,
    Assert,
    BaseTimeDelta,
    Complete,
    Initialize,
    LlmError,
    LlmResponse,
    Log,
    Merge,
    Screenshot,
    SessionStart,
    SetMode,
    Status,
    TextContent,
    UserCancelSession,
    UserCommand,
    UserEdits,
    UserInputs,
)


def test_llm_response_pair_and_object_forms_and_aliases() -> None:
    s = load(timeline("""
        - llmResponse:
            - think:
                - [500, "pair"]
                - {relativeTime: 200, content: "object"}
                - {timestamp: 100, text: "aliases"}
            - assistant:
                - [10, "hello"]
                - relativeTime: 20
                  content: {type: text, text: rich, annotations: {priority: 0.5}}
                  _meta: {k: v}
    """))
    event = s.timeline[0]
    assert isinstance(event, LlmResponse)
    assert event.thinking == ("pair", "object", "aliases")
    assert [st.delay_ms for st in event.steps] == [500, 200, 100, 10, 20]
    assert event.text == "hellorich"
    rich = event.steps[-1]
    assert isinstance(rich.content, TextContent) and rich.content.annotations is not None
    assert rich.content.annotations.priority == 0.5 and rich.meta == {"k": "v"}
    assert (event.index, event.key_path, event.line, event.col) == (0, "timeline[0].llmResponse", 4, 5)


def test_llm_response_mapping_form_with_meta_and_error() -> None:
    s = load(timeline("""
        - llmResponse:
            _meta: {response.model: m}
            assistant: [[100, "with metadata"]]
        - llmResponse:
            - error: {errorType: rate_limit_exceeded, statusCode: 429, message: slow, retryAfterSeconds: 2}
    """))
    first, second = s.timeline
    assert isinstance(first, LlmResponse) and first.meta == {"response.model": "m"}
    assert isinstance(second, LlmResponse) and isinstance(second.error, LlmError)
    assert (second.error.status_code, second.error.retry_after_seconds) == (429, 2.0)


def test_tool_specific_events_become_agent_tool_use() -> None:
    s = load(timeline("""
        - runCmd: {cmd: ls, cwd: ., progress: [[10, a]], result: out, status: ok}
        - agentActions:
            - grep: {pattern: x, path: .}
            - slashCommand: /compact
        - agentToolUse: {toolName: custom_mcp_tool, args: {q: 1}, toolCallId: given}
    """))
    run, grep, slash, custom = s.timeline
    assert isinstance(run, AgentToolUse) and run.tool_name == "runCmd" and run.source_key == "runCmd"
    assert dict(run.args) == {"cmd": "ls", "cwd": "."} and run.result == "out" and run.status == "ok"
    assert run.progress[0].message == "a" and run.tool_call_id == "call_0"
    assert isinstance(grep, AgentToolUse) and grep.tool_call_id == "call_1"
    assert grep.key_path == "timeline[1].agentActions[0].grep"
    assert isinstance(slash, AgentToolUse) and dict(slash.args) == {"command": "/compact"}
    assert isinstance(custom, AgentToolUse) and custom.tool_call_id == "given" and not s.warnings


def test_tool_call_ids_are_stable_across_loads() -> None:
    text = timeline("- runCmd: {cmd: a}\n- log: x\n- runCmd: {cmd: b}\n")
    ids = [[e.tool_call_id for e in load(text).timeline if isinstance(e, AgentToolUse)] for _ in range(2)]
    assert ids[0] == ids[1] == ["call_0", "call_2"]


def test_old_tool_spellings_are_read_with_warnings() -> None:
    s = load(timeline("""
        - agentToolUse: {toolName: run_command, args: {command: ls}}
        - agentToolUse: {toolName: writeFile, args: {path: a.txt, text: hi}}
    """))
    run, write = s.timeline
    assert isinstance(run, AgentToolUse) and run.tool_name == "runCmd" and dict(run.args) == {"cmd": "ls"}
    assert isinstance(write, AgentToolUse) and dict(write.args) == {"path": "a.txt", "content": "hi"}
    assert len(s.warnings) == 3


def test_tool_arguments_checked() -> None:
    issue = one_error(timeline("- editFile: {path: a.py, old_string: x}\n"), "needs argument 'new_string'")
    assert issue.path == "timeline[0].editFile"
    s = load(timeline("- readFile: {path: a, bogus: 1}\n"))
    assert "no argument 'bogus'" in s.warnings[0].message


def test_agent_events() -> None:
    s = load(timeline("""
        - agentEdits: {path: a.py, linesAdded: 2, linesRemoved: 1, oldText: "a", newText: "b"}
        - agentPlan: {entries: [{content: x, priority: high, status: in_progress}]}
        - setMode: {modeId: code}
        - agentFileReads: {files: [{path: /w/a.py, expectedContent: hi}]}
        - agentPermissionRequest:
            options: [{id: ok, label: OK, kind: allow_once}, {id: no, label: No, kind: reject_once}]
            granted: false
    """))
    edits, plan, mode, reads, perm = s.timeline
    assert isinstance(edits, AgentEdits) and (edits.old_text, edits.new_text, edits.lines_added) == ("a", "b", 2)
    assert isinstance(plan, AgentPlan) and plan.entries[0].status == "in_progress" and plan.plan_update
    assert isinstance(mode, SetMode) and mode.mode_id == "code"
    assert isinstance(reads, AgentFileReads) and reads.files[0].expected_content == "hi"
    assert isinstance(perm, AgentPermissionRequest)
    assert (perm.decision.outcome, perm.decision.option_id) == ("selected", "no")
    assert perm.tool_call["toolCallId"] == "call_4"


def test_user_events_and_targets() -> None:
    s = load(timeline("""
        - userInputs:
            - [0, "pair"]
            - relativeTime: 5
              input: [{type: text, text: a}, {type: text, text: b}]
              expectedResponse: {stopReason: end_turn}
              target: webui
          target: tui
        - userEdits: {patch: patches/readme-typo.patch}
        - userCommand: git status
        - userCancelSession
    """))
    inputs, edits, cmd, cancel = s.timeline
    assert isinstance(inputs, UserInputs)
    assert [(i.at_ms, i.text, i.target) for i in inputs.inputs] == [(0, "pair", "tui"), (5, "a\nb", "webui")]
    assert inputs.inputs[1].expected_response == {"stopReason": "end_turn"}
    assert isinstance(edits, UserEdits) and edits.patch_path == (EXAMPLES / "patches/readme-typo.patch").resolve()
    assert isinstance(cmd, UserCommand) and cmd.cmd == "git status"
    assert isinstance(cancel, UserCancelSession)


def test_control_events() -> None:
    s = load(timeline("""
        - initialize: {protocolVersion: 1, clientCapabilities: {terminal: true}, _meta: {x: 1}}
          expectedResponse: {protocolVersion: 1}
        - assert:
            fs: {exists: [a], notExists: [b]}
            text: {contains: [c]}
            json: {file: [{path: p.json, pointer: /a, equals: 1}]}
            git: {commit: {messageContains: fix}}
        - screenshot: shot
        - log: {message: hi, level: debug}
        - status: running
        - complete: true
        - merge: true
        - baseTimeDelta: 10
        - advanceMs: 20
    """))
    init, check, shot, log, status, complete, merge, d1, d2 = s.timeline
    assert isinstance(init, Initialize) and init.expected_response == {"protocolVersion": 1}
    assert init.meta == {"x": 1}
    assert isinstance(check, Assert) and check.json_file[0].equals == 1
    assert check.git_commit[0].message_contains == "fix"
    assert isinstance(shot, Screenshot) and shot.label == "shot"
    assert isinstance(log, Log) and log.level == "debug"
    assert isinstance(status, Status) and isinstance(complete, Complete) and isinstance(merge, Merge)
    assert isinstance(d1, BaseTimeDelta) and isinstance(d2, BaseTimeDelta) and d2.ms == 20


def test_session_start_bare_string_and_mapping() -> None:
    header = "name: t\nacp: {capabilities: {loadSession: true}}\n"
    bare = load(timeline("- log: a\n- sessionStart\n- log: b\n", header))
    assert isinstance(bare.timeline[1], SessionStart) and bare.session_start_index == 1
    full = load(timeline("- sessionStart: {sessionId: s1, expectedPromptResponse: {stopReason: end_turn}}\n",
                         header))
    start = full.timeline[0]
    assert isinstance(start, SessionStart) and start.session_id == "s1"


def test_effective_initial_prompt() -> None:
    header = "name: t\ninitialPrompt: legacy\nacp: {capabilities: {loadSession: true}}\n"
    s = load(timeline("- userInputs: [[0, before]]\n- sessionStart\n- userInputs: [[0, after]]\n", header))
    assert s.effective_initial_prompt == "after"
    s = load(timeline("- userInputs: [[0, first]]\n- userInputs: [[0, second]]\n"))
    assert s.effective_initial_prompt == "first"
    assert load("name: t\ninitialPrompt: legacy\ntimeline: []\n").effective_initial_prompt == "legacy"
    assert load("name: t\ntimeline: []\n").effective_initial_prompt is None


def test_legacy_shapes_rejected_with_the_supported_form() -> None:
    issue = one_error(timeline("- think: [[1, x]]\n"), "legacy")
    assert "llmResponse" in issue.hint and issue.line == 3
    issue = one_error(timeline("- {type: think, text: x}\n"), "type-tagged")
    assert "- think:" in issue.hint
    issue = one_error("name: t\nevents: []\n", "legacy")
    assert "timeline" in issue.hint
    issue = one_error(timeline("- llmResponse:\n    - assistant: [[1, a]]\n      agentToolUse: {toolName: x}\n"),
                      "inside llmResponse")
    assert "own timeline item" in issue.hint


def test_item_shape_errors() -> None:
    messages = [i.message for i in errors(timeline("""
        - log: a
          status: b
        - 42
        - runCmd
        - {}
    """))]
    assert any("one event" in m for m in messages)
    assert any("expected a timeline event" in m for m in messages)
    assert any("'runCmd' needs fields" in m for m in messages)
    assert any("empty timeline item" in m for m in messages)


def test_unknown_event_and_keys_are_warnings_or_strict_errors() -> None:
    text = timeline("- frobnicate: {path: x}\n- log: {message: a, colour: red}\n", "name: t\nextra: 1\n")
    s = load(text)
    assert sorted(w.path for w in s.warnings) == ["extra", "timeline[0].frobnicate", "timeline[1].log.colour"]
    assert len(errors(text, strict=True)) == 3


def test_media_paths_resolve_against_the_scenario_file(tmp_path: Path) -> None:
    text = timeline("""
        - llmResponse:
            - assistant:
                - [1, {type: image, mimeType: image/png, path: images/diagram.png}]
    """)
    event = load(text).timeline[0]
    assert isinstance(event, LlmResponse)
    block = event.assistant[0]
    assert block.path == (EXAMPLES / "images/diagram.png").resolve()
    assert block.base64_data().startswith("iVBORw0KGgo")
    issue = one_error(text, "not found", path=tmp_path / "elsewhere.yaml")
    assert "relative to the scenario file" in issue.hint


def test_empty_llm_response_and_reference_spellings_of_content_fields() -> None:
    one_error(timeline("- llmResponse: []\n"), "no think, assistant or error steps")
    issue = one_error(timeline("""
        - llmResponse:
            - assistant:
                - [1, {type: diff, path: rel.txt, new_text: x}]
    """), "must be absolute")
    assert issue.line == 6  # still points into the block after mime_type/new_text are read
