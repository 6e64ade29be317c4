"""``scenarist demo``: the quick start's bundled scenario, played end to end for real."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from scenarist.demo import examples_dir, run_tool

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def demo(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "scenarist", "demo", *args], capture_output=True,
                          text=True, timeout=120, stdin=subprocess.DEVNULL)


def test_default_scenario_runs_its_commands_for_real() -> None:
    done = demo("--speed", "0.1")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "user> Create hello.py that prints a greeting, then run it" in out
    assert "(thinking) A one-line Python script" in out
    assert 'model> Bash {"command": "python3 hello.py"}' in out
    assert "  hello from scenarist" in out  # the real output of the command the model asked for
    assert out.rstrip().endswith("files in the workspace: hello.py")


def test_write_and_edit_land_in_the_workspace(tmp_path: Path) -> None:
    done = demo("--scenario", str(EXAMPLES / "claude-write-edit.yaml"), "--speed", "0.01", "--keep")
    assert done.returncode == 0, done.stderr
    workspace = Path(done.stdout.split("workspace: ", 1)[1].splitlines()[0])
    try:
        assert (workspace / "notes" / "todo.md").read_text() == "# Todo\n- write tests\n- ship it\n"
    finally:
        subprocess.run(["rm", "-rf", str(workspace)], check=True)


def test_scripted_rate_limit_is_retried_after_retry_after() -> None:
    done = demo("--scenario", str(EXAMPLES / "rate-limit-retry.yaml"), "--speed", "0.01")
    assert done.returncode == 0, done.stderr
    assert "answered 429" in done.stdout and "retrying in 1 s" in done.stdout
    assert "model> The changelog adds retries" in done.stdout


def test_missing_scenario_file_is_a_usage_error(tmp_path: Path) -> None:
    done = demo("--scenario", str(tmp_path / "nope.yaml"))
    assert done.returncode == 2
    assert "no scenario file at" in done.stderr and "Traceback" not in done.stderr


def test_invalid_scenario_reports_location_and_exits_1(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: bad\ntimeline:\n  - llmResponse: 3\n")
    done = demo("--scenario", str(bad))
    assert done.returncode == 1
    assert f"{bad}:3:" in done.stderr and "Traceback" not in done.stderr


def test_bundled_examples_are_found() -> None:
    assert (examples_dir() / "hello-codex.yaml").is_file()


def test_file_tools_stay_inside_the_workspace(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="outside the workspace"):
        run_tool("Write", {"file_path": "/etc/passwd-scenarist", "content": "x"}, tmp_path)
    assert run_tool("Write", {"file_path": str(tmp_path / "a.txt"), "content": "one\n"},
                    tmp_path) == ("wrote a.txt", False)
    assert run_tool("Edit", {"file_path": "a.txt", "old_string": "two", "new_string": "3"},
                    tmp_path) == ("old_string not found in a.txt", True)
    assert run_tool("Bash", {"command": "cat a.txt; exit 3"}, tmp_path) == ("one\n", True)


@pytest.mark.parametrize("speed", ["0", "-1", "nan"])
def test_a_speed_that_is_not_above_zero_is_a_usage_error(
        speed: str, capsys: pytest.CaptureFixture[str]) -> None:
    from scenarist.demo import main

    assert main([f"--speed={speed}"]) == 2
    assert "--speed must be a number above 0" in capsys.readouterr().err
