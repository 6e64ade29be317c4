"""No false pass: the program's exit status is part of the verdict (read after the reap), a
program or agent that ends early or hangs fails the run with a message naming why, and the
mock agent's progress keeps the runner's beats in step with it."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from runnerkit import running, write_scenario

from scenarist.agent.progress import Progress, ProgressReader, parse_progress
from scenarist.runner import RunResult

Run = Callable[..., RunResult]

AGENT_TURN = """
  - llmResponse:
      - assistant:
          - [20, "Writing it."]
  - writeFile:
      path: out.txt
      content: "from the agent"
  - assert:
      fs: {exists: [out.txt]}
"""


def summary(result: RunResult) -> dict[str, object]:
    data: dict[str, object] = json.loads((Path(result.log_dir) / "result.json").read_text())
    return data


@pytest.mark.parametrize("timeline", ["timeline: []", "timeline:\n  - log: started"])
def test_a_program_that_crashes_at_start_up_fails_the_run_with_its_exit_code(
        scenarist_run: Run, tmp_path: Path, timeline: str) -> None:
    """The reproducer of issue 26: exit 1 at start-up with a short timeline was "passed"
    while result.json said exit code 1 (the code was read before the reap)."""
    path = write_scenario(tmp_path, "crash", "ah: {cmd: sh, flags: ['-c', 'echo boom >&2; "
                          f"exit 1']}}\n{timeline}\n")
    for _ in range(3):
        result = scenarist_run(path)
        assert result.outcome == "failed" and result.exit_code == 1
        assert summary(result)["outcome"] == "failed" and summary(result)["exitCode"] == 1
        (failure,) = result.failures
        assert "the program exited with 1" in failure and "boom" in failure


def test_a_program_that_exits_0_at_once_fails_though_a_prompt_was_typed(
        scenarist_run: Run, tmp_path: Path) -> None:
    """Issue 27's reproducer: it passed, as if the prompt had been answered."""
    path = write_scenario(tmp_path, "quits", """
ah: {cmd: sh, flags: ['-c', 'exit 0']}
timeline:
  - userInputs: [[0, "do the thing"]]
  - assert:
      fs: {notExists: [nothing.txt]}
""")
    result = scenarist_run(path)
    assert result.outcome == "failed" and result.exit_code == 0
    (failure,) = result.errors
    assert "the program exited with 0" in failure and "before the scenario ended" in failure
    assert "set expect.exitCode: 0" in failure and "timeline[0]" in failure
    assert result.steps == ()  # stopped at once: nothing typed into a program that is gone


def test_a_program_that_exits_between_prompts_stops_the_run_there(
        scenarist_run: Run, tmp_path: Path) -> None:
    path = write_scenario(tmp_path, "one_line", """
ah: {cmd: sh, flags: ['-c', 'read line; echo "got $line"']}
timeline:
  - userInputs: [[0, "first"]]
  - userInputs: [[300, "second"]]  # relativeTime: ms from the scenario's start
  - baseTimeDelta: 300
  - screenshot: never
""")
    result = scenarist_run(path, wait_timeout_s=30.0)
    assert result.outcome == "failed" and result.exit_code == 0
    assert [s.kind for s in result.steps] == ["userInputs"]
    (failure,) = result.errors
    assert "exited with 0" in failure and "2 beat(s) still to play, the next a userInputs at " \
        "300 ms" in failure and "got first" in failure


def test_an_expected_exit_may_come_early_but_input_after_it_fails(
        scenarist_run: Run, tmp_path: Path) -> None:
    path = write_scenario(tmp_path, "expected", """
ah: {cmd: sh, flags: ['-c', 'read line; echo "bye $line"']}
timeline:
  - userInputs: [[0, "now"]]
  - assert:
      text: {contains: ["bye now"]}
expect:
  exitCode: 0
""")
    scenarist_run(path).raise_for_failure()
    late = write_scenario(tmp_path, "late", """
ah: {cmd: sh, flags: ['-c', 'read line; echo "bye $line"']}
timeline:
  - userInputs: [[0, "now"]]
  - userInputs: [[300, "too late"]]
expect:
  exitCode: 0
""")
    result = scenarist_run(late)
    assert result.outcome == "failed"
    assert result.failures == [
        "userInputs too late at 300 ms: the program had already exited with 0: nothing read "
        "this input"]


def test_a_program_that_hangs_fails_the_wait_it_hangs_in(
        scenarist_run: Run, tmp_path: Path) -> None:
    busy = write_scenario(tmp_path, "spins", """
ah: {cmd: sh, flags: ['-c', 'read line; echo spinning; while :; do :; done']}
timeline:
  - userInputs: [[0, "go"]]
  - assert:
      text: {contains: ["spinning"]}
""")
    result = scenarist_run(busy, wait_timeout_s=1.0)
    assert result.outcome == "failed"
    (failure,) = result.failures
    assert "did not settle (it keeps running without waiting for input" in failure
    stuck = write_scenario(tmp_path, "stuck", """
ah: {cmd: sh, flags: ['-c', 'read line; echo "working on $line"; sleep 300']}
timeline:
  - userInputs: [[0, "it"]]
expect:
  exitCode: 0
""")
    result = scenarist_run(stuck, exit_timeout_s=1.0)
    assert result.outcome == "failed" and result.exit_code is not None and result.exit_code < 0
    (failure,) = result.failures
    assert "still running 1 s after the timeline ended" in failure
    assert "the program did not exit before its deadline" in failure


def test_the_mock_agent_is_waited_for_not_the_wall_clock(
        scenarist_run: Run, tmp_path: Path) -> None:
    """The assert is due 10 ms after the prompt on the runner's clock; the agent writes the
    file 100 ms after it gets the prompt (examples/hello-codex.yaml failed this way)."""
    path = write_scenario(tmp_path, "in_step", """
timeline:
  - userInputs: [[0, "write out.txt"]]
  - llmResponse:
      - assistant:
          - [100, "Writing it."]
  - writeFile:
      path: out.txt
      content: "from the agent"
  - assert:
      fs: {exists: [out.txt]}
  - baseTimeDelta: 10
""")
    result = scenarist_run(path).raise_for_failure()
    assert result.steps[-1].checks[0].message == "exists"
    progress = ProgressReader(Path(result.log_dir) / "agent-progress").read()
    assert progress.ended == 0 and progress.prompt == 0 and progress.reached >= 3


def test_a_mock_agent_that_ends_early_stops_the_run_at_once(
        scenarist_run: Run, tmp_path: Path) -> None:
    """Ctrl-D where the agent expects a prompt ends its playback: reported as the cause,
    without waiting for the beats (and the generous wait deadline) after it."""
    path = write_scenario(tmp_path, "eof", f"""
timeline:
  - userInputs: [[0, "<ctrl-d>"]]
{AGENT_TURN}
  - screenshot: never
""")
    result = scenarist_run(path, wait_timeout_s=60.0)
    assert result.outcome == "failed"
    (failure,) = result.errors
    assert "the mock agent ended its playback (exit 1) before timeline[2].writeFile" in failure
    assert "the input ended before the prompt" in failure  # its own words, on the screen
    assert [s.kind for s in result.steps] == ["userInputs"]


def test_a_mock_agent_killed_under_its_host_is_reported_at_once(
        scenarist_run: Run, tmp_path: Path) -> None:
    """The host starts the agent in the background, waits until it has started and kills
    it (the pid from its progress file) before its turn is over."""
    path = write_scenario(tmp_path, "killed", """
ah:
  cmd: sh
  flags: ['-c', 'eval "$SCENARIST_AGENT_CMD" &
                 until grep -q start "$SCENARIST_AGENT_PROGRESS"; do sleep 0.05; done;
                 kill -9 $(sed -n "s/^start //p" "$SCENARIST_AGENT_PROGRESS");
                 echo "host: agent killed"; read line; read line']
timeline:
  - userInputs: [[0, "hello"]]
  - llmResponse:
      - assistant:
          - [5000, "Writing it."]
  - writeFile:
      path: out.txt
      content: "from the agent"
  - assert:
      fs: {exists: [out.txt]}
""")
    result = scenarist_run(path, wait_timeout_s=60.0)
    assert result.outcome == "failed"
    (failure,) = result.errors
    assert "the mock agent (pid " in failure and "without ending its playback" in failure
    assert not any(running(p.pid) for p in result.leftover)


def test_a_host_that_never_starts_the_mock_agent_fails_naming_that(
        scenarist_run: Run, tmp_path: Path) -> None:
    path = write_scenario(tmp_path, "no_agent", f"""
ah: {{cmd: sh, flags: ['-c', 'echo "no agent here"; read line; read line']}}
timeline:
  - userInputs: [[0, "hello"]]
{AGENT_TURN}
""")
    result = scenarist_run(path, wait_timeout_s=1.0)
    assert result.outcome == "failed"
    assert any("it never started (a program with `ah` must run $SCENARIST_AGENT_CMD)" in f
               for f in result.failures)


def test_a_real_agent_stand_in_that_exits_early_is_reported_at_once(
        scenarist_run: Run, tmp_path: Path) -> None:
    """Mode 2 (`--agent codex` with `ah`: the program talks to the runner's scenarist llm):
    a program that exits before the model turns it was meant to act on."""
    path = write_scenario(tmp_path, "mode2", f"""
ah: {{cmd: sh, flags: ['-c', 'read line; echo "crashing on $line"; exit 3']}}
timeline:
  - userInputs: [[0, "hello"]]
{AGENT_TURN}
""")
    result = scenarist_run(path, agent="codex", wait_timeout_s=60.0)
    assert result.outcome == "failed" and result.exit_code == 3
    (failure,) = result.errors
    assert "exited with 3" in failure and "crashing on hello" in failure


def test_progress_lines_parse_in_order_and_ignore_noise() -> None:
    lines = ["start 41", "prompt 0", "beat 0", "beat 2", "garbage", "beat x", "beat 1", "end 1"]
    assert parse_progress(lines) == Progress(pid=41, reached=2, prompt=0, ended=1)
    assert parse_progress(["beat 3", "start 7"]) == Progress(pid=7)  # a restart begins afresh


def test_the_progress_reader_keeps_a_half_written_line(tmp_path: Path) -> None:
    path = tmp_path / "progress"
    path.write_text("start 5\nbeat 1\nbe")
    reader = ProgressReader(path)
    assert reader.read() == Progress(pid=5, reached=1)
    with path.open("a") as file:
        file.write("at 4\nend 0\n")
    assert reader.read() == Progress(pid=5, reached=4, ended=0)


def test_a_program_the_runner_stops_at_the_end_is_not_reported_as_a_crash(
        scenarist_run: Run, tmp_path: Path) -> None:
    """Without ``expect.exitCode`` a program still running when the timeline has played is
    hung up by the runner: result.json says so beside the code that hang-up left."""
    path = write_scenario(tmp_path, "stays", """
ah: {cmd: sh, flags: ['-c', 'echo ready; sleep 60']}
timeline:
  - log: started
""")
    result = scenarist_run(path)
    assert result.outcome == "passed" and result.stopped
    assert summary(result)["stoppedByRunner"] is True
    assert "stopped by the runner" in result.exit_text
    crashed = scenarist_run(write_scenario(tmp_path, "crash", "ah: {cmd: sh, flags: ['-c', "
                                           "'exit 3']}\ntimeline: []\n"))
    assert not crashed.stopped and summary(crashed)["stoppedByRunner"] is False
    assert crashed.exit_text == "3"
