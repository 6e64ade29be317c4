"""``scenarist.llm.process``: the one way to run the server as a subprocess."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from llm_agents import SCENARIOS

from daemonkit import Daemons
from scenarist.llm.process import ServerStartError, run_server, server_argv
from scenarist.processes import stop_group


def _gone(pgid: int, within_s: float = 10.0) -> bool:
    """Whether the process group is empty (an orphan's zombie lasts until init reaps it, so
    this allows a generous moment for that)."""
    deadline = time.monotonic() + within_s
    while True:
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return True
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)


def test_starts_on_a_free_port_and_stops_its_group_after_the_block() -> None:
    with run_server(SCENARIOS / "shell_and_patch.yaml") as server:
        assert server.base_url == f"http://127.0.0.1:{server.port}" and server.port > 0
        assert os.getpgid(server.pid) == server.pid  # its own process group
        health = httpx.get(f"{server.base_url}/health", timeout=10).json()
        assert health["scenarios"] == ["shell_and_patch"]
        assert server.journal() == []
    assert server.process.returncode == 0  # SIGTERM is a clean stop
    assert _gone(server.pid)
    assert server.process.stdout is not None and server.process.stdout.closed
    assert server.process.stderr is not None and server.process.stderr.closed
    with pytest.raises(httpx.ConnectError):
        httpx.get(f"{server.base_url}/health", timeout=2)


def test_group_is_stopped_when_the_block_raises() -> None:
    pid = 0
    with pytest.raises(KeyError, match="boom"), run_server(SCENARIOS) as server:
        pid = server.pid
        raise KeyError("boom")
    assert pid and _gone(pid)


def test_a_server_that_does_not_start_raises_with_its_stderr(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: bad\ntimeline:\n  - llmResponse: 3\n")
    with (
        pytest.raises(ServerStartError, match="did not print") as info,
        run_server(bad, workspace=tmp_path),
    ):
        pytest.fail("the block must not run")
    assert f"{bad}:3:" in str(info.value) and f"{bad}:3:" in info.value.stderr
    assert info.value.returncode == 2 and "it exited" in str(info.value)


def test_stop_group_kills_what_ignores_sigterm() -> None:
    proc = subprocess.Popen(
        ["sh", "-c", "trap '' TERM; sleep 60 & echo ready; wait"],
        start_new_session=True,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None and proc.stdout.readline() == "ready\n"
    stop_group(proc, grace_s=0.5)
    proc.stdout.close()
    assert proc.returncode == -9 and _gone(proc.pid)  # the sleep that ignores SIGTERM too


def test_argv_names_every_scenario_and_the_workspace(tmp_path: Path) -> None:
    argv = server_argv(["a.yaml", Path("b")], "--strict", workspace=tmp_path)
    assert argv[1:] == [
        "-m",
        "scenarist",
        "llm",
        "--scenario",
        "a.yaml",
        "--scenario",
        "b",
        "--port",
        "0",
        "--workspace",
        str(tmp_path),
        "--strict",
    ]


def test_importing_it_loads_no_web_framework() -> None:
    code = (
        "import sys, scenarist.llm.process; "
        "print(sorted(m for m in ('starlette', 'uvicorn', 'httpx') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_a_daemon_the_server_started_is_stopped_with_it(tmp_path: Path, daemons: Daemons) -> None:
    # sitecustomize runs in the server's interpreter at start-up and leaves a daemon behind
    (tmp_path / "sitecustomize.py").write_text(
        "import os, subprocess\n"
        "if not os.environ.get('DAEMON_STARTED'):\n"
        "    os.environ['DAEMON_STARTED'] = '1'\n"
        f"    subprocess.run({daemons.argv!r}, check=True)\n")
    path = os.pathsep.join(p for p in (str(tmp_path), os.environ.get("PYTHONPATH")) if p)
    with run_server(SCENARIOS / "shell_and_patch.yaml", env={"PYTHONPATH": path}) as server:
        (daemon,) = daemons.alive()
    assert daemons.alive() == []
    assert daemon in [p.pid for p in server.stopped]
    assert server.process.returncode == 0  # the server itself still stops cleanly on SIGTERM
