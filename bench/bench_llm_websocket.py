"""Responses over WebSocket vs over SSE: events per second, and a Codex session each way.

1. Events/s: one ``scenarist llm`` plays a scenario whose answer is a 1,000-chunk text with
   zero delays (plus a short one); ``--clients`` asyncio clients each ask ``--requests``
   times, over SSE (``POST /v1/responses``, ``stream: true``, one keep-alive connection per
   client, counting ``data:`` lines) and over one WebSocket per client (``response.create``,
   counting text frames up to ``response.completed``). Transports alternate over
   ``--rounds`` rounds; each figure is the median. Target: WebSocket >= SSE.
2. When the pinned Codex is installed (tests/node): the same ``codex exec`` session
   (tests/llm/scenarios/shell_and_patch.yaml, --scenario-speed 0.01, ``model=gpt-5.5``)
   through the built-in provider (``openai_base_url``: WebSocket) and through a custom
   provider (HTTP/SSE), wall time from launch to the end of the turn, median of
   ``--codex-runs``.

    .venv/bin/python bench/bench_llm_websocket.py [--clients 8] [--requests 20] [--rounds 5]
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

from scenarist.llm.process import run_server

ROOT = Path(__file__).resolve().parents[1]
CODEX = ROOT / "tests" / "node" / "node_modules" / ".bin" / "codex"
CODEX_SCENARIO = ROOT / "tests" / "llm" / "scenarios" / "shell_and_patch.yaml"
PROMPT = "stream please"
ANSWER = " ".join(f"w{i:014d}" for i in range(1000))  # 1,000 chunks of 16 characters
SCENARIO = f"""\
name: bench-websocket
timeline:
  - userInputs: [[0, "{PROMPT}"]]
  - llmResponse:
      - assistant:
          - [0, "{ANSWER}"]
"""
BODY = {"model": "bench", "input": PROMPT}


async def _open(url: str) -> tuple[asyncio.StreamReader, asyncio.StreamWriter, str]:
    host, port = url.removeprefix("http://").split(":")
    reader, writer = await asyncio.open_connection(host, int(port))
    return reader, writer, f"{host}:{port}"


MARK = b'{"type":"response.'  # how every event's JSON starts (escaped inside strings)
END = b'"response.completed"'
LAST_CHUNK = b"\r\n0\r\n\r\n"  # the end of a chunked HTTP/1.1 body


async def _count_until(reader: asyncio.StreamReader, end: bytes) -> int:
    """Events read up to the one that holds ``end``: the marker counted at C speed in
    both transports, so the figure is the server's and not a client library's."""
    events, tail = 0, b""
    while True:
        chunk = await reader.read(1 << 20)
        if not chunk:
            raise ConnectionError("the server closed the connection")
        joined = tail + chunk
        events += joined.count(MARK) - tail.count(MARK)
        if END in joined:
            return events
        tail = joined[-max(len(end), len(MARK)):]


async def sse_client(url: str, requests: int) -> int:
    """Raw HTTP/1.1 keep-alive, ``stream: true``, read to the closing chunk."""
    reader, writer, host = await _open(url)
    body = json.dumps({**BODY, "stream": True}).encode()
    request = (f"POST /v1/responses HTTP/1.1\r\nhost: {host}\r\ncontent-type: "
               f"application/json\r\ncontent-length: {len(body)}\r\n\r\n").encode() + body
    return await _ask(reader, writer, request, LAST_CHUNK, requests)


async def ws_client(url: str, requests: int) -> int:
    """Raw WebSocket (RFC 6455, no compression offered), one ``response.create`` a turn."""
    reader, writer, host = await _open(url)
    key = base64.b64encode(os.urandom(16)).decode()
    writer.write((f"GET /v1/responses HTTP/1.1\r\nhost: {host}\r\nupgrade: websocket\r\n"
                  f"connection: Upgrade\r\nsec-websocket-key: {key}\r\n"
                  "sec-websocket-version: 13\r\n\r\n").encode())
    await reader.readuntil(b"\r\n\r\n")
    payload = json.dumps({"type": "response.create", **BODY}).encode()
    mask = os.urandom(4)
    masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
    frame = bytes([0x81, 0x80 | 126]) + len(payload).to_bytes(2, "big") + mask + masked
    return await _ask(reader, writer, frame, END, requests)


async def _ask(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, request: bytes,
               end: bytes, requests: int) -> int:
    """Send ``request`` ``requests`` times, each answer read to ``end``; the events seen."""
    events = 0
    try:
        for _ in range(requests):
            writer.write(request)
            events += await _count_until(reader, end)
    finally:
        writer.close()
    return events


async def load(client: Callable[[str, int], Coroutine[Any, Any, int]], url: str, clients: int,
               requests: int) -> tuple[float, int]:
    start = time.perf_counter()
    counts = await asyncio.gather(*(client(url, requests) for _ in range(clients)))
    return time.perf_counter() - start, sum(counts)


def events_per_second(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        scenario = Path(tmp) / "bench.yaml"
        scenario.write_text(SCENARIO)
        with run_server(scenario) as srv:
            rates: dict[str, list[float]] = {"sse": [], "websocket": []}
            totals: dict[str, int] = {}
            for _ in range(args.rounds):
                for name, client in (("sse", sse_client), ("websocket", ws_client)):
                    took, events = asyncio.run(load(client, srv.base_url, args.clients,
                                                    args.requests))
                    rates[name].append(events / took)
                    totals[name] = events
    sse, ws = statistics.median(rates["sse"]), statistics.median(rates["websocket"])
    per = {k: v // (args.clients * args.requests) for k, v in totals.items()}
    print(f"events/s, {args.clients} clients x {args.requests} answers of "
          f"{per['sse']} events (SSE) / {per['websocket']} (WebSocket), "
          f"median of {args.rounds} rounds")
    print(f"  SSE        {sse:12,.0f} events/s   (rounds: "
          f"{', '.join(f'{r:,.0f}' for r in rates['sse'])})")
    print(f"  WebSocket  {ws:12,.0f} events/s   (rounds: "
          f"{', '.join(f'{r:,.0f}' for r in rates['websocket'])})")
    print(f"  ratio={ws / sse:.2f} (WebSocket/SSE events/s; target >= 1.0)")


def codex_session(url: str, builtin: bool, work: Path, home: Path) -> float:
    chosen = ([f'openai_base_url="{url}/v1"'] if builtin else [
        "model_provider=mock",
        f'model_providers.mock={{name="mock",base_url="{url}/v1",wire_api="responses",'
        'env_key="OPENAI_API_KEY"}'])
    argv = [str(CODEX), "exec", "--json", "--skip-git-repo-check",
            "--dangerously-bypass-approvals-and-sandbox",
            *[a for c in [*chosen, "model=gpt-5.5"] for a in ("-c", c)],
            "Create the greeting files"]
    env = {"PATH": "/usr/bin:/bin", "HOME": str(home), "CODEX_HOME": str(home),
           "OPENAI_API_KEY": "sk-test"}
    start = time.perf_counter()
    done = subprocess.run(argv, cwd=work, env=env, capture_output=True, text=True,
                          timeout=120, stdin=subprocess.DEVNULL)
    took = time.perf_counter() - start
    if done.returncode != 0 or "turn.completed" not in done.stdout:
        sys.exit(f"codex failed ({done.returncode}): {done.stderr[-2000:]}")
    if builtin and "Falling back from WebSockets" in done.stderr + done.stdout:
        sys.exit("codex fell back from WebSockets to HTTP")
    return took


def codex_compare(args: argparse.Namespace) -> None:
    if not CODEX.exists():
        print("Codex: not installed (npm ci in tests/node); skipped")
        return
    times: dict[str, list[float]] = {"websocket": [], "http": []}
    for _ in range(args.codex_runs):
        for name in ("websocket", "http"):
            with tempfile.TemporaryDirectory() as tmp, \
                    run_server(CODEX_SCENARIO, "--scenario-speed", "0.01") as srv:
                work, home = Path(tmp) / "work", Path(tmp) / "home"
                work.mkdir()
                home.mkdir()
                times[name].append(codex_session(srv.base_url, name == "websocket", work, home))
                transports = {bool(e.get("websocket")) for e in srv.journal()
                              if e.get("path") == "/v1/responses"}
                assert transports == {name == "websocket"}, transports
    version = subprocess.run([str(CODEX), "--version"], capture_output=True, text=True).stdout
    if not times["http"]:
        return
    ws, http = statistics.median(times["websocket"]), statistics.median(times["http"])
    print(f"Codex session ({version.strip()}, shell_and_patch, 4 turns, "
          f"median of {args.codex_runs}): launch to end of turn")
    print(f"  WebSocket (openai_base_url)  {ws:6.2f} s   "
          f"({', '.join(f'{t:.2f}' for t in times['websocket'])})")
    print(f"  HTTP (custom provider)       {http:6.2f} s   "
          f"({', '.join(f'{t:.2f}' for t in times['http'])})")
    print(f"  ratio={http / ws:.2f} (HTTP/WebSocket wall time; above 1: the socket is faster)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--requests", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--codex-runs", type=int, default=3)
    args = parser.parse_args()
    events_per_second(args)
    codex_compare(args)


if __name__ == "__main__":
    main()
