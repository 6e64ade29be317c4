"""``--format codex-jsonl`` and ``claude-jsonl``: what log normalisers of the real agents read.

The Codex stream is checked the way tests/codex checks ``fake-codex exec --json`` (item
lifecycle, ids, the closing ``turn.completed``), compared line by line with what the real Codex
CLI prints for the same scenario (as tests/llm does for fake-codex), and parsed by the real
``@openai/codex-sdk`` (pinned in tests/node), which spawns the mock agent as its ``codex``. The Claude Code
stream is compared, line kind by line kind, with a stream the real Claude Code 2.1.330 printed
(``tests/data/real-agent-output/``: ``claude -p ... --output-format stream-json --verbose``
against ``scenarist llm`` playing tests/llm/scenarios/shell_and_patch.yaml).
"""

from __future__ import annotations

import json
import shutil
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from agentkit import EXAMPLES, REPO, SCENARIOS, agent, agent_env, jsonl
from llm_agents import SCENARIOS as LLM_SCENARIOS
from llm_agents import claude, codex, comparable, dirs

from scenarist.llm.process import run_server

GOLDEN = REPO / "tests" / "data" / "real-agent-output" / "claude-code-2.1.330-stream-json.jsonl"
SDK = REPO / "tests" / "node" / "node_modules" / "@openai" / "codex-sdk"
SDK_THREAD = REPO / "tests" / "codex" / "sdk_thread.mjs"


def _play(tmp_path: Path, scenario: Path, fmt: str) -> tuple[list[dict[str, Any]], str]:
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    result = agent("--scenario", scenario, "--workspace", work, "--speed", "0.01",
                   "--format", fmt)
    return jsonl(result.stdout), result.stderr


def test_codex_jsonl_is_the_exec_json_stream(tmp_path: Path) -> None:
    lines, err = _play(tmp_path, EXAMPLES / "claude-write-edit.yaml", "codex-jsonl")
    assert "✓ every real result matched" in err  # reports go to stderr, stdout is JSON only
    assert lines[0]["type"] == "thread.started" and lines[0]["thread_id"]
    assert lines[1] == {"type": "turn.started"}
    items = [(ln["type"], ln["item"]["type"], ln["item"].get("status"))
             for ln in lines if ln["type"].startswith("item.")]
    assert items == [
        ("item.completed", "reasoning", None),
        ("item.completed", "agent_message", None),
        ("item.started", "file_change", "in_progress"),
        ("item.completed", "file_change", "completed"),
        ("item.completed", "agent_message", None),
        ("item.started", "file_change", "in_progress"),
        ("item.completed", "file_change", "completed"),
        ("item.completed", "agent_message", None),
        ("item.started", "command_execution", "in_progress"),
        ("item.completed", "command_execution", "completed"),
        ("item.completed", "agent_message", None),
    ]
    ids = [ln["item"]["id"] for ln in lines if ln["type"] == "item.completed"]
    assert len(set(ids)) == len(ids)
    command = next(ln["item"] for ln in lines if ln["type"] == "item.completed"
                   and ln["item"]["type"] == "command_execution")
    assert command["command"] == "/bin/bash -lc 'grep -c '\"'\"'^- '\"'\"' notes/todo.md'"
    assert command["aggregated_output"] == "2\n" and command["exit_code"] == 0  # real output
    todo = str((tmp_path / "work" / "notes" / "todo.md").resolve())
    changes = [ln["item"]["changes"] for ln in lines if ln["type"] == "item.completed"
               and ln["item"]["type"] == "file_change"]
    assert changes == [[{"path": todo, "kind": "add"}], [{"path": todo, "kind": "update"}]]
    assert lines[-1]["type"] == "turn.completed" and lines[-1]["usage"]["output_tokens"] > 0


@pytest.mark.real_agent
def test_codex_jsonl_matches_real_codex_line_by_line(tmp_path: Path) -> None:
    """The pinned Codex CLI plays tests/llm/scenarios/shell_and_patch.yaml through
    ``scenarist llm`` and really runs its tools; the mock agent plays the same file with real
    tools: the same lines, items, fields and values, but the thread id and token figures (the
    comparison tests/llm/test_llm_codex_fidelity.py makes for fake-codex)."""
    scenario = LLM_SCENARIOS / "shell_and_patch.yaml"
    work, home = dirs(tmp_path)
    with run_server(scenario, "--scenario-speed", "0.01") as srv:
        # with a summary asked for, as tests/llm/test_llm_codex_fidelity.py explains
        real = codex(srv.base_url, "Create the greeting files", work, home,
                     config=["model_reasoning_summary=auto"])
    assert real.returncode == 0, real.stderr
    (work / "greeting.txt").unlink()  # the mock agent works in the same place, afresh
    shutil.rmtree(work / "notes")
    mine = agent("--scenario", scenario, "--workspace", work, "--speed", "0.01",
                 "--format", "codex-jsonl")
    assert mine.returncode == 0, mine.stderr
    real_lines, my_lines = jsonl(real.stdout), jsonl(mine.stdout)
    assert [comparable(x) for x in my_lines] == [comparable(x) for x in real_lines], (
        json.dumps(my_lines, indent=1), json.dumps(real_lines, indent=1))
    assert (work / "notes" / "todo.md").read_text() == "# Todo\n- greet\n- wave back\n- smile\n"


def test_codex_jsonl_has_a_turn_per_prompt_and_fails_a_turn_on_an_api_error(
        tmp_path: Path) -> None:
    lines, _ = _play(tmp_path, SCENARIOS / "interactive.yaml", "codex-jsonl")
    types = [ln["type"] for ln in lines]
    assert types.count("turn.started") == 2 and types.count("turn.completed") == 2
    lines, _ = _play(tmp_path, EXAMPLES / "rate-limit-retry.yaml", "codex-jsonl")
    errors = [ln for ln in lines if ln["type"] == "error"]
    assert errors and "rate_limit_exceeded" in errors[0]["message"]


@pytest.mark.real_agent
def test_the_codex_sdk_reads_the_mock_agent_as_codex(tmp_path: Path) -> None:
    node = shutil.which("node")
    assert node, "node is required (scripts/test installs the npm packages with it)"
    assert (SDK / "dist" / "index.js").exists(), "run `npm ci` in tests/node (scripts/test does)"
    work = tmp_path / "work"
    work.mkdir()
    fake = tmp_path / "codex"
    env = agent_env()
    fake.write_text(
        "#!/bin/sh\n"
        f"PYTHONPATH='{env['PYTHONPATH']}' exec '{sys.executable}' -m scenarist agent "
        f"--scenario '{EXAMPLES / 'claude-write-edit.yaml'}' --workspace '{work}' "
        "--speed 0.01 --format codex-jsonl\n")
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    proc = subprocess.run([node, str(SDK_THREAD), str(fake), str(SDK), "start a todo list"],
                          capture_output=True, timeout=120, stdin=subprocess.DEVNULL,
                          check=False, text=True)
    assert proc.returncode == 0, proc.stderr[-3000:]
    seen = json.loads(proc.stdout.strip().splitlines()[-1])
    (turn,) = seen["turns"]
    assert turn["finalResponse"] == "notes/todo.md has two items."
    assert [i["type"] for i in turn["items"]] == [
        "reasoning", "agent_message", "file_change", "agent_message", "file_change",
        "agent_message", "command_execution", "agent_message"]
    assert seen["threadId"]
    assert (work / "notes" / "todo.md").read_text() == "# Todo\n- write tests\n- ship it\n"


def _kind(line: dict[str, Any]) -> str:
    if line["type"] in ("assistant", "user"):
        return f"{line['type']}/{line['message']['content'][0]['type']}"
    return f"{line['type']}/{line.get('subtype', '')}"


def _kinds(lines: list[dict[str, Any]]) -> list[str]:
    """Each line's kind; tool uses and results also by tool name (``user/tool_result/Bash``)."""
    names: dict[str, str] = {}
    out = []
    for line in lines:
        kind = _kind(line)
        block = line["message"]["content"][0] if line["type"] in ("assistant", "user") else {}
        if kind == "assistant/tool_use":
            names[block["id"]] = block["name"]
            kind += "/" + block["name"]
        elif kind == "user/tool_result":
            kind += "/" + names.get(block["tool_use_id"], "?")
        out.append(kind)
    return out


def _json_type(value: Any) -> str:
    return "null" if value is None else type(value).__name__


def _shape_problems(ours: dict[str, Any], real: dict[str, Any], where: str) -> list[str]:
    """Keys we write that the real line lacks, or that hold another JSON type (recursive)."""
    problems = []
    for key, value in ours.items():
        if key not in real:
            problems.append(f"{where}.{key}: not in the real line")
        elif _json_type(value) != _json_type(real[key]) and real[key] is not None:
            problems.append(f"{where}.{key}: {_json_type(value)} vs {_json_type(real[key])}")
        elif isinstance(value, dict) and isinstance(real[key], dict) and key != "input":
            problems += _shape_problems(value, real[key], f"{where}.{key}")
        elif (isinstance(value, list) and isinstance(real[key], list) and value and real[key]
              and isinstance(value[0], dict)):
            problems += _shape_problems(value[0], real[key][0], f"{where}.{key}[0]")
    return problems


def test_claude_jsonl_has_the_shape_claude_code_prints(tmp_path: Path) -> None:
    golden = jsonl(GOLDEN.read_text())
    real = {}
    for line, kind in zip(golden, _kinds(golden), strict=True):
        real.setdefault(kind, line)
    lines, _ = _play(tmp_path, EXAMPLES / "claude-write-edit.yaml", "claude-jsonl")
    kinds = _kinds(lines)
    assert kinds == ["system/init", "assistant/thinking", "assistant/text",
                     "assistant/tool_use/Write", "user/tool_result/Write", "assistant/text",
                     "assistant/tool_use/Edit", "user/tool_result/Edit", "assistant/text",
                     "assistant/tool_use/Bash", "user/tool_result/Bash", "assistant/text",
                     "result/success"]
    for line, kind in zip(lines, kinds, strict=True):
        assert _shape_problems(line, real[kind], kind) == []
    session = {line["session_id"] for line in lines}
    assert len(session) == 1
    uses = [ln["message"]["content"][0] for ln in lines if _kind(ln) == "assistant/tool_use"]
    results = [ln["message"]["content"][0] for ln in lines if _kind(ln) == "user/tool_result"]
    assert [u["name"] for u in uses] == ["Write", "Edit", "Bash"]
    assert [r["tool_use_id"] for r in results] == [u["id"] for u in uses]
    assert all(u["id"].startswith("toolu_") for u in uses)
    assert uses[2]["input"]["command"] == "grep -c '^- ' notes/todo.md"
    assert results[2]["content"] == "2\n" and results[2]["is_error"] is False
    assert lines[-1]["result"] == "notes/todo.md has two items."
    assert lines[-1]["is_error"] is False and lines[-1]["num_turns"] == 4


def test_claude_jsonl_marks_errors(tmp_path: Path) -> None:
    lines, _ = _play(tmp_path, SCENARIOS / "mismatch.yaml", "claude-jsonl")
    results = [ln["message"]["content"][0] for ln in lines if _kind(ln) == "user/tool_result"]
    assert [r.get("is_error") for r in results] == [False, True, None]  # Bash, Bash, Write
    lines, _ = _play(tmp_path, EXAMPLES / "rate-limit-retry.yaml", "claude-jsonl")
    texts = [ln["message"]["content"][0]["text"] for ln in lines if _kind(ln) == "assistant/text"]
    assert texts[0].startswith("API error 429") and len(texts) == 2
    assert lines[-1]["is_error"] is False  # the answer after the error: the retry worked
    failing = tmp_path / "failing.yaml"
    failing.write_text("name: failing\ntimeline:\n  - userInputs: [[0, hi]]\n"
                       "  - llmResponse:\n      - error: {errorType: overloaded, "
                       "statusCode: 529, message: busy}\n")
    lines, _ = _play(tmp_path, failing, "claude-jsonl")
    assert lines[-1]["type"] == "result" and lines[-1]["is_error"] is True
    assert lines[-1]["result"] == "API error 529 (overloaded): busy"


def _claude_view(lines: list[dict[str, Any]], work: Path) -> list[tuple[Any, ...]]:
    """What a log normaliser takes from a stream-json session, paths made relative; Claude
    Code's ``system/thinking_tokens`` progress lines are left out (the mock agent has none)."""
    out: list[tuple[Any, ...]] = []
    root = str(work.resolve()) + "/"
    for line, kind in zip(lines, _kinds(lines), strict=True):
        if kind == "system/thinking_tokens":
            continue
        block = line["message"]["content"][0] if line["type"] in ("assistant", "user") else {}
        if kind.startswith("assistant/tool_use"):
            tool_input = {k: v.replace(root, "") if isinstance(v, str) else v
                          for k, v in block["input"].items() if k != "replace_all"}
            out.append((kind, tool_input))
        elif kind.startswith("user/tool_result"):
            content = block["content"]
            shown = content.split(" (file state")[0].replace(root, "")
            out.append((kind, shown, block.get("is_error", False)))
        elif kind == "assistant/thinking":
            out.append((kind, block["thinking"]))
        elif kind == "assistant/text":
            out.append((kind, block["text"]))
        elif kind == "result/success":
            out.append((kind, line["result"], line["is_error"], line["num_turns"]))
        else:
            out.append((kind, line.get("cwd", "").replace(root.rstrip("/"), "WORK")))
    return out


@pytest.mark.real_agent
def test_claude_jsonl_matches_real_claude_code(tmp_path: Path) -> None:
    """The pinned Claude Code plays shell_and_patch.yaml through ``scenarist llm`` and runs its
    tools; the mock agent plays the same file: the same blocks, tool calls with the same
    inputs, results and final answer (ids, timestamps and Claude's extras aside)."""
    scenario = LLM_SCENARIOS / "shell_and_patch.yaml"
    work, config = dirs(tmp_path)
    with run_server(scenario, "--scenario-speed", "0.01") as srv:
        real = claude(srv.base_url, "Create the greeting files", work, config)
    assert real.returncode == 0, real.stderr
    (work / "greeting.txt").unlink()
    shutil.rmtree(work / "notes")
    mine = agent("--scenario", scenario, "--workspace", work, "--speed", "0.01",
                 "--format", "claude-jsonl")
    assert mine.returncode == 0, mine.stderr
    view = _claude_view(jsonl(mine.stdout), work)
    assert view == _claude_view(jsonl(real.stdout), work)
    assert [v[0] for v in view if v[0].startswith("assistant/tool_use")] == [
        "assistant/tool_use/Bash", "assistant/tool_use/Write", "assistant/tool_use/Edit"]
