"""``scenarist hub`` as a process: the printed URL, loopback by default, clean shutdown."""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
from hubkit import AGENTS, kill_leftover, wait_gone
from websockets.asyncio.client import connect

from daemonkit import Daemons

LINE = re.compile(r"^hub on http://(?P<host>[^:/]+):(?P<port>\d+)/\?token=(?P<token>\S+)$")


@contextmanager
def hub_process(*args: str) -> Iterator[tuple[subprocess.Popen[str], re.Match[str]]]:
    proc = subprocess.Popen([sys.executable, "-m", "scenarist", "hub", "--port", "0", *args],
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline().strip()
        match = LINE.match(line)
        assert match, f"unexpected first line {line!r}; stderr: {proc.stderr.read() if proc.stderr else ''}"
        yield proc, match
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
        for stream in (proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()


def listening_address(port: int) -> str:
    """The local IPv4 address (hex, as in /proc/net/tcp) that listens on ``port``."""
    for row in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = row.split()
        ip, _, hexport = fields[1].partition(":")
        if int(hexport, 16) == port and fields[3] == "0A":
            return ip
    raise AssertionError(f"nothing listens on port {port}")


def test_prints_the_url_binds_loopback_and_serves_the_page() -> None:
    with hub_process() as (proc, m):
        assert m["host"] == "127.0.0.1"
        assert len(m["token"]) >= 24
        port = int(m["port"])
        assert listening_address(port) == "0100007F"  # 127.0.0.1, not 0.0.0.0
        page = httpx.get(f"http://127.0.0.1:{port}/?token={m['token']}")
        assert page.status_code == 200
        assert httpx.get(f"http://127.0.0.1:{port}/").status_code == 401
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=30)


async def _command_until(hub: re.Match[str], agent: str, fragment: str) -> str:
    """Send ``agent`` a command through the hub; the first stdout frame holding ``fragment``."""
    async with connect(f"ws://127.0.0.1:{hub['port']}/ws?token={hub['token']}") as ws:
        await ws.send(json.dumps({"type": "command", "agent": agent, "text": "x"}))
        while True:
            msg = json.loads(await asyncio.wait_for(ws.recv(), 20))
            if msg["type"] == "stdout" and fragment in msg["data"]:
                return str(msg["data"])


def test_shutdown_kills_running_agents_and_their_children(tmp_path: Path) -> None:
    config = tmp_path / "hub.toml"
    config.write_text(f'[agents.fork]\nargv = [{json.dumps(sys.executable)}, '
                      f'{json.dumps(str(AGENTS / "fork_agent.py"))}]\n')

    with hub_process("--config", str(config), "--token", "fixed-token-123") as (proc, m):
        assert m["token"] == "fixed-token-123"
        line = asyncio.run(_command_until(m, "fork", "grandchild"))
        grandchild = int(line.split()[1])
        try:
            proc.send_signal(signal.SIGINT)
            proc.wait(timeout=30)
            assert asyncio.run(wait_gone(grandchild))
        finally:
            kill_leftover(grandchild)


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "scenarist", "hub", *args], capture_output=True,
                          text=True, timeout=60, stdin=subprocess.DEVNULL)


def test_config_errors_are_usage_errors_with_a_fix(tmp_path: Path) -> None:
    bad = tmp_path / "hub.toml"
    bad.write_text('[agents.sh]\nargv = "sh -c ls"\n')
    result = run_cli("--config", str(bad))
    assert result.returncode == 2
    assert "hub.toml: [agents.sh]: argv is a string" in result.stderr
    assert "Traceback" not in result.stderr
    for flags, named in ((("--token", "short"), "--token must be at least 8 characters"),
                         (("--timeout-s", "0"), "--timeout must be a positive number"),
                         (("--port", "70000"), "--port must be between 0 and 65535"),
                         (("--allow-origin", "localhost:5173"), "scheme://host[:port]")):
        result = run_cli(*flags)
        assert result.returncode == 2, flags
        assert named in result.stderr and "Traceback" not in result.stderr


def test_a_busy_port_is_reported_not_a_traceback() -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        result = run_cli("--port", str(busy.getsockname()[1]))
    assert result.returncode == 1
    assert "cannot listen on 127.0.0.1:" in result.stderr and "--port" in result.stderr
    assert "Traceback" not in result.stderr


def test_help_names_every_option() -> None:
    result = run_cli("--help")
    assert result.returncode == 0
    for option in ("--host", "--port", "--config", "--token", "--timeout-s", "--allow-origin"):
        assert option in result.stdout


def test_shutdown_stops_a_daemon_an_agent_left(tmp_path: Path, daemons: Daemons) -> None:
    config = tmp_path / "hub.toml"
    # "ready" comes from a shell exec'd anew: the first one's command line names the daemon's
    # marker, and until it became `cat` it was counted as a second daemon (seen in CI)
    argv = ["sh", "-c", f"{daemons.command}; exec sh -c 'echo ready; exec cat'"]
    config.write_text(f"[agents.daemon]\nargv = {json.dumps(argv)}\n")

    with hub_process("--config", str(config)) as (proc, m):
        asyncio.run(_command_until(m, "daemon", "ready"))
        assert len(daemons.alive()) == 1
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=30)
    assert daemons.alive() == []
