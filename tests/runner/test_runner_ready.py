"""When a program counts as ready for its first keys (``Terminal.ready``): a program that
waits to read before it draws (``bc -q``) is ready while it waits; a real agent CLI, known to
draw a screen (``drawn``), only once it drew, since a Node TUI waits in its event loop while it
loads and keys typed then are lost (seen with Gemini CLI)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from scenarist.runner.terminal import Terminal

#: waits to read (up to 3 s) before it draws anything, then draws and reads on
PROGRAM = ["bash", "-c", "read -t 3 line; printf 'drawn> '; cat"]
DEADLINE_MS = 10_000


@pytest.mark.parametrize(("drawn", "before"), [(False, 0), (True, len("drawn> "))])
def test_ready_waits_for_a_drawn_screen_only_when_asked(tmp_path: Path, drawn: bool,
                                                        before: int) -> None:
    env = {"PATH": os.environ.get("PATH", os.defpath), "HOME": str(tmp_path),
           "TERM": "xterm-256color"}
    terminal = Terminal(PROGRAM, cwd=tmp_path, env=env, width=40, height=5)
    try:
        terminal.ready(100.0, terminal.clock.now_ms() + DEADLINE_MS, drawn=drawn)
        assert terminal.bytes_read == before
    finally:
        terminal.close()
