"""A prompt typed into a real agent's TUI (mode 2) reaches the model whole: keys the TUI lost
while starting are typed again, and an Enter the tty turned into a newline is pressed again
as the kitty keyboard protocol's Enter (both seen in CI, with Gemini CLI and Codex)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

from runnerkit import HERE, write_scenario

from scenarist.runner import RunResult
from scenarist.runner.screen import ScreenCapture, shows_typed
from scenarist.runner.terminal import Terminal

Run = Callable[..., RunResult]
FAKE = HERE / "fake_agent_tui.py"


def _screen(*rows: str) -> ScreenCapture:
    return ScreenCapture(width=40, height=len(rows), rows=tuple(r.ljust(40) for r in rows),
                         styles=(), cursor=(0, 0))


def test_typed_text_is_found_whole_across_a_box_s_wrapped_rows() -> None:
    boxed = _screen("╭──────────────╮", "│ > Create the │", "│   greeting   │",
                    "│   files      │", "╰──────────────╯")
    assert shows_typed(boxed, "Create the greeting files")
    assert shows_typed(_screen("› Create the greeting files"), "Create the greeting files")
    assert not shows_typed(_screen("│ > e the greeting files │"), "Create the greeting files")


def test_the_terminal_tells_whether_the_tty_turns_cr_into_nl(tmp_path: Path) -> None:
    for argv, translates in ((["cat"], True),
                             ([sys.executable, "-c", "import tty, sys; tty.setraw(0); "
                               "print('raw', flush=True); sys.stdin.read(1)"], False)):
        terminal = Terminal(argv, cwd=tmp_path, env={"PATH": "/usr/bin:/bin"}, width=40,
                            height=5)
        try:
            terminal.ready(50.0, terminal.clock.now_ms() + 10_000)
            assert terminal.translates_cr is translates
        finally:
            terminal.close()


def test_a_prompt_reaches_the_model_through_lost_keys_and_a_newline_enter(
        scenarist_run: Run, tmp_path: Path) -> None:
    path = write_scenario(tmp_path, "lost_keys", """
timeline:
  - userInputs: [{relativeTime: 0, input: Create the greeting files}]
  - llmResponse: [{assistant: [[10, Both files are in place.]]}]
  - assert:
      text:
        contains: ["submitted: Create the greeting files", "Both files are in place."]
""")
    result = scenarist_run(path, agent="codex", agent_bin=str(FAKE))
    assert result.outcome == "passed", [(s.label, s.outcome, s.message) for s in result.steps]
    assert result.steps[0].message == "typed and submitted"
    assert "unexpected CR" not in "\n".join(result.final_screen.lines)  # type: ignore[union-attr]
