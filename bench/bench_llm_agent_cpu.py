"""In-process CPU per answer of ``scenarist llm`` on the agent-shaped workload (issue 28).

Feeds the 800 distinct streamed and 800 non-streamed bodies of
``bench_llm_agent_traffic.py`` straight to the ASGI app (no sockets, no uvicorn) and reports
the CPU microseconds per answer (median and minimum over interleaved rounds, default and
``--no-memo`` in turn, the order turning every round): the model API's own share of an answer without sockets or uvicorn,
less noisy on a shared machine than the HTTP bench (the minimum least). Each round answers
the 800 bodies once; the journal is cleared between runs.

    .venv/bin/python bench/bench_llm_agent_cpu.py [--rounds 5] [--inflate 200]
        [--only streams,no-memo]   # some of: streams, non-streaming, default, no-memo
        [--profile OUT.prof]       # cProfile the runs kept (pstats file)
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import os
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from bench_llm_agent_traffic import SCENARIO, Request, workload

from scenarist.llm.cli import load_scripts
from scenarist.llm.server import MockModelServer, Options


def scope_of(req: Request) -> dict[str, Any]:
    path, _, query = req.path.partition("?")
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(req.body)).encode()),
    ]
    for line in req.headers.decode().split("\r\n"):
        if line:
            name, _, value = line.partition(": ")
            headers.append((name.encode(), value.encode()))
    return {
        "type": "http",
        "method": "POST",
        "path": path,
        "query_string": query.encode(),
        "headers": headers,
    }


async def serve_all(server: MockModelServer, reqs: list[tuple[Request, dict[str, Any]]]) -> int:
    """Answer every request through the ASGI app; the number of bytes sent (a sanity check)."""
    sent = 0
    for req, scope in reqs:
        delivered = False

        async def receive(body: bytes = req.body) -> dict[str, Any]:
            nonlocal delivered
            if delivered:
                return {"type": "http.disconnect"}
            delivered = True
            return {"type": "http.request", "body": body, "more_body": False}

        async def send(message: dict[str, Any]) -> None:
            nonlocal sent
            if message["type"] == "http.response.start":
                assert message["status"] == 200, message
            else:
                sent += len(message.get("body", b""))

        await server(scope, receive, send)
    return sent


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--inflate", type=int, default=200)
    ap.add_argument("--profile", type=Path, help="cProfile the servers run into this file")
    ap.add_argument("--only", help="comma-separated runs: streams,non-streaming,default,no-memo")
    args = ap.parse_args()
    modes = {
        "streams": workload(True, args.inflate),
        "non-streaming": workload(False, args.inflate),
    }
    keep = set(args.only.split(",")) if args.only else None
    prepared = {
        name: [(r, scope_of(r)) for r in reqs]
        for name, reqs in modes.items()
        if keep is None or name in keep or not keep & set(modes)
    }
    with tempfile.TemporaryDirectory() as tmp:
        scenario = Path(tmp) / "agent-bench.yaml"
        scenario.write_text(SCENARIO)
        scripts = load_scripts([scenario], [], False)
        servers = {
            "default": MockModelServer(scripts, Options()),
            "no-memo": MockModelServer(scripts, Options(memoize=False)),
        }
        if keep is not None and keep & set(servers):
            servers = {name: s for name, s in servers.items() if name in keep}
        for server in servers.values():
            server.selector.index.prepare()
        figures: dict[tuple[str, str], list[float]] = {}
        profiler = cProfile.Profile() if args.profile else None
        loop = asyncio.new_event_loop()
        for rnd in range(args.rounds + 1):  # round 0 warms up
            for mode, reqs in prepared.items():
                order = list(servers.items())
                # the order turns every round: the first run after a change of workload
                # pays for warming the caches
                for name, server in order if rnd % 2 else order[::-1]:
                    server.journal.clear()
                    profiling = profiler is not None and rnd > 0
                    t0 = time.process_time()
                    if profiling:
                        profiler.enable()
                    loop.run_until_complete(serve_all(server, reqs))
                    if profiling:
                        profiler.disable()
                    if rnd:
                        us = (time.process_time() - t0) / len(reqs) * 1e6
                        figures.setdefault((mode, name), []).append(us)
        loop.close()
        if profiler is not None:
            profiler.dump_stats(args.profile)
    print(f"CPU µs per answer, median of {args.rounds} rounds; uptime: {os.getloadavg()}")
    for (mode, name), values in figures.items():
        print(
            f"  {mode:14s} {name:8s} {statistics.median(values):7.1f} µs  (min {min(values):.1f})"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
