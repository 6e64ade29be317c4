"""``scenarist acp-test`` against ``scenarist acp``: the examples pass, differences fail loudly,
files and terminals are real and confined, the transcript validates against the ACP schema."""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest
from acpkit import (
    ACP_EXAMPLES,
    EXAMPLES,
    agent_command,
    child_env,
    read_transcript,
    validate_messages,
    write_scenario,
)

from daemonkit import Daemons
from scenarist.acp.client import AcpTestOptions, format_report, run_report
from scenarist.acp.workspace import Workspace
from scenarist.scenario import load_scenario


def acp_test(scenario: Path, agent_scenario: Path | None = None, *extra: str
             ) -> subprocess.CompletedProcess[str]:
    agent = shlex.join(agent_command("--speed", "0.01", "--scenario",
                                     str(agent_scenario or scenario)))
    return subprocess.run(
        [sys.executable, "-m", "scenarist", "acp-test", "--agent", agent, "--scenario",
         str(scenario), "--speed", "0.01", "--timeout", "60", *extra],
        env=child_env(), capture_output=True, text=True, timeout=120, check=False)


def test_the_cli_passes_an_example_and_writes_transcript_and_junit(tmp_path: Path) -> None:
    transcript, junit = tmp_path / "t.jsonl", tmp_path / "junit.xml"
    done = acp_test(EXAMPLES / "acp-capabilities.yaml", None, "--transcript", str(transcript),
                    "--junit", str(junit), "--cwd", str(tmp_path / "ws"))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "PASS acp-capabilities: initialize" in done.stdout and "0 failed" in done.stdout
    assert validate_messages(read_transcript(transcript)) > 4
    suite = ET.parse(junit).getroot()
    assert suite.get("failures") == "0" and int(suite.get("tests", "0")) >= 3


@pytest.mark.parametrize("name", [*ACP_EXAMPLES, "tool-tour"])
async def test_examples_pass_against_scenarist_acp(name: str, tmp_path: Path) -> None:
    path = EXAMPLES / f"{name}.yaml"
    command = agent_command("--speed", "0.01", "--scenario", str(path))
    report = await run_report(load_scenario(path), AcpTestOptions(
        command=tuple(command), cwd=tmp_path, speed=0.01, timeout=60, env=child_env()))
    assert report.ok, format_report(report)
    assert validate_messages(report.transcript) > 4


def test_a_different_answer_fails_with_the_difference(tmp_path: Path) -> None:
    played = write_scenario(tmp_path, """\
        name: played
        timeline:
          - userInputs: [[0, "hello"]]
          - agentPermissionRequest:
              options: [{id: ok, label: OK, kind: allow_once}]
              granted: true
          - llmResponse: [{assistant: [[10, hi]]}]
        """, "played.yaml")
    expected = write_scenario(tmp_path, """\
        name: expected
        timeline:
          - initialize:
              protocolVersion: 1
            expectedResponse:
              agentCapabilities: {loadSession: true}
          - userInputs:
              - relativeTime: 0
                input: "hello"
                expectedResponse: {stopReason: max_tokens}
          - llmResponse: [{assistant: [[10, hi]]}]
        """, "expected.yaml")
    junit = tmp_path / "junit.xml"
    done = acp_test(expected, played, "--junit", str(junit))
    assert done.returncode == 1, done.stdout + done.stderr
    out = done.stdout
    assert "FAIL expected: initialize" in out
    assert "agentCapabilities.loadSession: expected True, got False" in out
    assert "FAIL expected: prompt 1" in out
    assert "stopReason: expected 'max_tokens', got 'end_turn'" in out
    assert "the agent asked for a permission the scenario does not script" in out
    assert ET.parse(junit).getroot().get("failures") == "3"


def test_files_and_terminals_are_real_and_confined(tmp_path: Path) -> None:
    scenario = write_scenario(tmp_path, """\
        name: real
        timeline:
          - userInputs: [[0, "make things"]]
          - writeFile: {path: notes/a.txt, content: "alpha\\n"}
          - agentEdits:
              path: /etc/hosts-copy
              newText: "not the real /etc\\n"
          - runCmd: {cmd: "printf made > made.txt"}
        """)
    workspace = tmp_path / "ws"
    done = acp_test(scenario, None, "--cwd", str(workspace))
    assert done.returncode == 0, done.stdout + done.stderr
    assert (workspace / "notes" / "a.txt").read_text() == "alpha\n"
    assert (workspace / "etc" / "hosts-copy").read_text() == "not the real /etc\n"
    assert (workspace / "made.txt").read_text() == "made"


def test_an_agent_that_fails_to_start_is_a_failure(tmp_path: Path) -> None:
    scenario = write_scenario(tmp_path, "name: x\ntimeline:\n  - userInputs: [[0, hi]]\n")
    done = subprocess.run(
        [sys.executable, "-m", "scenarist", "acp-test", "--agent", "sh -c 'exit 3'",
         "--scenario", str(scenario), "--timeout", "30"],
        env=child_env(), capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 1 and "FAIL x: agent" in done.stdout


def test_acp_test_usage_errors(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "scenarist", "acp-test", "--agent", "",
                           "--scenario", str(EXAMPLES / "load-session.yaml")],
                          env=child_env(), capture_output=True, text=True, timeout=60,
                          check=False)
    assert done.returncode == 2 and "--agent is empty" in done.stderr


def test_workspace_maps_every_path_inside(tmp_path: Path) -> None:
    ws = Workspace(tmp_path)
    root = tmp_path.resolve()
    assert ws.path("/tmp/x.txt") == root / "tmp" / "x.txt"
    assert ws.path("rel/y.txt") == root / "rel" / "y.txt"
    assert ws.path(str(root / "in.txt")) == root / "in.txt"
    assert ws.path("../../escape").is_relative_to(root)
    (tmp_path / "link").symlink_to("/")
    with pytest.raises(PermissionError):
        ws.path("link/etc/passwd")
    ws.write("/a/b.txt", "one\ntwo\nthree\n")
    assert ws.read("/a/b.txt", line=2, limit=1) == "two\n"


async def test_a_loaded_session_without_a_live_prompt_is_prompted_once(tmp_path: Path) -> None:
    path = write_scenario(tmp_path, """\
        name: resumed
        acp: {capabilities: {loadSession: true}}
        timeline:
          - userInputs: [[0, "start the migration"]]
          - llmResponse: [{assistant: [[10, "Starting."]]}]
          - sessionStart:
              sessionId: resumed-1
              expectedPromptResponse: {sessionId: resumed-1, stopReason: end_turn}
          - llmResponse: [{assistant: [[10, "Picking up where I left off."]]}]
        """)
    command = agent_command("--speed", "0.01", "--scenario", str(path))
    report = await run_report(load_scenario(path), AcpTestOptions(
        command=tuple(command), cwd=tmp_path / "ws", speed=0.01, timeout=60, env=child_env()))
    assert report.ok, format_report(report)
    assert [c.name for c in report.checks] == ["initialize", "session/load history", "prompt 1",
                                               "permission requests"]
    prompts = [m["message"]["params"]["prompt"] for m in report.transcript
               if m["message"].get("method") == "session/prompt"]
    assert prompts == [[{"type": "text", "text": "start the migration"}]]
    assert report.updates[-1]["content"]["text"] == "Picking up where I left off."


def test_several_scenarios_stream_their_results_and_share_one_junit(tmp_path: Path) -> None:
    """Each scenario's lines arrive as it ends: the second agent starts only once this test
    has read the first scenario's summary line (it waits for a file made after it)."""
    go, count = tmp_path / "go", tmp_path / "count"
    first, second = EXAMPLES / "acp-capabilities.yaml", EXAMPLES / "rich-content.yaml"
    acp = shlex.join(agent_command("--speed", "0.01", "--scenario", "SCENARIO"))
    wrapper = (f"if [ -e {count} ]; then while [ ! -e {go} ]; do sleep 0.05; done; "
               f"exec {acp.replace('SCENARIO', str(second))}; fi; "
               f"touch {count}; exec {acp.replace('SCENARIO', str(first))}")
    junit = tmp_path / "junit.xml"
    proc = subprocess.Popen(
        [sys.executable, "-m", "scenarist", "acp-test", "--agent", shlex.join(["sh", "-c", wrapper]),
         "--scenario", str(first), "--scenario", str(second), "--speed", "0.01",
         "--timeout", "60", "--junit", str(junit)],
        env=child_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        head = []
        while not (line := proc.stdout.readline()).startswith("acp-capabilities: "):
            assert line, "acp-test ended before the first summary line"
            head.append(line)
        assert proc.poll() is None and not go.exists()  # the second scenario has not ended
        go.touch()
        rest, err = proc.communicate(timeout=90)
    finally:
        proc.kill()
        proc.wait()
    assert proc.returncode == 0, "".join(head) + rest + err
    assert "PASS acp-capabilities: initialize" in "".join(head)
    assert "PASS rich-content: prompt 1" in rest and "2 passed, 0 failed of 2" in rest
    root = ET.parse(junit).getroot()
    assert [s.get("name") for s in root.iter("testsuite")] == [
        "acp-test acp-capabilities", "acp-test rich-content"]
    assert root.get("failures") == "0"


def test_tag_picks_scenarios_and_a_failure_reaches_junit_with_the_agent_stderr(
        tmp_path: Path) -> None:
    junit = tmp_path / "junit.xml"
    agent = shlex.join(["sh", "-c", "echo the agent gave up >&2; exit 3"])
    done = subprocess.run(
        [sys.executable, "-m", "scenarist", "acp-test", "--agent", agent, "--scenario",
         str(EXAMPLES), "--tag", "loadSession", "--timeout", "30", "--junit", str(junit),
         "--format", "jsonl"],
        env=child_env(), capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 1, done.stdout + done.stderr
    (line,) = done.stdout.splitlines()  # one scenario carries the tag
    assert '"name": "load-session"' in line and '"outcome": "failed"' in line
    failure = ET.parse(junit).getroot().find(".//failure")
    assert failure is not None and "the agent gave up" in (failure.text or "")


def test_nothing_the_agent_started_outlives_acp_test(tmp_path: Path, daemons: Daemons) -> None:
    scenario = EXAMPLES / "acp-capabilities.yaml"
    agent = shlex.join(agent_command("--speed", "0.01", "--scenario", str(scenario)))
    done = subprocess.run(
        [sys.executable, "-m", "scenarist", "acp-test", "--agent",
         f"sh -c {shlex.quote(f'{daemons.command}; exec {agent}')}", "--scenario",
         str(scenario), "--speed", "0.01", "--timeout", "60"],
        env=child_env(), capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert daemons.alive() == []
    assert "stopped at the end (still running): " in done.stdout and daemons.marker in done.stdout


def test_an_agent_that_never_answers_is_stopped_with_its_daemon_at_the_timeout(
        tmp_path: Path, daemons: Daemons) -> None:
    scenario = write_scenario(tmp_path, "name: x\ntimeline:\n  - userInputs: [[0, hi]]\n")
    done = subprocess.run(
        [sys.executable, "-m", "scenarist", "acp-test", "--agent",
         f"sh -c {shlex.quote(f'{daemons.command}; sleep 60')}", "--scenario", str(scenario),
         "--timeout", "3"],
        env=child_env(), capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 1 and "no end after 3" in done.stdout, done.stdout + done.stderr
    assert daemons.alive() == []
