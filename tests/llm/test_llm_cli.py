"""``scenarist llm`` as a process: listening line, port 0, clean SIGINT/SIGTERM, bad input."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from llm_agents import SCENARIOS, kill_group

from scenarist.llm.process import run_server


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_listens_on_a_free_port_and_stops_cleanly(sig: signal.Signals) -> None:
    with run_server(SCENARIOS) as srv:
        assert srv.base_url.startswith("http://127.0.0.1:") and not srv.base_url.endswith(":0")
        health = httpx.get(f"{srv.base_url}/health", timeout=10).json()
        assert health["scenarios"] == ["generated_edit", "shell_and_patch", "two_prompts"]
        srv.process.send_signal(sig)
        assert srv.process.wait(timeout=20) == 0
        assert srv.stop() == 0
        assert "Traceback" not in srv.stderr


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "scenarist", "llm", *args],
        text=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    try:
        out, err = proc.communicate(timeout=60)
    finally:
        kill_group(proc)
    return subprocess.CompletedProcess(args, proc.returncode, out, err)


def test_bad_scenario_is_reported_without_traceback(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: bad\ntimeline: 3\n")
    result = _run("--scenario", str(bad), "--port", "0")
    assert result.returncode == 2  # an input error (docs/cli.md)
    assert "bad.yaml" in result.stderr and "Traceback" not in result.stderr
    empty = _run("--scenario", str(tmp_path / "nothing-here"), "--port", "0")
    assert empty.returncode == 2 and "Traceback" not in empty.stderr


def test_port_in_use_and_usage_errors() -> None:
    with run_server(SCENARIOS) as srv:
        port = srv.base_url.rsplit(":", 1)[1]
        taken = _run("--scenario", str(SCENARIOS), "--port", port)
        assert taken.returncode == 1 and "--port" in taken.stderr
    usage = _run("--port", "0")
    assert usage.returncode == 2 and "--scenario" in usage.stderr


@pytest.mark.parametrize(
    ("flags", "named"),
    [
        (["--port", "70000"], "--port must be 0-65535"),
        (["--port", "-1"], "--port must be 0-65535"),
        (["--scenario-speed", "-1"], "--scenario-speed must be a number above 0"),
        (["--scenario-speed", "0"], "--scenario-speed must be a number above 0"),
        (["--scenario-speed", "nan"], "--scenario-speed must be a number above 0"),
        (["--body-limit", "0"], "--body-limit must be a positive number"),
        (["--spin-ms", "-1"], "--spin-ms must be >= 0"),
        (["--workspace", "/nonexistent/scenarist-ws"], "no such directory"),
    ],
)
def test_out_of_range_flags_are_usage_errors_not_tracebacks(flags: list[str], named: str) -> None:
    result = _run("--scenario", str(SCENARIOS), "--port", "0", *flags)
    assert result.returncode == 2
    assert named in result.stderr and "Traceback" not in result.stderr
    assert "listening on" not in result.stdout
