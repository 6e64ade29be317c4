"""Agent hub benchmarks: throughput, line latency, fan-out (issue 6). Not a test: it prints.

    .venv/bin/python bench/bench_hub_stream.py [--mb 100] [--runs 3] [--client picows]
                                               [--lines 2000] [--clients 50] [--profile]

1. Throughput: an agent writes 100 MB of 64-byte text lines to stdout, 1 MiB per write.
   Baseline: read the same program's pipe directly (blocking ``os.read``, 1 MiB at a time, pipe
   widened to 1 MiB like the hub's). Hub: ``scenarist hub`` in its own process, one WebSocket
   client that parses every frame (orjson) and counts the ``data`` of the agent's stdout frames.
   Both sides run the same handshake: the agent starts, says ``ready``, and floods only after
   a ``go`` line, so interpreter start-up is outside both clocks; both clocks stop when the last
   byte is in the reader's hands (the hub's ``exit`` frame is awaited and checked afterwards).
   Best of ``--runs`` for both. Target ratio >= 0.5. ``--client`` picks the WebSocket library:
   ``picows`` (Cython) or ``websockets`` (pure Python framing); ``both`` prints each.
   ``--profile`` samples the hub process with py-spy during the hub runs and prints where it
   spends its time (needs ``pip install py-spy``).
2. Latency: an agent writes a line holding CLOCK_MONOTONIC every millisecond; the client
   compares it with its own clock on arrival (same clock, same machine). Target p99 <= 5 ms.
   The direct-pipe latency of the same agent is printed next to it.
3. Fan-out: 50 clients watch one agent writing ``--fan-mb`` MB; every client must get it all.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import fcntl
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import orjson
from websockets.asyncio.client import ClientConnection, connect

TOKEN = "bench-token-0123456789"
PIPE_BYTES = 1 << 20  # the hub widens its agents' output pipes to this; so does the baseline

FLOOD = """\
import sys
total = int(sys.argv[1])
sys.stdin.readline()  # the command that started it
out = sys.stdout.buffer
out.write(b"ready\\n")
out.flush()
sys.stdin.readline()  # "go"
block = "".join(f"{i:063d}\\n" for i in range(1024)).encode() * 16  # 1 MiB per write
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
    with contextlib.suppress(OSError):
        fcntl.fcntl(fd, getattr(fcntl, "F_SETPIPE_SZ", 1031), PIPE_BYTES)
    proc.stdin.write(b"start\n")
    proc.stdin.flush()
    ready = b""
    while not ready.endswith(b"\n"):
        ready += os.read(fd, 64)
    assert ready == b"ready\n", ready
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


class Tally:
    """Counts one flood run from parsed frames; shared by both client libraries."""

    def __init__(self, agent: str, total: int) -> None:
        self.agent, self.total = agent, total
        self.got = self.skipped = 0
        self.end = 0.0
        self.exit: dict[str, Any] | None = None
        self.ready = asyncio.get_running_loop().create_future()
        self.done = asyncio.get_running_loop().create_future()

    def feed(self, msg: dict[str, Any]) -> None:
        kind = msg["type"]
        if kind == "stdout" and msg["agent"] == self.agent:
            if not self.ready.done():
                assert msg["data"] == "ready\n", msg["data"][:80]
                self.ready.set_result(None)
                return
            self.got += len(msg["data"])  # ASCII: characters are bytes
            if self.got >= self.total and not self.end:
                self.end = time.perf_counter()
        elif kind == "skipped":
            self.skipped += msg["bytes"]
        elif kind == "exit" and msg["agent"] == self.agent and not self.done.done():
            self.exit = msg
            self.done.set_result(None)


def command(agent: str, text: str) -> bytes:
    return orjson.dumps({"type": "command", "agent": agent, "text": text})


async def flood_run(send: Any, tally: Tally) -> tuple[float, int, int]:
    """start -> ready -> go (clock starts) -> last byte (clock stops) -> exit (checked)."""
    await send(command(tally.agent, "start"))
    await asyncio.wait_for(tally.ready, 60)
    start = time.perf_counter()
    await send(command(tally.agent, "go"))
    await asyncio.wait_for(tally.done, 600)
    assert tally.exit is not None and tally.exit["code"] == 0, tally.exit
    end = tally.end or time.perf_counter()
    return end - start, tally.got, tally.skipped


async def throughput_websockets(url: str, total: int) -> tuple[float, int, int]:
    async with connect(url, max_size=None, compression=None) as ws:
        await ws.recv()  # hello
        tally = Tally("flood", total)

        async def send(frame: bytes) -> None:
            await ws.send(frame, text=True)

        async def reader() -> None:
            while not tally.done.done():
                tally.feed(orjson.loads(await ws.recv(decode=False)))

        task = asyncio.get_running_loop().create_task(reader())
        try:
            return await flood_run(send, tally)
        finally:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task


async def throughput_picows(url: str, total: int) -> tuple[float, int, int]:
    import picows  # optional: only this client needs it

    tally = Tally("flood", total)
    hello = asyncio.get_running_loop().create_future()

    class Listener(picows.WSListener):
        def on_ws_frame(self, transport: Any, frame: Any) -> None:
            if frame.msg_type != picows.WSMsgType.TEXT:
                return
            assert frame.fin, "the hub does not fragment messages"
            msg = orjson.loads(frame.get_payload_as_memoryview())
            if not hello.done():
                hello.set_result(msg)
                return
            tally.feed(msg)

    transport, _ = await picows.ws_connect(Listener, url, max_frame_size=1 << 30)
    try:
        await asyncio.wait_for(hello, 30)

        async def send(frame: bytes) -> None:
            transport.send(picows.WSMsgType.TEXT, frame)

        return await flood_run(send, tally)
    finally:
        transport.disconnect()


CLIENTS = {"picows": throughput_picows, "websockets": throughput_websockets}


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
    conns = [await connect(hub.url(), max_size=None, compression=None) for _ in range(clients)]
    tallies = [Tally("fan", total) for _ in conns]

    async def reader(ws: ClientConnection, tally: Tally) -> None:
        while not tally.done.done():
            tally.feed(orjson.loads(await ws.recv(decode=False)))

    try:
        for ws in conns:
            await ws.recv()  # hello
            await ws.send(orjson.dumps({"type": "subscribe", "agent": "fan"}), text=True)
        tasks = [asyncio.get_running_loop().create_task(reader(ws, t))
                 for ws, t in zip(conns, tallies, strict=True)]
        await asyncio.sleep(0.5)  # subscriptions land; each gets an (empty) replay
        await conns[0].send(command("fan", "start"), text=True)
        await asyncio.gather(*(asyncio.wait_for(t.ready, 60) for t in tallies))
        start = time.perf_counter()
        await conns[0].send(command("fan", "go"), text=True)
        await asyncio.wait_for(asyncio.gather(*tasks), 600)
        elapsed = max(t.end or time.perf_counter() for t in tallies) - start
    finally:
        for ws in conns:
            await ws.close()
    return elapsed, sum(t.got for t in tallies), sum(t.skipped for t in tallies)


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of process ``pid`` so far (Linux ``/proc``; 0 elsewhere)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


class Profiler:
    """py-spy sampling the hub process; prints the frames where it spends its own time."""

    def __init__(self, pid: int) -> None:
        spy = shutil.which("py-spy") or str(Path(sys.executable).with_name("py-spy"))
        fd, self.out = tempfile.mkstemp(suffix=".txt")
        os.close(fd)
        self.proc: subprocess.Popen[bytes] | None = None
        if not Path(spy).exists():
            print("(--profile: py-spy not found; pip install py-spy)")
            return
        self.proc = subprocess.Popen([spy, "record", "-p", str(pid), "-o", self.out, "-f", "raw",
                                      "-r", "1000", "--nonblocking"],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(1.0)  # py-spy attaches

    def report(self, top: int = 14) -> None:
        if self.proc is None:
            return
        self.proc.send_signal(signal.SIGINT)
        self.proc.wait(timeout=30)
        own: collections.Counter[str] = collections.Counter()
        total = 0
        for line in Path(self.out).read_text().splitlines():
            stack, _, samples = line.rpartition(" ")
            leaf = stack.split(";")[-1]
            if "select (selectors.py" in leaf or "run_forever" in leaf:
                continue  # idle in the event loop
            own[leaf] += int(samples)
            total += int(samples)
        Path(self.out).unlink()
        print(f"hub profile ({total} busy samples at 1 kHz), own time:")
        for frame, count in own.most_common(top):
            print(f"  {count / max(total, 1):6.1%}  {frame[:110]}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--mb", type=int, default=100)
    ap.add_argument("--runs", type=int, default=3, help="throughput runs per side; best counts")
    ap.add_argument("--client", choices=[*CLIENTS, "both"], default="both")
    ap.add_argument("--lines", type=int, default=2000)
    ap.add_argument("--clients", type=int, default=50)
    ap.add_argument("--fan-mb", type=int, default=10)
    ap.add_argument("--profile", action="store_true", help="py-spy the hub during throughput")
    ap.add_argument("--only", choices=["throughput", "latency", "fanout"])
    args = ap.parse_args()
    total, fan_total = args.mb * 1_000_000, args.fan_mb * 1_000_000
    clients = list(CLIENTS) if args.client == "both" else [args.client]

    hub = HubProcess(total, fan_total)
    try:
        if args.only in (None, "throughput"):
            print(f"== throughput: {args.mb} MB of 64-byte lines from one agent, "
                  f"best of {args.runs}")
            times = [direct_throughput(total) for _ in range(args.runs)]
            direct = min(times)
            direct_mbs = total / direct / 1e6
            print(f"direct pipe read       : {direct:7.3f} s  {direct_mbs:8.1f} MB/s  (runs: "
                  + ", ".join(f"{total / t / 1e6:.0f}" for t in times) + " MB/s)")
            profiler = Profiler(hub.proc.pid) if args.profile else None
            for name in clients:
                hub_cpu, client_cpu = cpu_seconds(hub.proc.pid), time.process_time()
                runs = [asyncio.run(CLIENTS[name](hub.url(), total)) for _ in range(args.runs)]
                hub_cpu = (cpu_seconds(hub.proc.pid) - hub_cpu) / args.runs
                client_cpu = (time.process_time() - client_cpu) / args.runs
                for _, got, skipped in runs:
                    assert (got, skipped) == (total, 0), (name, got, skipped)
                best = min(r[0] for r in runs)
                hub_mbs = total / best / 1e6
                print(f"hub, {name:10} client: {best:7.3f} s  {hub_mbs:8.1f} MB/s  (runs: "
                      + ", ".join(f"{total / r[0] / 1e6:.0f}" for r in runs)
                      + f" MB/s; every run received all {total} bytes, skipped 0)")
                print(f"cpu per run            : hub {hub_cpu * 1e3:.0f} ms, {name} client "
                      f"{client_cpu * 1e3:.0f} ms (/proc ticks: +-10 ms)")
                print(f"ratio hub/direct ({name}): {hub_mbs / direct_mbs:.2f}x  (target >= 0.5x)")
            if profiler is not None:
                profiler.report()

        if args.only in (None, "latency"):
            print(f"\n== latency: {args.lines} lines, one per ms, line written -> line received")
            d = direct_latency(args.lines)
            h = asyncio.run(hub_latency(hub, args.lines))
            for name, v in (("direct pipe", d), ("through the hub", h)):
                print(f"{name:16}: p50 {pct(v, 0.5):6.3f} ms  p99 {pct(v, 0.99):6.3f} ms  "
                      f"max {max(v):7.3f} ms  (n={len(v)})")
            print(f"hub p99 {pct(h, 0.99):.3f} ms vs target 5 ms: "
                  f"{'met' if pct(h, 0.99) <= 5 else 'NOT met'}; "
                  f"added p99 over direct {pct(h, 0.99) - pct(d, 0.99):.3f} ms")

        if args.only in (None, "fanout"):
            print(f"\n== fan-out: {args.clients} clients watching one agent writing "
                  f"{args.fan_mb} MB")
            elapsed, got, skipped = asyncio.run(hub_fanout(hub, args.clients, fan_total))
            want = args.clients * fan_total
            print(f"{args.clients} clients: {elapsed:7.3f} s  aggregate "
                  f"{got / elapsed / 1e6:8.1f} MB/s  per client "
                  f"{got / args.clients / elapsed / 1e6:6.1f} MB/s  "
                  f"(received {got} of {want} bytes, skipped {skipped})")
    finally:
        hub.close()


if __name__ == "__main__":
    main()
