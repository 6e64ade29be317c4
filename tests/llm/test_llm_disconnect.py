"""Clients that go away mid-stream free their task at once: no growth in tasks or memory."""

from __future__ import annotations

import resource
import socket
import time
from typing import Any

import httpx
import pytest

from scenarist.llm.script import ModelTurn, Script, Segment, TimedText

SLOW = Script(
    name="slow",
    prompt="stream slowly",
    segments=(
        Segment(
            "stream slowly",
            (
                ModelTurn(
                    0,
                    text=(TimedText(0, "first words "), TimedText(60_000, "a minute later")),
                    duration_ms=60_000,
                ),
            ),
        ),
    ),
)
REQUEST = b'{"model":"m","stream":true,"messages":[{"role":"user","content":"stream slowly"}]}'


def _open_and_drop(port: int) -> None:
    """Start a stream, read its first bytes, and close the socket mid-stream."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(
            b"POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n"
            + f"content-length: {len(REQUEST)}\r\n\r\n".encode()
            + REQUEST
        )
        assert b"first words" in sock.recv(65536) or b"first words" in sock.recv(65536)


def _health(url: str) -> dict[str, Any]:
    return dict(httpx.get(f"{url}/health", timeout=10).json())


def _settle(url: str) -> dict[str, Any]:
    deadline = time.monotonic() + 30  # liveness bound only
    health = _health(url)
    while health["active_streams"] and time.monotonic() < deadline:
        time.sleep(0.02)
        health = _health(url)
    return health


@pytest.mark.slow
def test_200_disconnects_free_their_tasks(serve: Any) -> None:
    srv = serve([SLOW])
    for _ in range(20):  # warm up allocators and caches
        _open_and_drop(srv.port)
    base = _settle(srv.url)
    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    for _ in range(200):
        _open_and_drop(srv.port)
    after = _settle(srv.url)
    rss_after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    assert after["active_streams"] == 0
    assert after["tasks"] <= base["tasks"]
    assert rss_after - rss_before < 30 * 1024  # KiB: no per-connection leak
    entries = [e for e in srv.journal if e.get("stream")]
    assert len(entries) == 220 and all(e.get("disconnected") for e in entries)
