"""Hostile requests against ``scenarist rest`` (issue 27): each reproducer is a regression
test. Malformed HTTP, ``Last-Event-ID`` out of range, ``HEAD`` on a stream, a task asking for
10,000 sessions, SIGTERM while 1,000 sessions play and streams are open. Every answer is
problem+json; the server keeps serving and writes no traceback."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import threading
from collections.abc import Iterator
from contextlib import suppress
from pathlib import Path

import httpx
import pytest
from restkit import problem, rest_server
from sse import API, create, read_stream

from scenarist.llm.process import RunningServer
from scenarist.rest.requests import MAX_AGENTS, MAX_COUNT, MAX_EVENT_ID, MAX_TASK_SESSIONS

PROBLEM = "application/problem+json"


@pytest.fixture(scope="module")
def server() -> Iterator[RunningServer]:
    with rest_server("--speed", "0.05", "--max-sessions", "150") as srv:
        yield srv
        assert "Traceback" not in srv.stderr and " failed: " not in srv.stderr, srv.stderr




def raw_exchange(server: RunningServer, data: bytes) -> tuple[str, dict[str, str], bytes]:
    """Send ``data`` as is; (status line, headers, body) of the answer."""
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
        with suppress(OSError):  # answered and closed before it read everything
            sock.sendall(data)
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    head, _, body = answer.partition(b"\r\n\r\n")
    status, *lines = head.decode("latin-1").split("\r\n")
    headers = {k.lower(): v.strip() for k, _, v in (line.partition(":") for line in lines)}
    return status, headers, body


@pytest.mark.parametrize("data", [
    b"GARBAGE\r\n\r\n",
    b"GET /api/v1/healthz HTTP/1.1\r\nHost: x\r\nNo colon here\r\n\r\n",
    b"GET /\x01 HTTP/1.1\r\nHost: x\r\n\r\n",
    b"POST /api/v1/tasks HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n",
    b"POST /api/v1/tasks HTTP/1.1\r\nHost: x\r\nContent-Length: \xb2\r\n\r\n{}",
    b"POST /api/v1/tasks HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
    b"GET /api/v1/healthz HTTP/1.1\r\nHost: x\r\nX-A: \x7f\x00\r\n\r\n",
], ids=["garbage", "header-without-colon", "control-in-path", "content-length-abc",
        "content-length-superscript", "bad-chunk", "nul-in-header"])
def test_malformed_http_is_a_problem_json_400(server: RunningServer, data: bytes) -> None:
    status, headers, body = raw_exchange(server, data)
    assert status.startswith("HTTP/1.1 400"), status
    assert headers["content-type"] == PROBLEM and int(headers["content-length"]) == len(body)
    assert httpx.Response(400, content=body).json()["status"] == 400
    assert httpx.get(f"{server.base_url}{API}/healthz").status_code == 200


def test_garbage_after_a_request_on_one_connection(server: RunningServer) -> None:
    """The request before it may be answering when the garbage is refused: it stops writing
    (it used to fail on the half-closed connection, an internal error in the log)."""
    task = b'{"prompt": "Fix the failing test"}'
    for _ in range(20):
        status, headers, _ = raw_exchange(server, (
            b"POST /api/v1/tasks HTTP/1.1\r\nHost: x\r\ncontent-type: application/json\r\n"
            b"content-length: %d\r\n\r\n%s" % (len(task), task)) + b"GARBAGE\r\n\r\n")
        assert status.split()[1] in ("201", "400") and headers["content-type"] in (
            "application/json", PROBLEM)
    assert " failed: " not in server.stderr, server.stderr


@pytest.mark.parametrize("head", [
    b"GET /api/v1/healthz HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 3_000_000 + b"\r\n\r\n",
    b"GET /api/v1/healthz HTTP/1.1\r\nHost: x\r\n" + b"X-A: b\r\n" * 200_000 + b"\r\n",
    b"GET /api/v1/healthz?" + b"q" * 3_000_000 + b" HTTP/1.1\r\nHost: x\r\n\r\n",
], ids=["one-huge-header", "200000-headers", "huge-url"])
def test_a_head_over_1_mib_is_a_431_problem(server: RunningServer, head: bytes) -> None:
    status, headers, body = raw_exchange(server, head)
    assert status == "HTTP/1.1 431 Request Header Fields Too Large", status
    assert headers["content-type"] == PROBLEM and b"over 1024 KiB" in body
    big_body = {"prompt": "x" * 900_000}  # a large body is no large head
    assert httpx.post(f"{server.base_url}{API}/tasks", json=big_body,
                      headers={"x-scenario-name": "edit-and-test"}).status_code == 201


@pytest.mark.parametrize("value", [str(10**30), str(MAX_EVENT_ID + 1), "-5", "1e5", "1_0",
                                   "٣", "0x10", "9" * 5000])
def test_last_event_id_out_of_range_is_400_not_a_dying_stream(client: httpx.Client,
                                                             value: str) -> None:
    sid = create(client)
    answer = client.get(f"{API}/sessions/{sid}/events", headers={
        "accept": "text/event-stream", "last-event-id": value.encode()})
    errors = problem(answer, 400)["errors"]
    assert "Last-Event-ID" in errors  # type: ignore[operator]
    assert len(answer.content) < 1000  # the value is not echoed whole


def test_last_event_id_past_the_last_event_of_a_live_session_is_400(client: httpx.Client
                                                                     ) -> None:
    sid = create(client)
    assert client.post(f"{API}/sessions/{sid}/pause").status_code == 202  # it stays live
    answer = client.get(f"{API}/sessions/{sid}/events", headers={
        "accept": "text/event-stream", "last-event-id": "1000"})
    assert "past the session's last event" in str(problem(answer, 400)["detail"])
    assert client.post(f"{API}/sessions/{sid}/resume").status_code == 202
    frames = read_stream(client, sid, last_id=2)  # an id it did send resumes after it
    assert frames[0].id == 3 and frames[-1].data["status"] == "completed"
    problem(client.get(f"{API}/sessions/{sid}/events?since={10**30}"), 400)


def test_head_answers_the_headers_of_get_without_a_stream(client: httpx.Client) -> None:
    sid = create(client)
    for accept in ("text/event-stream", "application/json"):
        head = client.head(f"{API}/sessions/{sid}/events", headers={"accept": accept})
        assert head.status_code == 200 and head.content == b""
        assert head.headers["content-type"].startswith(accept)
    assert client.head(f"{API}/sessions/{sid}").status_code == 200
    assert client.head(f"{API}/sessions/nope/events").status_code == 404
    assert client.head(f"{API}/tasks").status_code == 405


def test_a_task_asking_for_10000_sessions_is_refused_whole(client: httpx.Client) -> None:
    huge = {"prompt": "x", "agents": [{"type": f"a{n}", "count": 100} for n in range(100)]}
    errors = problem(client.post(f"{API}/tasks", json=huge), 422)["errors"]
    assert f"at most {MAX_AGENTS}" in str(errors["agents"])  # type: ignore[index]
    many = {"prompt": "x", "agents": [{"type": "a", "count": MAX_COUNT}, {"type": "b"}]}
    errors = problem(client.post(f"{API}/tasks", json=many), 422)["errors"]
    assert f"at most {MAX_TASK_SESSIONS}" in str(errors["agents"])  # type: ignore[index]
    over = {"prompt": "x", "agents": [{"type": "a", "count": MAX_COUNT + 1}]}
    assert "agents[0].count" in problem(client.post(f"{API}/tasks", json=over), 422)["errors"]  # type: ignore[operator]
    # none of them started: the largest task allowed still fits under --max-sessions 150
    full = {"prompt": "x", "agents": [{"type": "a", "count": MAX_TASK_SESSIONS}]}
    assert len(client.post(f"{API}/tasks", json=full).json()["session_ids"]) == 100


def test_sessions_in_all_are_bounded_with_429_and_retry_after() -> None:
    with rest_server("--speed", "100", "--max-sessions", "3") as srv, \
            httpx.Client(base_url=srv.base_url, timeout=30) as client:
        two = {"prompt": "x", "agents": [{"type": "a", "count": 2}]}
        assert client.post(f"{API}/tasks", json=two).status_code == 201
        refused = client.post(f"{API}/tasks", json=two)
        assert "--max-sessions" in str(problem(refused, 429)["detail"])
        assert int(refused.headers["retry-after"]) >= 1
        assert client.post(f"{API}/tasks", json={"prompt": "x"}).status_code == 201  # the 3rd


def test_bad_numbers_in_queries_are_400(client: httpx.Client) -> None:
    sid = create(client)
    for query in (f"logs?tail={10**30}", "logs?tail=²", "logs?tail=-1", "diff?context=%EF%BC%93",
                  f"diff?context={10**30}", "events?perPage=1_0", "events?page=%20%201"):
        problem(client.get(f"{API}/sessions/{sid}/{query}"), 400)
    problem(client.get(f"{API}/sessions?page={10**30}"), 400)


def test_sigterm_under_load_stops_the_server_at_once(tmp_path: Path) -> None:
    """1,000 sessions playing and 20 open streams: SIGTERM ends the process promptly, exit
    0, without a traceback (uvicorn used to wait for every stream and every session)."""
    steps = "".join(f"          - [25, step {n}]\n" for n in range(2000))  # 50 s each
    long = tmp_path / "long.yaml"
    long.write_text("name: long\ntimeline:\n  - llmResponse:\n      - think:\n" + steps)
    with rest_server("--speed", "1", scenarios=[long]) as srv:
        with httpx.Client(base_url=srv.base_url, timeout=60) as client:
            task = {"prompt": "x", "agents": [{"type": "a", "count": 100}]}
            sids = [client.post(f"{API}/tasks", json=task).json()["session_ids"][0]
                    for _ in range(10)]
            problem(client.post(f"{API}/tasks", json={"prompt": "x"}), 429)  # 1,000 play
        opened = threading.Barrier(21)
        readers = [threading.Thread(target=_follow, args=(srv.base_url, sid, opened),
                                    daemon=True) for sid in sids * 2]
        for reader in readers:
            reader.start()
        opened.wait(timeout=30)
        os.kill(srv.pid, signal.SIGTERM)
        try:
            code = srv.process.wait(timeout=10)  # bounded: not a timing assert
        except subprocess.TimeoutExpired:
            pytest.fail("scenarist rest ignored SIGTERM under load for 10 s")
        for reader in readers:
            reader.join(timeout=10)
        assert code == 0 and not any(r.is_alive() for r in readers)
        assert "Traceback" not in srv.stderr and "ERROR" not in srv.stderr, srv.stderr


def _follow(base: str, sid: str, opened: threading.Barrier) -> None:
    """Read a session's stream until the server ends it."""
    with httpx.stream("GET", f"{base}{API}/sessions/{sid}/events",
                      headers={"accept": "text/event-stream"}, timeout=60) as stream:
        opened.wait(timeout=30)
        try:
            for _ in stream.iter_bytes():
                pass
        except httpx.HTTPError:
            pass  # the server went away mid-stream: what SIGTERM does
