"""A replay that leaves its scenario is refused naming the first divergent step.

Over the official openai and anthropic SDKs: a tool result other than the scenario's
``result`` (or another status), another tool call, another prompt, a missing tool result and
a prompt no scenario matches each get a 409/404 whose message (what a person reads in the
SDK's exception) names the step, the scenario's file:line, the field and expected vs got,
with secrets masked; the journal holds the same as a structured ``divergence``. Real command
output (trailing newline, Codex's and Claude Code's wrapping) still matches.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anthropic
import openai
import pytest

from scenarist.llm.cli import load_scripts
from scenarist.llm.divergence import Divergence, carries, mask, result_matches
from scenarist.llm.script import EditAction, ToolAction

SCENARIO = """\
name: run_tests
tags: [divergence]
timeline:
  - userInputs:
      - [0, "Run the test suite"]
  - llmResponse:
      - assistant:
          - [0, "Running the tests."]
  - runCmd:
      cmd: "npm test"
      result: "all 3 tests passed"
      status: ok
  - llmResponse:
      - assistant:
          - [0, "All tests pass."]
  - userInputs:
      - [0, "Now build it"]
  - llmResponse:
      - assistant:
          - [0, "Built."]
"""
RUN_CMD_LINE = SCENARIO.splitlines().index("  - runCmd:") + 1
SECOND_PROMPT_LINE = SCENARIO.splitlines().index('      - [0, "Now build it"]') + 1
BASH = {"name": "Bash", "description": "Run a shell command",
        "input_schema": {"type": "object", "properties": {"command": {"type": "string"}},
                         "required": ["command"]}}
SHELL = {"type": "function", "function": {
    "name": "shell", "parameters": {"type": "object", "properties": {"cmd": {"type": "string"}},
                                    "required": ["cmd"]}}}


@pytest.fixture
def scenario(tmp_path: Path) -> Path:
    path = tmp_path / "run_tests.yaml"
    path.write_text(SCENARIO)
    return path


@pytest.fixture
def server(serve: Any, scenario: Path) -> Any:
    return serve(load_scripts([str(scenario)], []))


def _claude(server: Any) -> anthropic.Anthropic:
    return anthropic.Anthropic(base_url=server.url, api_key="sk-test", max_retries=0)


def _openai(server: Any) -> openai.OpenAI:
    return openai.OpenAI(base_url=f"{server.url}/v1", api_key="sk-test", max_retries=0)


def _claude_replay(client: anthropic.Anthropic, result: str, *, is_error: bool = False
                   ) -> Any:
    """The scenario's first turn, then its tool call answered with ``result``."""
    messages: list[Any] = [{"role": "user", "content": "Run the test suite"}]
    first = client.messages.create(model="m", max_tokens=100, tools=[BASH], messages=messages)
    call = next(b for b in first.content if b.type == "tool_use")
    assert call.name == "Bash" and call.input == {"command": "npm test"}
    messages += [{"role": "assistant", "content": first.content},
                 {"role": "user", "content": [{"type": "tool_result", "tool_use_id": call.id,
                                               "content": result, "is_error": is_error}]}]
    return client.messages.create(model="m", max_tokens=100, tools=[BASH], messages=messages)


def _chat_history(client: openai.OpenAI) -> tuple[list[Any], Any]:
    messages: list[Any] = [{"role": "user", "content": "Run the test suite"}]
    first = client.chat.completions.create(model="m", messages=messages, tools=[SHELL])
    message = first.choices[0].message
    assert message.tool_calls and message.tool_calls[0].function.name == "shell"
    messages.append(message.model_dump(exclude_none=True))
    return messages, message.tool_calls[0]


def test_a_changed_tool_result_is_refused_naming_the_step_and_field(
        server: Any, scenario: Path) -> None:
    with pytest.raises(anthropic.ConflictError) as refused:
        _claude_replay(_claude(server), "2 of 3 tests failed\n")
    message = refused.value.message
    assert "turn 0, call 1 of 1: runCmd 'npm test'" in message
    assert f"{scenario}:{RUN_CMD_LINE}" in message
    assert "tool result of runCmd 'npm test'" in message
    assert "expected 'all 3 tests passed', got '2 of 3 tests failed'" in message
    assert "first difference at line 1, column 1" in message
    entry = server.journal[-1]
    assert entry["status"] == 409
    assert entry["divergence"] == {
        "scenario": "run_tests", "step": "turn 0, call 1 of 1: runCmd 'npm test'",
        "where": f"{scenario}:{RUN_CMD_LINE}", "field": "tool result of runCmd 'npm test'",
        "expected": "all 3 tests passed", "got": "2 of 3 tests failed",
        "first_difference": "line 1, column 1"}


def test_real_output_matches_the_scenario_result(server: Any) -> None:
    # Claude Code's Bash result: the output as printed, trailing newline and spaces
    answer = _claude_replay(_claude(server), "all 3 tests passed  \n\n")
    assert answer.content[0].type == "text" and answer.content[0].text == "All tests pass."
    # Codex's exec_command wrapping around the same output
    client = _openai(server)
    messages, call = _chat_history(client)
    messages.append({"role": "tool", "tool_call_id": call.id,
                     "content": "Chunk ID: 1a2b\nWall time: 0.2 seconds\nProcess exited with "
                                "code 0\nOriginal token count: 4\nOutput:\nall 3 tests passed\n"})
    done = client.chat.completions.create(model="m", messages=messages, tools=[SHELL])
    assert done.choices[0].message.content == "All tests pass."


def test_another_status_is_refused(server: Any) -> None:
    with pytest.raises(anthropic.ConflictError) as refused:
        _claude_replay(_claude(server), "all 3 tests passed", is_error=True)
    assert "tool status of runCmd 'npm test': expected 'a success (status: ok)', " \
           "got 'a failure'" in refused.value.message
    client = _openai(server)
    messages, call = _chat_history(client)
    messages.append({"role": "tool", "tool_call_id": call.id,
                     "content": "Process exited with code 1\nOutput:\nall 3 tests passed\n"})
    with pytest.raises(openai.ConflictError) as chat_refused:
        client.chat.completions.create(model="m", messages=messages, tools=[SHELL])
    assert "tool status of runCmd 'npm test'" in chat_refused.value.message
    assert server.journal[-1]["divergence"]["field"] == "tool status of runCmd 'npm test'"


def test_secrets_in_a_divergent_result_are_masked(server: Any) -> None:
    leaked = ("Authorization: Bearer abc.def-123\nOPENAI_API_KEY=sk-proj-0123456789abcdef\n"
              "using sk-ant-api03-ZYXWVUTSRQ\n")
    with pytest.raises(anthropic.ConflictError) as refused:
        _claude_replay(_claude(server), leaked)
    shown = refused.value.message + repr(server.journal[-1])
    for secret in ("abc.def-123", "0123456789abcdef", "ZYXWVUTSRQ"):
        assert secret not in shown
    assert "Authorization: Bearer ****" in server.journal[-1]["divergence"]["got"]


def test_another_tool_call_is_refused(server: Any) -> None:
    client = _openai(server)
    history: list[Any] = [
        {"type": "message", "role": "user", "content": "Run the test suite"},
        {"type": "function_call", "call_id": "c1", "name": "write_file",
         "arguments": '{"path": "a.txt", "content": "x"}'},
        {"type": "function_call_output", "call_id": "c1", "output": "written"},
    ]
    write = {"type": "function", "name": "write_file", "parameters": {
        "type": "object", "properties": {"path": {"type": "string"},
                                         "content": {"type": "string"}}}}
    with pytest.raises(openai.ConflictError) as refused:
        client.responses.create(model="m", input=history, tools=[write, {
            "type": "function", "name": "shell", "parameters": SHELL["function"]["parameters"]}])
    message = refused.value.message
    assert "tool call name: expected \"runCmd 'npm test'\", got 'write_file'" in message
    assert "turn 0, call 1 of 1: runCmd 'npm test'" in message
    assert server.journal[-1]["divergence"]["field"] == "tool call name"


def test_a_missing_tool_result_is_refused(server: Any) -> None:
    client = _openai(server)
    messages, _call = _chat_history(client)  # the call, and no tool message after it
    with pytest.raises(openai.ConflictError) as refused:
        client.chat.completions.create(model="m", messages=messages, tools=[SHELL])
    assert ("tool result of runCmd 'npm test': expected 'a tool result for the call', "
            "got 'no tool result in the request'") in refused.value.message


def test_another_prompt_is_refused_naming_the_user_input(server: Any, scenario: Path) -> None:
    client = _openai(server)
    messages, call = _chat_history(client)
    messages += [{"role": "tool", "tool_call_id": call.id, "content": "all 3 tests passed"},
                 {"role": "assistant", "content": "All tests pass."},
                 {"role": "user", "content": "Deploy it to production"}]
    with pytest.raises(openai.ConflictError) as refused:
        client.chat.completions.create(model="m", messages=messages, tools=[SHELL])
    message = refused.value.message
    assert f"at user prompt 2 ({scenario}:{SECOND_PROMPT_LINE}): prompt: " \
           "expected 'Now build it', got 'Deploy it to production'" in message
    assert server.journal[-1]["divergence"]["where"] == f"{scenario}:{SECOND_PROMPT_LINE}"


def test_no_scenario_names_the_nearest_candidates(server: Any) -> None:
    with pytest.raises(anthropic.NotFoundError) as refused:
        _claude(server).messages.create(model="m", max_tokens=10, tools=[BASH], messages=[
            {"role": "user", "content": "Deploy the website"}])
    message = refused.value.message
    assert "nearest: 'run_tests' at distance" in message
    assert "prompt: expected 'Run the test suite', got 'Deploy the website'" in message
    divergence = server.journal[-1]["divergence"]
    assert divergence["nearest"][0]["scenario"] == "run_tests"
    assert divergence["step"] == "the first user prompt (selection)"


# -- the rules, pure ---------------------------------------------------------------------------


def test_long_values_are_cut_around_the_first_difference() -> None:
    expected = "x" * 500 + "needle" + "y" * 500
    got = "x" * 500 + "thread" + "y" * 500
    shown_expected, shown_got, at = Divergence("s", "turn 0", "f:1", "result", expected,
                                               got).shown()
    assert at == "line 1, column 501"
    assert "needle" in shown_expected and "thread" in shown_got
    assert len(shown_expected) < 100 and shown_expected.startswith("…")
    assert shown_expected.endswith("…")


def test_masking() -> None:
    assert mask("x-api-key: abc123 and api_key=\"zzz\"") == "x-api-key: **** and api_key=\"****\""
    assert mask("key sk-abcdefghijkl end") == "key **** end"
    assert mask("Authorization: Basic dXNlcg==") == "Authorization: Basic ****"
    assert mask("nothing secret here") == "nothing secret here"


def test_result_matching_forgives_wrapping_not_content() -> None:
    assert result_matches("a\nb", "Output:\na  \nb\r\n\n")
    assert result_matches("hello", "     1\thello\n")  # Claude Code's Read: numbered lines
    assert result_matches("2", "Process exited with code 0\nOutput:\n2\n")
    assert not result_matches("2", "Process exited with code 0\nOutput:\n12\n")
    assert not result_matches("a\nb", "a\nc\nb")


def test_which_call_names_carry_an_action() -> None:
    run = ToolAction("runCmd", {"cmd": "ls"})
    for name in ("Bash", "exec_command", "shell", "run_terminal_cmd", "exec", "runCmd"):
        assert carries(run, name), name
    assert not carries(run, "write_file") and not carries(run, "Read")
    edit = EditAction("a.txt")
    assert carries(edit, "Edit") and carries(edit, "apply_patch") and carries(edit, "Write")
    assert not carries(edit, "WebSearch")
    assert carries(ToolAction("listDir", {"path": "."}), "Glob")
    assert carries(ToolAction("Weather", {"city": "Lyon"}), "PartialWeather")


def test_an_unanswered_call_is_refused_where_the_scenario_states_no_result(
        serve: Any, tmp_path: Path) -> None:
    plain = tmp_path / "plain.yaml"
    plain.write_text(SCENARIO.replace('      result: "all 3 tests passed"\n      status: ok\n',
                                      ""))
    server = serve(load_scripts([str(plain)], []))
    client = _openai(server)
    shell = {"type": "function", "name": "shell", "parameters": SHELL["function"]["parameters"]}
    first = client.responses.create(model="m", input="Run the test suite", tools=[shell])
    call = next(item for item in first.output if item.type == "function_call")
    history: list[Any] = [{"type": "message", "role": "user", "content": "Run the test suite"},
                          *[item.model_dump(exclude_none=True) for item in first.output]]
    with pytest.raises(openai.ConflictError) as refused:
        client.responses.create(model="m", input=history, tools=[shell])
    assert "no tool result in the request" in refused.value.message
    history.append({"type": "function_call_output", "call_id": call.call_id,
                    "output": "anything at all"})  # no result stated: any output goes
    done = client.responses.create(model="m", input=history, tools=[shell])
    assert done.output_text == "All tests pass."
    assert [e["status"] for e in server.journal] == [200, 409, 200]
