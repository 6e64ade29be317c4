"""Prompts typed at a real terminal (a pty through pexpect), and the pause they make in the
schedule (on a virtual clock)."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

import pexpect
from agentkit import SCENARIOS, agent_env

from scenarist.agent.play import Pacer
from scenarist.play import VirtualClock

PROMPT_MARK = "› "


def spawn(work: Path, *extra: str) -> pexpect.spawn:
    argv = ["-m", "scenarist", "agent", "--scenario", str(SCENARIOS / "interactive.yaml"),
            "--workspace", str(work), "--speed", "0.01", *extra]
    return pexpect.spawn(sys.executable, argv, env=agent_env(), encoding="utf-8",
                         dimensions=(30, 100), timeout=60)


def finish(child: pexpect.spawn) -> int:
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus is not None, child.signalstatus
    return int(child.exitstatus)


def test_prompts_are_read_from_the_terminal(tmp_path: Path) -> None:
    child = spawn(tmp_path)
    try:
        child.expect_exact(PROMPT_MARK)
        assert not (tmp_path / "CHANGELOG.md").exists()  # nothing happens before the prompt
        child.sendline("Start the changelog")
        child.expect_exact("Creating CHANGELOG.md.")
        child.expect_exact(PROMPT_MARK)
        child.sendline("Add an entry for version 1.0")
        child.expect_exact("CHANGELOG.md has the 1.0 entry.")
        child.expect_exact("every real result matched the scenario")
        assert finish(child) == 0
    finally:
        child.close(force=True)
    assert (tmp_path / "CHANGELOG.md").read_text() == "# Changelog\n- 1.0: first release\n"


def test_the_prompt_argument_is_the_first_input_and_a_wrong_prompt_is_a_mismatch(
        tmp_path: Path) -> None:
    child = spawn(tmp_path, "Start the changelog")
    try:
        child.expect_exact("Creating CHANGELOG.md.")
        child.expect_exact(PROMPT_MARK)
        child.sendline("Add an entry for 2.0")
        child.expect_exact("prompt: the text typed differs from the scenario's userInputs")
        child.expect_exact("-Add an entry for version 1.0")
        child.expect_exact("+Add an entry for 2.0")
        assert finish(child) == 1
    finally:
        child.close(force=True)


def test_end_of_input_stops_with_a_mismatch(tmp_path: Path) -> None:
    child = spawn(tmp_path, "Start the changelog")
    try:
        child.expect_exact(PROMPT_MARK)
        child.sendeof()
        child.expect_exact("the input ended before the prompt the scenario expects here")
        assert finish(child) == 1
    finally:
        child.close(force=True)
    assert (tmp_path / "CHANGELOG.md").read_text() == "# Changelog\n"  # the second never ran


@dataclass(frozen=True)
class _Beat:
    at_ms: int


def test_waiting_for_the_user_restarts_the_schedule_from_that_beat() -> None:
    clock = VirtualClock()
    beats = [_Beat(0), _Beat(100), _Beat(250), _Beat(400)]
    pacer = Pacer(beats, clock=clock, speed=2.0)
    fired = []
    for beat in pacer:
        fired.append((beat.at_ms, clock.now_ms()))
        if beat.at_ms == 100:  # a prompt: the user types for 5 s
            clock.advance(5000)
            pacer.restart_after(beat)
    # on schedule (x2) until the prompt; after it, due relative to the prompt's arrival
    assert fired == [(0, 0.0), (100, 200.0), (250, 5200.0 + 300.0), (400, 5200.0 + 600.0)]
