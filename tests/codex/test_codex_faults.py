"""A scenario's faults played by fake-codex: exit mid-stream, stderr noise, broken lines.

Each run is a real ``fake-codex`` process (bounded by a timeout, in its own process group,
stopped after the test) compared byte for byte with the same scenario played without its
fault, so what a fault changes is exactly what the test names.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import signal
import subprocess
from pathlib import Path

import pytest
from codexkit import FAKE_CODEX, faulty_scenario, subprocess_env

from scenarist.codex.output import Writer
from scenarist.codex.turn import Strike
from scenarist.play import VirtualClock
from scenarist.scenario.model import Fault

TIMEOUT_S = 60  # liveness bound only


def scenario(tmp_path: Path, fault: str = "", event: str = "") -> Path:
    return faulty_scenario(tmp_path / f"s{len(list(tmp_path.iterdir()))}.yaml", fault, event)


def run(path: Path, *argv: str) -> subprocess.CompletedProcess[bytes]:
    """fake-codex playing ``path`` as one real process; everything it started is stopped."""
    cmd = [str(FAKE_CODEX), "--seed", "1", "--cwd", "/repo", "--time-scale", "0",
           "--scenario", str(path), *argv, "go"]
    proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=subprocess_env(),
                            start_new_session=True)
    try:
        out, err = proc.communicate(timeout=TIMEOUT_S)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=TIMEOUT_S)
    return subprocess.CompletedProcess(cmd, proc.returncode, out, err)


def events(stdout: bytes) -> list[dict[str, object]]:
    return [json.loads(line)["params"]["msg"] for line in stdout.splitlines()]


@pytest.fixture
def whole(tmp_path: Path) -> bytes:
    """The scenario's output without a fault."""
    result = run(scenario(tmp_path))
    assert result.returncode == 0 and result.stderr == b""
    return result.stdout


def until_message(stdout: bytes, text: str) -> bytes:
    """``stdout`` up to and including the ``agent_message`` with ``text``."""
    lines = stdout.splitlines(keepends=True)
    for n, line in enumerate(lines):
        msg = json.loads(line)["params"]["msg"]
        if msg["type"] == "agent_message" and msg["message"] == text:
            return b"".join(lines[: n + 1])
    raise AssertionError(f"no agent_message {text!r}")


def test_exit_with_a_code_mid_stream_flushes_every_line_before_it(
        tmp_path: Path, whole: bytes) -> None:
    result = run(scenario(tmp_path, "{kind: exit, code: 3}"))
    assert result.returncode == 3
    assert result.stdout == until_message(whole, "Working on it")
    assert "task_complete" not in [e["type"] for e in events(result.stdout)]


def test_exit_by_a_signal_is_a_real_death_by_it(tmp_path: Path, whole: bytes) -> None:
    result = run(scenario(tmp_path, "{kind: exit, signal: SIGKILL}"))
    assert result.returncode == -signal.SIGKILL
    assert result.stdout == until_message(whole, "Working on it")
    for name in ("SIGTERM", "SIGINT"):  # whatever handler fake-codex has for it
        result = run(scenario(tmp_path, event=f"{{kind: exit, signal: {name}}}"))
        assert result.returncode == -signal.Signals[name]
        assert events(result.stdout)[-1]["type"] == "exec_command_end"


def test_after_bytes_cuts_the_output_exactly_there(tmp_path: Path, whole: bytes) -> None:
    # counted from the response's first line: the turn's opening lines come before it
    opening = b"".join(whole.splitlines(keepends=True)[:2])  # session_configured, task_started
    for n in (0, 1, 57, 200):
        result = run(scenario(tmp_path, f"{{kind: exit, code: 9, afterBytes: {n}}}"))
        assert result.returncode == 9
        assert result.stdout == whole[: len(opening) + n]
    result = run(scenario(tmp_path, "{kind: exit, afterEvents: 2}"))
    assert result.stdout == b"".join(whole.splitlines(keepends=True)[:4])


def test_truncate_ends_cleanly_without_the_final_events(tmp_path: Path, whole: bytes) -> None:
    result = run(scenario(tmp_path, event="{kind: truncate}"))
    assert result.returncode == 0
    assert whole.startswith(result.stdout) and len(result.stdout) < len(whole)
    kinds = [e["type"] for e in events(result.stdout)]
    assert kinds[-1] == "exec_command_end" and "task_complete" not in kinds


def test_stderr_noise_goes_to_stderr_and_stdout_is_unchanged(tmp_path: Path, whole: bytes) -> None:
    result = run(scenario(tmp_path, '{kind: stderr, text: "warning: disk almost full"}',
                          '{kind: stderr, text: "second warning"}'))
    assert result.returncode == 0
    assert result.stdout == whole
    assert result.stderr == b"warning: disk almost full\nsecond warning\n"


def test_malformed_duplicate_and_reorder_change_only_their_lines(
        tmp_path: Path, whole: bytes) -> None:
    lines = whole.splitlines(keepends=True)
    at = len(until_message(whole, "Working on it").splitlines())  # the next line's index
    result = run(scenario(tmp_path, "{kind: malformed}"))
    got = result.stdout.splitlines(keepends=True)
    assert result.returncode == 0 and got[:at] + got[at + 1:] == lines
    with pytest.raises(json.JSONDecodeError):
        json.loads(got[at])
    assert lines[at].startswith(got[at].rstrip(b"\n"))  # the next line, cut in half
    result = run(scenario(tmp_path, '{kind: malformed, text: "<html>502 Bad Gateway</html>"}'))
    assert result.stdout.splitlines()[at] == b"<html>502 Bad Gateway</html>"
    dup = run(scenario(tmp_path, "{kind: duplicate}")).stdout.splitlines(keepends=True)
    assert dup == [*lines[: at + 1], *lines[at:]]
    swapped = run(scenario(tmp_path, "{kind: reorder}")).stdout.splitlines(keepends=True)
    assert swapped == [*lines[:at], lines[at + 1], lines[at], *lines[at + 2:]]


def test_fragment_writes_each_later_line_in_pieces(tmp_path: Path, whole: bytes) -> None:
    result = run(scenario(tmp_path, "{kind: fragment, bytes: 5}"))
    assert result.returncode == 0 and result.stdout == whole  # the same bytes, in pieces
    writes: list[bytes] = []

    class Recording(io.BytesIO):
        def write(self, data: bytes) -> int:  # type: ignore[override]
            writes.append(bytes(data))
            return super().write(data)

    out = Recording()
    writer = Writer(out)
    line = {"type": "warning", "message": "x" * 20}
    writer.write([line, Strike(Fault(kind="fragment", chunk_bytes=5)), line, line],
                 lambda e: json.dumps(e) + "\n")
    assert writes[0] == (json.dumps(line) + "\n").encode()  # before the fault: one write
    assert writes[1:] and all(len(w) <= 5 for w in writes[1:])
    assert out.getvalue() == (json.dumps(line) + "\n").encode() * 3


def test_a_stall_is_a_pause_of_the_writers_schedule() -> None:
    clock = VirtualClock()
    out = io.BytesIO()
    writer = Writer(out, clock=clock, time_scale=0.5)
    line = {"type": "warning", "message": "x"}
    writer.write([line, Strike(Fault(kind="stall", ms=800)), line], lambda e: json.dumps(e) + "\n")
    assert clock.now_ms() >= 400  # scaled like every scenario time
    assert out.getvalue().count(b"\n") == 2


def test_faults_a_process_cannot_play_are_warned_about_at_start(tmp_path: Path) -> None:
    result = run(scenario(tmp_path, "{kind: httpStatus, statusCode: 529}"))
    assert result.returncode == 0
    warning = result.stderr.decode()
    assert warning.startswith("fake-codex: ") and ": warning: " in warning
    assert "httpStatus" in warning and "docs/faults.md" in warning
    assert warning.count("\n") == 1


def test_an_interactive_run_plays_the_fault_in_its_turn(tmp_path: Path, whole: bytes) -> None:
    path = scenario(tmp_path, "{kind: exit, code: 4}")
    cmd = [str(FAKE_CODEX), "--seed", "1", "--cwd", "/repo", "--time-scale", "0",
           "--scenario", str(path), "--interactive"]
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=subprocess_env(),
                            start_new_session=True)
    try:
        out, _ = proc.communicate(b"go\n", timeout=TIMEOUT_S)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=TIMEOUT_S)
    assert proc.returncode == 4
    assert out == until_message(whole, "Working on it")


def chaos_run(*argv: str, stdin: bytes = b"") -> subprocess.CompletedProcess[bytes]:
    cmd = [str(FAKE_CODEX), "--cwd", "/repo", *argv]
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=subprocess_env(),
                            start_new_session=True)
    try:
        out, err = proc.communicate(stdin, timeout=TIMEOUT_S)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=TIMEOUT_S)
    return subprocess.CompletedProcess(cmd, proc.returncode, out, err)


PROMPTS = b"".join(f"prompt number {n}\n".encode() for n in range(40))


def test_chaos_with_the_same_seed_gives_the_same_bytes_and_another_seed_differs() -> None:
    def digest(seed: int) -> tuple[int, str, bytes]:
        result = chaos_run("--interactive", "--seed", str(seed), "--chaos",
                           "0.3:stderr,malformed,duplicate,reorder,fragment", stdin=PROMPTS)
        return result.returncode, hashlib.sha256(result.stdout).hexdigest(), result.stderr

    first, again, other = digest(7), digest(7), digest(8)
    assert first == again and first[0] == 0
    assert first[1] != other[1]
    plain = chaos_run("--interactive", "--seed", "7", stdin=PROMPTS)
    assert hashlib.sha256(plain.stdout).hexdigest() != first[1]  # faults struck
    zero = chaos_run("--interactive", "--seed", "7", "--chaos", "0", stdin=PROMPTS)
    assert zero.stdout == plain.stdout and zero.stderr == plain.stderr


def test_chaos_exit_ends_the_run_with_a_code_and_flushed_lines() -> None:
    result = chaos_run("--interactive", "--seed", "3", "--chaos", "1:exit", stdin=PROMPTS)
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    assert lines and all(json.loads(line) for line in lines)
    assert b'"task_complete"' not in result.stdout  # the first turn already died


def test_bad_chaos_values_are_one_line_usage_errors(tmp_path: Path) -> None:
    for value, words in (("2", "outside 0..1"), ("x", "not a number"),
                         ("0.5:httpStatus", "not a fault kind played here")):
        result = chaos_run("--seed", "1", "--chaos", value, "hello")
        assert result.returncode == 1 and result.stdout == b""
        assert result.stderr.startswith(b"fake-codex: --chaos: ") and words.encode() in result.stderr
        assert result.stderr.count(b"\n") == 1
    result = chaos_run("--chaos", "0.5", "--scenario", str(scenario(tmp_path)), "go")
    assert result.returncode == 1 and b"--chaos faults the random mode" in result.stderr
