"""``scenarist agent`` as a process: every example, hostile paths, checkpoints, mismatches,
processes and usage errors."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from agentkit import EXAMPLES, SCENARIOS, agent, agent_env, filled, gone, running

from daemonkit import Daemons
from scenarist.processes import stop_group
from scenarist.scenario import load_scenario

# What each example does when the mock agent plays it in a fresh workspace seeded from its
# ``repo`` section (plus the files below): the exit code and a line the output must contain.
SEEDS: dict[str, dict[str, str]] = {
    "tool-tour.yaml": {
        "src/app.py": "def foo():\n    return 1\n\nbar = 1\n",
        "pyproject.toml": "[project]\nname = 'demo'\n",
        "analysis.ipynb": '{"cells": [{"id": "c1", "cell_type": "code", "source": ["x"],'
                          ' "metadata": {}, "outputs": [], "execution_count": null}],'
                          ' "metadata": {}, "nbformat": 4, "nbformat_minor": 5}',
    },
    # the history before sessionStart is not replayed: the workspace holds its result
    "load-session.yaml": {"hello.py": "print('Hello, friend!')\n"},
    # read by agentFileReads as /tmp/acp-workspace/main.py: acp.cwd names the workspace
    "acp-capabilities.yaml": {"main.py": "print('hello')\n"},
}
EXPECTED: dict[str, tuple[int, str]] = {
    "agent-faults.yaml": (0, "● runCmd ls"),
    "acp-capabilities.yaml": (0, "? permission for Write main.py (Allow once / Always allow / "
                                 "Deny) → Allow once"),
    "claude-write-edit.yaml": (0, "● runCmd grep -c '^- ' notes/todo.md"),
    "faults-flaky-api.yaml": (0, "NOTES.md has two items."),
    "hello-codex.yaml": (0, "⎿ hello from scenarist"),
    "load-session.yaml": (0, "⎿ Hello, friend!"),
    "rate-limit-retry.yaml": (0, "✗ API error 429 (rate_limit_exceeded)"),
    "rich-content.yaml": (0, "[image image/png: diagram.png]"),
    "rules-and-defines.yaml": (0, "The basic protocol."),
    # `npm test` really runs in the project of repo.dir (examples/repos/simulation-rest)
    "simulation-rest.yaml": (0, "⎿ Test suite passed"),
    "stream-faults.yaml": (0, "up to four attempts."),
    "tool-tour.yaml": (0, "⎿ started in the background as shell-1"),
}


def seed(workspace: Path, scenario: Path) -> None:
    """What a test executor would prepare: ``repo.dir`` and ``repo.files``, plus SEEDS."""
    repo = load_scenario(scenario).repo
    if repo is not None and repo.dir_path is not None:
        shutil.copytree(repo.dir_path, workspace, dirs_exist_ok=True)
    files = {f.path: f.data for f in (repo.files if repo else ())}
    files.update({k: v.encode() for k, v in SEEDS.get(scenario.name, {}).items()})
    for rel, data in files.items():
        target = workspace / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)


def test_every_example_is_listed() -> None:
    assert sorted(p.name for p in EXAMPLES.glob("*.yaml")) == sorted(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_every_example(name: str, tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    seed(work, EXAMPLES / name)
    result = agent("--scenario", EXAMPLES / name, "--workspace", work, "--speed", "0.01")
    code, line = EXPECTED[name]
    assert result.returncode == code, result.stdout + result.stderr
    assert line in result.stdout
    assert "Traceback" not in result.stderr
    assert ("✓ every real result matched" in result.stdout) == (code == 0)


def test_tool_tour_really_acts_on_the_workspace(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    seed(work, EXAMPLES / "tool-tour.yaml")
    result = agent("--scenario", EXAMPLES / "tool-tour.yaml", "--workspace", work,
                   "--speed", "0.01")
    assert result.returncode == 0, result.stdout
    # sed s/foo/bar/g ran in place, then editFile replaced "bar = 1", writeFile created a file
    assert (work / "src" / "app.py").read_text() == "def bar():\n    return 1\n\nbar = 2\n"
    assert (work / "src" / "new.py").read_text() == "x = 1\n"
    assert '"print(1)"' in (work / "analysis.ipynb").read_text()
    out = result.stdout
    assert "src/app.py:1:def foo():" in out  # grep -n with -C 1 context, before sed ran
    assert "⎿ ./pyproject.toml" in out  # find
    assert "(simulated)" in out and "⎿ (no scripted result) (simulated)" in out


def test_user_patches_are_left_to_the_test_executor(tmp_path: Path) -> None:
    """rich-content's userEdits and applyPatch are the executor's: the agent, sharing the
    workspace with it, must not apply them a second time."""
    work = tmp_path / "work"
    work.mkdir()
    seed(work, EXAMPLES / "rich-content.yaml")
    before = sorted(p.name for p in work.iterdir())
    result = agent("--scenario", EXAMPLES / "rich-content.yaml", "--workspace", work,
                   "--speed", "0.01")
    assert result.returncode == 0, result.stdout + result.stderr
    assert sorted(p.name for p in work.iterdir()) == before  # no hello.py from applyPatch
    assert (work / "README.md").read_text() == "# Calculater\n"  # nor userEdits' fix
    assert "add_file.patch" not in result.stdout


def _hostile(name: str, tmp_path: Path) -> tuple[Path, Path, Path]:
    """A workspace, an outside directory with a victim file, and the scenario to play."""
    work, outside = tmp_path / "work", tmp_path / "outside"
    work.mkdir()
    outside.mkdir()
    (outside / "victim.txt").write_text("keep\n")
    (outside / "secret.txt").write_text("top secret\n")
    return work, outside, filled(name, tmp_path, OUTSIDE=str(outside))


def _outside_untouched(outside: Path) -> None:
    assert sorted(p.name for p in outside.iterdir()) == ["secret.txt", "victim.txt"]
    assert (outside / "victim.txt").read_text() == "keep\n"
    assert (outside / "secret.txt").read_text() == "top secret\n"


def test_dotdot_is_refused(tmp_path: Path) -> None:
    work, outside, scenario = _hostile("dotdot.yaml", tmp_path)
    result = agent("--scenario", scenario, "--workspace", work, "--speed", "0.01")
    assert result.returncode == 1
    assert result.stdout.count("'..' is not allowed") >= 3 * 2  # each shown, then reported
    assert not (tmp_path / "escaped.txt").exists()
    _outside_untouched(outside)


def test_absolute_paths_outside_are_refused(tmp_path: Path) -> None:
    work, outside, scenario = _hostile("absolute.yaml", tmp_path)
    result = agent("--scenario", scenario, "--workspace", work, "--speed", "0.01")
    assert result.returncode == 1
    assert "/etc/passwd is outside the workspace" in result.stdout
    assert "root:" not in result.stdout
    assert result.stdout.count("is outside the workspace") >= 5
    _outside_untouched(outside)


def test_links_that_leave_the_workspace_are_never_followed(tmp_path: Path) -> None:
    work, outside, scenario = _hostile("symlink.yaml", tmp_path)
    (work / "out").symlink_to(outside)
    (work / "secret.txt").symlink_to(outside / "secret.txt")
    result = agent("--scenario", scenario, "--workspace", work, "--speed", "0.01")
    assert result.returncode == 1
    assert "top secret" not in result.stdout
    assert "secret.txt is a symbolic link" in result.stdout
    assert "out is a symbolic link" in result.stdout
    assert result.stdout.count("never follows links") >= 7
    assert (work / "secret.txt").is_symlink()
    _outside_untouched(outside)


def test_a_fifo_at_the_target_is_refused_without_blocking(tmp_path: Path) -> None:
    work, _outside, scenario = _hostile("fifo.yaml", tmp_path)
    os.mkfifo(work / "pipe")
    result = agent("--scenario", scenario, "--workspace", work, "--speed", "0.01", timeout=60)
    assert result.returncode == 1
    assert result.stdout.count("is a FIFO (named pipe), not a regular file") >= 3
    assert (work / "pipe").is_fifo()


def test_an_expected_refusal_matches(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    result = agent("--scenario", SCENARIOS / "refusal_expected.yaml", "--workspace", work,
                   "--speed", "0.01")
    assert result.returncode == 0, result.stdout
    assert "refused" in result.stdout and not (tmp_path / "escaped.txt").exists()


def test_checkpoint_runs_after_each_tool_execution_and_edit(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    seed(work, EXAMPLES / "tool-tour.yaml")
    log = tmp_path / "checkpoints.log"
    command = f'echo "$SCENARIST_CHECKPOINT $SCENARIST_CHECKPOINT_TOOL $PWD" >> {log}'
    result = agent("--scenario", EXAMPLES / "tool-tour.yaml", "--workspace", work,
                   "--speed", "0.01", "--checkpoint-cmd", command)
    assert result.returncode == 0, result.stdout
    lines = log.read_text().splitlines()
    tools = ["runCmd", "grep", "readFile", "listDir", "find", "sed", "editFile", "writeFile",
             "notebookEdit", "runCmd", "bashOutput", "killShell"]  # not the 6 simulated ones
    assert lines == [f"{n} {tool} {work.resolve()}" for n, tool in enumerate(tools, 1)]


def test_checkpoint_counts_edits_and_failed_tools(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    log = tmp_path / "checkpoints.log"
    result = agent("--scenario", SCENARIOS / "mismatch.yaml", "--workspace", work,
                   "--speed", "0.01", "--checkpoint-cmd", f"echo x >> {log}")
    assert result.returncode == 1
    assert log.read_text().splitlines() == ["x"] * 3  # two commands (one failing) and an edit


def test_refused_tools_take_no_checkpoint_and_a_failing_one_warns(tmp_path: Path) -> None:
    work, _outside, scenario = _hostile("dotdot.yaml", tmp_path)
    log = tmp_path / "checkpoints.log"
    refused = agent("--scenario", scenario, "--workspace", work, "--speed", "0.01",
                    "--checkpoint-cmd", f"echo x >> {log}; exit 4")
    assert refused.returncode == 1
    assert not log.exists()
    work2 = tmp_path / "work2"
    work2.mkdir()
    result = agent("--scenario", EXAMPLES / "hello-codex.yaml", "--workspace", work2,
                   "--speed", "0.01", "--checkpoint-cmd", "echo broken; exit 4")
    assert result.returncode == 0
    assert result.stdout.count("warning: checkpoint command exited with 4: broken") == 2


def test_real_results_are_compared_with_a_diff(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    result = agent("--scenario", SCENARIOS / "mismatch.yaml", "--workspace", work,
                   "--speed", "0.01")
    assert result.returncode == 1
    out = result.stdout
    assert "timeline[1].runCmd: result: the real output differs" in out
    assert "-there" in out and "+world" in out and " hello" in out
    assert "status: the scenario expects ok, but it exited with code 3" in out
    assert "line counts: the scenario declares +5 -0, the edit made +2 -0" in out
    assert "mismatch.yaml:6:5" in out  # file:line:col of the runCmd
    assert "✗ 3 mismatch(es)" in out
    assert (work / "notes.txt").read_text() == "one\ntwo\n"
    # the first mismatch, named as the model server names a divergence
    assert ("first divergence from scenario 'mismatch' at timeline[1].runCmd "
            f"({SCENARIOS / 'mismatch.yaml'}:6:5): result: expected 'hello\\nthere', got "
            "'hello\\nworld' (first difference at line 2, column 1)") in out


def test_a_secret_in_a_mismatch_is_masked(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    scenario = tmp_path / "leak.yaml"
    scenario.write_text(
        "name: leak\ntimeline:\n  - userInputs:\n      - [0, \"print the config\"]\n"
        "  - runCmd:\n      cmd: \"printf 'api_key=abc123secret\\\\ntoken sk-live0123456789\\\\n'\"\n"
        "      result: \"api_key=****\"\n")
    result = agent("--scenario", scenario, "--workspace", work, "--speed", "0.01")
    assert result.returncode == 1
    # the tool's own output is shown as the agent saw it; the mismatch report masks it
    report = result.stdout[result.stdout.index("✗ mismatch at"):]
    assert "abc123secret" not in report and "sk-live0123456789" not in report
    assert "+api_key=****" in report and "+token ****" in report
    assert "first divergence from scenario 'leak' at timeline[1].runCmd" in report


def test_commands_time_out_with_their_group_and_see_a_scrubbed_environment(
        tmp_path: Path) -> None:
    work = tmp_path / "work"
    (work / "sub").mkdir(parents=True)
    scenario = filled("process.yaml", tmp_path, WORKSPACE=str(work.resolve()))
    env = agent_env(SCENARIST_TEST_SECRET="sk-do-not-leak")
    result = agent("--scenario", scenario, "--workspace", work, "--speed", "0.01", env=env)
    assert result.returncode == 0, result.stdout
    assert "killed after the 300 ms timeout" in result.stdout
    assert "sk-do-not-leak" not in result.stdout
    child = int((work / "child.pid").read_text())
    assert gone(child)  # the background child was killed with the command's group


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--workspace", "{work}"], "the following arguments are required: --scenario"),
        (["--scenario", "{scenario}", "--workspace", "{tmp}/missing"], "is not a directory"),
        (["--scenario", "{tmp}/nope.yaml", "--workspace", "{work}"], "no such file or folder"),
        (["--scenario", "{scenario}", "--workspace", "{work}", "--speed", "nan"],
         "--speed must be a number above 0"),
        (["--scenario", "{scenario}", "--workspace", "{work}", "--speed", "-1"],
         "--speed must be a number above 0"),
        (["--scenario", "{scenario}", "--workspace", "{work}", "--format", "xml"],
         "invalid choice: 'xml'"),
        (["--scenario", "{bad}", "--workspace", "{work}"], "does not load (1 error(s) above)"),
        (["--scenario", str(SCENARIOS), "--workspace", "{work}"], "scenarios and neither a name"),
        (["--scenario", str(SCENARIOS), "--scenario-name", "nope", "--workspace", "{work}"],
         "no scenario is named 'nope'"),
    ],
)
def test_usage_errors_exit_2_with_one_clear_line(args: list[str], message: str,
                                                 tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: bad\ntimeline: 3\n")
    values = {"work": str(work), "tmp": str(tmp_path), "bad": str(bad),
              "scenario": str(SCENARIOS / "mismatch.yaml")}
    result = agent(*(a.format(**values) for a in args))
    assert result.returncode == 2, result.stderr
    assert message in result.stderr
    assert "Traceback" not in result.stderr


def test_a_folder_of_scenarios_is_chosen_by_name_or_prompt(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    by_name = agent("--scenario", SCENARIOS, "--scenario-name", "refusal_expected",
                    "--workspace", work, "--speed", "0.01")
    assert by_name.returncode == 0 and "refusal_expected" in by_name.stdout
    by_prompt = agent("--scenario", SCENARIOS, "--workspace", work, "--speed", "0.01",
                      "Start the changelog")
    assert by_prompt.returncode == 0, by_prompt.stdout
    assert "interactive" in by_prompt.stdout.splitlines()[0]
    assert (work / "CHANGELOG.md").read_text() == "# Changelog\n- 1.0: first release\n"


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_stopping_the_agent_stops_every_tool_process(tmp_path: Path, signum: int) -> None:
    work = tmp_path / "work"
    work.mkdir()
    argv = [sys.executable, "-m", "scenarist", "agent", "--scenario",
            str(SCENARIOS / "stop.yaml"), "--workspace", str(work), "--speed", "0.01"]
    proc = subprocess.Popen(argv, env=agent_env(), stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True)
    try:
        # the shell creates a pid file (its redirection) before `echo` writes the pid into it
        while not all(_written_pid(work / f"{n}.pid") for n in ("fg", "bg")):
            assert proc.poll() is None, proc.communicate()
            time.sleep(0.05)
        children = [pid for n in ("fg", "bg") if (pid := _written_pid(work / f"{n}.pid"))]
        assert all(running(pid) for pid in children)
        os.killpg(proc.pid, signum)  # what a test executor does to the agent's group
        proc.communicate(timeout=60)
    finally:
        stop_group(proc)
    assert proc.returncode == 128 + signum
    assert all(gone(pid) for pid in children)


def _written_pid(path: Path) -> int | None:
    """The pid in ``path`` once a whole line is written, else ``None``."""
    try:
        text = path.read_text()
    except FileNotFoundError:
        return None
    return int(text) if text.endswith("\n") else None


def test_nothing_a_command_started_outlives_the_agent(tmp_path: Path, daemons: Daemons) -> None:
    work = tmp_path / "work"
    work.mkdir()
    scenario = tmp_path / "daemons.yaml"
    scenario.write_text(f"""name: daemons
timeline:
  - userInputs:
      - [0, "start things"]
  - runCmd:
      cmd: "{daemons.command}; echo foreground"
      result: foreground
  - runCmd:
      cmd: "{daemons.command}; echo background; sleep 60"
      run_in_background: true
""")
    result = agent("--scenario", scenario, "--workspace", work, "--speed", "0.01")
    assert result.returncode == 0, result.stdout + result.stderr
    assert daemons.alive() == []
