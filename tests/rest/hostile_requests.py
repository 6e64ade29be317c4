"""Seeded hostile requests for ``scenarist rest`` (the fuzz tier): pure functions of a seed,
so a failure names the seed and ``hostile_request(seed, sids)`` / ``malformed_bytes(seed)``
rebuild its input."""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from typing import Any

import orjson

API = "/api/v1"
METHODS = ["GET", "POST", "DELETE", "PUT", "PATCH", "HEAD", "OPTIONS", "TRACE", "FOO"]
SESSION_TAILS = ["", "/stop", "/pause", "/resume", "/prompt", "/events", "/logs", "/info",
                 "/files", "/files/src/app.py", "/diff", "/diff/src/app.py", "/files/../../x"]
SERVICE = ["/tasks", "/sessions", "/agents", "/runtimes", "/executors", "/projects", "/repos",
           "/workspaces", "/healthz", "/readyz", "/version", "/openapi.json"]
ODD_IDS = ["", "x", "%00", "%ff%fe", "..", "a" * 3000, "😀", "1" * 40, "%2F..%2F", "null"]
ODD_QUERIES = ["page", "perPage", "since", "until", "tail", "context", "status", "type",
               "sort", "dialect", "files", "agent", "projectId"]
ODD_NUMBERS = ["0", "-1", "1e3", "1_0", "٣", "²", " 7", "7 ", "+3", "0x10", "NaN", "inf",
               str(2**62), str(2**62 + 1), str(10**30), "9" * 400, "", "abc", "1.5"]
ODD_VALUES: list[Any] = [None, True, False, 0, -1, 1.5, 1e308, 10**30, -(10**30), "", "x" * 5000,
                         [], {}, [{}], [None], {"type": 5}, [[[[[[[[[[]]]]]]]]]], "😀" * 100]
CONTENT_TYPES = ["application/json", "application/problem+json", "text/plain", "",
                 "application/json; charset=latin-1", "multipart/form-data; boundary=x",
                 "application/x-www-form-urlencoded", "application/json\x7f"]
TASK = {"prompt": [{"type": "text", "text": "Fix the failing test"}],
        "repo": {"mode": "git", "url": "https://example.invalid/x.git", "branch": "main"},
        "runtime": {"type": "local"}, "delivery": {"mode": "pr"}, "labels": {"a": "b"},
        "agents": [{"type": "claude-code", "version": "latest", "count": 1}]}
PROMPT = {"prompt": [{"type": "text", "text": "Now run it again"}]}


@dataclass(frozen=True)
class HostileRequest:
    method: str
    path: str
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes | None = None


def hostile_request(seed: int, sids: list[str]) -> HostileRequest:
    """One request: a method, a path (real or odd session ids), odd query values, odd
    headers and a mutated JSON body."""
    rng = random.Random(seed)
    method = rng.choice(METHODS[:3] * 4 + METHODS)
    path = _path(rng, sids)
    headers = _headers(rng)
    body = None
    if method in ("POST", "PUT", "PATCH") or rng.random() < 0.1:
        body = _body(rng, path)
        if rng.random() < 0.8:
            headers["content-type"] = rng.choice(CONTENT_TYPES[:1] * 6 + CONTENT_TYPES)
    return HostileRequest(method, path, headers, body)


def _path(rng: random.Random, sids: list[str]) -> str:
    if rng.random() < 0.35:
        path = API + rng.choice(SERVICE)
    else:
        sid = rng.choice(sids) if sids and rng.random() < 0.7 else rng.choice(ODD_IDS)
        path = f"{API}/sessions/{sid}{rng.choice(SESSION_TAILS)}"
    if rng.random() < 0.05:
        path = rng.choice(["/", "/api", "/api/v2/tasks", "//api/v1//tasks", "/api/v1/tasks/"])
    if rng.random() < 0.5:
        pairs = [f"{rng.choice(ODD_QUERIES)}={rng.choice(ODD_NUMBERS)}"
                 for _ in range(rng.randint(1, 3))]
        path += "?" + "&".join(pairs)
    return path


def _headers(rng: random.Random) -> dict[str, str]:
    headers: dict[str, str] = {}
    if rng.random() < 0.4:
        headers["accept"] = rng.choice(["text/event-stream", "application/json", "*/*", "",
                                        "text/event-stream, application/json"])
    if rng.random() < 0.2:
        headers["last-event-id"] = rng.choice(ODD_NUMBERS)
    if rng.random() < 0.1:
        headers["x-scenario-name"] = rng.choice(["", "edit-and-test", "nope", "x" * 500])
    if rng.random() < 0.05:
        headers["authorization"] = rng.choice(["", "Bearer", "ApiKey x", "Basic Zm9v"])
    if rng.random() < 0.05:
        headers["x-junk"] = "y" * rng.choice([1, 1000, 8000])
    if rng.random() < 0.15:  # a CORS preflight or a cross-origin request
        headers["origin"] = rng.choice(["http://localhost:3000", "http://evil", "null", ""])
        if rng.random() < 0.7:
            headers["access-control-request-method"] = rng.choice(["POST", "PUT", "", "GET"])
            headers["access-control-request-headers"] = rng.choice(["", "content-type", "x-e"])
    return headers


def _body(rng: random.Random, path: str) -> bytes:
    base: Any = PROMPT if path.split("?")[0].endswith("/prompt") else TASK
    roll = rng.random()
    if roll < 0.05:
        return b"[" * rng.choice([100, 1100, 50_000]) + b"]" * rng.choice([0, 100, 50_000])
    if roll < 0.08:
        return b"x" * rng.choice([17 * 1024, 1024 * 1024 + 1, 3 * 1024 * 1024])
    if roll < 0.12:
        return rng.randbytes(rng.randint(0, 200))
    if roll < 0.15:
        return _dumps(rng.choice(ODD_VALUES[:12]))
    doc = orjson.loads(orjson.dumps(base))
    for _ in range(rng.randint(1, 3)):
        _mutate(rng, doc)
    text = _dumps(doc)
    if rng.random() < 0.1:
        text = text[:rng.randint(0, len(text))]
    return text


def _dumps(doc: Any) -> bytes:
    try:
        return orjson.dumps(doc)
    except TypeError:  # an integer past 64 bits (orjson refuses it): the standard library
        return json.dumps(doc).encode()


def _mutate(rng: random.Random, doc: dict[str, Any]) -> None:
    """Change one place: delete it, give it a value of another type, or a huge count."""
    key = rng.choice([*doc, "agent", "agents", "count", "tenantId", "message"])
    roll = rng.random()
    if roll < 0.25 and key in doc:
        del doc[key]
    elif roll < 0.45 and isinstance(doc.get("agents"), list) and doc["agents"]:
        entry = doc["agents"][0]
        if isinstance(entry, dict):
            entry[rng.choice(["count", "type", "version"])] = rng.choice(
                [*ODD_VALUES, 100, 101, 10**6, 2**63])
        doc["agents"] *= rng.choice([1, 2, 21, 100])
    elif roll < 0.55:
        doc["agents"] = [{"type": f"a{n}", "count": 100} for n in range(rng.choice([2, 100]))]
    else:
        doc[key] = rng.choice(ODD_VALUES)


VALID = (b"POST /api/v1/tasks HTTP/1.1\r\nHost: 127.0.0.1\r\ncontent-type: application/json\r\n"
         b"content-length: 19\r\n\r\n{\"prompt\": \"hello\"}")
GET = b"GET /api/v1/sessions?page=1 HTTP/1.1\r\nHost: 127.0.0.1\r\naccept: */*\r\n\r\n"


def malformed_bytes(seed: int) -> bytes:
    """A request broken at the HTTP level: bytes flipped, cut, duplicated or injected."""
    rng = random.Random(seed)
    data = bytearray(rng.choice([VALID, GET]))
    for _ in range(rng.randint(1, 4)):
        roll, at = rng.random(), rng.randrange(len(data))
        if roll < 0.3:
            data[at] = rng.randrange(256)
        elif roll < 0.45:
            del data[at:at + rng.randint(1, 10)]
        elif roll < 0.6:
            data[at:at] = rng.choice([b"\r\n", b"\n", b"\x00", b":", b" ", b"\r\n\r\n",
                                      b"Transfer-Encoding: chunked\r\n",
                                      b"Content-Length: -1\r\n", b"X: " + b"a" * 70_000 + b"\r\n"])
        else:
            data[at:at] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 8)))
    return bytes(data)
