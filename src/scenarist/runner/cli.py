"""``scenarist run``: play scenarios against programs in a terminal and report.

    scenarist run SCENARIO... [--runner NAME] [--update-golden] [--junit FILE] [--html FILE]
                  [--define K=V] [--speed F] [-j N] [--agent mock|codex|claude] [--target DIR]

Exit status: 0 when every scenario passed, 1 when one failed, 2 for a usage error.
``-j N`` runs scenarios in N worker processes (a standard process pool, nothing more); for a
larger suite spread over cores or machines, use the pytest entry point with pytest-xdist.
"""

from __future__ import annotations

import argparse
import multiprocessing
import sys
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

from scenarist.play import clamp_speed
from scenarist.runner.agents import AGENTS
from scenarist.runner.play import RunOptions, run_scenario
from scenarist.runner.result import RunResult
from scenarist.scenario.cli_parser import (
    Parser,
    add_defines,
    define_symbols,
    run,
    scenario_paths,
    speed_problem,
)

__all__ = ["build_parser", "main", "run_all"]


def build_parser() -> Parser:
    parser = Parser(prog="scenarist run",
                    description="Play scenarios against a CLI/TUI in a pseudo-terminal: keys, "
                                "edits, commands, asserts and screenshots on the scenario's "
                                "clock; JUnit and HTML reports.")
    parser.add_argument("scenarios", nargs="+", metavar="SCENARIO",
                        help="scenario files or folders (searched for .yaml/.yml)")
    parser.add_argument("--runner", default="scenarist", metavar="NAME",
                        help="runner name in the screenshot/log paths (default: scenarist)")
    parser.add_argument("--target", default="target", metavar="DIR",
                        help="root of target/tmp/<runner>/... (default: ./target)")
    parser.add_argument("--update-golden", action="store_true",
                        help="write every screenshot over its golden instead of comparing")
    parser.add_argument("--junit", metavar="FILE", help="write a JUnit XML report")
    parser.add_argument("--html", metavar="FILE", help="write a self-contained HTML report")
    add_defines(parser)
    parser.add_argument("--speed", type=float, default=1.0, metavar="F",
                        help="time factor: 0.1 plays ten times faster (default 1; min 0.01)")
    parser.add_argument("-j", "--jobs", type=int, default=1, metavar="N",
                        help="run N scenarios at once in worker processes (default 1)")
    parser.add_argument("--agent", choices=AGENTS, default="mock",
                        help="mock: the mock agent (mode 1); codex/claude: that real CLI "
                             "against a scenarist llm the runner starts (mode 2)")
    parser.add_argument("--agent-bin", metavar="PATH",
                        help="the real agent's executable (default: found on PATH)")
    parser.add_argument("--settle-ms", type=float, default=100.0, metavar="MS",
                        help="the screen has settled after this long without output (100)")
    parser.add_argument("--wait-timeout", type=float, default=10.0, metavar="S",
                        help="deadline of each wait for the screen (default 10 s)")
    parser.add_argument("--typing-ms", type=float, default=None, metavar="MS",
                        help="type one character every MS ms (default: all at once with the "
                             "mock agent, 20 ms for real agents, whose TUIs take a fast burst "
                             "for a paste)")
    parser.add_argument("--exit-timeout", type=float, default=10.0, metavar="S",
                        help="how long the program may take to exit when expect.exitCode is "
                             "set (default 10 s)")
    return parser


def run_all(paths: Sequence[Path], options: RunOptions, jobs: int = 1,
            progress: bool = False) -> list[RunResult]:
    """Run every scenario (in ``jobs`` processes), results in the order of ``paths``."""
    from rich.progress import Progress

    results: dict[int, RunResult] = {}
    with Progress(transient=True, disable=not progress) as bar:
        task = bar.add_task("scenarios", total=len(paths))
        if jobs <= 1 or len(paths) <= 1:
            for n, path in enumerate(paths):
                bar.update(task, description=path.name)
                results[n] = run_scenario(path, options)
                bar.advance(task)
        else:
            context = multiprocessing.get_context("spawn")
            with ProcessPoolExecutor(max_workers=jobs, mp_context=context) as pool:
                futures = {pool.submit(run_scenario, path, options): n
                           for n, path in enumerate(paths)}
                for future in as_completed(futures):
                    results[futures[future]] = future.result()
                    bar.advance(task)
    return [results[n] for n in range(len(paths))]


def _check(parser: Parser, args: argparse.Namespace) -> None:
    if args.jobs < 1:
        parser.error(f"-j must be at least 1, got {args.jobs}")
    if args.typing_ms is not None and args.typing_ms < 0:
        parser.error("--typing-ms must be >= 0")
    for name in ("settle_ms", "wait_timeout", "exit_timeout"):
        if not getattr(args, name) > 0:
            parser.error(f"--{name.replace('_', '-')} must be > 0")
    problem = speed_problem("--speed", args.speed)
    if problem is not None:
        parser.error(problem)


def _body(parser: Parser, args: argparse.Namespace) -> int:
    from rich.console import Console

    from scenarist.runner.report import html_report, junit_xml, print_summary

    _check(parser, args)
    paths = scenario_paths(parser, args.scenarios)
    options = RunOptions(runner=args.runner, target=Path(args.target),
                         update_golden=args.update_golden, defines=define_symbols(parser, args),
                         speed=clamp_speed(args.speed), agent=args.agent,
                         agent_bin=args.agent_bin, settle_ms=args.settle_ms,
                         wait_timeout_s=args.wait_timeout, exit_timeout_s=args.exit_timeout,
                         typing_ms=args.typing_ms)
    console = Console(stderr=False, highlight=False)
    results = run_all(paths, options, args.jobs, progress=sys.stdout.isatty())
    print_summary(results, console)
    for target, text in ((args.junit, junit_xml), (args.html, html_report)):
        if target:
            Path(target).parent.mkdir(parents=True, exist_ok=True)
            Path(target).write_text(text(results), encoding="utf-8")
    return 0 if all(r.outcome != "failed" for r in results) else 1


def main(argv: Sequence[str]) -> int:
    parser = build_parser()
    return run(parser, argv, lambda args: _body(parser, args))
