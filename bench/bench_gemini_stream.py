"""Gemini streaming vs Chat Completions streaming: events/s of ``scenarist llm`` (issue 24).

One ``scenarist llm`` server plays a 1,000-chunk answer (zero delays) to two kinds of
streamed request at the same concurrency: Chat Completions (``POST /v1/chat/completions``,
``stream: true``) and Gemini (``POST /v1beta/models/{model}:streamGenerateContent?alt=sse``).
A raw-socket asyncio client (keep-alive connections, each sending its next request when the
last stream ended) counts the SSE events it receives; every answer is checked to be the whole
stream (a ``[DONE]`` for Chat, a ``finishReason`` for Gemini).

Two servers: the default (memoised answers: a repeated request gets its encoded answer
again) and ``--no-memo`` (every answer rendered and encoded afresh: the encoder's cost).
The two APIs alternate within each round, the order turning from round to round; figures
are medians of the rounds. Target (issue 24): Gemini events/s within 10% of Chat's (ratio
>= 0.9).

    .venv/bin/python bench/bench_gemini_stream.py [--seconds 3] [--rounds 3] [--connections 8]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import tempfile
import time
from pathlib import Path

from scenarist.llm.process import run_server

PROMPT = "stream please"
ANSWER = " ".join(f"w{i:014d}" for i in range(1000))  # 1,000 chunks of 16 chars
MODEL = "gemini-2.5-flash"
REQUESTS = {
    "chat": ("/v1/chat/completions",
             {"model": "mock-model", "stream": True,
              "messages": [{"role": "user", "content": PROMPT}]}),
    "gemini": (f"/v1beta/models/{MODEL}:streamGenerateContent?alt=sse",
               {"contents": [{"role": "user", "parts": [{"text": PROMPT}]}]}),
}
ENDS = {"chat": b"data: [DONE]", "gemini": b'"finishReason":"STOP"'}


def request_bytes(api: str, port: int) -> bytes:
    path, body = REQUESTS[api]
    raw = json.dumps(body).encode()
    return (f"POST {path} HTTP/1.1\r\nhost: 127.0.0.1:{port}\r\ncontent-type: application/json"
            f"\r\nx-goog-api-key: bench\r\ncontent-length: {len(raw)}\r\n\r\n").encode() + raw


async def one_connection(api: str, port: int, until: float) -> tuple[int, int]:
    """Streams and SSE events received on one keep-alive connection until ``until``."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    request = request_bytes(api, port)
    streams = events = 0
    try:
        while time.monotonic() < until:
            writer.write(request)
            buffer = bytearray()
            while not buffer.endswith(b"0\r\n\r\n"):  # the chunked body's last chunk
                data = await reader.read(262_144)
                if not data:
                    raise RuntimeError(f"{api}: the server closed the connection mid stream")
                buffer += data
            if ENDS[api] not in buffer:
                raise RuntimeError(f"{api}: a stream ended without its end: {bytes(buffer[-300:])!r}")
            streams += 1
            events += buffer.count(b"data: ")
    finally:
        writer.close()
    return streams, events


async def load(api: str, port: int, seconds: float, connections: int) -> float:
    """Events per second over ``connections`` connections for ``seconds``."""
    start = time.monotonic()
    results = await asyncio.gather(*(one_connection(api, port, start + seconds)
                                     for _ in range(connections)))
    elapsed = time.monotonic() - start
    return sum(events for _streams, events in results) / elapsed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--connections", type=int, default=8)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        scenario = Path(tmp) / "stream.yaml"
        scenario.write_text(
            "name: stream\ntimeline:\n  - userInputs:\n      - [0, " + json.dumps(PROMPT) + "]\n"
            "  - llmResponse:\n      - assistant:\n          - [0, " + json.dumps(ANSWER) + "]\n")
        print(f"{args.rounds} rounds x {args.seconds:g} s, {args.connections} connections, "
              "a 1,000-chunk streamed answer")
        print(f"{'server':<10} {'chat ev/s':>12} {'gemini ev/s':>12} {'gemini/chat':>12}")
        for label, flags in (("default", ()), ("--no-memo", ("--no-memo",))):
            with run_server(scenario, *flags) as server:
                rates: dict[str, list[float]] = {"chat": [], "gemini": []}
                for api in rates:  # warm both paths (and check them) before measuring
                    asyncio.run(load(api, server.port, 0.3, 1))
                for round_ in range(args.rounds):
                    order = list(rates) if round_ % 2 == 0 else list(reversed(rates))
                    for api in order:
                        rates[api].append(asyncio.run(load(api, server.port, args.seconds,
                                                           args.connections)))
                chat, gemini = (statistics.median(rates[a]) for a in ("chat", "gemini"))
                print(f"{label:<10} {chat:>12,.0f} {gemini:>12,.0f} {gemini / chat:>12.2f}")
                print(f"ratio={gemini / chat:.2f} ({label}: Gemini / Chat events/s; target >= 0.90)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
