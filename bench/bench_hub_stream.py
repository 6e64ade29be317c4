"""Agent hub benchmarks: throughput, line latency, fan-out (issue 6). Not a test: it prints.

    .venv/bin/python bench/bench_hub_stream.py [--mb 100] [--lines 2000] [--clients 50]

1. Throughput: an agent writes 100 MB of text lines to stdout. Baseline: read the same
   program's pipe directly (blocking os.read, 1 MiB at a time). Hub: `scenarist hub` in its own
   process, one WebSocket client counting the data of every stdout frame. Target ratio >= 0.5.
2. Latency: an agent writes a line holding CLOCK_MONOTONIC every millisecond; the client
   compares it with its own clock on arrival (same clock, same machine). Target p99 <= 5 ms.
   The direct-pipe latency of the same agent is printed next to it.
3. Fan-out: 50 clients watch one agent writing ``--fan-mb`` MB; every client must get it all.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import orjson
from websockets.asyncio.client import ClientConnection, connect

TOKEN = "bench-token-0123456789"

FLOOD = """\
import sys
total = int(sys.argv[1])
sys.stdin.readline()
block = "".join(f"{i:063d}\\n" for i in range(1024)).encode()
out = sys.stdout.buffer
written = 0
while written + len(block) <= total:
    out.write(block)
    written += len(block)
out.write(block[: total - written])
out.flush()
"""

TICKER = """\
import sys, time
for line in sys.stdin:
    n = int(line)
    start = time.monotonic()
    for i in range(n):
        while time.monotonic() < start + i / 1000:
            time.sleep(0.0002)
        sys.stdout.write(f"T {time.monotonic_ns()}\\n")
        sys.stdout.flush()
    sys.stdout.write("done\\n")
    sys.stdout.flush()
"""


def direct_throughput(total: int) -> float:
    """Seconds for a direct reader to drain ``total`` bytes from the flood agent's pipe."""
    proc = subprocess.Popen([sys.executable, "-c", FLOOD, str(total)], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE)
    assert proc.stdin is not None and proc.stdout is not None
    fd = proc.stdout.fileno()
    time.sleep(0.2)  # interpreter start-up is not part of either measurement
    start = time.perf_counter()
    proc.stdin.write(b"go\n")
    proc.stdin.flush()
    got = 0
    while chunk := os.read(fd, 1 << 20):
        got += len(chunk)
    elapsed = time.perf_counter() - start
    proc.wait()
    assert got == total, (got, total)
    return elapsed


def direct_latency(lines: int) -> list[float]:
    proc = subprocess.Popen([sys.executable, "-c", TICKER], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE)
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(f"{lines}\n".encode())
    proc.stdin.flush()
    out: list[float] = []
    for raw in proc.stdout:
        if raw.startswith(b"done"):
            break
        out.append((time.monotonic_ns() - int(raw.split()[1])) / 1e6)
    proc.stdin.close()
    proc.wait()
    return out


class HubProcess:
    """``scenarist hub`` with the bench agents, in its own process group."""

    def __init__(self, total: int, fan_total: int) -> None:
        self.dir = tempfile.TemporaryDirectory()
        folder = Path(self.dir.name)
        (folder / "flood.py").write_text(FLOOD)
        (folder / "ticker.py").write_text(TICKER)
        py = json.dumps(sys.executable)
        (folder / "hub.toml").write_text(
            "include_defaults = false\n"
            f'[agents.flood]\nargv = [{py}, "flood.py", "{total}"]\ncwd = "."\n'
            f'[agents.fan]\nargv = [{py}, "flood.py", "{fan_total}"]\ncwd = "."\n'
            f'[agents.ticker]\nargv = [{py}, "ticker.py"]\ncwd = "."\n')
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "scenarist", "hub", "--port", "0", "--token", TOKEN,
             "--config", str(folder / "hub.toml")],
            stdout=subprocess.PIPE, text=True, start_new_session=True)
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        self.port = int(line.split(":")[2].split("/")[0])

    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws?token={TOKEN}"

    def close(self) -> None:
        os.killpg(self.proc.pid, signal.SIGTERM)
        self.proc.wait(timeout=30)
        self.dir.cleanup()


async def receive_until_exit(ws: ClientConnection, agent: str) -> tuple[int, int]:
    """(stdout bytes received, bytes reported skipped) until the agent's exit frame."""
    got = skipped = 0
    while True:
        msg = orjson.loads(await ws.recv(decode=False))  # the client's own choice of parser
        kind = msg["type"]
        if kind == "stdout" and msg["agent"] == agent:
            got += len(msg["data"])  # ASCII: characters are bytes
        elif kind == "skipped":
            skipped += msg["bytes"]
        elif kind == "exit" and msg["agent"] == agent:
            return got, skipped


async def hub_throughput(hub: HubProcess, total: int) -> tuple[float, int, int]:
    async with connect(hub.url(), max_size=None) as ws:
        await ws.recv()  # hello
        await ws.send(json.dumps({"type": "command", "agent": "flood", "text": "warm-up"}))
        await receive_until_exit(ws, "flood")  # warm-up run: start-up paths, page cache
        await ws.send(json.dumps({"type": "subscribe", "agent": "flood"}))
        await receive_until_exit(ws, "flood")  # drain the replay of the warm-up
        start = time.perf_counter()
        await ws.send(json.dumps({"type": "command", "agent": "flood", "text": "go"}))
        got, skipped = await receive_until_exit(ws, "flood")
        return time.perf_counter() - start, got, skipped


async def hub_latency(hub: HubProcess, lines: int) -> list[float]:
    out: list[float] = []
    async with connect(hub.url(), max_size=None) as ws:
        await ws.recv()
        await ws.send(json.dumps({"type": "command", "agent": "ticker", "text": str(lines)}))
        buf = ""
        while True:
            msg = json.loads(await ws.recv())
            if msg["type"] != "stdout":
                continue
            now = time.monotonic_ns()
            buf += msg["data"]
            *complete, buf = buf.split("\n")
            for line in complete:
                if line == "done":
                    return out
                out.append((now - int(line.split()[1])) / 1e6)


async def hub_fanout(hub: HubProcess, clients: int, total: int) -> tuple[float, int, int]:
    conns = [await connect(hub.url(), max_size=None) for _ in range(clients)]
    try:
        for ws in conns:
            await ws.recv()
            await ws.send(json.dumps({"type": "subscribe", "agent": "fan"}))
        await asyncio.sleep(0.5)  # subscriptions land; each gets an (empty) replay
        start = time.perf_counter()
        await conns[0].send(json.dumps({"type": "command", "agent": "fan", "text": "go"}))
        results = await asyncio.gather(*(receive_until_exit(ws, "fan") for ws in conns))
        elapsed = time.perf_counter() - start
    finally:
        for ws in conns:
            await ws.close()
    return elapsed, sum(r[0] for r in results), sum(r[1] for r in results)


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--mb", type=int, default=100)
    ap.add_argument("--lines", type=int, default=2000)
    ap.add_argument("--clients", type=int, default=50)
    ap.add_argument("--fan-mb", type=int, default=10)
    args = ap.parse_args()
    total, fan_total = args.mb * 1_000_000, args.fan_mb * 1_000_000

    print(f"== throughput: {args.mb} MB of 64-byte lines from one agent")
    direct = min(direct_throughput(total) for _ in range(2))
    hub = HubProcess(total, fan_total)
    try:
        elapsed, got, skipped = asyncio.run(hub_throughput(hub, total))
        direct_mbs, hub_mbs = total / direct / 1e6, got / elapsed / 1e6
        print(f"direct pipe read      : {direct:7.3f} s  {direct_mbs:8.1f} MB/s")
        print(f"through the hub (1 ws): {elapsed:7.3f} s  {hub_mbs:8.1f} MB/s  "
              f"(received {got} of {total} bytes, skipped {skipped})")
        print(f"ratio hub/direct      : {hub_mbs / direct_mbs:.2f}x  (target >= 0.5x)")

        print(f"\n== latency: {args.lines} lines, one per ms, line written -> line received")
        d = direct_latency(args.lines)
        h = asyncio.run(hub_latency(hub, args.lines))
        for name, v in (("direct pipe", d), ("through the hub", h)):
            print(f"{name:16}: p50 {pct(v, 0.5):6.3f} ms  p99 {pct(v, 0.99):6.3f} ms  "
                  f"max {max(v):7.3f} ms  (n={len(v)})")
        print(f"hub p99 {pct(h, 0.99):.3f} ms vs target 5 ms: "
              f"{'met' if pct(h, 0.99) <= 5 else 'NOT met'}; "
              f"added p99 over direct {pct(h, 0.99) - pct(d, 0.99):.3f} ms")

        print(f"\n== fan-out: {args.clients} clients watching one agent writing {args.fan_mb} MB")
        elapsed, got, skipped = asyncio.run(hub_fanout(hub, args.clients, fan_total))
        want = args.clients * fan_total
        print(f"{args.clients} clients: {elapsed:7.3f} s  aggregate {got / elapsed / 1e6:8.1f} MB/s"
              f"  per client {got / args.clients / elapsed / 1e6:6.1f} MB/s  "
              f"(received {got} of {want} bytes, skipped {skipped})")
        single = direct_mbs
        print(f"ratio aggregate/direct single reader: {got / elapsed / 1e6 / single:.2f}x")
    finally:
        hub.close()


if __name__ == "__main__":
    main()
