"""Start-up of the commands people wait on, this tree next to another commit, in one run.

Times, for two source trees (``--base DIR``: a checkout of the commit to compare with, e.g.
``git worktree add /tmp/base <commit>``; and this tree), alternating A/B run by run so that
load on a shared machine hits both alike (median of ``--runs``):

- ``scenarist validate one.yaml``: until it exits;
- ``scenarist llm --scenario one.yaml --port 0``: until it prints ``listening on``;
- ``fake-codex --seed 1 "help"``: until its first event line;
- ``python -c pass``: the floor.

Bytecode is cached per tree (``PYTHONPYCACHEPREFIX``, warmed first), as after ``pip install``.
Each run also reports the child's CPU time (user + system, from ``RUSAGE_CHILDREN``): on a
shared, loaded machine it varies far less than wall time, which waits for a free core.

    .venv/bin/python bench/bench_startup_ab.py --base /tmp/base [--runs 15]
"""

from __future__ import annotations

import argparse
import os
import resource
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]
EXAMPLE = HERE / "examples" / "tool-tour.yaml"
FAKE_CODEX = "import sys; from scenarist.codex.cli import main; sys.exit(main())"

COMMANDS: dict[str, tuple[list[str], str | None]] = {
    "python -c pass": (["-c", "pass"], None),
    "scenarist validate one.yaml": (["-m", "scenarist", "validate", "-q", str(EXAMPLE)], None),
    "scenarist llm (until listening)": (
        ["-m", "scenarist", "llm", "--scenario", str(EXAMPLE), "--port", "0"], "listening on"),
    "fake-codex (first line)": (["-c", FAKE_CODEX, "--seed", "1", "help"], ""),
}


def cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def seconds(args: list[str], wait_for: str | None, env: dict[str, str]) -> tuple[float, float]:
    """Spawn python ``args``; the wall seconds until a stdout line containing ``wait_for`` (or,
    with ``None``, until it exits), and the CPU seconds the child used until it was stopped."""
    cpu = cpu_seconds()
    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, *args], env=env, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                            start_new_session=True)
    assert proc.stdout is not None
    try:
        if wait_for is None:
            proc.stdout.read()
            proc.wait()
        else:
            for line in proc.stdout:
                if wait_for in line:
                    break
            else:
                raise RuntimeError(f"{args} exited without printing {wait_for!r}")
        wall = time.perf_counter() - start
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(10)
        proc.stdout.close()
    return wall, cpu_seconds() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", type=Path, required=True, help="checkout of the other commit")
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    trees = {"base": args.base.resolve() / "src", "this": HERE / "src"}
    with tempfile.TemporaryDirectory() as cache:
        envs = {}
        for label, src in trees.items():
            env = {**os.environ, "PYTHONPATH": str(src),
                   "PYTHONPYCACHEPREFIX": str(Path(cache) / label)}
            env.pop("PYTHONDONTWRITEBYTECODE", None)
            envs[label] = env
        times: dict[tuple[str, str], list[tuple[float, float]]] = {}
        for run in range(args.runs + 1):  # the first run warms the bytecode caches
            for name, (argv, wait_for) in COMMANDS.items():
                order = list(envs) if run % 2 else list(reversed(envs))
                for label in order:
                    t = seconds(argv, wait_for, envs[label])
                    if run:
                        times.setdefault((name, label), []).append(t)
    print(f"median of {args.runs} alternating runs; base = {args.base}")
    print(f"{'command':34} {'wall: base':>10} {'this ms':>8} {'ratio':>6}   "
          f"{'cpu: base':>9} {'this ms':>8} {'ratio':>6}")
    for name in COMMANDS:
        row = f"{name:34}"
        for i in (0, 1):
            base = statistics.median(t[i] for t in times[name, "base"]) * 1000
            this = statistics.median(t[i] for t in times[name, "this"]) * 1000
            row += f" {base:10.1f} {this:8.1f} {this / base:6.3f}  "
        print(row)


if __name__ == "__main__":
    main()
