"""fake-codex as a real process: console script, interactive turns, signals, lazy imports."""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import time

import pytest
from codexkit import FAKE_CODEX, subprocess_env


def _spawn(*argv: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [str(FAKE_CODEX), *argv],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=subprocess_env(),
        start_new_session=True,  # own process group, so cleanup can kill it whole
        bufsize=0,  # unbuffered pipes: select() then sees every line that is ready
    )


def _read_line(proc: subprocess.Popen[bytes], timeout: float = 30.0) -> dict:
    assert proc.stdout is not None
    ready, _, _ = select.select([proc.stdout], [], [], timeout)
    assert ready, "no output line within the (generous) liveness bound"
    line = proc.stdout.readline()
    assert line, "unexpected end of output"
    return json.loads(line)


def _read_until(proc: subprocess.Popen[bytes], etype: str) -> list[dict]:
    lines = []
    while True:
        line = _read_line(proc)
        lines.append(line)
        if line["params"]["msg"]["type"] == etype:
            return lines


@pytest.fixture
def interactive():
    procs: list[subprocess.Popen[bytes]] = []

    def start(*argv: str) -> subprocess.Popen[bytes]:
        proc = _spawn("--interactive", "--seed", "3", *argv)
        procs.append(proc)
        return proc

    yield start
    for proc in procs:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()


def test_console_script_and_scenarist_subcommand_agree() -> None:
    argv = ["--seed", "4", "--cwd", "/r", "help exec; message hi"]
    direct = subprocess.run(
        [str(FAKE_CODEX), *argv],
        capture_output=True,
        timeout=60,
        env=subprocess_env(),
        stdin=subprocess.DEVNULL,
        check=False,
    )
    routed = subprocess.run(
        [sys.executable, "-m", "scenarist", "codex", *argv],
        capture_output=True,
        timeout=60,
        env=subprocess_env(),
        stdin=subprocess.DEVNULL,
        check=False,
    )
    assert direct.returncode == routed.returncode == 0, (direct.stderr, routed.stderr)
    assert direct.stdout == routed.stdout and direct.stdout.count(b"\n") == 9
    bad = subprocess.run(
        [str(FAKE_CODEX), "help nope"],
        capture_output=True,
        timeout=60,
        env=subprocess_env(),
        stdin=subprocess.DEVNULL,
        check=False,
    )
    assert bad.returncode == 1 and bad.stdout == b""
    assert bad.stderr.decode().count("\n") == 1 and b"Traceback" not in bad.stderr


def test_interactive_answers_each_line_as_it_arrives(interactive) -> None:
    proc = interactive("--cwd", "/r")
    assert proc.stdin is not None
    proc.stdin.write(b"help message first\n")
    proc.stdin.flush()
    first = _read_until(proc, "task_complete")
    msgs = [ln["params"]["msg"] for ln in first]
    assert msgs[0]["type"] == "session_configured"
    assert msgs[-1] == {"type": "task_complete", "turn_id": "turn-1", "last_agent_message": "first"}
    # the second turn is only produced once we send it: the process waits on stdin
    proc.stdin.write(b"help nope\n\nWhat does this repo do?\n")
    proc.stdin.flush()
    bad = [ln["params"]["msg"] for ln in _read_until(proc, "task_complete")]
    assert [m["type"] for m in bad] == ["task_started", "error", "token_count", "task_complete"]
    assert "unknown command" in bad[1]["message"]
    third = _read_until(proc, "task_complete")
    assert {ln["params"]["id"] for ln in third} == {"3"}
    assert "session_configured" not in [ln["params"]["msg"]["type"] for ln in third]
    proc.stdin.close()
    assert proc.wait(timeout=30) == 0
    assert proc.stdout is not None and proc.stdout.read() == b""


@pytest.mark.parametrize(
    ("sig", "codes"), [(signal.SIGTERM, {-signal.SIGTERM}), (signal.SIGINT, {130})]
)
def test_signals_end_an_idle_interactive_run_quietly(interactive, sig, codes) -> None:
    proc = interactive()
    assert proc.stdin is not None and proc.stderr is not None
    proc.stdin.write(b"hello\n")
    proc.stdin.flush()
    _read_until(proc, "task_complete")
    time.sleep(0.05)  # let it block on the next read (not a timing assertion)
    proc.send_signal(sig)
    assert proc.wait(timeout=30) in codes
    assert b"Traceback" not in proc.stderr.read()


def test_broken_pipe_is_quiet() -> None:
    proc = _spawn("--seed", "1")
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    proc.stdin.write(("help " + "; ".join(["message " + "x" * 200] * 3000)).encode())
    proc.stdin.close()
    proc.stdout.readline()
    proc.stdout.close()
    assert proc.wait(timeout=60) in (0, 141)
    assert b"Traceback" not in proc.stderr.read()
    proc.stderr.close()


def test_command_and_random_modes_import_nothing_heavy() -> None:
    code = (
        "import sys, io\n"
        "from scenarist.codex.cli import main\n"
        "sys.stdout = io.TextIOWrapper(io.BytesIO())\n"
        "assert main(['--seed', '1', 'help exec; mcp; message x']) == 0\n"
        "assert main(['--seed', '1', '--format', 'exec-json', 'random prompt']) == 0\n"
        "heavy = sorted(m for m in sys.modules if m.split('.')[0] in "
        "{'yaml', 'pydantic', 'starlette', 'httpx', 'uvicorn', 'websockets', 'asyncio', "
        "'argparse', 'rapidfuzz'} or m.startswith('scenarist.scenario'))\n"
        "sys.__stdout__.write(repr(heavy))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        timeout=60,
        env=subprocess_env(),
        stdin=subprocess.DEVNULL,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr.decode()
    assert proc.stdout.decode() == "[]"
