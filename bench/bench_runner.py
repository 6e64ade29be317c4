"""Test executor (``scenarist run``) overhead and keystroke timing fidelity.

1. Overhead: a 200-event scenario (190 keystroke inputs + 10 screenshots) against a trivial
   program (``cat`` in the pty) at speed 0.01, so the schedule never waits: wall time per
   event of the runner's playback, the cost of one screenshot (the settle wait included, and
   the capture + golden text alone), next to a bare pexpect loop typing the same keystrokes
   into the same program in the same run.
2. Fidelity: 200 keystroke inputs 20 ms apart at speed 1: |actual − scheduled| of each
   keystroke (the clock reading when it was handed out, just before the write), p50/p99/max
   (target p99 <= 5 ms), next to a naive ``time.sleep(gap)`` chain with pexpect.

    .venv/bin/python bench/bench_runner.py [--events 200] [--rounds 3]
"""

from __future__ import annotations

import argparse
import itertools
import statistics
import tempfile
import time
from pathlib import Path

import pexpect

from scenarist.runner import RunOptions, run_scenario
from scenarist.runner.golden import golden_text
from scenarist.runner.screen import capture_screen
from scenarist.runner.terminal import Terminal


def scenario(path: Path, events: int, gap_ms: int, shots_every: int) -> Path:
    lines = [f"name: {path.stem}", "ah: {cmd: cat}", "timeline:"]
    for n in range(events):
        if shots_every and n % shots_every == shots_every - 1:
            lines.append(f"  - screenshot: shot_{n}")
            lines.append(f"  - baseTimeDelta: {gap_ms}")
        else:
            lines.append(f"  - userInputs: [{{relativeTime: {n * gap_ms}, "
                         f"input: 'line {n}<Enter>'}}]")
            lines.append(f"  - baseTimeDelta: {gap_ms}")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def pexpect_loop(keystrokes: list[bytes], gaps_s: float = 0.0) -> tuple[float, list[float]]:
    """The baseline: pexpect spawns cat, types each keystroke (sleeping ``gaps_s`` between,
    a naive sleep chain) and waits for the last echo; wall seconds and per-key lateness."""
    child = pexpect.spawn("cat", dimensions=(30, 100))
    child.delaybeforesend = None  # pexpect sleeps 50 ms before every send by default
    lateness = []
    try:
        start = time.perf_counter()
        for n, keys in enumerate(keystrokes):
            if gaps_s:
                time.sleep(gaps_s)
                lateness.append(abs(time.perf_counter() - start - (n + 1) * gaps_s) * 1000)
            child.send(keys)
        child.expect_exact(keystrokes[-1].decode().strip(), timeout=30)
        wall = time.perf_counter() - start
    finally:
        child.close(force=True)
    return wall, lateness


def overhead(folder: Path, events: int, rounds: int) -> None:
    path = scenario(folder / "overhead.yaml", events, 10, 20)
    per_event, shots, totals, ready = [], [], [], []
    for r in range(rounds):
        started = time.perf_counter()
        result = run_scenario(path, RunOptions(target=folder / f"t{r}", speed=0.01))
        totals.append(time.perf_counter() - started)
        assert result.outcome == "passed", result.failures
        steps = result.steps
        span = steps[-1].fired_ms - steps[0].fired_ms
        per_event.append(span / (len(steps) - 1))
        shots += [later.fired_ms - step.fired_ms for step, later in itertools.pairwise(steps)
                  if step.kind == "screenshot"]
        ready.append(totals[-1] * 1000 - span)
    keys = [f"line {n}\r".encode() for n in range(events) if n % 20 != 19]
    bare = [pexpect_loop(keys)[0] for _ in range(rounds)]
    bare_per_key = statistics.median(bare) * 1000 / len(keys)
    term = Terminal(["cat"], cwd=folder, env={"PATH": "/usr/bin:/bin", "TERM": "xterm"},
                    width=100, height=30)
    try:
        term.send(b"".join(keys))
        term.settle(100, term.clock.now_ms() + 10_000)
        n = 200
        t = time.perf_counter()
        for _ in range(n):
            golden_text(capture_screen(term.screen))
        capture_ms = (time.perf_counter() - t) * 1000 / n
    finally:
        term.close()
    print(f"overhead: {events} events ({len(keys)} keystroke inputs, {events - len(keys)} "
          f"screenshots) vs `cat`, speed 0.01, {rounds} rounds (medians)")
    print(f"  runner playback per event   {statistics.median(per_event):8.3f} ms "
          "(screenshot settles included)")
    print(f"  runner start+end per run    {statistics.median(ready):8.1f} ms "
          "(workspace, spawn, ready gate, end settle, kill, logs)")
    print(f"  runner wall per run         {statistics.median(totals) * 1000:8.1f} ms")
    print(f"  screenshot step             {statistics.median(shots):8.3f} ms "
          "(settle: 100 ms quiet + idle, then capture, golden, compare)")
    print(f"  capture + golden text only  {capture_ms:8.3f} ms per screenshot (100x30)")
    print(f"  bare pexpect per keystroke  {bare_per_key:8.3f} ms (send each, expect the last)")
    runner_keys = statistics.median(
        later.fired_ms - step.fired_ms for step, later in itertools.pairwise(result.steps)
        if step.kind == later.kind == "userInputs")
    print(f"  runner per keystroke input  {runner_keys:8.3f} ms (median, one input to the next)")
    print(f"ratio=runner_keystroke/pexpect_keystroke {runner_keys / bare_per_key:.2f}")


def fidelity(folder: Path, events: int) -> None:
    path = scenario(folder / "fidelity.yaml", events, 20, 0)
    result = run_scenario(path, RunOptions(target=folder / "f", speed=1.0))
    assert result.outcome == "passed", result.failures
    late = [abs(s.fired_ms - s.scheduled_ms) for s in result.steps]
    _, naive = pexpect_loop([f"line {n}\r".encode() for n in range(events)], gaps_s=0.02)
    print(f"fidelity: {events} keystroke inputs 20 ms apart at speed 1, |actual - scheduled|")
    for name, values in (("runner (scenarist.play)", late), ("naive sleep chain", naive)):
        print(f"  {name:24s} p50 {percentile(values, 0.5):7.3f} ms  p99 "
              f"{percentile(values, 0.99):7.3f} ms  max {max(values):7.3f} ms")
    print(f"p99_ms={percentile(late, 0.99):.3f} (target <= 5 ms)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        overhead(Path(tmp), args.events, args.rounds)
        fidelity(Path(tmp), args.events)


if __name__ == "__main__":
    main()
