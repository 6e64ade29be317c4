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
import selectors
import socket
import statistics
import struct
import sys
import tempfile
import time
from pathlib import Path

from bench_llm_throughput import (
    PEER_VENV,
    PY,
    aimock_argv,
    ensure_tools,
    free_port,
    ours,
    peer,
    wait_port,
)

from scenarist.llm.process import run_server
from scenarist.processes import stop_group

GAP_MS = 50
GAPS = 20
STREAMS = 100
SO_TIMESTAMPNS = getattr(socket, "SO_TIMESTAMPNS", 35)  # Linux


def scenario(name: str, prompt: str, steps: list[tuple[int, str]]) -> str:
    lines = "\n".join(f"          - [{ms}, {json.dumps(text)}]" for ms, text in steps)
    return (
        f"name: {name}\ntimeline:\n  - userInputs:\n      - relativeTime: 0\n"
        f"        input: {json.dumps(prompt)}\n  - llmResponse:\n      - assistant:\n"
        f"{lines}\n"
    )


def request(prompt: str) -> bytes:
    body = json.dumps(
        {"model": "m", "stream": True, "messages": [{"role": "user", "content": prompt}]}
    ).encode()
    return (
        b"POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\n"
        b"content-type: application/json\r\nconnection: close\r\n"
        + f"content-length: {len(body)}\r\n\r\n".encode()
        + body
    )


class Scan:
    """Content deltas found in a byte stream, each stamped with the arrival time of the
    bytes that completed it (a cheap scan, no JSON parsing)."""

    def __init__(self) -> None:
        self.buf = b""
        self.out: list[tuple[float, str]] = []

    def feed(self, data: bytes, arrival: float) -> None:
        buf = self.buf + data
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
                self.out.append((arrival, text))
            buf = buf[end + 1 :]
        self.buf = buf


async def one_stream(port: int, prompt: str) -> list[tuple[float, str]]:
    """POST a streaming chat request (asyncio); (user-space arrival time, delta) per chunk."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(request(prompt))
    await writer.drain()
    scan = Scan()
    while data := await reader.read(65536):
        scan.feed(data, time.monotonic())
    writer.close()
    return scan.out


def kernel_streams(
    port: int, prompt: str, n: int, timeout_s: float = 60
) -> list[list[tuple[float, str]]]:
    """``n`` concurrent streams read by one selector loop; each delta is stamped with the
    kernel's receive time of its bytes (SO_TIMESTAMPNS), so how fast this client runs does
    not enter the figure: only when the bytes reached the client's socket does."""
    sel = selectors.DefaultSelector()
    scans: dict[socket.socket, Scan] = {}
    for _ in range(n):
        sock = socket.create_connection(("127.0.0.1", port))
        sock.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
        scans[sock] = Scan()
    payload = request(prompt)
    for sock in scans:
        sock.sendall(payload)
        sock.setblocking(False)
        sel.register(sock, selectors.EVENT_READ)
    deadline = time.monotonic() + timeout_s
    left = n
    while left and time.monotonic() < deadline:
        for key, _ in sel.select(1.0):
            sock = key.fileobj
            assert isinstance(sock, socket.socket)
            try:
                data, ancillary, _flags, _addr = sock.recvmsg(65536, socket.CMSG_SPACE(16))
            except BlockingIOError:
                continue
            if not data:
                sel.unregister(sock)
                sock.close()
                left -= 1
                continue
            stamp = time.time()  # only if the kernel gave no timestamp
            for level, kind, cdata in ancillary:
                if level == socket.SOL_SOCKET and kind == SO_TIMESTAMPNS:
                    sec, nsec = struct.unpack("qq", cdata[:16])
                    stamp = sec + nsec / 1e9
            scans[sock].feed(data, stamp)
    for sock in scans:
        sock.close()
    return [scan.out for scan in scans.values()]


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

        # 1. fidelity: the same 100 streams read by two clients, for ours and for aimock
        aport = free_port()
        aim = aimock_argv(aport, work / "aimock.json", "--chunk-size", "8", "--latency", str(GAP_MS))
        errors: dict[tuple[str, str], list[float]] = {}
        servers = {"ours": lambda: ours(work / "s"), "aimock": lambda: peer(aim, aport)}
        for name, start in servers.items():
            with start() as port:
                asyncio.run(many(port, "pace me", 5))  # warm up
                for client, streams in (
                    ("kernel", lambda: kernel_streams(port, "pace me", STREAMS)),
                    ("asyncio", lambda: asyncio.run(many(port, "pace me", STREAMS))),
                ):
                    got = streams()
                    if name == "aimock":  # its first frame carries an empty role delta
                        got = [s[1:] if len(s) > GAPS + 1 else s for s in got]
                    errors[(name, client)] = lateness(got, offsets)
        for (name, client), err in errors.items():
            print(
                f"fidelity  {name:7s} {client:7s} client, {STREAMS} streams x {GAPS} gaps of "
                f"{GAP_MS} ms: p50 {statistics.median(err):.2f} ms  p99 {p99(err):.2f} ms  "
                f"max {max(err):.2f} ms"
            )
        for client in ("kernel", "asyncio"):
            ours_p99, aim_p99 = p99(errors[("ours", client)]), p99(errors[("aimock", client)])
            print(
                f"fidelity  {client:7s} ratio={ours_p99 / max(aim_p99, 1e-9):.2f} ours p99 / "
                f"aimock p99 (lower is better); target p99 <= 3 ms: "
                f"{'ok' if ours_p99 <= 3 else 'ABOVE'}"
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
                startup(aimock_argv(p, work / "aimock.json"), p)
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
