"""Timing fidelity, start-up and 1,000 concurrent streams of ``scenarist llm``.

1. Fidelity: 100 concurrent streams whose chunks are scripted 50 ms apart (20 gaps each);
   each chunk's arrival is compared with its schedule (first chunk's arrival + scripted
   offset). Target: p99 |arrival - scheduled| <= 3 ms. Shown next to the same measurement of
   aimock with ``--latency 50`` (its per-chunk pacing), same client.
2. Start-up to the first accepted connection (spawn → TCP connect succeeds), median of 5, vs
   aimock and fakellm (target <= 0.5 s).
3. 1,000 concurrent streaming connections (each a 10-chunk answer, 100 ms apart): all
   complete; the server's peak RSS is reported (VmHWM).

    .venv/bin/python bench/bench_llm_timing.py
"""

from __future__ import annotations

import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

from bench_llm_throughput import BIN, PEER_VENV, PY, ensure_tools, free_port, peer, wait_port

from scenarist.llm.process import run_server, stop_group

GAP_MS = 50
GAPS = 20
STREAMS = 100


def scenario(name: str, prompt: str, steps: list[tuple[int, str]]) -> str:
    lines = "\n".join(f"          - [{ms}, {json.dumps(text)}]" for ms, text in steps)
    return (
        f"name: {name}\ntimeline:\n  - userInputs:\n      - relativeTime: 0\n"
        f"        input: {json.dumps(prompt)}\n  - llmResponse:\n      - assistant:\n"
        f"{lines}\n"
    )


async def one_stream(port: int, prompt: str) -> list[tuple[float, str]]:
    """POST a streaming chat request; return (arrival time, content delta) per chunk."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    body = json.dumps(
        {"model": "m", "stream": True, "messages": [{"role": "user", "content": prompt}]}
    ).encode()
    writer.write(
        b"POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\n"
        b"content-type: application/json\r\nconnection: close\r\n"
        + f"content-length: {len(body)}\r\n\r\n".encode()
        + body
    )
    await writer.drain()
    out: list[tuple[float, str]] = []
    buf = b""
    while True:
        data = await reader.read(65536)
        now = time.monotonic()
        if not data:
            break
        buf += data  # cheap scan (no JSON parsing) so the client adds little lateness
        while True:
            at = buf.find(b'"content":"')
            if at < 0:
                buf = buf[-16:]
                break
            end = buf.find(b'"', at + 11)
            if end < 0:
                buf = buf[at:]
                break
            text = buf[at + 11 : end].decode()
            if text:
                out.append((now, text))
            buf = buf[end + 1 :]
    writer.close()
    return out


def lateness(streams: list[list[tuple[float, str]]], offsets: list[int]) -> list[float]:
    errors: list[float] = []
    for chunks in streams:
        assert len(chunks) == len(offsets), f"expected {len(offsets)} chunks, got {len(chunks)}"
        t0 = chunks[0][0]
        for (arrival, _), offset in zip(chunks, offsets, strict=True):
            errors.append(abs((arrival - t0) * 1000 - (offset - offsets[0])))
    return errors


def p99(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]


async def many(port: int, prompt: str, n: int) -> list[list[tuple[float, str]]]:
    return await asyncio.gather(*(one_stream(port, prompt) for _ in range(n)))


def rss_peak_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    return 0


def answered(port: int, timeout: float = 30) -> float:
    """Seconds until ``GET /health`` answers 200 (ours binds before uvicorn is up, so an
    accepted connection alone would flatter it)."""
    import http.client

    start = time.monotonic()
    while time.monotonic() - start < timeout:
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            conn.request("GET", "/health")
            if conn.getresponse().status == 200:
                return time.monotonic() - start
        except OSError:
            time.sleep(0.005)
    raise RuntimeError(f"no answer on port {port}")


def startup(
    argv: list[str], port: int, cwd: Path | None = None, http_answer: bool = False
) -> float:
    import subprocess

    start = time.monotonic()
    proc = subprocess.Popen(
        argv, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
    )
    try:
        if http_answer:
            answered(port)
        else:
            wait_port(port)
        return time.monotonic() - start
    finally:
        stop_group(proc)


def main() -> int:
    ensure_tools()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        (work / "s").mkdir()
        words = [f"chunk{i:02d} " for i in range(GAPS + 1)]
        paced = [(0 if i == 0 else GAP_MS, w) for i, w in enumerate(words)]
        (work / "s" / "paced.yaml").write_text(scenario("paced", "pace me", paced))
        (work / "s" / "load.yaml").write_text(
            scenario("load", "load me", [(0 if i == 0 else 100, f"part{i} ") for i in range(10)])
        )
        (work / "aimock.json").write_text(
            json.dumps(
                {
                    "fixtures": [
                        {
                            "match": {"userMessage": "pace me"},
                            "response": {"content": "".join(words)},
                        }
                    ]
                }
            )
        )
        (work / "fakellm.yaml").write_text("version: 1\nrules: []\n")
        offsets = [i * GAP_MS for i in range(GAPS + 1)]

        # 1. fidelity
        with run_server(work / "s") as server:
            asyncio.run(many(server.port, "pace me", 5))  # warm up
            streams = asyncio.run(many(server.port, "pace me", STREAMS))
        ours_err = lateness(streams, offsets)
        aport = free_port()
        aim = [
            str(BIN / "llmock"),
            "-p",
            str(aport),
            "-f",
            str(work / "aimock.json"),
            "--chunk-size",
            "8",
            "--latency",
            str(GAP_MS),
            "--log-level",
            "silent",
        ]
        with peer(aim, aport):
            asyncio.run(many(aport, "pace me", 5))
            astreams = asyncio.run(many(aport, "pace me", STREAMS))
        aim_err = lateness([s[1:] if len(s) > GAPS + 1 else s for s in astreams], offsets)
        print(
            f"fidelity  ours    {STREAMS} streams x {GAPS} gaps of {GAP_MS} ms: "
            f"p50 {statistics.median(ours_err):.2f} ms  p99 {p99(ours_err):.2f} ms  "
            f"max {max(ours_err):.2f} ms"
        )
        print(
            f"fidelity  aimock  same load (--latency {GAP_MS}): "
            f"p50 {statistics.median(aim_err):.2f} ms  p99 {p99(aim_err):.2f} ms  "
            f"max {max(aim_err):.2f} ms"
        )
        print(
            f"fidelity  ratio={p99(ours_err) / max(p99(aim_err), 1e-9):.2f} ours p99 / aimock "
            f"p99 (lower is better); target p99 <= 3 ms: "
            f"{'ok' if p99(ours_err) <= 3 else 'ABOVE'}"
        )

        # 2. start-up
        times: dict[str, list[float]] = {
            "ours": [],
            "ours (first HTTP answer)": [],
            "aimock": [],
            "fakellm": [],
        }
        for _ in range(5):
            p = free_port()
            times["ours"].append(
                startup(
                    [PY, "-m", "scenarist", "llm", "--scenario", str(work / "s"), "--port", str(p)],
                    p,
                )
            )
            p = free_port()
            times["ours (first HTTP answer)"].append(
                startup(
                    [PY, "-m", "scenarist", "llm", "--scenario", str(work / "s"), "--port", str(p)],
                    p,
                    http_answer=True,
                )
            )
            p = free_port()
            times["aimock"].append(
                startup(
                    [
                        str(BIN / "llmock"),
                        "-p",
                        str(p),
                        "-f",
                        str(work / "aimock.json"),
                        "--log-level",
                        "silent",
                    ],
                    p,
                )
            )
            p = free_port()
            times["fakellm"].append(
                startup(
                    [
                        str(PEER_VENV / "bin" / "fakellm"),
                        "serve",
                        "--port",
                        str(p),
                        "--config",
                        str(work / "fakellm.yaml"),
                    ],
                    p,
                )
            )
        med = {k: statistics.median(v) for k, v in times.items()}
        for name, value in med.items():
            print(f"startup   {name:24s} median {value * 1000:7.1f} ms (5 runs)")
        print(
            f"startup   ratio={med['ours'] / med['aimock']:.2f} ours/aimock, "
            f"ratio={med['ours'] / med['fakellm']:.2f} ours/fakellm (lower is better); "
            f"target <= 0.5 s: {'ok' if med['ours'] <= 0.5 else 'ABOVE'}"
        )

        # 3. 1,000 concurrent streams
        with run_server(work / "s") as server:
            base = rss_peak_kib(server.pid)
            started = time.monotonic()
            results = asyncio.run(many(server.port, "load me", 1000))
            took = time.monotonic() - started
            done = sum(1 for r in results if len(r) == 10)
            peak = rss_peak_kib(server.pid)
        print(
            f"load      1,000 concurrent streams: {done}/1000 complete in {took:.2f} s "
            f"(scripted 0.9 s each); peak RSS {peak / 1024:.1f} MiB "
            f"(idle {base / 1024:.1f} MiB)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
