"""Mode 1 end to end: a TUI written for the tests, real programs nobody here wrote (bc,
python3 -i, vim, nano, less) and the mock agent, driven by keystrokes, compared with the
committed goldens.

Every scenario runs through the ``scenarist_run`` pytest fixture, one per test, so
``pytest -n N`` (pytest-xdist) spreads them.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from runnerkit import SCENARIOS, golden_copy, write_scenario

from scenarist.runner import RunResult

PROGRAMS = ["todo_tui", "bc_sums", "python_repl", "vim_edit", "nano_edit", "less_paging",
            "mock_agent"]


@pytest.mark.parametrize("name", PROGRAMS)
def test_program_driven_as_a_user_matches_its_goldens(
        scenarist_run: Callable[..., RunResult], tmp_path: Path, name: str) -> None:
    result = scenarist_run(SCENARIOS / f"{name}.yaml", target=golden_copy(tmp_path))
    result.raise_for_failure()
    shots = [s for s in result.steps if s.kind == "screenshot"]
    assert shots, "every program scenario takes screenshots"
    assert [s.message for s in shots] == ["matches the golden"] * len(shots)
    assert all(s.outcome == "passed" for s in result.steps)
    assert result.expectations[0].label == "exitCode"
    assert result.exit_code == 0
    # no wait fired a beat early: the clock only ever makes them late
    assert all(s.fired_ms >= s.scheduled_ms for s in result.steps)
    assert Path(result.log_dir, "result.json").is_file()


def test_todo_tui_saves_what_was_typed_and_the_session_is_completed_and_merged(
        scenarist_run: Callable[..., RunResult], tmp_path: Path) -> None:
    result = scenarist_run(SCENARIOS / "todo_tui.yaml", target=golden_copy(tmp_path))
    result.raise_for_failure()
    workspace = Path(result.log_dir) / "workspace"
    saved = json.loads((workspace / "todo.json").read_text())
    assert [(i["text"], i["done"]) for i in saved["items"]] == [
        ("buy milk", True), ("write tests", True), ("ship it", False)]
    assert (workspace / "NOTES.md").read_text().endswith("saved in todo.json\n")  # userEdits
    assert result.sessions == (("todo_tui", "completed", True),)
    kinds = [s.kind for s in result.steps]
    assert kinds.count("assert") == 3 and "userEdits" in kinds and "userCommand" in kinds
    summary: dict[str, Any] = json.loads(Path(result.log_dir, "result.json").read_text())
    assert summary["exitCode"] == 0 and len(summary["snapshots"]) == 3
    assert {a["outcome"] for a in summary["assertions"]} == {"passed"}
    assert len(summary["assertions"]) == 9


def test_vim_saved_the_edit_and_the_user_command_committed_it(
        scenarist_run: Callable[..., RunResult], tmp_path: Path) -> None:
    result = scenarist_run(SCENARIOS / "vim_edit.yaml", target=golden_copy(tmp_path))
    result.raise_for_failure()
    config = json.loads((Path(result.log_dir) / "workspace" / "config.json").read_text())
    assert config == {"owner": "scenarist", "name": "demo", "debug": True}
    checks = [c for s in result.steps for c in s.checks]
    assert [c.label for c in checks][-1] == "git.commit messageContains 'debug on'"


def test_a_host_program_starts_the_mock_agent_it_is_handed(
        scenarist_run: Callable[..., RunResult], tmp_path: Path) -> None:
    """Mode 1 with `ah`: the program under test launches $SCENARIST_AGENT_CMD (as a TUI that
    runs an agent would); the prompt typed into the terminal reaches the agent."""
    path = write_scenario(tmp_path, "hosted", """
ah:
  cmd: sh
  flags: ['-c', 'echo "host: starting the agent"; eval exec "$SCENARIST_AGENT_CMD"']
timeline:
  - userInputs:
      - relativeTime: 0
        input: "Write the file"
  - llmResponse:
      - assistant:
          - [20, "Writing it."]
  - writeFile:
      path: out/hosted.txt
      content: "written by the mock agent"
  - baseTimeDelta: 300
  - assert:
      fs: {exists: [out/hosted.txt]}
      text: {contains: ["host: starting the agent", "● writeFile out/hosted.txt"]}
expect:
  exitCode: 0
""")
    result = scenarist_run(path).raise_for_failure()
    written = Path(result.log_dir) / "workspace" / "out" / "hosted.txt"
    assert written.read_text() == "written by the mock agent"
