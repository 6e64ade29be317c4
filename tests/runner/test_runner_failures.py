"""Runs that go wrong end cleanly: deadlines with the screen, nothing left running, golden
diffs and updates, clear errors for bad input."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from runnerkit import running, write_scenario

from daemonkit import Daemons
from scenarist.runner import RunResult
from scenarist.runner.terminal import session_processes

Run = Callable[..., RunResult]


def test_a_hanging_program_ends_at_its_deadline_with_the_screen_and_no_process_left(
        scenarist_run: Run, tmp_path: Path) -> None:
    path = write_scenario(tmp_path, "hangs", """
ah:
  cmd: sh
  flags: ['-c', 'set -m; sleep 300 & echo "job $!"; echo "working forever"; while :; do sleep 1; done']
timeline:
  - screenshot: started
expect:
  exitCode: 0
""")
    result = scenarist_run(path, exit_timeout_s=1.0)
    assert result.outcome == "failed"
    (exit_check,) = result.expectations
    assert exit_check.outcome == "failed"
    assert "still running 1 s after the timeline ended" in exit_check.message
    assert "│working forever" in exit_check.message  # the screen as it was
    assert result.final_screen is not None and result.final_screen.lines[1] == "working forever"
    job = int(result.final_screen.lines[0].split()[1])  # in its own process group (set -m)
    stopped = [p.pid for p in result.leftover]
    assert job in stopped and result.pid in stopped  # the program and its job, killed
    assert job in [p.pid for p in result.left_behind]  # (and the loop's `sleep 1`)
    assert not any(running(pid) for pid in stopped)
    assert session_processes(result.pid) == []
    assert result.exit_code is not None and result.exit_code < 0  # ended by a signal


def test_a_daemon_left_by_a_passing_run_is_stopped_and_listed(
        scenarist_run: Run, tmp_path: Path, daemons: Daemons) -> None:
    path = write_scenario(tmp_path, "leaves-a-daemon", f"""
ah:
  cmd: sh
  flags: ['-c', '{daemons.command}; echo started; read line']
timeline:
  - assert:
      text: {{contains: started}}
""")
    result = scenarist_run(path)
    assert result.outcome == "passed", result.failures
    assert daemons.alive() == []
    (daemon,) = result.left_behind  # not hidden by the pass
    assert daemons.marker in daemon.cmdline
    summary = json.loads((Path(result.log_dir) / "result.json").read_text())
    assert {"pid": daemon.pid, "cmdline": daemon.cmdline} in summary["leftover"]


def test_a_user_command_that_leaves_a_daemon_returns_and_the_daemon_is_stopped(
        scenarist_run: Run, tmp_path: Path, daemons: Daemons) -> None:
    path = write_scenario(tmp_path, "command-daemon", f"""
ah: {{cmd: sh, flags: ['-c', 'echo ready; read line']}}
timeline:
  - userCommand:
      cmd: "{daemons.command}; echo done"
""")
    result = scenarist_run(path)
    (step,) = result.steps
    assert step.outcome == "passed" and "exit 0; left running, stopped:" in step.message
    assert daemons.marker in step.message and daemons.alive() == []


def test_a_screen_that_never_settles_fails_the_screenshot_with_the_screen(
        scenarist_run: Run, tmp_path: Path) -> None:
    path = write_scenario(tmp_path, "spins", """
ah:
  cmd: sh
  flags: ['-c', 'read word; while :; do echo "spin $word"; done']
timeline:
  - userInputs:
      - relativeTime: 0
        input: go
  - screenshot: spinning
""")
    result = scenarist_run(path, wait_timeout_s=0.5)
    (typed, shot) = result.steps
    assert typed.outcome == "passed" and shot.outcome == "failed"
    assert "did not settle (it keeps writing" in shot.message
    assert "│spin go" in shot.message
    assert shot.capture is not None and "spin go" in shot.capture.lines
    assert not any(running(p.pid) for p in result.leftover)


def test_a_program_that_never_becomes_ready_is_an_error_with_its_screen(
        scenarist_run: Run, tmp_path: Path) -> None:
    path = write_scenario(tmp_path, "busy", """
ah: {cmd: sh, flags: ['-c', 'while :; do echo busy; done']}
timeline:
  - screenshot: never
""")
    result = scenarist_run(path, wait_timeout_s=0.5)
    assert result.outcome == "failed" and result.steps == ()
    (error,) = result.errors
    assert "did not become ready" in error and "│busy" in error


def test_golden_mismatch_shows_a_diff_and_update_golden_rewrites(
        scenarist_run: Run, tmp_path: Path) -> None:
    path = write_scenario(tmp_path, "greets", """
ah: {cmd: sh, flags: ['-c', 'printf "hello\\nworld\\n"; read x']}
timeline:
  - screenshot: greeting
""")
    first = scenarist_run(path)
    assert first.steps[0].message == "new golden written"
    golden = Path(first.steps[0].golden or "")
    assert golden.name == "greeting.golden"
    assert golden.parent == tmp_path / "tmp" / "scenarist" / "greets" / "100x30" / "screenshots"
    golden.write_text(golden.read_text().replace("|world", "|WORLD"))
    second = scenarist_run(path)
    step = second.steps[0]
    assert second.outcome == "failed" and step.outcome == "failed"
    assert "-|WORLD" in step.diff and "+|world" in step.diff
    assert golden.with_suffix(".actual").read_text().count("|world") == 1
    third = scenarist_run(path, update_golden=True)
    assert third.outcome == "passed" and third.steps[0].message == "golden updated"
    assert "|world" in golden.read_text()
    assert scenarist_run(path).steps[0].message == "matches the golden"


def test_terminal_profile_sets_the_pty_size_and_the_path_id(
        scenarist_run: Run, tmp_path: Path) -> None:
    (tmp_path / "narrow.json").write_text('{"name": "narrow", "width": 40, "height": 10, '
                                          '"theme": "ignored"}')
    path = write_scenario(tmp_path, "sized", """
terminalRef: narrow.json
ah: {cmd: sh, flags: ['-c', 'stty size; read x']}
timeline:
  - assert:
      text: {contains: ["10 40"]}
  - screenshot: size
""")
    result = scenarist_run(path).raise_for_failure()
    assert result.profile == "narrow"
    assert result.final_screen is not None and result.final_screen.width == 40
    assert "/narrow/screenshots/size.golden" in (result.steps[1].golden or "")


def test_failed_user_events_and_asserts_are_reported_one_by_one(
        scenarist_run: Run, tmp_path: Path) -> None:
    (tmp_path / "bad.patch").write_text("--- a/none.txt\n+++ b/none.txt\n@@ -1 +1 @@\n-a\n+b\n")
    path = write_scenario(tmp_path, "mixed", """
ah: {cmd: sh, flags: ['-c', 'echo ready; read x']}
timeline:
  - userCommand: {cmd: 'echo made > made.txt'}
  - userCommand: {cmd: 'echo oops >&2; exit 3'}
  - userEdits: {patch: bad.patch}
  - userInputs:
      - {relativeTime: 0, input: 'for the web', target: webui}
  - assert:
      fs: {exists: [made.txt], notExists: [made.txt]}
      text: {contains: [ready, absent]}
  - log: checked
""")
    result = scenarist_run(path)
    by_kind = [(s.kind, s.outcome) for s in result.steps]
    assert by_kind == [("userCommand", "passed"), ("userCommand", "failed"),
                       ("userEdits", "failed"), ("userInputs", "skipped"),
                       ("assert", "failed"), ("log", "passed")]
    assert result.steps[1].message == "exit 3: oops"
    assert "git apply bad.patch failed" in result.steps[2].message
    assert [c.outcome for c in result.steps[4].checks] == ["passed", "failed", "passed", "failed"]
    assert result.failures == [
        "userCommand echo oops >&2; exit 3 at 0 ms: exit 3: oops",
        result.failures[1],
        "assert at 0 ms: fs.notExists made.txt: exists",
        "assert at 0 ms: text.contains 'absent': not on the screen",
    ]
    assert (Path(result.log_dir) / "commands" / "002.log").read_text().startswith(
        "$ echo oops >&2; exit 3\noops\n[exit 3]")


def test_mode_1_hands_the_mock_agent_command_to_the_program(
        scenarist_run: Run, tmp_path: Path) -> None:
    path = write_scenario(tmp_path, "wired", """
ah:
  cmd: sh
  flags: ['-c', 'printf "%s\\n" "$SCENARIST_AGENT_CMD"; read x']
  env: {EXTRA: 'yes'}
timeline:
  - assert:
      text: {contains: ["-m scenarist agent --scenario", "--workspace"]}
""")
    result = scenarist_run(path).raise_for_failure()
    assert result.argv[0] == "sh"


def test_bad_input_is_a_clear_error_not_a_traceback(scenarist_run: Run, tmp_path: Path) -> None:
    missing = write_scenario(tmp_path, "missing", "ah: {cmd: no-such-program-xyz}\ntimeline: []\n")
    assert "cannot start 'no-such-program-xyz'" in scenarist_run(missing).errors[0]
    idle = write_scenario(tmp_path, "idle", "timeline:\n  - log: hi\n")
    assert "nothing to run" in scenarist_run(idle).errors[0]
    ref = write_scenario(tmp_path, "ref", "terminalRef: nope.json\nah: {cmd: sh}\ntimeline: []\n")
    assert "terminalRef 'nope.json' not found" in scenarist_run(ref).errors[0]
    (tmp_path / "tiny.json").write_text('{"width": 3, "height": 10}')
    tiny = write_scenario(tmp_path, "tiny", "terminalRef: tiny.json\nah: {cmd: sh}\ntimeline: []\n")
    assert "'width' must be an integer from 10" in scenarist_run(tiny).errors[0]
    broken = tmp_path / "broken.yaml"
    broken.write_text("name: broken\ntimeline: [\n")
    assert "broken.yaml:" in scenarist_run(broken).errors[0]


def test_a_missing_agent_bin_is_named(scenarist_run: Run, tmp_path: Path) -> None:
    path = write_scenario(tmp_path, "no_agent", """
timeline:
  - userInputs: [{relativeTime: 0, input: hi}]
  - llmResponse: [{assistant: [[10, Hello.]]}]
""")
    result = scenarist_run(path, agent="codex", agent_bin="node_modules/.bin/nope")
    assert result.errors == ("--agent-bin node_modules/.bin/nope: no executable there; give "
                             "the path of the 'codex' CLI",)

def test_what_a_program_leaves_when_it_exits_is_stopped_then(
        scenarist_run: Run, tmp_path: Path, daemons: Daemons) -> None:
    path = write_scenario(tmp_path, "exits-leaving-a-daemon", f"""
ah:
  cmd: sh
  flags: ['-c', '{daemons.command}; echo bye']
timeline:
  - userCommand:
      relativeTime: 1000
      cmd: "! grep -qs '[{daemons.marker[0]}]{daemons.marker[1:]}' /proc/[0-9]*/cmdline"
expect:
  exitCode: 0
""")  # ([s]cenarist-…: grep's own command line does not match)
    result = scenarist_run(path)
    (check,) = result.steps
    assert check.outcome == "passed", check.message  # gone before the run's end
    (daemon,) = result.left_behind
    assert daemons.marker in daemon.cmdline and result.exit_code == 0
