"""``scenarist record``'s command line: a bad flag is one line on stderr and exit 2, a port in
use exit 1, never a traceback; it listens on loopback unless told otherwise."""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path

import pytest
from recordkit import recording


def record(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "scenarist", "record", *args],
                          capture_output=True, text=True, timeout=60, check=False)


@pytest.mark.parametrize(("args", "said"), [
    (["--upstream", "api.example", "--out", "{tmp}"], "--upstream 'api.example': expected an"),
    (["--upstream", "http://127.0.0.1:9", "--out", "{tmp}", "--redact", "("],
     "--redact '(': not a regular expression"),
    (["--upstream", "http://127.0.0.1:9", "--out", "/proc/no/such"], "--out /proc/no/such: "
     "cannot write there"),
    (["--upstream", "http://127.0.0.1:9", "--out", "{tmp}", "--port", "70000"],
     "--port must be 0-65535"),
])
def test_a_bad_flag_is_one_line_and_exit_2(tmp_path: Path, args: list[str], said: str) -> None:
    done = record(*(a.replace("{tmp}", str(tmp_path)) for a in args))
    assert done.returncode == 2, done.stderr
    assert said in done.stderr and "Traceback" not in done.stderr


def test_a_port_in_use_is_exit_1(tmp_path: Path) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        done = record("--upstream", "http://127.0.0.1:9", "--out", str(tmp_path),
                      "--port", str(busy.getsockname()[1]))
    assert done.returncode == 1 and "cannot listen on 127.0.0.1:" in done.stderr


def test_it_listens_on_loopback_and_stops_cleanly(tmp_path: Path) -> None:
    with recording("http://127.0.0.1:9", tmp_path / "out") as proxy:
        assert proxy.base_url.startswith("http://127.0.0.1:")
    assert proxy.process.returncode == 0
