"""Compiling to a Timeline: the timing rules of docs/timing.md, partition, ordering."""

from __future__ import annotations

import pytest
from scenario_testutil import load, one_error, timeline

from scenarist.scenario import Beat, Timeline, compile_timeline
from scenarist.scenario.record import FrozenRecordError, replace


def beats(body: str, header: str = "name: t\n") -> list[tuple[int, str]]:
    return [(b.at_ms, b.kind) for b in compile_timeline(load(timeline(body, header))).beats]


def test_step_times_are_deltas_that_consume_time() -> None:
    assert beats("""
        - llmResponse:
            - think: [[2000, a], [1500, b]]
            - assistant: [[500, c]]
        - llmResponse:
            - assistant: [[100, d]]
    """) == [(2000, "think"), (3500, "think"), (4000, "assistant"), (4100, "assistant")]


def test_tool_use_progress_execution_and_result() -> None:
    got = beats("""
        - llmResponse: [{assistant: [[100, go]]}]
        - runCmd:
            cmd: x
            progress: [[300, started], [100, done]]
            toolExecution:
              startTimeMs: 50
              events:
                - {type: stdout, timeMs: 10, content: a}
                - {type: completion, timeMs: 900, exitCode: 0}
        - agentEdits: {path: a}
    """)
    assert got == [(100, "assistant"), (100, "agentToolUse"), (160, "toolExecution"),
                   (400, "progress"), (500, "progress"), (1050, "toolExecution"),
                   (1050, "toolResult"), (1050, "agentEdits")]


def test_decreasing_tool_execution_times_rejected() -> None:
    issue = one_error(timeline("""
        - runCmd:
            cmd: x
            toolExecution: {events: [{type: stdout, timeMs: 50}, {type: stdout, timeMs: 10}]}
    """), "must not decrease")
    assert issue.line == 6 and issue.path == "timeline[0].runCmd.toolExecution.events"


def test_base_time_delta_and_alias_advance_the_cursor() -> None:
    assert beats("- log: a\n- baseTimeDelta: 100\n- log: b\n- advanceMs: 50\n- status: c\n") == [
        (0, "log"), (100, "log"), (150, "status")]


def test_user_inputs_are_absolute_and_concurrent_with_agent_events() -> None:
    got = beats("""
        - llmResponse: [{think: [[1000, a]]}]
        - userInputs: [[400, "q"]]
        - log: after
    """)
    assert got == [(400, "userInputs"), (1000, "think"), (1000, "log")]


def test_agent_events_wait_for_the_prompt_above_them() -> None:
    assert beats("- userInputs: [[500, hi]]\n- llmResponse: [{assistant: [[10, a]]}]\n") == [
        (500, "userInputs"), (510, "assistant")]


def test_cancel_comes_after_the_prompt_it_cancels() -> None:
    assert beats("- userInputs: [[1000, go]]\n- userCancelSession\n") == [
        (1000, "userInputs"), (1000, "userCancelSession")]
    assert beats("""
        - userInputs: [[0, a]]
        - llmResponse: [{assistant: [[300, x]]}]
        - userInputs: [[100, b]]
        - userCancelSession
    """) == [(0, "userInputs"), (100, "userInputs"), (300, "assistant"), (300, "userCancelSession")]


def test_user_inputs_must_not_go_back() -> None:
    issue = one_error(timeline("- userInputs: [[100, a], [50, b]]\n"), "earlier than the previous input")
    assert issue.path == "timeline[0].userInputs[1].relativeTime" and issue.line == 3
    issue = one_error(timeline("- baseTimeDelta: 100\n- userInputs: [[50, a]]\n"), "earlier than the timeline position")
    assert "relativeTime >= 100" in issue.hint


def test_base_time_delta_must_cover_concurrent_activity() -> None:
    issue = one_error(timeline("- userInputs: [[500, a]]\n- baseTimeDelta: 200\n"), "still scheduled at 500")
    assert issue.hint == "use baseTimeDelta >= 500" and issue.path == "timeline[1].baseTimeDelta"
    assert beats("- userInputs: [[500, a]]\n- baseTimeDelta: 500\n- log: x\n")[-1] == (500, "log")


def test_timing_errors_name_items_as_written_not_flattened_positions() -> None:
    text = timeline("""
        - agentActions: [{log: a}, {log: b}, {log: c}]
        - userActions:
            - userInputs: [[5000, hi]]
            - baseTimeDelta: 100
            - userInputs: [[50, hi]]
        """)
    cover = one_error(text, "still scheduled at 5000")
    assert "but timeline[1].userActions[0].userInputs (line 6, col 9) is still" in cover.message
    early = one_error(text, "earlier than the timeline position")
    assert "set by timeline[1].userActions[1].baseTimeDelta (line 7, col 9)" in early.message
    assert "timeline[4]" not in cover.message + early.message  # the flattened index


def test_session_start_partitions_history_and_live() -> None:
    s = load(timeline("""
        - userInputs: [[0, old]]
        - llmResponse: [{assistant: [[100, old answer]]}]
        - sessionStart
        - userInputs: [[300, new]]
        - llmResponse: [{assistant: [[100, new answer]]}]
    """, "name: t\nacp: {capabilities: {loadSession: true}}\n"))
    t = compile_timeline(s)
    assert [b.kind for b in t.historical] == ["userInputs", "assistant"]
    assert [b.kind for b in t.live] == ["sessionStart", "userInputs", "assistant"]
    assert all(not b.live for b in t.historical) and t.session_start_index == 2
    assert t.initial_prompt == "new" and t.duration_ms == 400


def test_session_start_waits_for_pending_inputs() -> None:
    header = "name: t\nacp: {capabilities: {loadSession: true}}\n"
    assert beats("- userInputs: [[700, a]]\n- sessionStart\n", header) == [(700, "userInputs"), (700, "sessionStart")]


def test_without_session_start_everything_is_live() -> None:
    t = compile_timeline(load(timeline("- log: a\n")))
    assert t.historical == () and len(t.live) == 1 and t.session_start_index is None


def test_beats_sorted_stably_and_immutable() -> None:
    t = compile_timeline(load(timeline("- log: a\n- log: b\n- status: c\n")))
    assert [b.event.index for b in t.beats] == [0, 1, 2]
    assert all(isinstance(b, Beat) for b in t.beats) and isinstance(t, Timeline)
    with pytest.raises(FrozenRecordError):
        t.beats[0].at_ms = 5  # type: ignore[misc]
    assert not hasattr(t.beats[0], "__dict__")  # slots


def test_step_payloads() -> None:
    t = compile_timeline(load(timeline("- llmResponse: [{think: [[1, x]]}, {error: {errorType: e}}]\n")))
    think, error = t.beats
    assert think.step.text == "x" and error.kind == "error" and error.step.error_type == "e"


def test_compile_is_cached_and_deterministic() -> None:
    text = timeline("- runCmd: {cmd: a, progress: [[5, p]]}\n")
    s = load(text)
    assert compile_timeline(s) is compile_timeline(s)
    assert compile_timeline(load(text)) == compile_timeline(replace(s, compiled=None))
