"""The examples in examples/ that target the model API, played end to end."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import anthropic
import openai
import pytest
from llm_agents import REPO, claude, codex, dirs, gemini, jsonl

from scenarist.llm.cli import load_scripts
from scenarist.llm.conversation import ToolDecl
from scenarist.llm.process import run_server
from scenarist.llm.profiles import Context, render_action
from scenarist.llm.script import ToolAction

EXAMPLES = REPO / "examples"


@pytest.mark.real_agent
def test_hello_codex_with_codex(tmp_path: Path) -> None:
    work, home = dirs(tmp_path)
    with run_server(EXAMPLES / "hello-codex.yaml", "--scenario-speed", "0.01") as srv:
        result = codex(
            srv.base_url, "Create hello.py that prints a greeting, then run it", work, home
        )
        journal = srv.journal()
    assert result.returncode == 0, result.stderr
    assert (work / "hello.py").read_text() == 'print("hello from scenarist")\n'
    assert [e["calls"] for e in journal] == [["exec_command"], ["exec_command"], []]
    assert journal[-1]["assertions"][0]["outcome"] == "ok"
    assert all(e["stream"] and e["status"] == 200 for e in journal)
    outputs = [
        e["item"].get("aggregated_output", "")
        for e in map(json.loads, result.stdout.splitlines())
        if e.get("type") == "item.completed"
    ]
    assert any("hello from scenarist" in o for o in outputs)


@pytest.mark.real_agent
def test_claude_write_edit_with_claude_code(tmp_path: Path) -> None:
    work, config = dirs(tmp_path)
    with run_server(EXAMPLES / "claude-write-edit.yaml", "--scenario-speed", "0.01") as srv:
        result = claude(
            srv.base_url, "Start a todo list in notes/todo.md, then add a line to it", work, config
        )
        journal = srv.journal()
    assert result.returncode == 0, result.stderr
    assert (work / "notes" / "todo.md").read_text() == "# Todo\n- write tests\n- ship it\n"
    assert [e["calls"] for e in journal] == [["Write"], ["Edit"], ["Bash"], []]
    assert all(e["stream"] and e["status"] == 200 and e.get("completed") for e in journal)


@pytest.mark.real_agent
def test_hello_codex_and_claude_write_edit_with_gemini_cli(tmp_path: Path) -> None:
    """The same two examples, unchanged, played to Gemini CLI: a file written with a shell
    command and run; a file written, edited and checked with a command (its router's side
    requests set aside: they declare no tools and move nothing)."""
    work, home = dirs(tmp_path)
    with run_server(EXAMPLES / "hello-codex.yaml", "--scenario-speed", "0.01") as srv:
        hello = gemini(srv.base_url, "Create hello.py that prints a greeting, then run it",
                       work, home, "--output-format", "stream-json")
        first = [e for e in srv.journal() if not e.get("side_request")]
    with run_server(EXAMPLES / "claude-write-edit.yaml", "--scenario-speed", "0.01") as srv:
        todo = gemini(srv.base_url, "Start a todo list in notes/todo.md, then add a line to it",
                      work, home, "--output-format", "stream-json")
        second = [e for e in srv.journal() if not e.get("side_request")]
    assert hello.returncode == 0, hello.stderr
    assert todo.returncode == 0, todo.stderr
    assert (work / "hello.py").read_text() == 'print("hello from scenarist")\n'
    assert (work / "notes" / "todo.md").read_text() == "# Todo\n- write tests\n- ship it\n"
    assert [e["calls"] for e in first] == [["run_shell_command"], ["run_shell_command"], []]
    assert [e["calls"] for e in second] == [["write_file"], ["replace"], ["run_shell_command"],
                                            []]
    assert first[-1]["assertions"][0]["outcome"] == "ok"
    assert all(e["stream"] and e["status"] == 200 and e.get("completed")
               for e in first + second)
    outputs = [e.get("output") for e in jsonl(hello.stdout + todo.stdout)
               if e["type"] == "tool_result"]
    assert "hello from scenarist" in outputs and "2" in outputs


def test_rate_limit_retry_with_the_openai_sdk_retrying(serve: Any) -> None:
    srv = serve(load_scripts([str(EXAMPLES / "rate-limit-retry.yaml")], []), speed=0.01)
    client = openai.OpenAI(base_url=f"{srv.url}/v1", api_key="sk-test", max_retries=2)
    started = time.monotonic()
    answer = client.chat.completions.create(
        model="mock-model",
        messages=[{"role": "user", "content": "Summarise the changelog"}],
        extra_headers={"x-scenario-session": "retry-test"},
    )
    assert answer.choices[0].message.content == "The changelog adds retries and fixes two crashes."
    assert time.monotonic() - started >= 0.9  # the SDK waited the scripted Retry-After
    statuses = [e["status"] for e in srv.journal]
    assert statuses == [429, 200]


def test_rate_limit_error_reaches_the_anthropic_sdk(serve: Any) -> None:
    srv = serve(load_scripts([str(EXAMPLES / "rate-limit-retry.yaml")], []))
    client = anthropic.Anthropic(base_url=srv.url, api_key="sk-test", max_retries=0)
    with pytest.raises(anthropic.RateLimitError) as info:
        client.messages.create(
            model="mock-model",
            max_tokens=100,
            messages=[{"role": "user", "content": "Summarise the changelog"}],
        )
    assert info.value.response.headers["retry-after"] == "1"
    assert "Rate limit exceeded" in str(info.value)


@pytest.mark.parametrize("profile", ["claude", "codex", "openai"])
def test_every_tool_of_the_tool_tour_renders(profile: Any, tmp_path: Path) -> None:
    (script,) = load_scripts([str(EXAMPLES / "tool-tour.yaml")], [])
    actions = [a for t in script.turns for a in t.actions]
    written = {a.tool for a in actions if isinstance(a, ToolAction)} | {"writeFile", "editFile"}
    # a generic client that declares the format's tools; the agents' own vocabularies
    decls = tuple(ToolDecl(name) for name in sorted(written)) if profile == "openai" else ()
    tools = frozenset({"apply_patch", "exec_command"} | {d.name for d in decls})
    ctx = Context(profile=profile, cwd=str(tmp_path), tools=tools, read_text=lambda _p: None,
                  decls=decls)
    calls = [render_action(a, ctx) for a in actions]
    assert calls and all(c.name for c in calls)
    for call in calls:
        if call.kind == "function":
            json.loads(call.arguments)
    if profile == "claude":
        assert {"Bash", "Grep", "Read", "Glob", "Edit", "Write"} <= {c.name for c in calls}
    if profile == "codex":
        assert {c.name for c in calls} & {"exec_command", "apply_patch"}
    if profile == "openai":  # each call to the tool the scenario names, as declared
        assert {c.name for c in calls} <= written
