"""Start-up budgets: the commands a person or a test waits on, this tree next to a base tree.

The budgets (issue 22), each measured in the same run as its yardstick:

- ``fake-codex`` first event line <= 3x a bare ``python -c pass`` (command mode, random mode and
  ``exec --json``);
- ``scenarist validate`` of one file <= 5x ``python -c pass``;
- ``scenarist acp`` answering ``initialize`` <= an agent on the ACP TypeScript SDK
  (``tests/node/acp_sdk_agent.mjs``, needs ``npm ci`` in tests/node) doing the same.

``scenarist llm`` until it prints ``listening on`` is timed too, for the record: a server
started once per test session has no budget.

Every command is started for each tree (``--base DIR``: a checkout of the commit to compare
with, e.g. ``git worktree add --detach /tmp/base 96c18b7``; and this tree, through
``PYTHONPATH``), alternating the order run by run so that load on a shared machine hits both
alike; figures are medians of ``--runs``. Bytecode is cached per tree (``PYTHONPYCACHEPREFIX``,
warmed by a first run that is not counted), as after ``pip install``. Each figure is printed
as wall time and as the child's CPU time (user + system, ``RUSAGE_CHILDREN``), which varies
far less than wall time on a loaded machine. Not a test: it prints, it never fails.

    .venv/bin/python bench/bench_startup.py --base /tmp/base [--runs 15]
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]
EXAMPLE = HERE / "examples" / "tool-tour.yaml"
NODE_AGENT = HERE / "tests" / "node" / "acp_sdk_agent.mjs"
# what the installed console scripts run (pyproject [project.scripts]); ``python -m scenarist``
# would add runpy's own imports (~5 ms), which no one who types ``scenarist`` pays
FAKE_CODEX = "import sys; from scenarist.codex.cli import main; sys.exit(main())"
SCENARIST = "import sys; from scenarist.cli import run; sys.exit(run())"
INITIALIZE = (b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,'
              b'"clientCapabilities":{"fs":{"readTextFile":true,"writeTextFile":true}}}}\n')
PASS = "python -c pass"
TS_AGENT = "TypeScript SDK agent: initialize"


@dataclass(frozen=True, slots=True)
class Command:
    """One start-up to time: the argv, what to send on stdin, and when it counts as started."""

    argv: list[str]
    ready: str | None = None  # a stdout line containing this; None: the process exits
    stdin: bytes = b""
    per_tree: bool = True  # False: the same program for both trees (the TypeScript agent)


@dataclass(frozen=True, slots=True)
class Budget:
    """``command`` must take at most ``factor`` x ``yardstick`` (both from the same tree)."""

    command: str
    yardstick: str
    factor: float


def commands() -> dict[str, Command]:
    python = sys.executable
    scenarist = [python, "-c", SCENARIST]
    found = {
        PASS: Command([python, "-c", "pass"]),
        "fake-codex: first line (command)": Command(
            [python, "-c", FAKE_CODEX, "--seed", "1", "help exec; message hi"], ""),
        "fake-codex: first line (random)": Command(
            [python, "-c", FAKE_CODEX, "--seed", "1", "Fix the failing test"], ""),
        "fake-codex: first line (exec --json)": Command(
            [python, "-c", FAKE_CODEX, "exec", "--json", "--seed", "1", "hi"], ""),
        "scenarist validate one.yaml": Command([*scenarist, "validate", "-q", str(EXAMPLE)]),
        "scenarist acp: initialize": Command(
            [*scenarist, "acp", "--scenario", str(EXAMPLE)], "", INITIALIZE),
        "scenarist llm: listening": Command(
            [*scenarist, "llm", "--scenario", str(EXAMPLE), "--port", "0"], "listening on"),
    }
    node = shutil.which("node")
    if node is not None and (HERE / "tests" / "node" / "node_modules" / "@agentclientprotocol"
                             ).exists():
        found[TS_AGENT] = Command([node, str(NODE_AGENT)], "", INITIALIZE, per_tree=False)
    return found


BUDGETS = [
    *(Budget(name, PASS, 3.0) for name in (
        "fake-codex: first line (command)", "fake-codex: first line (random)",
        "fake-codex: first line (exec --json)")),
    Budget("scenarist validate one.yaml", PASS, 5.0),
    Budget("scenarist acp: initialize", TS_AGENT, 1.0),
]


def cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def start_up(command: Command, env: dict[str, str]) -> tuple[float, float]:
    """Start ``command``: the wall seconds until it is ready, and the CPU seconds it used
    until it was stopped."""
    cpu = cpu_seconds()
    start = time.perf_counter()
    proc = subprocess.Popen(command.argv, env=env, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    assert proc.stdin is not None and proc.stdout is not None
    try:
        if command.stdin:
            proc.stdin.write(command.stdin)
            proc.stdin.flush()
        if command.ready is None:
            proc.stdin.close()
            proc.stdout.read()
            proc.wait()
        else:
            wanted = command.ready.encode()
            for line in proc.stdout:
                if wanted in line:
                    break
            else:
                raise RuntimeError(f"{command.argv} exited without printing {command.ready!r}")
        wall = time.perf_counter() - start
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(10)
        proc.stdout.close()
        if not proc.stdin.closed:
            proc.stdin.close()
    return wall, cpu_seconds() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", type=Path, help="checkout of the commit to compare with")
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    trees = {"this": HERE / "src"}
    if args.base is not None:
        trees = {"base": args.base.resolve() / "src", **trees}
    table = commands()
    with tempfile.TemporaryDirectory() as cache:
        envs = {}
        for label, src in trees.items():
            env = {**os.environ, "PYTHONPATH": str(src),
                   "PYTHONPYCACHEPREFIX": str(Path(cache) / label)}
            env.pop("PYTHONDONTWRITEBYTECODE", None)
            envs[label] = env
        times: dict[tuple[str, str], list[tuple[float, float]]] = {}
        for run in range(args.runs + 1):  # the first run warms the bytecode caches
            for name, command in table.items():
                labels = list(envs) if command.per_tree else ["this"]
                for label in labels if run % 2 else reversed(labels):
                    figure = start_up(command, envs[label])
                    if run:
                        times.setdefault((name, label), []).append(figure)

    def median(name: str, label: str, i: int) -> float:
        label = label if table[name].per_tree else "this"
        return statistics.median(t[i] for t in times[name, label]) * 1000

    print(f"start-up, median of {args.runs} alternating runs (python {sys.version.split()[0]}, "
          f"{os.cpu_count()} CPUs); base = {args.base}")
    header = f"{'command':38}" + "".join(f" {label + ' wall':>10} {'cpu ms':>7}" for label in trees)
    print(header + ("   this/base wall  cpu" if len(trees) > 1 else ""))
    for name, command in table.items():
        row = f"{name:38}"
        for label in trees:
            row += f" {median(name, label, 0):10.1f} {median(name, label, 1):7.1f}"
        if len(trees) > 1 and command.per_tree:
            row += (f"   {median(name, 'this', 0) / median(name, 'base', 0):9.2f}x"
                    f" {median(name, 'this', 1) / median(name, 'base', 1):5.2f}x")
        print(row)
    print("budgets (ratio of wall times; cpu in brackets):")
    for budget in BUDGETS:
        if budget.yardstick not in table:
            print(f"  {budget.command}: skipped (needs node and `npm ci` in tests/node)")
            continue
        cells = []
        for label in trees:
            wall = median(budget.command, label, 0) / median(budget.yardstick, label, 0)
            cpu = median(budget.command, label, 1) / median(budget.yardstick, label, 1)
            verdict = "meets" if wall <= budget.factor else "MISSES"
            cells.append(f"{label} {wall:5.2f}x ({cpu:4.2f}x) {verdict}")
        print(f"  {budget.command:36} <= {budget.factor:g}x {budget.yardstick:28} "
              + "   ".join(cells))


if __name__ == "__main__":
    main()
