"""``scenarist run`` reports for CI and for people: a JUnit failure carries the golden diff
and the screens, results stream as each scenario ends, the HTML page shows every failure
with its screen, ``--tag`` picks scenarios, ``--format jsonl`` is one object per run."""

from __future__ import annotations

import json
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

from runnerkit import write_scenario


def scenarist(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "scenarist", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=120, check=False)


def _golden_scenario(tmp_path: Path) -> tuple[Path, Path]:
    """A scenario whose screenshot shows the text of ``message.txt``, and that file."""
    message = tmp_path / "message.txt"
    message.write_text("golden morning\n")
    path = write_scenario(tmp_path, "shows_message", f"""
tags: [screens]
ah: {{cmd: sh, flags: ['-c', 'cat {message}; echo second line; read x']}}
timeline:
  - assert:
      text: {{contains: [second line]}}
  - screenshot: greeting
""")
    return path, message


def test_a_junit_failure_carries_the_golden_diff_and_the_screens(tmp_path: Path) -> None:
    path, message = _golden_scenario(tmp_path)
    first = scenarist("run", str(path), "--target", "t", cwd=tmp_path)
    assert first.returncode == 0, first.stdout + first.stderr  # the golden is written
    message.write_text("stormy evening\n")
    failing = write_scenario(tmp_path, "file_check", """
ah: {cmd: sh, flags: ['-c', 'echo the last words on screen; read x']}
timeline:
  - assert:
      fs: {exists: [never-made.txt]}
""")
    done = scenarist("run", str(path), str(failing), "--target", "t", "--junit", "junit.xml",
                     cwd=tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    suite = ET.parse(tmp_path / "junit.xml").getroot().find("testsuite")
    assert suite is not None and suite.get("failures") == "2"
    cases = {c.get("name"): c for c in suite.iter("testcase")}

    golden = cases["shows_message"].find("failure")
    assert golden is not None and "differs from the golden" in (golden.get("message") or "")
    text = golden.text or ""
    assert "--- golden diff:" in text
    assert "-|golden morning" in text and "+|stormy evening" in text  # the diff itself
    assert "--- the last screen (" in text
    screen_rows = [line for line in text.splitlines() if line.startswith("|")]
    assert any("stormy evening" in row for row in screen_rows)  # the screen, drawn

    check = cases["file_check"].find("failure")
    assert check is not None
    text = check.text or ""
    assert "never-made.txt" in text.splitlines()[0]  # the failure line first
    assert "--- the last screen" in text and "|the last words on screen" in text


def test_the_html_report_shows_every_failure_with_its_screen(tmp_path: Path) -> None:
    failing = write_scenario(tmp_path, "two_failures", """
ah: {cmd: sh, flags: ['-c', 'echo on the screen; read x']}
timeline:
  - assert:
      fs: {exists: [missing-one.txt]}
  - assert:
      text: {contains: [not there]}
""")
    done = scenarist("run", str(failing), "--target", "t", "--html", "r.html", cwd=tmp_path)
    assert done.returncode == 1
    page = (tmp_path / "r.html").read_text()
    failures = page.split("<h3>failures</h3>", 1)[1].split("</ol>", 1)[0]
    items = failures.split("<li>")[1:]
    assert len(items) == 2
    assert "missing-one.txt" in items[0] and "not there" in items[1]
    for item in items:  # each failure, with the screen it happened on
        assert '<pre class="screen"' in item and "on the screen" in item


def test_results_stream_as_each_scenario_ends(tmp_path: Path) -> None:
    """The first result line arrives while the second scenario is still running: the second
    waits for a file that this test makes only once it has read the first line."""
    go = tmp_path / "go"
    quick = write_scenario(tmp_path, "a_quick", """
ah: {cmd: sh, flags: ['-c', 'echo quick']}
timeline:
  - assert:
      text: {contains: [quick]}
expect:
  exitCode: 0
""")
    slow = write_scenario(tmp_path, "b_waits", f"""
ah: {{cmd: sh, flags: ['-c', 'echo waiting; while [ ! -e {go} ]; do sleep 0.05; done']}}
timeline:
  - assert:
      text: {{contains: [waiting]}}
expect:
  exitCode: 0
""")
    proc = subprocess.Popen([sys.executable, "-m", "scenarist", "run", str(quick), str(slow),
                             "--target", "t", "--exit-timeout", "60"], cwd=tmp_path,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline()
        assert "a_quick" in first and proc.poll() is None  # b_waits has not ended
        go.touch()
        rest, err = proc.communicate(timeout=90)
    finally:
        proc.kill()
        proc.wait()
    assert proc.returncode == 0, first + rest + err
    assert "✓ a_quick" in first and "✓ b_waits" in rest
    assert "2 passed, 0 failed of 2 scenario(s)" in rest


def test_tag_picks_scenarios_and_jsonl_is_one_object_per_run(tmp_path: Path) -> None:
    tagged, _ = _golden_scenario(tmp_path)
    write_scenario(tmp_path, "untagged", """
ah: {cmd: sh, flags: ['-c', 'echo never run']}
timeline:
  - assert:
      text: {contains: [nothing]}
""")
    done = scenarist("run", str(tmp_path), "--tag", "screens", "--target", "t",
                     "--format", "jsonl", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    (line,) = done.stdout.splitlines()
    result = json.loads(line)
    assert (result["name"], result["outcome"], result["path"]) == (
        "shows_message", "passed", str(tagged))
    wrong = scenarist("run", str(tmp_path), "--tag", "screen", cwd=tmp_path)
    assert wrong.returncode == 2
    assert "no scenario is tagged 'screen'; the tags in use: screens" in wrong.stderr
