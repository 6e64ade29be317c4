"""This checkout next to another source tree, on the figures a refactor must keep.

Issue 11 asks that reshaping the core keep the model API's throughput and timing, the
in-process fake's speed and the start-up of ``scenarist llm`` and ``fake-codex`` within 10% of
the previous commit. This bench runs both trees side by side in one run, in interleaved
rounds (every tree once per round, figures are medians of the rounds), so the shared
machine's changing load does not favour either:

- throughput: ``scenarist llm`` (memoised and ``--no-memo``) answering non-streamed chat at
  c=32 and a 1,000-chunk zero-delay stream, one autocannon client (as
  ``bench_llm_throughput.py``): requests per second, and the server's CPU time per request
  (from ``/proc``; on a machine shared with other work the wall-clock rate swings with the
  load, the CPU per request much less);
- timing: p99 |arrival − scheduled| over 100 concurrent paced streams (20 gaps of 50 ms),
  stamped with the kernel's receive time (as ``bench_llm_timing.py``);
- fake stream: events per second of ``FakeModel.stream()`` / ``.astream()`` over a
  10,000-entry script, best of 7 per round, on CPU time (as ``bench_fake_stream.py``);
- start-up: ``scenarist llm`` until ``/health`` answers and ``fake-codex`` until its first
  line, wall time and the child's CPU time.

The other tree is a source folder, e.g. a worktree of the previous commit::

    git worktree add --detach /tmp/base HEAD~1
    .venv/bin/python bench/bench_side_by_side.py /tmp/base [--rounds 3] [--seconds 3]

Each tree runs as ``PYTHONPATH=<tree>/src`` with this interpreter.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_llm_throughput import (
    BIN,
    NODE_DIR,
    SHORT_ANSWER,
    SHORT_PROMPT,
    STREAM_ANSWER,
    STREAM_PROMPT,
    autocannon,
    body,
    free_port,
)
from bench_llm_timing import (
    GAP_MS,
    GAPS,
    answered,
    kernel_streams,
    lateness,
    many,
    p99,
    scenario,
)

from scenarist.llm.process import run_server
from scenarist.processes import stop_group

HERE = Path(__file__).resolve().parents[1]
PY = sys.executable
FAKE_CODEX = str(Path(PY).parent / "fake-codex")

FAKE_STREAM = """
import asyncio, sys, time
from scenarist.fake import FakeModel, text
script = [text("tok ") for _ in range(10_000)]
def best(run):
    out = []
    for _ in range(7):
        t0 = time.process_time(); n = run(); out.append(n / (time.process_time() - t0))
    return max(out)
async def arun():
    return len([e async for e in FakeModel(script=script).astream()])
print(best(lambda: sum(1 for _ in FakeModel(script=script).stream())),
      best(lambda: asyncio.run(arun())))
"""


PYCACHE = Path(tempfile.gettempdir()) / f"scenarist-side-by-side-{os.getpid()}"


def env_for(tree: Path) -> dict[str, str]:
    """The tree's sources, with bytecode cached per tree as after ``pip install`` (with
    ``PYTHONDONTWRITEBYTECODE`` every start-up would compile the sources, and the larger tree
    would pay for it)."""
    env = {**os.environ, "PYTHONPATH": str(tree / "src"),
           "PYTHONPYCACHEPREFIX": str(PYCACHE / hashlib.sha1(str(tree).encode()).hexdigest())}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def write_scenarios(folder: Path) -> None:
    folder.mkdir()
    (folder / "short.yaml").write_text(scenario("short", SHORT_PROMPT, [(0, SHORT_ANSWER)]))
    (folder / "stream.yaml").write_text(scenario("stream", STREAM_PROMPT, [(0, STREAM_ANSWER)]))
    paced = [(0 if i == 0 else GAP_MS, f"chunk{i:02d} ") for i in range(GAPS + 1)]
    (folder / "paced.yaml").write_text(scenario("paced", "pace me", paced))


CLOCK_TICK_S = 1 / os.sysconf("SC_CLK_TCK")


def cpu_s(pid: int) -> float:
    """User + system CPU seconds a process has used so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) * CLOCK_TICK_S


def loaded(pid: int, port: int, payload: str, seconds: float, connections: int
           ) -> tuple[float, float]:
    """(requests per second, server CPU µs per request) under one autocannon load."""
    before = cpu_s(pid)
    rate = autocannon(port, payload, seconds, connections)
    return rate, (cpu_s(pid) - before) / (rate * seconds) * 1e6


def llm_round(tree: Path, scenarios: Path, seconds: float, connections: int
              ) -> dict[str, float]:
    out: dict[str, float] = {}
    env = {"PYTHONPATH": str(tree / "src")}
    for label, flags in (("", ()), (" --no-memo", ("--no-memo",))):
        with run_server(scenarios, *flags, env=env) as server:
            port = server.port
            rate, cpu = loaded(server.pid, port, body(SHORT_PROMPT, False), seconds,
                               connections)
            out[f"short c={connections}{label} req/s"] = rate
            out[f"short c={connections}{label} server CPU us/req"] = cpu
            if not flags:
                rate, cpu = loaded(server.pid, port, body(STREAM_PROMPT, True), seconds, 1)
                out["1,000-chunk stream c=1 req/s"] = rate
                out["1,000-chunk stream server CPU us/req"] = cpu
                asyncio.run(many(port, "pace me", 5))  # warm up
                offsets = [i * GAP_MS for i in range(GAPS + 1)]
                streams = kernel_streams(port, "pace me", 100)
                out["paced p99 lateness ms (kernel stamp)"] = p99(lateness(streams, offsets))
    return out


def llm_startup(tree: Path, scenarios: Path) -> tuple[float, float]:
    """(wall ms, CPU ms) until ``scenarist llm`` answers ``GET /health``."""
    port = free_port()
    start = time.monotonic()
    proc = subprocess.Popen(
        [PY, "-m", "scenarist", "llm", "--scenario", str(scenarios), "--port", str(port)],
        env=env_for(tree), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        start_new_session=True)
    try:
        answered(port)
        return (time.monotonic() - start) * 1000, cpu_s(proc.pid) * 1000
    finally:
        stop_group(proc)


def codex_first_line(tree: Path) -> tuple[float, float]:
    """(wall ms to the first line, CPU ms of the whole run) of ``fake-codex``."""
    start = time.perf_counter()
    proc = subprocess.Popen([FAKE_CODEX, "--seed", "1", "help exec; message hi"],
                            env=env_for(tree), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE)
    assert proc.stdout is not None
    proc.stdout.readline()
    elapsed = (time.perf_counter() - start) * 1000
    proc.stdout.read()
    proc.stdout.close()
    _pid, _status, usage = os.wait4(proc.pid, 0)
    proc.returncode = 0
    return elapsed, (usage.ru_utime + usage.ru_stime) * 1000


def fake_stream(tree: Path) -> dict[str, float]:
    out = subprocess.run([PY, "-c", FAKE_STREAM], env=env_for(tree), capture_output=True,
                         text=True, check=True).stdout.split()
    return {"FakeModel.stream events/s": float(out[0]),
            "FakeModel.astream events/s": float(out[1])}


def measure(tree: Path, scenarios: Path, seconds: float, connections: int,
            startups: int) -> dict[str, float]:
    figures = llm_round(tree, scenarios, seconds, connections)
    figures.update(fake_stream(tree))
    for name, run in (("scenarist llm start-up", lambda: llm_startup(tree, scenarios)),
                      ("fake-codex first line", lambda: codex_first_line(tree))):
        samples = [run() for _ in range(startups)]
        figures[f"{name} ms (median)"] = statistics.median(w for w, _ in samples)
        figures[f"{name} CPU ms (median)"] = statistics.median(c for _, c in samples)
    return figures


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("baseline", type=Path, help="the other source tree (has src/scenarist)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seconds", type=float, default=3, help="per autocannon load")
    ap.add_argument("--connections", type=int, default=32)
    ap.add_argument("--startups", type=int, default=9, help="start-ups per tree and round")
    args = ap.parse_args()
    if not (BIN / "autocannon").exists():
        subprocess.run(["npm", "ci", "--no-audit", "--no-fund", "--loglevel=error"],
                       cwd=NODE_DIR, check=True)
    trees = {"baseline": args.baseline.resolve(), "this": HERE}
    rounds: dict[str, list[dict[str, float]]] = {name: [] for name in trees}
    with tempfile.TemporaryDirectory() as tmp:
        scenarios = Path(tmp) / "s"
        write_scenarios(scenarios)
        for tree in trees.values():  # write each tree's bytecode cache before measuring
            llm_startup(tree, scenarios)
            codex_first_line(tree)
        for r in range(args.rounds):
            order = list(trees.items()) if r % 2 == 0 else list(reversed(trees.items()))
            for name, tree in order:
                rounds[name].append(measure(tree, scenarios, args.seconds, args.connections,
                                            args.startups))
            print(f"round {r + 1}/{args.rounds} done", flush=True)
    shutil.rmtree(PYCACHE, ignore_errors=True)
    print(f"baseline: {trees['baseline']}\nthis:     {trees['this']}")
    print(f"{'figure (median of rounds)':<42} {'baseline':>12} {'this':>12} {'this/base':>10}")
    for key in rounds["this"][0]:
        base = statistics.median(r[key] for r in rounds["baseline"])
        this = statistics.median(r[key] for r in rounds["this"])
        print(f"{key:<42} {base:>12,.1f} {this:>12,.1f} {this / base:>9.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
