"""fake-codex against the real Codex CLI on the same scenario, field by field.

Real Codex (pinned in tests/node) plays ``shell_and_patch.yaml`` through ``scenarist llm`` and
prints ``codex exec --json``; ``fake-codex exec --json --scenario`` plays the same file. Hosts
that parse one must be able to parse the other: the same lines, items, fields and values, except
what cannot be the same (the thread id, token counts).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from llm_agents import SCENARIOS, codex, comparable, dirs, jsonl

from scenarist.llm.process import run_server

pytestmark = pytest.mark.real_agent

SCENARIO = SCENARIOS / "shell_and_patch.yaml"
PROMPT = "Create the greeting files"


def fake_codex_exec(work: Path) -> list[dict[str, Any]]:
    proc = subprocess.run(
        [sys.executable, "-m", "scenarist", "codex", "exec", "--json", "--seed", "1",
         "--time-scale", "0", "-C", str(work), "--scenario", str(SCENARIO), PROMPT],
        capture_output=True, text=True, timeout=60, check=True, stdin=subprocess.DEVNULL)
    return jsonl(proc.stdout)


def test_scenario_mode_matches_real_codex_line_by_line(tmp_path: Path) -> None:
    work, home = dirs(tmp_path)
    with run_server(SCENARIO, "--scenario-speed", "0.01") as srv:
        # Codex asks gpt-5.5 for reasoning without a summary unless configured to; a real
        # API then shows no reasoning text, and neither does scenarist llm.
        real = codex(srv.base_url, PROMPT, work, home, config=["model_reasoning_summary=auto"])
    assert real.returncode == 0, real.stderr
    real_lines = jsonl(real.stdout)
    fake_lines = fake_codex_exec(work)
    assert [comparable(x) for x in fake_lines] == [comparable(x) for x in real_lines], (
        json.dumps(fake_lines, indent=1), json.dumps(real_lines, indent=1))
    # the parts that the comparison reduced are still of the same shape
    assert all(isinstance(v, int) for v in fake_lines[-1]["usage"].values())


def test_command_mode_writes_commands_as_codex_does() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "scenarist", "codex", "exec", "--json", "--seed", "1", "-C", "/w",
         "help exec python3 fib.py; patch add notes.md"],
        capture_output=True, text=True, timeout=60, check=True, stdin=subprocess.DEVNULL)
    items = [line["item"] for line in jsonl(proc.stdout) if line["type"] == "item.completed"]
    assert items[0]["command"] == "/bin/bash -lc 'python3 fib.py'"
    assert items[1]["changes"] == [{"path": "/w/notes.md", "kind": "add"}]
