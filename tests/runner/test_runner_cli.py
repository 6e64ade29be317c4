"""``scenarist run`` as a user runs it: exit codes, JUnit XML, HTML, -j N, usage errors."""

from __future__ import annotations

import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

from runnerkit import SCENARIOS, golden_copy, write_scenario

from daemonkit import Daemons


def scenarist(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "scenarist", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=120, check=False)


def test_a_suite_in_parallel_with_junit_and_html_reports(tmp_path: Path) -> None:
    failing = write_scenario(tmp_path, "fails", """
ah: {cmd: sh, flags: ['-c', 'echo hi; read x']}
timeline:
  - assert:
      text: {contains: [bye]}
""")
    target = golden_copy(tmp_path)
    done = scenarist("run", str(SCENARIOS / "bc_sums.yaml"), str(SCENARIOS / "less_paging.yaml"),
                     str(failing), "-j", "2", "--target", str(target), "--junit", "out/junit.xml",
                     "--html", "out/report.html", "--runner", "cli", cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    assert "✓ bc_sums" in done.stdout and "✗ fails" in done.stdout
    assert "text.contains 'bye': not on the screen" in done.stdout
    assert "2 passed, 1 failed of 3 scenario(s)" in done.stdout
    suite = ET.parse(tmp_path / "out" / "junit.xml").getroot().find("testsuite")
    assert suite is not None
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors")) == ("3", "1", "0")
    cases = {c.get("name"): c for c in suite.iter("testcase")}
    assert list(cases) == ["bc_sums", "less_paging", "fails"]  # the order given, not finishing
    failure = cases["fails"].find("failure")
    assert failure is not None and "not on the screen" in (failure.get("message") or "")
    assert cases["bc_sums"].get("classname") == "cli.100x30"
    page = (tmp_path / "out" / "report.html").read_text()
    assert page.count('<pre class="screen"') >= 5 + 3  # 5 screenshots + final screens
    assert "/tmp/cli/bc_sums/100x30/" in page  # the runner name is in every path


def test_every_scenario_passes_through_the_cli(tmp_path: Path) -> None:
    done = scenarist("run", str(SCENARIOS), "-j", "2", "--target", str(golden_copy(tmp_path)),
                     "--speed", "1", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "7 passed, 0 failed of 7 scenario(s)" in done.stdout


def test_usage_errors_exit_2(tmp_path: Path) -> None:
    for args, message in [(["-j", "0", "x.yaml"], "-j must be at least 1"),
                          (["missing.yaml"], "no such file or folder: missing.yaml"),
                          (["--speed", "nan", str(SCENARIOS)], "--speed must be a number above 0"),
                          (["--agent", "gpt", str(SCENARIOS)], "invalid choice: 'gpt'"),
                          (["--wait-timeout", "0", str(SCENARIOS)], "--timeout must be a number of seconds above 0")]:
        done = scenarist("run", *args, cwd=tmp_path)
        assert done.returncode == 2, args
        assert message in done.stderr, (args, done.stderr)
    assert "play scenarios against a CLI/TUI" in scenarist("--help", cwd=tmp_path).stdout


def test_the_default_target_is_absolute_for_the_program(tmp_path: Path) -> None:
    """The program runs in the workspace, so a relative HOME would point nowhere (Codex exits,
    Claude Code makes a target/ inside the workspace): the target is resolved before it runs."""
    scenario = write_scenario(tmp_path, "home_kind", """
ah:
  cmd: sh
  flags: ['-c', 'case "$HOME" in /*) echo "HOME is absolute";; *) echo "HOME is relative";; esac;
          test -d "$HOME" && echo "HOME exists"; read x']
timeline:
  - assert:
      text: {contains: ["HOME is absolute", "HOME exists"]}
""")
    done = scenarist("run", scenario.name, cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    runs = list((tmp_path / "target" / "tmp" / "scenarist" / "home_kind" / "100x30").iterdir())
    assert len(runs) == 1 and not (runs[0] / "workspace" / "target").exists()

def test_a_passing_run_shows_and_stops_the_daemon_its_program_left(
        tmp_path: Path, daemons: Daemons) -> None:
    path = write_scenario(tmp_path, "daemon", f"""
ah: {{cmd: sh, flags: ['-c', '{daemons.command}; echo started; read line']}}
timeline:
  - assert:
      text: {{contains: [started]}}
""")
    done = scenarist("run", str(path), "--target", str(tmp_path / "target"), cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "✓ daemon" in done.stdout and "left running, stopped:" in done.stdout
    assert daemons.marker in done.stdout.replace("\n", "")
    assert daemons.alive() == []
