"""The fuzz tier (``-m fuzz``) for ``scenarist rest``: seeded hostile requests against a real
server process on 127.0.0.1.

Thousands of requests with odd methods, paths, query values, headers and mutated, deep or
oversized bodies (:mod:`hostile_requests`), a few hundred byte-level malformed HTTP requests
on raw sockets, and SSE reconnects with hostile ``Last-Event-ID`` values. Each answer must
be well formed (an error is problem+json with ``type, title, status, detail``), never a 5xx;
the server must still answer ``/healthz`` at the end and have written no traceback. A
failure names the seed that rebuilds the input.
"""

from __future__ import annotations

import asyncio
import random
import socket
from collections.abc import Iterator

import httpx
import pytest
from hostile_requests import API, ODD_NUMBERS, hostile_request, malformed_bytes
from restkit import rest_server

from scenarist.llm.process import RunningServer

pytestmark = pytest.mark.fuzz

REQUESTS = 2_500
MALFORMED = 1_000
RECONNECTS = 300
SEED = 27_000
PROBLEM = "application/problem+json"


@pytest.fixture(scope="module")
def server() -> Iterator[RunningServer]:
    with rest_server("--speed", "0.02", "--max-sessions", "300",
                     "--cors", "http://localhost:3000") as srv:
        yield srv


def well_formed(status: int, headers: httpx.Headers, content: bytes, where: str,
                head: bool = False) -> None:
    """Not a 5xx; an error is a problem+json body that says what went wrong (for HEAD:
    its headers)."""
    assert status < 500, f"{where}: {status} {content[:300]!r}"
    if status < 400:
        return
    assert headers.get("content-type") == PROBLEM, f"{where}: {status} {headers} {content[:200]!r}"
    if head:
        assert content == b"", where
        return
    body = httpx.Response(status, content=content).json()
    assert isinstance(body, dict), where
    assert body["status"] == status and str(body["type"]).startswith("https://"), where
    assert isinstance(body["title"], str) and isinstance(body["detail"], str), where
    errors = body.get("errors", {})
    assert all(isinstance(v, list) and all(isinstance(m, str) for m in v)
               for v in errors.values()), where


async def _sessions(client: httpx.AsyncClient) -> list[str]:
    """A finished session, a paused one (live for good) and a playing one."""
    sids = []
    for prompt in ("Fix the failing test", "Fix the failing test", "Count to one hundred"):
        answer = await client.post(f"{API}/tasks", json={"prompt": prompt})
        sids.append(answer.json()["session_ids"][0])
    await client.post(f"{API}/sessions/{sids[1]}/pause")
    return sids


async def _send(client: httpx.AsyncClient, seed: int, sids: list[str]) -> None:
    request = hostile_request(seed, sids)
    where = f"hostile_request({seed}) = {request.method} {request.path[:120]}"
    try:
        headers = {k: v.encode() for k, v in request.headers.items()}  # UTF-8 on the wire
        async with client.stream(request.method, request.path, headers=headers,
                                 content=request.body) as answer:
            if answer.headers.get("content-type", "").startswith("text/event-stream"):
                assert answer.status_code == 200, where
                return  # a live stream: its frames are the reconnect part's
            content = await answer.aread()
    except httpx.LocalProtocolError:
        return  # httpx itself refused to send it (a header it will not write)
    except httpx.TransportError as exc:
        if len(request.body or b"") > 64 * 1024:
            return  # refused before the body was read, then closed under the sender's feet
        raise AssertionError(f"{where}: {type(exc).__name__} {exc}") from exc
    well_formed(answer.status_code, answer.headers, content, where, request.method == "HEAD")


async def _requests(base: str, seeds: range) -> list[str]:
    limits = httpx.Limits(max_connections=8)
    async with httpx.AsyncClient(base_url=base, timeout=30, limits=limits) as client:
        sids = await _sessions(client)
        queue = list(seeds)

        async def worker() -> None:
            while queue:
                await _send(client, queue.pop(), sids)

        await asyncio.gather(*(worker() for _ in range(8)))
    return sids


def test_thousands_of_hostile_requests_get_well_formed_answers(server: RunningServer) -> None:
    asyncio.run(_requests(server.base_url, range(SEED, SEED + REQUESTS)))
    assert httpx.get(f"{server.base_url}{API}/healthz", timeout=10).status_code == 200


def _raw(port: int, data: bytes) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        try:
            sock.sendall(data)
            sock.shutdown(socket.SHUT_WR)
        except OSError:
            pass  # the server answered and closed before reading everything
        answer = b""
        try:
            while chunk := sock.recv(65536):
                answer += chunk
        except (ConnectionResetError, TimeoutError):
            pass
    return answer


def test_malformed_http_gets_a_problem_json_400_or_a_valid_answer(server: RunningServer
                                                                  ) -> None:
    for seed in range(SEED, SEED + MALFORMED):
        answer = _raw(server.port, malformed_bytes(seed))
        if not answer:
            continue  # cut before the request was complete: nothing to answer
        head, _, rest = answer.partition(b"\r\n\r\n")
        status_line, *lines = head.decode("latin-1").split("\r\n")
        assert status_line.startswith("HTTP/1.1 "), f"malformed_bytes({seed}): {answer[:200]!r}"
        headers = httpx.Headers([tuple(line.split(":", 1)) for line in lines if ":" in line])
        length = int(headers.get("content-length", len(rest)))
        well_formed(int(status_line.split()[1]), httpx.Headers(
            {k: v.strip() for k, v in headers.items()}), rest[:length],
            f"malformed_bytes({seed})")
    assert httpx.get(f"{server.base_url}{API}/healthz", timeout=10).status_code == 200


async def _reconnect(client: httpx.AsyncClient, sid: str, value: str, where: str
                     ) -> None:
    headers = {"accept": b"text/event-stream", "last-event-id": value.encode()}
    async with client.stream("GET", f"{API}/sessions/{sid}/events", headers=headers) as answer:
        if answer.status_code != 200:
            well_formed(answer.status_code, answer.headers, await answer.aread(), where)
            return
        assert answer.headers["content-type"].startswith("text/event-stream"), where
        ids = []
        async for line in answer.aiter_lines():  # ends with the session's final status
            if line.startswith("id: "):
                ids.append(int(line[4:]))
        since = int(value.strip() or 0)
        assert ids == sorted(set(ids)) and all(n > since for n in ids), where


async def _reconnects(base: str) -> None:
    async with httpx.AsyncClient(base_url=base, timeout=30) as client:
        sids = [(await client.post(f"{API}/tasks", json={"prompt": "Fix the failing test"})
                 ).json()["session_ids"][0] for _ in range(4)]
        rng = random.Random(SEED)
        plan = [(n, rng.choice(sids), rng.choice(ODD_NUMBERS + [str(rng.randint(0, 30))
                                                                for _ in range(8)]))
                for n in range(RECONNECTS)]

        async def worker() -> None:
            while plan:
                n, sid, value = plan.pop()
                if value == value.strip():  # httpx will not send a value with outer spaces
                    await _reconnect(client, sid, value,
                                     f"reconnect {n}: Last-Event-ID {value!r}")

        await asyncio.gather(*(worker() for _ in range(8)))


def test_sse_reconnects_with_hostile_last_event_ids(server: RunningServer) -> None:
    asyncio.run(_reconnects(server.base_url))


def test_no_traceback_and_no_internal_error_in_the_log(server: RunningServer) -> None:
    """Runs last in this module (pytest keeps file order): the log of everything above."""
    log = server.stderr
    assert "Traceback" not in log and " failed: " not in log and "ERROR" not in log, log[-3000:]
