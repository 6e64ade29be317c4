"""What the REST/SSE server tests share besides fixtures: where the scenarios are, Debian's
redis-server and ``scenarist rest`` as subprocesses on free loopback ports, and the checks of a
problem+json answer. (A module of its own: a test module that imported ``conftest`` by name
would clash with another folder's ``conftest`` in one pytest run.)"""

from __future__ import annotations

import shutil
import socket
import subprocess
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx

from scenarist.llm.process import RunningServer, run_server
from scenarist.processes import stop_group

HERE = Path(__file__).resolve().parent
SCENARIOS = HERE / "scenarios"
EXAMPLE = HERE.parents[1] / "examples" / "simulation-rest.yaml"
API = "/api/v1"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def running_redis(tmp: Path) -> Iterator[str]:
    """Debian's redis-server on a free loopback port, no persistence; its URL."""
    binary = shutil.which("redis-server")
    assert binary is not None, "redis-server is missing: scripts/test installs it with apt-get"
    port = free_port()
    proc = subprocess.Popen(
        [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
         "--dir", str(tmp)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        start_new_session=True)
    try:
        assert proc.stdout is not None
        seen = []
        for line in proc.stdout:
            seen.append(line)
            if "Ready to accept connections" in line:
                break
        else:
            raise AssertionError("redis-server did not start:\n" + "".join(seen))
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        stop_group(proc)
        if proc.stdout is not None:
            proc.stdout.close()


@contextmanager
def rest_server(*args: str, scenarios: Sequence[Path] = (SCENARIOS,)) -> Iterator[RunningServer]:
    """``scenarist rest`` on a free loopback port (stopped after the block)."""
    with run_server(list(scenarios), *args, command="rest") as server:
        yield server


def problem(response: httpx.Response, status: int) -> dict[str, object]:
    """The problem+json body of ``response``, checked: its status, media type and fields."""
    assert response.status_code == status, response.text
    assert response.headers["content-type"] == "application/problem+json"
    body: dict[str, object] = response.json()
    assert body["status"] == status and body["title"] and body["detail"]
    assert str(body["type"]).startswith("https://")
    return body


def json_of(response: Any) -> Any:
    assert response.headers["content-type"].startswith("application/"), response.text
    return response.json()
