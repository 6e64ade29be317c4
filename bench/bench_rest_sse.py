"""``scenarist rest`` SSE fan-out: events/s delivered, p99 lateness against the schedule, peak
RSS, for the SQLite and Redis stores, next to a floor (a minimal sse-starlette app streaming
the same events from memory on the same player) measured in the same run; and catch-up of a
100,000-event history (time to first and last event).

    .venv/bin/python bench/bench_rest_sse.py [--subscribers 1000] [--sessions 500]
        [--events 100] [--step-ms 20] [--history 100000] [--no-redis]

Lateness is arrival (this process's wall clock) minus the event's ``ts`` (its scheduled
time on the server's clock, the same machine's wall clock), so it includes the client's own
delay in reading; the client is one asyncio process reading raw sockets, the cheapest
reader we can write, and the same for every server. Figures are printed, never asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from contextlib import ExitStack
from datetime import datetime
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path[:0] = [str(REPO / "src"), str(REPO / "tests" / "rest")]

from scenarist.llm.process import RunningServer, start_server  # noqa: E402
from scenarist.processes import stop_group  # noqa: E402

FINAL = b'"status":"completed"'


def scenario(path: Path, events: int, step_ms: int) -> Path:
    steps = "".join(f'          - [{step_ms}, "step {n}"]\n' for n in range(events))
    path.write_text("name: bench\ntimeline:\n  - llmResponse:\n      - think:\n" + steps)
    return path


def peak_rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def epoch_ms(ts: str) -> float:
    return datetime.fromisoformat(ts.replace("Z", "+00:00")).timestamp() * 1000


async def subscribe(port: int, path: str, late: list[float], stamps: list[float]) -> int:
    """Read one SSE stream to its final status over a raw socket; lateness per event."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port, limit=1 << 20)
    writer.write(f"GET {path} HTTP/1.1\r\nhost: bench\r\naccept: text/event-stream\r\n\r\n"
                 .encode())
    got = 0
    try:
        async for line in reader:
            if not line.startswith(b"data: "):
                continue
            now = time.time() * 1000
            got += 1
            data = json.loads(line[6:])
            late.append(now - epoch_ms(data["ts"]))
            stamps.append(now)
            if FINAL in line:
                break
    finally:
        writer.close()
    return got


async def create(port: int, n: int, subscribers: int = 0, late: list[float] | None = None,
                 stamps: list[float] | None = None) -> list[str]:
    """Create ``n`` sessions; each gets ``subscribers`` readers as soon as it exists (a
    session starts playing when created)."""
    import httpx

    readers = []
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=60) as client:
        ids = []
        for _ in range(n):
            answer = await client.post("/api/v1/tasks", json={"prompt": "go"})
            sid = answer.json()["session_ids"][0]
            ids.append(sid)
            readers += [asyncio.ensure_future(subscribe(
                port, f"/api/v1/sessions/{sid}/events", late if late is not None else [],
                stamps if stamps is not None else [])) for _ in range(subscribers)]
    await asyncio.gather(*readers)
    return ids


def report(name: str, late: list[float], stamps: list[float], rss: float) -> dict[str, float]:
    late.sort()
    p99 = late[int(len(late) * 0.99) - 1] if late else float("nan")
    span = (max(stamps) - min(stamps)) / 1000 if len(stamps) > 1 else float("nan")
    rate = len(stamps) / span if span else float("nan")
    print(f"  {name:<8} events={len(stamps):>7}  events/s={rate:>9.0f}  p50 late="
          f"{late[len(late) // 2]:7.1f} ms  p99 late={p99:7.1f} ms  peak RSS={rss:6.0f} MiB")
    return {"rate": rate, "p99": p99, "rss": rss}


async def fan_out(port: int, pid: int, name: str, sessions: int, per_session: int
                  ) -> dict[str, float]:
    late: list[float] = []
    stamps: list[float] = []
    await create(port, sessions, per_session, late, stamps)
    return report(name, late, stamps, peak_rss_mib(pid))


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_redis(stack: ExitStack) -> str:
    from conftest import running_redis  # the test suite's own redis-server fixture

    return stack.enter_context(running_redis(Path(tempfile.mkdtemp())))


def start_rest(stack: ExitStack, path: Path, store: str) -> RunningServer:
    server = start_server(path, "--store", store, "--heartbeat", "60", command="rest")
    stack.callback(server.stop)
    return server


def start_floor(stack: ExitStack, path: Path) -> tuple[int, int]:
    port = free_port()
    proc = subprocess.Popen([sys.executable, __file__, "--floor-server", str(port), str(path)],
                            stdout=subprocess.PIPE, text=True, start_new_session=True)
    stack.callback(stop_group, proc)
    assert proc.stdout is not None
    proc.stdout.readline()  # "ready"
    return port, proc.pid


def floor_server(port: int, path: Path) -> None:
    """The floor: one sse-starlette route that streams the planned events of ``path`` from
    memory, each subscriber on its own player against the session's start."""
    import uvicorn
    from sse_starlette import EventSourceResponse, ServerSentEvent
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    from scenarist.play import Player, RealClock
    from scenarist.rest.events import plan_session
    from scenarist.rest.session import Wall, iso
    from scenarist.scenario import compile_timeline, load_scenario

    clock = RealClock()
    wall = Wall.of(clock)
    plan = plan_session(compile_timeline(load_scenario(path)))
    starts: dict[str, float] = {}

    async def tasks(request: Request) -> JSONResponse:
        sid = str(len(starts))
        starts[sid] = clock.now_ms()
        return JSONResponse({"session_ids": [sid]}, 201)

    async def events(request: Request) -> EventSourceResponse:
        t0 = starts[request.path_params["id"]]

        async def frames() -> Any:
            async for cue in Player(plan, clock=clock, start_ms=t0).cues():
                body = {**cue.beat.body, "ts": iso(wall.epoch(cue.scheduled_ms))}
                yield ServerSentEvent(data=json.dumps(body), id=str(cue.index + 1))
        return EventSourceResponse(frames(), ping=60, sep="\n")

    app = Starlette(routes=[Route("/api/v1/tasks", tasks, methods=["POST"]),
                            Route("/api/v1/sessions/{id}/events", events)])
    from scenarist.serving import bind

    sock = bind("127.0.0.1", port)
    print("ready", flush=True)
    uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off")).run(sockets=[sock])


async def catch_up(port: int, history: int) -> tuple[float, float]:
    """Seconds to the first and the last event of a finished ``history``-event session."""
    (sid,) = await create(port, 1)
    late: list[float] = []
    await subscribe(port, f"/api/v1/sessions/{sid}/events", late, [])  # wait until played
    stamps: list[float] = []
    start = time.time() * 1000
    await subscribe(port, f"/api/v1/sessions/{sid}/events", [], stamps)
    return (stamps[0] - start) / 1000, (stamps[-1] - start) / 1000


async def main(args: argparse.Namespace) -> None:
    work = Path(tempfile.mkdtemp())
    paced = scenario(work / "paced.yaml", args.events, args.step_ms)
    big = scenario(work / "history.yaml", args.history, 0)
    print(f"each session: {args.events} events {args.step_ms} ms apart "
          f"({args.events * args.step_ms / 1000:g} s)")
    with ExitStack() as stack:
        stores = {"sqlite": "sqlite://"}
        if not args.no_redis:
            stores["redis"] = start_redis(stack)
        for label, sessions, per in (
                (f"{args.subscribers} subscribers on one session", 1, args.subscribers),
                (f"{args.sessions} sessions, one subscriber each", args.sessions, 1)):
            print(label)
            floor_port, floor_pid = start_floor(stack, paced)
            floor = await fan_out(floor_port, floor_pid, "floor", sessions, per)
            for name, url in stores.items():
                server = start_rest(stack, paced, url)
                got = await fan_out(server.port, server.pid, name, sessions, per)
                print(f"    ratio={got['rate'] / floor['rate']:.2f} (events/s {name}/floor)  "
                      f"p99 {name} - floor = {got['p99'] - floor['p99']:+.1f} ms")
                server.stop()
        print(f"catch-up of a {args.history:,}-event history (one reader, from the start)")
        for name, url in stores.items():
            server = start_rest(stack, big, url)
            first, last = await catch_up(server.port, args.history)
            print(f"  {name:<8} first event {first * 1000:7.1f} ms  last event {last:6.2f} s  "
                  f"({args.history / last:,.0f} events/s)")
            server.stop()


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--floor-server":
        floor_server(int(sys.argv[2]), Path(sys.argv[3]))
        sys.exit(0)
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--subscribers", type=int, default=1000)
    parser.add_argument("--sessions", type=int, default=500)
    parser.add_argument("--events", type=int, default=100)
    parser.add_argument("--step-ms", type=int, default=20)
    parser.add_argument("--history", type=int, default=100_000)
    parser.add_argument("--no-redis", action="store_true")
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # stop the servers on the way out
    asyncio.run(main(parser.parse_args()))
    os._exit(0)
