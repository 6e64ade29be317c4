"""Throughput of ``scenarist llm`` vs aimock, a Python peer (fakellm) and a Starlette floor.

Two loads, one client (autocannon, from bench/llm/package.json), one run:

1. non-streaming chat completions at concurrency 32;
2. streaming a 1,000-chunk answer with zero delays (concurrency 32).

Servers: ``scenarist llm`` (memoised answers, the default, and ``--no-memo`` which encodes
every answer afresh), aimock (npm ``@copilotkit/aimock``, installed here into
bench/llm/node_modules), fakellm (PyPI, installed into its own venv under the temp dir; it
sleeps a fixed 10 ms per streamed chunk by design) and a floor: a minimal Starlette/uvicorn
app (same uvicorn settings as ours) that returns the constant body or stream.

Targets (issue 3): >= 1.0x aimock, >= 2x the Python peer, >= 0.6x the floor.

All servers run side by side; the loads are measured in interleaved rounds (every server
once per round) and each figure is the median of its rounds, so the shared machine's
changing load does not favour whichever server happens to run in a quiet moment.

    .venv/bin/python bench/bench_llm_throughput.py [--seconds 3] [--rounds 3] [--connections 32]
"""

from __future__ import annotations

import argparse
import json
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, ExitStack, contextmanager
from pathlib import Path

from scenarist.llm.process import run_server
from scenarist.processes import stop_group

ROOT = Path(__file__).resolve().parents[1]
NODE_DIR = ROOT / "bench" / "llm"
BIN = NODE_DIR / "node_modules" / ".bin"
PEER_VENV = Path(tempfile.gettempdir()) / "scenarist-bench-fakellm"
PY = sys.executable

SHORT_PROMPT = "benchmark please"
SHORT_ANSWER = "Hello! This is the benchmark answer."
STREAM_PROMPT = "stream please"
STREAM_ANSWER = " ".join(f"w{i:014d}" for i in range(1000))  # 1,000 chunks of 16 chars


def ensure_tools() -> None:
    if not (BIN / "autocannon").exists() or not (BIN / "llmock").exists():
        print("installing aimock and autocannon into bench/llm/node_modules ...", flush=True)
        subprocess.run(
            ["npm", "install", "--no-audit", "--no-fund", "--loglevel=error"],
            cwd=NODE_DIR,
            check=True,
        )
    if not (PEER_VENV / "bin" / "fakellm").exists():
        print(f"installing fakellm into {PEER_VENV} ...", flush=True)
        subprocess.run([PY, "-m", "venv", str(PEER_VENV)], check=True)
        subprocess.run(
            [str(PEER_VENV / "bin" / "pip"), "install", "-q", "fakellm"],
            check=True,
            stderr=subprocess.DEVNULL,
        )


def aimock_argv(port: int, fixtures: Path, *options: str) -> list[str]:
    """aimock's command line: serve ``fixtures`` on ``port``, quietly, with ``options``
    (e.g. ``--chunk-size 16``)."""
    return [str(BIN / "llmock"), "-p", str(port), "-f", str(fixtures), *options,
            "--log-level", "silent"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_port(port: int, timeout: float = 30) -> float:
    start = time.monotonic()
    while time.monotonic() - start < timeout:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return time.monotonic() - start
        except OSError:
            time.sleep(0.01)
    raise RuntimeError(f"nothing listens on port {port} after {timeout} s")


@contextmanager
def ours(scenarios: Path, *flags: str) -> Iterator[int]:
    """``scenarist llm`` on a free port (the project's one subprocess helper); its port."""
    with run_server(scenarios, *flags) as server:
        yield server.port


@contextmanager
def peer(argv: list[str], port: int, cwd: Path | None = None) -> Iterator[int]:
    """A peer server that announces nothing: started, waited for on ``port``, stopped."""
    proc = subprocess.Popen(
        argv, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
    )
    try:
        wait_port(port)
        yield port
    finally:
        stop_group(proc)


def write_inputs(work: Path) -> None:
    scenario = (
        "name: {n}\ntimeline:\n  - userInputs:\n      - relativeTime: 0\n        input: {p}\n"
        "  - llmResponse:\n      - assistant:\n          - [0, {a}]\n"
    )
    (work / "scenarios").mkdir()
    for name, prompt, answer in (
        ("short", SHORT_PROMPT, SHORT_ANSWER),
        ("stream", STREAM_PROMPT, STREAM_ANSWER),
    ):
        (work / "scenarios" / f"{name}.yaml").write_text(
            scenario.format(n=name, p=json.dumps(prompt), a=json.dumps(answer))
        )
    (work / "aimock.json").write_text(
        json.dumps(
            {
                "fixtures": [
                    {"match": {"userMessage": SHORT_PROMPT}, "response": {"content": SHORT_ANSWER}},
                    {
                        "match": {"userMessage": STREAM_PROMPT},
                        "response": {"content": STREAM_ANSWER},
                    },
                ]
            }
        )
    )
    (work / "fakellm.yaml").write_text(
        "version: 1\nrules:\n"
        f"  - name: short\n    when:\n      messages_contain: {json.dumps(SHORT_PROMPT)}\n"
        f"    respond:\n      content: {json.dumps(SHORT_ANSWER)}\n"
        f"  - name: stream\n    when:\n      messages_contain: {json.dumps(STREAM_PROMPT)}\n"
        f"    respond:\n      content: {json.dumps(STREAM_ANSWER)}\n"
    )
    # the floor: the constant bytes our server sends, returned by a minimal Starlette app
    (work / "floor.py").write_text(f"""
import sys, uvicorn
from starlette.applications import Starlette
from starlette.responses import Response
from starlette.routing import Route
SHORT = open({str(work / "short.body")!r}, "rb").read()
STREAM = open({str(work / "stream.body")!r}, "rb").read()
async def chat(request):
    body = await request.body()
    if b'"stream":true' in body:
        return Response(STREAM, media_type="text/event-stream")
    return Response(SHORT, media_type="application/json")
app = Starlette(routes=[Route("/v1/chat/completions", chat, methods=["POST"])])
uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[1]), log_level="warning",
            access_log=False, lifespan="off", http="httptools", loop="uvloop")
""")


def body(prompt: str, stream: bool) -> str:
    req: dict[str, object] = {
        "model": "mock-model",
        "messages": [{"role": "user", "content": prompt}],
    }
    if stream:
        req["stream"] = True
    return json.dumps(req, separators=(",", ":"))


def capture_floor_bodies(work: Path, port: int) -> None:
    """Record what our server answers, so the floor sends exactly the same bytes."""
    import httpx

    url = f"http://127.0.0.1:{port}/v1/chat/completions"
    headers = {"content-type": "application/json"}
    short = httpx.post(url, content=body(SHORT_PROMPT, False), headers=headers)
    stream = httpx.post(url, content=body(STREAM_PROMPT, True), headers=headers)
    assert stream.text.count("data: ") == 1003, "expected 1,000 content chunks"
    (work / "short.body").write_bytes(short.content)
    (work / "stream.body").write_bytes(stream.content)


def autocannon(port: int, payload: str, seconds: float, connections: int) -> float:
    out = subprocess.run(
        [
            str(BIN / "autocannon"),
            "--json",
            "-t",
            "60",
            "-c",
            str(connections),
            "-d",
            str(seconds),
            "-m",
            "POST",
            "-H",
            "content-type=application/json",
            "-b",
            payload,
            f"http://127.0.0.1:{port}/v1/chat/completions",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    result = json.loads(out.stdout)
    if result.get("non2xx") or result.get("errors"):
        raise RuntimeError(
            f"port {port}: {result.get('non2xx')} non-2xx, {result.get('errors')} errors"
        )
    return float(result["requests"]["total"]) / float(result["duration"])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=3, help="per round and server")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--connections", type=int, default=32)
    args = ap.parse_args()
    ensure_tools()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        write_inputs(work)
        scen = work / "scenarios"
        ports = {name: free_port() for name in ("aimock", "fakellm", "floor")}
        servers: dict[str, Callable[[], AbstractContextManager[int]]] = {
            "ours": lambda: ours(scen),
            "ours-no-memo": lambda: ours(scen, "--no-memo"),
            "aimock": lambda: peer(
                aimock_argv(ports["aimock"], work / "aimock.json", "--chunk-size", "16"),
                ports["aimock"],
            ),
            "fakellm": lambda: peer(
                [
                    str(PEER_VENV / "bin" / "fakellm"),
                    "serve",
                    "--port",
                    str(ports["fakellm"]),
                    "--config",
                    str(work / "fakellm.yaml"),
                ],
                ports["fakellm"],
                cwd=work,
            ),
            "floor": lambda: peer(
                [PY, str(work / "floor.py"), str(ports["floor"])], ports["floor"]
            ),
        }
        with ours(scen) as port:
            capture_floor_bodies(work, port)
        loads = {
            "non-streaming chat, c=32": body(SHORT_PROMPT, False),
            "stream 1,000 chunks, c=32": body(STREAM_PROMPT, True),
        }
        samples: dict[str, dict[str, list[float]]] = {load: {} for load in loads}
        with ExitStack() as stack:
            port_of = {name: stack.enter_context(start()) for name, start in servers.items()}
            for name, port in port_of.items():  # warm up every server on every load
                for load, payload in loads.items():
                    if not (name == "fakellm" and load.startswith("stream")):
                        autocannon(port, payload, 1, args.connections)
            # fakellm sleeps 10 ms per chunk by design: one long run of its stream load
            rate = autocannon(port_of["fakellm"], loads["stream 1,000 chunks, c=32"], 25, 32)
            samples["stream 1,000 chunks, c=32"]["fakellm"] = [rate]
            # rounds interleave the servers, so a change in the shared machine's load hits
            # them all alike; each figure is the median of its rounds
            for r in range(args.rounds):
                for load, payload in loads.items():
                    for name, port in port_of.items():
                        if name == "fakellm" and load.startswith("stream"):
                            continue
                        rate = autocannon(port, payload, args.seconds, args.connections)
                        samples[load].setdefault(name, []).append(rate)
                        print(f"round {r + 1} {load:28s} {name:14s} {rate:10.1f} req/s", flush=True)
        rates = {
            load: {name: statistics.median(v) for name, v in by.items()}
            for load, by in samples.items()
        }
        print()
        for load, by in rates.items():
            for name, rate in by.items():
                print(f"median  {load:28s} {name:14s} {rate:10.1f} req/s")
        print()
        targets = {"aimock": 1.0, "fakellm": 2.0, "floor": 0.6}
        for load, by in rates.items():
            for mine in ("ours", "ours-no-memo"):
                for other, target in targets.items():
                    ratio = by[mine] / by[other] if by[other] else float("inf")
                    verdict = "ok" if ratio >= target else "BELOW"
                    print(
                        f"{load:28s} ratio={ratio:7.2f} {mine} vs {other} "
                        f"(target >= {target}) {verdict}"
                    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
