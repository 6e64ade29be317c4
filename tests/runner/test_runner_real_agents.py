"""Mode 2 end to end: the interactive TUIs of the pinned Codex CLI and Claude Code run in the
runner's pseudo-terminal against the `scenarist llm` it starts; the prompt is typed as
keystrokes and the files the real agent creates are checked by the scenario's asserts."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest
from runnerkit import HERE, running

from scenarist.runner import RunResult

pytestmark = pytest.mark.real_agent

# the pins in tests/node, or the newest releases (SCENARIST_AGENTS=latest bash scripts/test)
BIN = Path(os.environ.get("SCENARIST_NODE_BIN")
           or HERE.parents[1] / "tests" / "node" / "node_modules" / ".bin")
SCENARIO = HERE / "agent_scenarios" / "greeting_files.yaml"


@pytest.mark.parametrize("agent", ["codex", "claude"])
def test_real_agent_tui_typed_into_creates_the_files(
        scenarist_run: Callable[..., RunResult], agent: str) -> None:
    result = scenarist_run(SCENARIO, agent=agent, agent_bin=str(BIN / agent), speed=0.01,
                           wait_timeout_s=90.0)
    result.raise_for_failure()
    workspace = Path(result.log_dir) / "workspace"
    assert (workspace / "greeting.txt").read_text() == "hello from scenarist\n"
    assert (workspace / "notes" / "todo.md").read_text() == "# Todo\n- greet\n- wave\n"
    assert [s.kind for s in result.steps] == ["userInputs", "assert", "assert"]
    final = result.steps[-1]
    assert final.capture is not None
    assert any("Done: both greeting files" in line for line in final.capture.lines)
    assert result.argv[0] == str(BIN / agent)
    assert not any(running(p.pid) for p in result.leftover)
