"""The fuzz tier (``-m fuzz``) for the mock model server: malformed requests, seeded.

Mutants of real agents' and SDKs' captured requests (Gemini's among them) (a field deleted, retyped, blown up or nested deep;
the body truncated or a byte flipped) go through the whole ASGI application in process. Each
must be answered — never a 5xx, never a traceback — with a JSON error body when it is refused,
within :data:`CPU_LIMIT_S` of CPU (a hang; CPU time, so a busy machine is not a failure). A
failure names its seed; ``mutant_request(seed)`` rebuilds the input.
"""

from __future__ import annotations

import asyncio
import copy
import json
import random
import signal
from collections.abc import Iterator
from pathlib import Path
from types import FrameType
from typing import Any

import httpx
import orjson
import pytest

from scenarist.llm.cli import load_scripts
from scenarist.llm.server import MockModelServer, Options
from scenarist.play import VirtualClock

pytestmark = pytest.mark.fuzz

DATA = Path(__file__).resolve().parents[1] / "data" / "real-agent-requests"
SCENARIOS = Path(__file__).resolve().parent / "scenarios"
MUTANTS = 1_500
CPU_LIMIT_S = 5
PATHS = {"chat": "/v1/chat/completions", "responses": "/v1/responses", "messages": "/v1/messages"}
ODD_VALUES: list[Any] = [None, True, False, 0, -1, 1.5, 1e308, "", "x" * 10_000, [], {}, [{}],
                         [None], {"type": 5}, [[[[[[[[[[[]]]]]]]]]]], "<system-reminder>" * 500]


def _captured() -> list[tuple[str, dict[str, Any]]]:
    """``(path, body)`` of each captured request of a model API (Gemini's path names its
    model and method)."""
    found = []
    for path in sorted(DATA.glob("*.json")):
        data = json.loads(path.read_text())
        if "body" not in data:
            continue
        body = dict(data["body"])
        if data.get("tools"):
            body["tools"] = data["tools"]
        route = data["path"].split("?")[0]
        if route in PATHS.values() or ":" in route:
            found.append((data["path"], body))
    return found


CAPTURED = _captured()


def _slots(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """Every place in a JSON document (the paths of its keys and items)."""
    yield path
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _slots(item, (*path, key))
    elif isinstance(value, list):
        for i, item in enumerate(value[:8]):
            yield from _slots(item, (*path, i))


def _mutate(body: Any, rng: random.Random) -> Any:
    slots = [s for s in _slots(body) if s]
    target = rng.choice(slots)
    parent = body
    for key in target[:-1]:
        parent = parent[key]
    last = target[-1]
    how = rng.randrange(3)
    if how == 0 and isinstance(parent, dict):
        del parent[last]
    elif how == 0 and isinstance(parent, list):
        parent.pop(last)
    elif how == 1:
        parent[last] = copy.deepcopy(rng.choice(ODD_VALUES))  # never the shared one
    else:
        parent[last] = {"nested": parent[last]} if rng.random() < 0.5 else [parent[last]] * 3
    return body


def mutant_request(seed: int) -> tuple[str, bytes]:
    """The path and raw body of mutant ``seed`` (deterministic)."""
    rng = random.Random(seed)
    path, original = CAPTURED[seed % len(CAPTURED)]
    body = json.loads(json.dumps(original))
    for _ in range(rng.randint(1, 3)):
        body = _mutate(body, rng)
    raw = orjson.dumps(body)
    if rng.random() < 0.15:  # broken framing of the JSON itself
        cut = rng.randrange(len(raw))
        raw = raw[:cut] if rng.random() < 0.5 else raw[:cut] + bytes([rng.randrange(256)]) + raw[cut + 1:]
    return path, raw


class CpuLimit(Exception):
    """One request used more than CPU_LIMIT_S of CPU."""


def _over_limit(signum: int, frame: FrameType | None) -> None:
    raise CpuLimit


def test_malformed_requests_are_answered_never_crashed() -> None:
    scripts = load_scripts([SCENARIOS, Path(__file__).resolve().parents[2] / "examples"], {})
    server = MockModelServer(scripts, Options(clock=VirtualClock(), speed=0.01))
    transport = httpx.ASGITransport(app=server.app)
    failures: list[str] = []
    previous = signal.signal(signal.SIGPROF, _over_limit)

    async def run() -> None:
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
            for seed in range(MUTANTS):
                path, raw = mutant_request(seed)
                signal.setitimer(signal.ITIMER_PROF, CPU_LIMIT_S)
                try:
                    resp = await client.post(path, content=raw,
                                             headers={"content-type": "application/json"})
                except CpuLimit:
                    failures.append(f"seed {seed}: over {CPU_LIMIT_S} s of CPU")
                    continue
                except Exception as exc:  # the ASGI app raised: a 500 with a traceback
                    failures.append(f"seed {seed}: {type(exc).__name__}: {exc}"[:300])
                    continue
                finally:
                    signal.setitimer(signal.ITIMER_PROF, 0)
                if resp.status_code >= 500:
                    failures.append(f"seed {seed}: {resp.status_code} {resp.text[:200]}")
                elif resp.status_code >= 400:
                    error = resp.json().get("error")
                    if not error or not (error.get("message") if isinstance(error, dict) else error):
                        failures.append(f"seed {seed}: {resp.status_code} without a message")

    try:
        asyncio.run(run())
    finally:
        signal.signal(signal.SIGPROF, previous)
    assert not failures, "\n".join(failures[:20])


GEMINI_METHODS = ["generateContent", "streamGenerateContent", "countTokens", "embedContent",
                  "", "generateContent:x", "GENERATECONTENT", "%00", "batchGenerateContent"]
GEMINI_MODELS = ["gemini-2.5-flash", "", "..", "a/b/c", "x" * 2_000, "models/gemini", "%2F", "é"]
GEMINI_PREFIXES = ["/v1beta/models/", "/v1/models/", "/v1alpha/models/", "/v1beta/", "/v1beta/tunedModels/"]


def gemini_hostile_request(seed: int) -> tuple[str, str, bytes]:
    """Method, path and body of hostile Gemini request ``seed``: odd model paths and methods,
    bodies of the wrong shape, huge ``contents`` (deterministic)."""
    rng = random.Random(seed)
    if rng.random() < 0.3:  # an odd path or method
        path = rng.choice(GEMINI_PREFIXES) + rng.choice(GEMINI_MODELS) + ":" + rng.choice(
            GEMINI_METHODS)
        method = rng.choice(["POST", "GET", "PUT", "DELETE"])
    else:
        path = "/v1beta/models/gemini-2.5-flash:" + rng.choice(GEMINI_METHODS[:3])
        method = "POST"
    path += rng.choice(["", "?alt=sse", "?key=k&alt=json"])
    text = {"text": "Is it raining in Oslo?"}
    shapes: list[Any] = [
        {"contents": [{"role": "user", "parts": [text]}] * rng.randint(1, 5_000)},
        {"contents": [{"role": rng.choice(["user", "model", "tool", 5, None]),
                       "parts": [rng.choice([text, {"functionCall": {"name": 1}}, {"text": []},
                                             {"functionResponse": {}}, "x", None])]}]},
        {"contents": [{"parts": [text]}], "tools": rng.choice(ODD_VALUES)},
        {"contents": [{"parts": [text]}], "toolConfig": {"functionCallingConfig": rng.choice(
            [{"mode": "ANY", "allowedFunctionNames": ["nope"]}, {"mode": 3}, [], "ANY"])}},
        {"contents": [{"parts": [text]}], "generationConfig": rng.choice(ODD_VALUES)},
        {"contents": [{"parts": [text]}], "systemInstruction": rng.choice(ODD_VALUES)},
        rng.choice(ODD_VALUES),
    ]
    return method, path, orjson.dumps(rng.choice(shapes))


def test_hostile_gemini_requests_get_googles_4xx_never_a_5xx() -> None:
    scripts = load_scripts([SCENARIOS, Path(__file__).resolve().parents[2] / "examples"], {})
    server = MockModelServer(scripts, Options(clock=VirtualClock(), speed=0.01,
                                              body_limit=4 * 1024 * 1024))
    transport = httpx.ASGITransport(app=server.app)
    failures: list[str] = []

    async def run() -> None:
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
            for seed in range(400):
                method, path, raw = gemini_hostile_request(seed)
                try:
                    resp = await client.request(method, path, content=raw,
                                                headers={"content-type": "application/json"})
                except Exception as exc:  # the ASGI app raised: a 500 with a traceback
                    failures.append(f"seed {seed}: {type(exc).__name__}: {exc}"[:300])
                    continue
                if resp.status_code >= 500:
                    failures.append(f"seed {seed}: {resp.status_code} {resp.text[:200]}")
                elif resp.status_code >= 400:
                    error = resp.json().get("error")
                    if not (isinstance(error, dict) and error.get("code") == resp.status_code
                            and error.get("message") and isinstance(error.get("status"), str)):
                        failures.append(f"seed {seed}: {resp.status_code} not Google's "
                                        f"envelope: {resp.text[:200]}")

    asyncio.run(run())
    assert not failures, "\n".join(failures[:20])
