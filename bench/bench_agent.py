"""Mock agent (`scenarist agent`): pacing fidelity, cost of a real tool, start-up.

Prints figures and ratios against baselines measured in the same run; never fails on a time.

1. Pacing: 300 assistant steps 10 ms apart (3 s at speed 1) played by ``scenarist.agent.play``
   rendering rich text into memory: p50/p99/max |actual - scheduled|, next to bare
   ``scenarist.play.iter_sync`` over the same beats with nothing printed (the floor).
2. Tools: 100 ``runCmd: true`` played at speed 0.01 (checks, process group, scrubbed env,
   rendering): ms per tool, next to ``subprocess.run(["bash", "-c", "true"])`` (the floor).
3. Start-up: ``scenarist agent`` on a one-step scenario to exit, next to ``python -c pass``.

    .venv/bin/python bench/bench_agent.py
"""

from __future__ import annotations

import io
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from rich.console import Console

from scenarist.agent import Workspace, play
from scenarist.agent.render import TextRenderer
from scenarist.play import RealClock, iter_sync
from scenarist.scenario import compile_timeline, load_scenario_text

STEPS = 300
TOOLS = 100


class _Stamped(TextRenderer):
    """Text rendering that notes when each answer was printed."""

    def __init__(self, clock: RealClock) -> None:
        super().__init__(Console(file=io.StringIO(), width=100))
        self.clock = clock
        self.stamps: list[float] = []

    def assistant(self, text: str) -> None:
        super().assistant(text)
        self.stamps.append(self.clock.now_ms())


def _lateness(stamps: list[float], due: list[int]) -> list[float]:
    t0 = stamps[0] - due[0]
    return [abs(s - (t0 + d)) for s, d in zip(stamps, due, strict=True)]


def _p99(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]


def _summary(values: list[float]) -> str:
    return (f"p50={statistics.median(values):.3f} ms p99={_p99(values):.3f} ms "
            f"max={max(values):.3f} ms")


def pacing(work: Path) -> None:
    steps = "\n".join(f"          - [{0 if i == 0 else 10}, 'step {i}']" for i in range(STEPS))
    scenario = load_scenario_text(f"name: pacing\ntimeline:\n  - llmResponse:\n"
                                  f"      - assistant:\n{steps}\n")
    due = [b.at_ms for b in compile_timeline(scenario).beats]
    clock = RealClock()
    renderer = _Stamped(clock)
    play(scenario, Workspace(work), renderer, clock=clock)
    agent = _lateness(renderer.stamps, due)
    floor_stamps = [clock.now_ms() for _ in iter_sync(compile_timeline(scenario), clock=clock)]
    floor = _lateness(floor_stamps, due)
    print(f"pacing, {STEPS} steps over {due[-1]} ms")
    print(f"  scenarist agent (rich text)  {_summary(agent)}")
    print(f"  iter_sync, nothing printed   {_summary(floor)}")
    print(f"  ratio=p99 agent/floor {_p99(agent) / max(_p99(floor), 1e-3):.1f}")


def tools(work: Path) -> None:
    items = "\n".join("  - runCmd: {cmd: 'true', status: ok}" for _ in range(TOOLS))
    scenario = load_scenario_text(f"name: tools\ntimeline:\n{items}\n")
    renderer = TextRenderer(Console(file=io.StringIO(), width=100))
    start = time.perf_counter()
    report = play(scenario, Workspace(work), renderer, speed=0.01)
    agent_ms = (time.perf_counter() - start) * 1000 / TOOLS
    assert not report.mismatches and report.tools == TOOLS
    start = time.perf_counter()
    for _ in range(TOOLS):
        subprocess.run(["bash", "-c", "true"], check=True)
    floor_ms = (time.perf_counter() - start) * 1000 / TOOLS
    print(f"tools, {TOOLS} x runCmd true at speed 0.01")
    print(f"  scenarist agent   {agent_ms:.2f} ms per tool")
    print(f"  subprocess.run    {floor_ms:.2f} ms per command")
    print(f"  ratio=agent/floor {agent_ms / floor_ms:.2f}")


def _wall(argv: list[str], runs: int = 5) -> float:
    best = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
        best = min(best, time.perf_counter() - start)
    return best * 1000


def startup(work: Path) -> None:
    scenario = work / "one.yaml"
    scenario.write_text("name: one\ntimeline:\n  - llmResponse:\n      - assistant: [[0, hi]]\n")
    agent = _wall([sys.executable, "-m", "scenarist", "agent", "--scenario", str(scenario),
                   "--workspace", str(work)])
    floor = _wall([sys.executable, "-c", "pass"])
    print("start-up, best of 5")
    print(f"  scenarist agent  {agent:.0f} ms")
    print(f"  python -c pass   {floor:.0f} ms")
    print(f"  ratio=agent/floor {agent / floor:.1f}")


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="bench-agent-") as tmp:
        work = Path(tmp)
        pacing(work)
        tools(work)
        startup(work)


if __name__ == "__main__":
    main()
