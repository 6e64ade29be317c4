"""Codex's code mode: its default model acts only through the JavaScript ``exec`` tool.

The nested tools' TypeScript declarations are those of Codex 0.171.0 (its ``additional_tools``
input item, captured: ``requests/codex_0.171.0_additional_tools.json``). The JavaScript of a
cell is run by Node itself here, and by the real, pinned Codex CLI in the ``real_agent`` tier
(its default model through a custom provider and through ``openai_base_url``; ``gpt-5.5``,
which still gets ``exec_command``/``apply_patch`` as plain tools; Claude Code alongside).
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any, Literal

import openai
import pytest
from llm_agents import SCENARIOS, claude, codex, dirs, jsonl

from scenarist.llm.code_mode import (
    cell_error,
    cell_source,
    nested_tools,
    output_text,
    running_cell,
)
from scenarist.llm.conversation import read_request
from scenarist.llm.process import run_server

REPO = Path(__file__).resolve().parents[2]
TOOLS_ITEM = json.loads(
    (Path(__file__).parent / "requests" / "codex_0.171.0_additional_tools.json").read_text())
EXEC_DESCRIPTION = next(t["description"] for ns in TOOLS_ITEM["tools"] for t in ns["tools"]
                        if t["name"] == "exec")
HELLO = REPO / "examples" / "hello-codex.yaml"
HELLO_PROMPT = "Create hello.py that prints a greeting, then run it"
TODO_AFTER = "# Todo\n- greet\n- wave back\n- smile\n"


def test_the_nested_tools_are_read_from_execs_typescript() -> None:
    tools = {t.name: t for t in nested_tools(EXEC_DESCRIPTION)}
    assert tools["apply_patch"].freeform
    shell = tools["exec_command"]
    assert not shell.freeform and shell.required == ("cmd",)
    assert ("workdir", "string") in shell.params and ("tty", "boolean") in shell.params
    assert ("prefix_rule", "array") in shell.params  # Array<string>
    assert tools["write_stdin"].required == ("session_id",)
    assert tools["get_goal"].params == ()  # `args: {}`
    assert "clock__curr_time" in tools  # a namespaced tool, as its JavaScript name
    assert "exec" not in tools and "wait" not in tools  # the outer tools are not nested


def test_hostile_declarations_are_read_in_one_pass() -> None:
    """Bodies that never close, or that hold other declarations, are each read once: 20,000
    headers in 1 MB parse in one pass (quadratically they would take minutes)."""
    header = "declare const tools: { t(args: {\n  a: string;\n"
    unclosed = nested_tools(header * 20_000)
    assert [t.name for t in unclosed] == ["t"]  # the first body never closes: nothing after
    nested = nested_tools(header * 20_000 + "\n}): Promise<unknown>; };" + header)
    assert [(t.name, t.params) for t in nested] == [("t", (("a", "string"),)), ("t", ())]


def test_a_code_mode_request_is_read_as_codex_with_its_cell_state() -> None:
    history = [
        TOOLS_ITEM,
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "go"}]},
        {"type": "custom_tool_call", "call_id": "c1", "name": "exec", "input": "x"},
        {"type": "custom_tool_call_output", "call_id": "c1",
         "output": "Script running with cell ID 4\nWall time 1.0 seconds\nOutput:\n"},
        {"type": "function_call", "call_id": "c2", "name": "wait",
         "arguments": '{"cell_id": "4"}'},
        {"type": "function_call_output", "call_id": "c2",
         "output": [{"type": "input_text", "text": "Script running with cell ID 4\n"}]},
    ]
    conv = read_request("responses", {"model": "m", "input": history})
    assert conv.code_cell is not None and conv.running_cell == "4" and conv.waits == 1
    # the wait is no call of the scenario's: one call, one result
    assert (conv.tool_calls, conv.tool_results, [m.name for m in conv.marks]) == (1, 1, ["exec"])
    done = {"type": "function_call_output", "call_id": "c2", "output": "Script completed\n"}
    assert read_request("responses", {"model": "m", "input": [*history[:-1], done]}
                        ).running_cell is None
    failed = {"type": "function_call_output", "call_id": "c2",
              "output": "Script failed\nWall time 0.1 seconds\nOutput:\nScript error:\nboom"}
    conv = read_request("responses", {"model": "m", "input": [*history[:-1], failed]})
    assert (conv.running_cell, conv.cell_error) == (None, "boom")


TRICKY = [
    'say "hi" and \\n not a newline',
    "line one\nline two\r\n\ttab",
    "unicode: é ü 日本 \u2028 \u2029 emoji 🙂",
    "template ${not} `backticks` </script> // comment /* c */",
    "*** Begin Patch\n*** Add File: a.txt\n+it's \"quoted\"\n*** End Patch\n",
]


@pytest.mark.skipif(shutil.which("node") is None, reason="needs Node to run the JavaScript")
def test_cell_sources_are_javascript_that_passes_arguments_exactly(tmp_path: Path) -> None:
    """Each cell, run by Node with a ``tools`` object that records what it is given,
    passes the scenario's text through unchanged (freeform and object arguments)."""
    cells = [cell_source("apply_patch", text, True) for text in TRICKY]
    cells += [cell_source("exec_command", json.dumps({"cmd": text}, ensure_ascii=False), False)
              for text in TRICKY]
    cells.append(cell_source("clock__curr_time", "{}", False, yield_ms=1000))
    harness = tmp_path / "run.mjs"
    harness.write_text(
        "const seen = [];\n"
        "const tools = new Proxy({}, {get: (_, name) => async (arg) => {"
        " seen.push([name, arg]); return {output: 'ok'}; }});\n"
        "const text = () => {};\n"
        + "".join(f"await (async () => {{\n{c}}})();\n" for c in cells)
        + "console.log(JSON.stringify(seen));\n")
    out = subprocess.run(["node", str(harness)], capture_output=True, text=True, timeout=30,
                         check=True).stdout
    seen = json.loads(out)
    expected = ([["apply_patch", t] for t in TRICKY]
                + [["exec_command", {"cmd": t}] for t in TRICKY] + [["clock__curr_time", {}]])
    assert seen == expected
    assert cells[-1].startswith('// @exec: {"yield_time_ms": 1000}\n')


def test_a_cells_state_is_read_from_its_output() -> None:
    parts = [{"type": "input_text", "text": "Script failed\nWall time 0.0 seconds\nOutput:\n"},
             {"type": "input_text", "text": "Script error:\nTypeError: tools.nope is not a "
                                            "function\n    at exec_main.mjs:1:13"}]
    assert output_text(parts).startswith("Script failed\nWall time")
    assert cell_error(parts) == "TypeError: tools.nope is not a function\n    at exec_main.mjs:1:13"
    assert cell_error("Script completed\nScript error:\nnot one") is None
    assert running_cell("Script running with cell ID 12\nWall time") == "12"
    assert running_cell(parts) is None and running_cell(None) is None
    assert running_cell([{"type": "input_text", "text": "Script running with cell ID 2"}]) == "2"


def _user(text: str) -> dict[str, Any]:
    return {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}


def test_over_http_commands_run_in_cells_and_running_cells_are_waited_on(tmp_path: Path) -> None:
    """The OpenAI SDK sends Codex's code-mode shapes: the command comes back as an ``exec``
    cell that calls ``exec_command``; a cell that yielded gets a ``wait`` on it (no asserts
    yet, no scenario turn spent); once it completed the scenario goes on, asserts checked."""
    env = f"<environment_context><cwd>{tmp_path}</cwd></environment_context>"
    with run_server(SCENARIOS / "background_command.yaml", "--scenario-speed", "0.01") as srv:
        client = openai.OpenAI(base_url=f"{srv.base_url}/v1", api_key="x")
        history: list[Any] = [TOOLS_ITEM, _user(env), _user("Run the slow build")]
        first = client.responses.create(model="gpt-6.2-sol", input=history)
        cell = first.output[-1]
        assert cell.type == "custom_tool_call" and cell.name == "exec"
        assert cell.input.startswith('// @exec: {"yield_time_ms": 1000}\n')
        assert 'await tools.exec_command({"cmd": "sleep 3 && echo built > build.log"' in cell.input
        history += [cell.model_dump(exclude_none=True), {
            "type": "custom_tool_call_output", "call_id": cell.call_id,
            "output": "Script running with cell ID 1\nWall time 1.0 seconds\nOutput:\n"}]
        waits = []
        for _ in range(2):  # still running after the first wait: waited on again
            wait = client.responses.create(model="gpt-6.2-sol", input=history).output[-1]
            assert wait.type == "function_call" and wait.name == "wait"
            assert json.loads(wait.arguments) == {"cell_id": "1"}
            waits.append(wait.call_id)
            history += [wait.model_dump(exclude_none=True), {
                "type": "function_call_output", "call_id": wait.call_id,
                "output": "Script running with cell ID 1\n"}]
        assert len(set(waits)) == 2 and cell.call_id not in waits
        history[-1]["output"] = "Script completed\nWall time 2.6 seconds\nOutput:\n"
        (tmp_path / "build.log").write_text("built\n")
        last = client.responses.create(model="gpt-6.2-sol", input=history)
        journal = srv.journal()
    assert last.output_text == "The build finished."
    assert [e["calls"] for e in journal] == [["exec"], ["wait"], ["wait"], []]
    assert "assertions" not in journal[1] and journal[3]["assertions"][0]["outcome"] == "ok"


def test_a_continued_conversation_waits_on_its_cell_then_moves_on(tmp_path: Path) -> None:
    """With ``previous_response_id`` (only the new items sent): the cell's output alone says
    it still runs; the wait's answer continues where the cell's answer stood."""
    env = f"<environment_context><cwd>{tmp_path}</cwd></environment_context>"
    with run_server(SCENARIOS / "background_command.yaml", "--scenario-speed", "0.01",
                    workspace=tmp_path) as srv:  # a continued request reports no cwd
        client = openai.OpenAI(base_url=f"{srv.base_url}/v1", api_key="x")
        first = client.responses.create(
            model="m", input=[TOOLS_ITEM, _user(env), _user("Run the slow build")])
        cell = first.output[-1]
        assert cell.type == "custom_tool_call"
        wait = client.responses.create(model="m", previous_response_id=first.id, input=[{
            "type": "custom_tool_call_output", "call_id": cell.call_id,
            "output": [{"type": "input_text", "text": "Script running with cell ID 3\n"}]}])
        call = wait.output[-1]
        assert call.type == "function_call" and json.loads(call.arguments) == {"cell_id": "3"}
        (tmp_path / "build.log").write_text("built\n")
        last = client.responses.create(model="m", previous_response_id=wait.id, input=[
            TOOLS_ITEM, {"type": "function_call_output", "call_id": call.call_id,
                         "output": "Script completed\n"}])
        journal = srv.journal()
    assert last.output_text == "The build finished."
    assert [(e["turn"], e["calls"]) for e in journal] == [(0, ["exec"]), (1, ["wait"]),
                                                          (1, [])]


def test_a_tool_choice_forcing_exec_gets_the_cell(tmp_path: Path) -> None:
    with run_server(SCENARIOS / "shell_and_patch.yaml", "--scenario-speed", "0.01") as srv:
        client = openai.OpenAI(base_url=f"{srv.base_url}/v1", api_key="x", max_retries=0)
        answer = client.responses.create(
            model="m", input=[TOOLS_ITEM, _user("Create the greeting files")],
            tool_choice={"type": "custom", "name": "exec"})
    cell = answer.output[-1]
    assert cell.type == "custom_tool_call" and cell.name == "exec"
    assert '"cmd": "echo hello from scenarist > greeting.txt"' in cell.input


def test_an_action_no_nested_tool_carries_is_refused(tmp_path: Path) -> None:
    scenario = tmp_path / "s.yaml"
    scenario.write_text(
        "name: s\ntimeline:\n  - userInputs:\n      - relativeTime: 0\n        input: go\n"
        "  - llmResponse:\n      - assistant:\n          - [0, ok]\n"
        "  - agentToolUse:\n      toolName: deploy_site\n      args: {target: prod}\n")
    with run_server(scenario) as srv:
        client = openai.OpenAI(base_url=f"{srv.base_url}/v1", api_key="x", max_retries=0)
        with pytest.raises(openai.BadRequestError) as refused:
            client.responses.create(model="m", input=[TOOLS_ITEM, _user("go")])
    message = str(refused.value)
    assert "deploy_site" in message and "exec_command" in message
    assert "nested tools of Codex's code-mode `exec`" in message


# --------------------------------------------------------------------------- real Codex CLI

Provider = Literal["custom", "builtin"]
CODEX_RUNS = [
    pytest.param("custom", None, id="custom-provider-default-model"),
    pytest.param("builtin", None, id="openai_base_url-default-model"),
    pytest.param("custom", "gpt-5.5", id="custom-provider-gpt-5.5"),
]


def _model_entries(journal: list[dict[str, Any]], result: Any, provider: str
                   ) -> list[dict[str, Any]]:
    """The model turns served, each streamed (the built-in provider's on its WebSocket,
    without falling back to HTTP); no exec cell of ours failed in Codex."""
    entries = [e for e in journal if e["path"] == "/v1/responses" and "calls" in e]
    assert all(e["status"] == 200 and e["stream"] is True for e in entries), entries
    assert not [e["cell_error"] for e in entries if "cell_error" in e]
    if provider == "builtin":
        assert all(e.get("websocket") for e in entries), entries
        assert "Falling back from WebSockets" not in result.stderr
    return entries


def _commands(stdout: str) -> list[tuple[str, str]]:
    """(command, output) of each command Codex ran, from ``codex exec --json``."""
    return [(e["item"]["command"], e["item"]["aggregated_output"]) for e in jsonl(stdout)
            if e["type"] == "item.completed" and e["item"]["type"] == "command_execution"]


@pytest.mark.real_agent
@pytest.mark.parametrize(("provider", "model"), CODEX_RUNS)
def test_codex_writes_edits_and_runs_a_command(tmp_path: Path, provider: Provider,
                                               model: str | None) -> None:
    work, home = dirs(tmp_path)
    with run_server(SCENARIOS / "shell_and_patch.yaml", "--scenario-speed", "0.01") as srv:
        result = codex(srv.base_url, "Create the greeting files", work, home, model=model,
                       provider=provider)
        journal = _model_entries(srv.journal(), result, provider)
    assert result.returncode == 0, result.stderr
    assert (work / "greeting.txt").read_text() == "hello from scenarist\n"
    assert (work / "notes" / "todo.md").read_text() == TODO_AFTER
    calls = [e["calls"] for e in journal]
    if model is None:  # code mode: every action is one exec cell
        assert calls == [["exec"], ["exec"], ["exec"], []]
    else:
        assert calls == [["exec_command"], ["apply_patch"], ["apply_patch"], []]
    assert journal[2]["assertions"][0]["outcome"] == "ok"
    assert all(e["profile"] == "codex" and e["cwd"] == str(work) for e in journal)
    assert _commands(result.stdout) == [
        ("/bin/bash -lc 'echo hello from scenarist > greeting.txt'", "")]
    changes = [e["item"]["changes"][0]["kind"] for e in jsonl(result.stdout)
               if e["type"] == "item.completed" and e["item"]["type"] == "file_change"]
    assert changes == ["add", "update"]


@pytest.mark.real_agent
@pytest.mark.parametrize(("provider", "model"), CODEX_RUNS)
def test_codex_plays_hello_codex(tmp_path: Path, provider: Provider, model: str | None) -> None:
    work, home = dirs(tmp_path)
    with run_server(HELLO, "--scenario-speed", "0.01") as srv:
        result = codex(srv.base_url, HELLO_PROMPT, work, home, model=model,
                       provider=provider)
        journal = _model_entries(srv.journal(), result, provider)
    assert result.returncode == 0, result.stderr
    assert (work / "hello.py").read_text() == 'print("hello from scenarist")\n'
    shell = ["exec"] if model is None else ["exec_command"]
    assert [e["calls"] for e in journal] == [shell, shell, []]
    assert _commands(result.stdout)[-1] == (
        "/bin/bash -lc 'python3 hello.py'", "hello from scenarist\n")
    assert jsonl(result.stdout)[-1]["type"] == "turn.completed"


@pytest.mark.real_agent
@pytest.mark.parametrize("provider", ["custom", "builtin"])
def test_codex_waits_on_a_command_run_in_the_background(tmp_path: Path, provider: Provider
                                                       ) -> None:
    work, home = dirs(tmp_path)
    with run_server(SCENARIOS / "background_command.yaml", "--scenario-speed", "0.01") as srv:
        result = codex(srv.base_url, "Run the slow build", work, home, model=None,
                       provider=provider)
        journal = _model_entries(srv.journal(), result, provider)
    assert result.returncode == 0, result.stderr
    assert (work / "build.log").read_text() == "built\n"
    assert [e["calls"] for e in journal] == [["exec"], ["wait"], []]
    assert journal[2]["assertions"][0]["outcome"] == "ok"


@pytest.mark.real_agent
def test_claude_code_plays_hello_codex(tmp_path: Path) -> None:
    work, config = dirs(tmp_path)
    with run_server(HELLO, "--scenario-speed", "0.01") as srv:
        result = claude(srv.base_url, HELLO_PROMPT, work, config)
        journal = srv.journal()
    assert result.returncode == 0, result.stderr
    assert (work / "hello.py").read_text() == 'print("hello from scenarist")\n'
    model = [e for e in journal if e["path"].startswith("/v1/messages") and "calls" in e]
    assert [e["calls"] for e in model] == [["Bash"], ["Bash"], []]
    assert jsonl(result.stdout)[-1]["result"] == "Done: hello.py prints a greeting."
