"""Faults in a scenario: read in both places, each key checked against its kind, located
errors, the schema agreeing with the loader, and the beat the compiler places."""

from __future__ import annotations

from typing import Any

import jsonschema
import pytest
import yaml
from scenario_testutil import errors, load, one_error, timeline

from scenarist.scenario import (
    AssistantBeat,
    Fault,
    FaultBeat,
    FaultEvent,
    LlmResponse,
    ScenarioError,
    compile_timeline,
)
from scenarist.scenario.schema import scenario_schema

RESPONSE = """\
- userInputs: [[0, "go"]]
- llmResponse:
    - assistant: [[100, "one"]]
    - fault: {kind: disconnect, times: 2}
    - assistant: [[50, "two"]]
"""


def test_a_fault_in_a_response_strikes_after_the_steps_before_it() -> None:
    scenario = load(timeline(RESPONSE), strict=True)
    response = scenario.timeline[1]
    assert isinstance(response, LlmResponse)
    assert response.fault == Fault("disconnect", times=2, line=6, col=16)
    assert response.fault_at == 1 and len(response.steps) == 2
    assert response.text == "onetwo"  # the steps keep only think/assistant/error
    beats = [b for b in compile_timeline(scenario).beats if b.index == 1]
    assert [(type(b), b.at_ms) for b in beats] == [
        (AssistantBeat, 100), (FaultBeat, 100), (AssistantBeat, 150)]
    assert beats[1].step is response.fault and beats[1].event is response


@pytest.mark.parametrize(("where", "at", "time"), [("first", 0, 0), ("last", 2, 150)])
def test_a_fault_first_or_last_in_its_response(where: str, at: int, time: int) -> None:
    fault = '- fault: {kind: truncate}\n'
    steps = '- assistant: [[100, "one"]]\n- assistant: [[50, "two"]]\n'
    body = fault + steps if where == "first" else steps + fault
    text = '- userInputs: [[0, "go"]]\n- llmResponse:\n' + "".join(
        f"    {line}\n" for line in body.splitlines())
    scenario = load(timeline(text), strict=True)
    response = scenario.timeline[1]
    assert isinstance(response, LlmResponse) and response.fault_at == at
    kinds = [b.kind for b in compile_timeline(scenario).beats if b.index == 1]
    assert kinds == (["fault", "assistant", "assistant"] if where == "first"
                     else ["assistant", "assistant", "fault"])
    assert next(b for b in compile_timeline(scenario).beats if b.kind == "fault").at_ms == time


def test_the_mapping_form_places_the_fault_by_key_order() -> None:
    scenario = load(timeline("""\
        - llmResponse: {think: [[10, "hm"]], fault: {kind: stall, ms: 200}, assistant: [[0, "x"]]}
        """), strict=True)
    response = scenario.timeline[0]
    assert isinstance(response, LlmResponse) and response.fault is not None
    assert (response.fault.kind, response.fault.ms, response.fault_at) == ("stall", 200, 1)


def test_timeline_faults_and_their_keys() -> None:
    scenario = load(timeline("""\
        - userInputs: [[300, "go"]]
        - fault: {kind: exit, code: 137}
        - fault: {kind: exit, signal: SIGKILL}
        - fault: {kind: stderr, text: "warning: disk almost full"}
        - fault: {kind: fragment, bytes: 3}
        - fault: {kind: httpStatus, statusCode: 529, message: Overloaded, retryAfterSeconds: 2}
        - fault: {kind: malformed, afterBytes: 7, text: "{oops"}
        - fault: {kind: stall, ms: 50, then: close, afterEvents: 2}
        """), strict=True)
    faults = [e.fault for e in scenario.timeline if isinstance(e, FaultEvent)]
    assert [(f.kind, f.exit_code, f.signal) for f in faults[:2]] == [
        ("exit", 137, None), ("exit", None, "SIGKILL")]
    assert faults[2].text == "warning: disk almost full" and faults[3].chunk_bytes == 3
    assert (faults[4].status_code, faults[4].message, faults[4].retry_after_seconds) == (
        529, "Overloaded", 2.0)
    assert (faults[5].after_bytes, faults[5].text) == (7, "{oops")
    assert (faults[6].ms, faults[6].then, faults[6].after_events) == (50, "close", 2)
    assert Fault("exit").exit_code == 1 and (faults[0].line, faults[0].col) == (4, 12)
    # a fault event waits for the prompts written above it, like an agent event
    beats = compile_timeline(scenario).beats
    assert [b.at_ms for b in beats if isinstance(b, FaultBeat)] == [300] * 7


@pytest.mark.parametrize(("fault", "needle", "hint"), [
    ("{kind: stall, ms: 10, code: 3}", "'code' is not a key of stall faults",
     "'code' is for exit faults"),
    ("{kind: disconnect, text: x}", "'text' is not a key of disconnect faults",
     "'text' is for stderr or malformed faults"),
    ("{kind: slowFirstByte, ms: 5, afterEvents: 1}",
     "'afterEvents' is not a key of slowFirstByte faults", "disconnect, truncate"),
    ("{kind: exit, bytes: 2}", "'bytes' is not a key of exit faults", "fragment"),
])
def test_a_key_of_another_kind_names_the_kinds_it_belongs_to(fault: str, needle: str,
                                                             hint: str) -> None:
    issue = one_error(timeline(f"- fault: {fault}\n"), needle)
    assert hint in issue.hint and issue.line == 3 and issue.path.startswith("timeline[0].fault.")


@pytest.mark.parametrize(("fault", "needle"), [
    ("{}", "a fault needs a 'kind'"),
    ("{kind: explode}", "'kind' must be one of disconnect, truncate"),
    ("{kind: stall}", "missing required key 'ms'"),
    ("{kind: slowFirstByte, ms: -1}", "'ms' must be >= 0"),
    ("{kind: stderr}", "missing required key 'text'"),
    ("{kind: stall, ms: 1, then: later}", "'then' must be one of continue, close"),
    ("{kind: httpStatus, statusCode: 200}", "statusCode 200 is not an HTTP error status"),
    ("{kind: httpStatus, retryAfterSeconds: -1}", "retryAfterSeconds must be >= 0"),
    ("{kind: exit, code: 300}", "exit code 300 is outside 0..255"),
    ("{kind: exit, code: 1, signal: SIGKILL}", "a code or a signal, not both"),
    ("{kind: exit, signal: KILL}", "'signal' must be one of SIGHUP"),
    ("{kind: fragment, bytes: 0}", "'bytes' must be >= 1"),
    ("{kind: disconnect, times: 0}", "'times' must be >= 1"),
    ("{kind: disconnect, afterEvents: 1, afterBytes: 2}", "afterEvents or afterBytes, not both"),
    ("{kind: truncate, afterEvents: many}", "expected a whole number"),
    ("disconnect", "expected a mapping with a kind"),
])
def test_bad_faults_are_located_errors(fault: str, needle: str) -> None:
    issue = one_error(timeline(f"- fault: {fault}\n"), needle)
    assert issue.line == 3 and issue.path.startswith("timeline[0].fault")


def test_two_faults_in_one_response_is_an_error_at_the_second() -> None:
    issue = one_error(timeline("""\
        - llmResponse:
            - fault: {kind: disconnect}
            - assistant: [[0, "x"]]
            - fault: {kind: truncate}
        """), "at most one fault")
    assert (issue.line, issue.path) == (6, "timeline[0].llmResponse[2].fault")
    assert "timeline[0].llmResponse[0].fault" in issue.message


def test_a_response_of_only_a_fault_has_nothing_to_deliver() -> None:
    one_error(timeline("- llmResponse:\n    - fault: {kind: disconnect}\n"),
              "has no think, assistant or error steps")


def test_an_unknown_key_in_a_fault_warns_and_fails_under_strict() -> None:
    text = timeline("- fault: {kind: disconnect, afterEvent: 3}\n")
    scenario = load(text)
    assert [w.message for w in scenario.warnings] == [
        "unknown key 'afterEvent' in a fault is ignored"]
    with pytest.raises(ScenarioError):
        load(text, strict=True)


def test_a_fault_in_user_actions_is_warned_as_an_agent_event() -> None:
    scenario = load(timeline("- userActions:\n    - fault: {kind: stderr, text: x}\n"))
    assert any("'fault' inside 'userActions'" in w.message for w in scenario.warnings)


# -- the schema says what the loader says ------------------------------------------------------

GOOD = ["{kind: disconnect}", "{kind: stall, ms: 5, then: close, afterBytes: 3}",
        "{kind: exit, signal: SIGTERM}", "{kind: httpStatus, statusCode: 529, times: 3}",
        "{kind: stderr, text: hi}", "{kind: fragment, bytes: 2}", "{kind: malformed, text: '{'}"]
BAD = ["{}", "{kind: stall}", "{kind: stall, ms: 1, code: 2}", "{kind: exit, code: 1, "
       "signal: SIGKILL}", "{kind: disconnect, afterEvents: 1, afterBytes: 1}",
       "{kind: stderr}", "{kind: slowFirstByte, ms: 1, afterEvents: 0}", "{kind: boom}"]


def _valid(text: str) -> bool:
    data: Any = yaml.safe_load(text)
    try:
        jsonschema.validate(data, scenario_schema())
    except jsonschema.ValidationError:
        return False
    return True


@pytest.mark.parametrize("fault", GOOD + BAD)
def test_schema_and_loader_agree_on_a_fault(fault: str) -> None:
    for text in (timeline(f"- fault: {fault}\n"),
                 timeline(f"- llmResponse:\n    - assistant: [[0, x]]\n    - fault: {fault}\n")):
        loads = True
        try:
            load(text, strict=True)
        except ScenarioError:
            loads = False
        assert loads == (fault in GOOD) == _valid(text), (fault, text)


def test_errors_of_every_bad_fault_are_reported_together() -> None:
    body = "".join(f"- fault: {f}\n" for f in BAD)
    assert {i.line for i in errors(timeline(body))} == set(range(3, 3 + len(BAD)))
