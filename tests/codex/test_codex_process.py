"""fake-codex as a real process: console script, interactive turns, signals, lazy imports."""

from __future__ import annotations

import json
import os
import random
import select
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from codexkit import FAKE_CODEX, subprocess_env


def _sigint_default() -> None:
    """In the child: SIGINT back to its default. A test run that is itself a background job
    of a script has SIGINT ignored, and an ignored signal that lands before fake-codex's
    first line runs is dropped by the kernel (the test for that case sends it later)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _spawn(*argv: str, preexec_fn: Any = _sigint_default) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [str(FAKE_CODEX), *argv],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=subprocess_env(PYTHONFAULTHANDLER="1"),
        start_new_session=True,  # own process group, so cleanup can kill it whole
        bufsize=0,  # unbuffered pipes: select() then sees every line that is ready
        preexec_fn=preexec_fn,
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
def fake_codex():
    """``fake_codex(*argv)`` starts it; every one started is stopped after the test."""
    procs: list[subprocess.Popen[bytes]] = []

    def start(*argv: str, preexec_fn: Any = _sigint_default) -> subprocess.Popen[bytes]:
        proc = _spawn(*argv, preexec_fn=preexec_fn)
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


@pytest.fixture
def interactive(fake_codex):
    return lambda *argv: fake_codex("--interactive", "--seed", "3", *argv)


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


SIGNALS = [(signal.SIGTERM, {-signal.SIGTERM}), (signal.SIGINT, {130})]
ENDED_S = 30.0  # a liveness bound, generous for a busy machine; nothing asserts on speed


def _ends(proc: subprocess.Popen[bytes], codes: set[int]) -> None:
    """``proc`` ends with one of ``codes`` and says nothing about it (no traceback)."""
    assert proc.wait(timeout=ENDED_S) in codes
    assert proc.stderr is not None and b"Traceback" not in proc.stderr.read()


@pytest.mark.parametrize(("sig", "codes"), SIGNALS)
def test_signals_end_an_idle_interactive_run_quietly(interactive, sig, codes) -> None:
    proc = interactive()
    assert proc.stdin is not None and proc.stderr is not None
    proc.stdin.write(b"hello\n")
    proc.stdin.flush()
    _read_until(proc, "task_complete")
    time.sleep(0.05)  # most likely blocked on the next read; anywhere else must do as well
    proc.send_signal(sig)
    _ends(proc, codes)


@pytest.mark.parametrize(("sig", "codes"), SIGNALS)
def test_signals_end_a_run_blocked_writing(fake_codex, sig, codes) -> None:
    proc = fake_codex("--seed", "1")
    assert proc.stdin is not None
    proc.stdin.write(("help " + "; ".join(["message " + "x" * 200] * 3000)).encode())
    proc.stdin.close()
    _read_line(proc)  # it writes far more than the pipe holds, and nobody reads the rest
    proc.send_signal(sig)
    _ends(proc, codes)


@pytest.mark.parametrize(("sig", "codes"), SIGNALS)
def test_signals_end_a_paced_run(fake_codex, sig, codes) -> None:
    proc = fake_codex("--seed", "1", "--cadence-ms", "60000", "help message hi")
    _read_line(proc)  # now it waits a minute before the next line
    proc.send_signal(sig)
    _ends(proc, codes)


@pytest.mark.parametrize(("sig", "codes"), SIGNALS)
def test_signals_end_it_even_when_sigint_was_ignored_by_its_parent(
        fake_codex, sig, codes) -> None:
    """A background job of a script starts with SIGINT ignored; fake-codex still obeys it."""
    proc = fake_codex("--interactive", preexec_fn=lambda: signal.signal(signal.SIGINT,
                                                                        signal.SIG_IGN))
    assert proc.stdin is not None
    proc.stdin.write(b"hello\n")
    proc.stdin.flush()
    _read_until(proc, "task_complete")
    proc.send_signal(sig)
    _ends(proc, codes)


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
@pytest.mark.parametrize("seed", range(4))
def test_a_signal_during_start_up_ends_it(interactive, sig, seed) -> None:
    """Anywhere from the interpreter's first instruction on: before the handler is set the
    interpreter's own reaction ends it (SIGINT: killed, or exit 1 from ``site``), after it
    fake-codex's. The window between ``fork`` and ``exec`` belongs to the spawner (a signal
    there is taken by the parent's handler copy), so the signal waits for the ``exec``."""
    proc = interactive()
    deadline = time.monotonic() + ENDED_S
    while b"fake-codex" not in Path(f"/proc/{proc.pid}/cmdline").read_bytes():
        assert time.monotonic() < deadline, "fake-codex was not exec'd"
        time.sleep(0.001)
    time.sleep(random.Random(seed).uniform(0, 0.3))
    proc.send_signal(sig)
    codes = {130, -signal.SIGINT, 1} if sig == signal.SIGINT else {-signal.SIGTERM}
    try:
        code = proc.wait(timeout=ENDED_S)
    except subprocess.TimeoutExpired:
        proc.send_signal(signal.SIGABRT)  # PYTHONFAULTHANDLER: where it was, on stderr
        proc.wait(timeout=ENDED_S)
        assert proc.stderr is not None
        raise AssertionError(proc.stderr.read().decode(errors="replace")) from None
    assert code in codes


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
        "'argparse', 'rapidfuzz', 'pathlib', 'tempfile', 'dataclasses', 'inspect'} "
        "or m.startswith('scenarist.scenario'))\n"
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
