"""Mode 2 end to end, as documented: ``scenarist run --agent codex|claude|gemini`` with the
default ``--target``. The interactive TUIs of the pinned Codex CLI, Claude Code and Gemini CLI
run in the runner's pseudo-terminal against the `scenarist llm` it starts; the prompt is typed
as keystrokes, the files the real agent creates are checked by the scenario's asserts, and the final screen is
compared with the committed golden of each agent (masks in the scenario take out what changes
from run to run: clocks, Claude Code's spinner verb, versions; the run's paths are built in)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from runnerkit import GOLDENS, HERE, running

pytestmark = pytest.mark.real_agent

# the pins in tests/node, or the newest releases (SCENARIST_AGENTS=latest bash scripts/test)
BIN = Path(os.environ.get("SCENARIST_NODE_BIN")
           or HERE.parents[1] / "tests" / "node" / "node_modules" / ".bin")
SCENARIO = HERE / "agent_scenarios" / "greeting_files.yaml"


@pytest.fixture
def short_cwd() -> Iterator[Path]:
    """A folder of one fixed length to run from: a TUI lays out a path by its length (Codex
    wraps its status line), so the committed goldens hold for this length, on any machine."""
    folder = Path(tempfile.mkdtemp(prefix="scenarist-", dir="/tmp"))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@pytest.mark.parametrize("agent", ["codex", "claude", "gemini"])
def test_real_agent_tui_with_the_default_target_matches_its_golden(agent: str,
                                                                  short_cwd: Path) -> None:
    shutil.copytree(GOLDENS, short_cwd / "target")  # the default --target is ./target
    runs = short_cwd / "target" / "tmp" / agent / "greeting_files" / "100x30"
    # five waits at most (prompt, typed prompt, two asserts, screenshot), each bounded by
    # --wait-timeout: the run ends well inside the subprocess timeout, itself inside pytest's
    done = subprocess.run(
        [sys.executable, "-m", "scenarist", "run", str(SCENARIO), "--agent", agent,
         "--agent-bin", str(BIN / agent), "--runner", agent, "--speed", "0.01",
         "--wait-timeout", "40"],
        cwd=short_cwd, capture_output=True, text=True, timeout=260, check=False)
    assert done.returncode == 0, done.stdout + done.stderr + run_logs(runs)
    assert "1 passed, 0 failed of 1 scenario(s)" in done.stdout
    (run,) = runs.glob("2*")
    result = json.loads((run / "result.json").read_text())
    assert [(s["kind"], s["outcome"]) for s in result["steps"]] == [
        ("userInputs", "passed"), ("assert", "passed"), ("assert", "passed"),
        ("screenshot", "passed")]
    assert result["steps"][-1]["message"] == "matches the golden"
    assert result["argv"][0] == str(BIN / agent)
    assert not any(running(p["pid"]) for p in result["leftover"])
    workspace = run / "workspace"
    assert (workspace / "greeting.txt").read_text() == "hello from scenarist\n"
    assert (workspace / "notes" / "todo.md").read_text() == "# Todo\n- greet\n- wave\n"
    assert not (workspace / "target").exists()  # the agent's HOME is the run's, not relative
    journal = [json.loads(line) for line in (run / "llm-journal.jsonl").read_text().splitlines()]
    assert [e["turn"] for e in journal if e["path"].startswith("/v1")][-1] == 2


def run_logs(runs: Path) -> str:
    """What a failed run left: its steps, what the model server saw, the end of the pty log."""
    shown = []
    for name in ("steps.jsonl", "llm-journal.jsonl", "llm.log"):
        for path in runs.glob(f"2*/{name}"):
            shown.append(f"\n--- {name}\n{path.read_text(errors='replace')[-6000:]}")
    for path in runs.glob("2*/pty.log"):
        shown.append(f"\n--- pty.log (end)\n{path.read_bytes()[-3000:]!r}")
    return "".join(shown)
