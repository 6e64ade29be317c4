"""Process trees (``scenarist.processes``): what tracking costs, and how fast leftovers go.

For each tracking mode (cgroup where this machine allows it, subreaper, session):

- ms per ``run_command(["true"])`` (tree made, child joined, waited, tree stopped) next to
  ``subprocess.run(["true"])`` in the same run: the price of the rule per command;
- seconds from the end of a program that left a double-forked ``setsid`` daemon until the
  daemon is gone: one that obeys SIGTERM, and one that ignores it (SIGKILL after the
  0.5 s grace). The rule is "gone within 1 s".

    .venv/bin/python bench/bench_processes.py [--runs N]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from scenarist.processes import ProcessTree, run_command

DAEMON = """\
import os, signal, sys, time
r, w = os.pipe()
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        if sys.argv[1] == "ignore":
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
        os.write(w, b"x")
        time.sleep(60)
    os._exit(0)
os.read(r, 1)
"""


def _ms_per_command(runs: int) -> tuple[float, float]:
    tracked, bare = [], []
    for _ in range(runs):  # interleaved, so load changes hit both
        t = time.perf_counter()
        run_command(["true"], cwd="/", env=os.environ, timeout_s=30)
        tracked.append(time.perf_counter() - t)
        t = time.perf_counter()
        subprocess.run(["true"], check=True)
        bare.append(time.perf_counter() - t)
    return statistics.median(tracked) * 1000, statistics.median(bare) * 1000


def _seconds_to_gone(script: Path, how: str, runs: int) -> float:
    times = []
    for _ in range(runs):
        tree = ProcessTree()
        proc = subprocess.Popen([sys.executable, str(script), how], env=tree.environ(),
                                preexec_fn=tree.enter, start_new_session=True)
        tree.adopt(proc.pid)
        proc.wait()  # the program has ended; its daemon runs on
        t = time.perf_counter()
        stopped = tree.stop()
        times.append(time.perf_counter() - t)
        assert len(stopped) == 1 and not tree.members()
    return max(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=50)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        script = Path(folder) / "daemon.py"
        script.write_text(DAEMON)
        for mode in ("cgroup", "subreaper", "session"):
            os.environ["SCENARIST_PROCESS_TRACKING"] = mode
            got = ProcessTree()
            got.close()
            if got.mode != mode:
                print(f"{mode}: not available here (got {got.mode})")
                continue
            tracked, bare = _ms_per_command(args.runs)
            obeys = _seconds_to_gone(script, "obey", max(args.runs // 10, 3))
            ignores = _seconds_to_gone(script, "ignore", max(args.runs // 10, 3))
            print(f"{mode}: run_command(true) {tracked:.2f} ms vs subprocess.run {bare:.2f} ms "
                  f"ratio={tracked / bare:.2f}; daemon gone after the program's end: "
                  f"max {obeys:.3f} s (obeys SIGTERM), max {ignores:.3f} s (ignores it)")


if __name__ == "__main__":
    main()
