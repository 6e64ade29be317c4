"""Helpers of the recording tests: an upstream ``scenarist llm`` and ``scenarist record`` in
front of it, both real processes on loopback ports, always stopped."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from scenarist.llm.process import RunningServer, run_server

REPO = Path(__file__).resolve().parents[2]
SCENARIOS = Path(__file__).resolve().parent / "scenarios"

KEY = "sk-record-test-0123456789abcdef"  # the key clients send: never in a recorded file


@contextmanager
def recording(upstream: str, out: Path, *args: str) -> Iterator[RunningServer]:
    """``scenarist record`` in front of ``upstream``, writing to ``out``."""
    with run_server([], "--upstream", upstream, "--out", str(out), *args,
                    command="record") as proxy:
        yield proxy


@contextmanager
def upstream_and_proxy(scenario: Path, out: Path, *args: str,
                       speed: str = "1") -> Iterator[tuple[RunningServer, RunningServer]]:
    """An upstream playing ``scenario`` and a recorder in front of it."""
    with run_server(scenario, "--scenario-speed", speed) as upstream, \
            recording(upstream.base_url, out, *args) as proxy:
        yield upstream, proxy


def recorded(out: Path) -> list[Path]:
    """The scenario files written (no temporary file left beside them)."""
    files = sorted(out.iterdir())
    assert all(not f.name.startswith(".") for f in files), files
    return files


def assert_private(path: Path) -> None:
    assert path.stat().st_mode & 0o777 == 0o600, oct(path.stat().st_mode)


def captured_body(name: str) -> dict[str, object]:
    """The body of a request captured from a real agent (tests/data/real-agent-requests),
    its tools put back in."""
    import json

    data = json.loads((REPO / "tests" / "data" / "real-agent-requests" / name).read_text())
    body: dict[str, object] = dict(data["body"])
    if data.get("tools"):
        body["tools"] = data["tools"]
    return body
