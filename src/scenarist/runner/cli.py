"""``scenarist run``: play scenarios against programs in a terminal and report.

    scenarist run SCENARIO... [--scenario PATH] [--tag TAG] [--runner NAME] [--update-golden]
                  [--junit FILE] [--html FILE] [--format text|jsonl] [--define K=V]
                  [--speed F] [-j N] [--agent mock|codex|claude|gemini] [--target DIR] [--timeout S]

Exit status (docs/cli.md): 0 when every scenario passed, 1 when one failed, 2 for a usage
or input error. Each scenario's result is printed as it ends (a CI log streams); on a
terminal a progress line stands below them. ``-j N`` runs scenarios in N worker processes (a
standard process pool, nothing more); for a larger suite spread over cores or machines, use
the pytest entry point with pytest-xdist.
"""

from __future__ import annotations

import argparse
import multiprocessing
import sys
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path
from typing import TYPE_CHECKING

from scenarist.play import clamp_speed
from scenarist.runner.agents import AGENTS
from scenarist.runner.play import RunOptions, run_scenario
from scenarist.runner.result import RunResult
from scenarist.scenario.cli_parser import (
    EXIT_FAILED,
    EXIT_OK,
    Parser,
    add_defines,
    add_format,
    add_junit,
    add_speed,
    add_tags,
    checked_speed,
    define_symbols,
    output_dir,
    output_file,
    run,
    scenario_paths,
    select_tags,
    timeout_problem,
    write_output,
)

if TYPE_CHECKING:
    from rich.console import Console

__all__ = ["build_parser", "main", "run_all"]


def build_parser() -> Parser:
    parser = Parser(prog="scenarist run",
                    description="Play scenarios against a CLI/TUI in a pseudo-terminal: keys, "
                                "edits, commands, asserts and screenshots on the scenario's "
                                "clock; JUnit and HTML reports.")
    parser.add_argument("scenarios", nargs="*", metavar="SCENARIO",
                        help="scenario files or folders (searched for .yaml/.yml)")
    parser.add_argument("--scenario", dest="more", action="append", default=[],
                        metavar="PATH", help="a scenario file or folder, as SCENARIO "
                        "(repeatable)")
    add_tags(parser)
    parser.add_argument("--runner", default="scenarist", metavar="NAME",
                        help="runner name in the screenshot/log paths (default: scenarist)")
    parser.add_argument("--target", default="target", metavar="DIR",
                        help="root of target/tmp/<runner>/... (default: ./target)")
    parser.add_argument("--update-golden", action="store_true",
                        help="write every screenshot over its golden instead of comparing")
    add_junit(parser)
    parser.add_argument("--html", metavar="FILE", help="write a self-contained HTML report")
    add_format(parser, ("text", "jsonl"),
               "stdout: text lines, or one JSON object per scenario as it ends")
    add_defines(parser)
    add_speed(parser, what="time factor of the scenario's clock")
    parser.add_argument("-j", "--jobs", type=int, default=1, metavar="N",
                        help="run N scenarios at once in worker processes (default 1)")
    parser.add_argument("--agent", choices=AGENTS, default="mock",
                        help="mock: the mock agent (mode 1); codex/claude/gemini: that real CLI "
                             "against a scenarist llm the runner starts (mode 2)")
    parser.add_argument("--agent-bin", metavar="PATH",
                        help="the real agent's executable (default: found on PATH)")
    parser.add_argument("--settle-ms", type=float, default=100.0, metavar="MS",
                        help="the screen has settled after this long without output (100)")
    parser.add_argument("--timeout", "--wait-timeout", dest="wait_timeout", type=float,
                        default=10.0, metavar="S",
                        help="how long each wait for the program's screen may take before "
                             "the step fails (default 10 s)")
    parser.add_argument("--typing-ms", type=float, default=None, metavar="MS",
                        help="type one character every MS ms (default: all at once with the "
                             "mock agent, 20 ms for real agents, whose TUIs take a fast burst "
                             "for a paste)")
    parser.add_argument("--exit-timeout", type=float, default=10.0, metavar="S",
                        help="how long the program may take to exit when expect.exitCode is "
                             "set (default 10 s)")
    return parser


def run_all(paths: Sequence[Path], options: RunOptions, jobs: int = 1,
            progress: bool = False,
            on_result: Callable[[RunResult], None] | None = None,
            console: Console | None = None) -> list[RunResult]:
    """Run every scenario (in ``jobs`` processes), results in the order of ``paths``.

    ``on_result`` sees each result as its run ends (finishing order), for streamed output;
    with ``progress`` a transient rich progress line stands below what ``console`` prints."""
    from rich.progress import Progress

    results: dict[int, RunResult] = {}
    report = on_result or (lambda _result: None)
    with Progress(console=console, transient=True, disable=not progress) as bar:
        task = bar.add_task("scenarios", total=len(paths))
        if jobs <= 1 or len(paths) <= 1:
            for n, path in enumerate(paths):
                bar.update(task, description=path.name)
                results[n] = run_scenario(path, options)
                report(results[n])
                bar.advance(task)
        else:
            context = multiprocessing.get_context("spawn")
            with ProcessPoolExecutor(max_workers=jobs, mp_context=context) as pool:
                futures = {pool.submit(run_scenario, path, options): n
                           for n, path in enumerate(paths)}
                for future in as_completed(futures):
                    results[futures[future]] = future.result()
                    report(results[futures[future]])
                    bar.advance(task)
    return [results[n] for n in range(len(paths))]


def _check(parser: Parser, args: argparse.Namespace) -> None:
    if not args.scenarios and not args.more:
        parser.error("name at least one scenario file or folder")
    if args.jobs < 1:
        parser.error(f"-j must be at least 1, got {args.jobs}")
    if args.typing_ms is not None and args.typing_ms < 0:
        parser.error("--typing-ms must be >= 0")
    if not args.settle_ms > 0:
        parser.error("--settle-ms must be > 0")
    for flag, value in (("--timeout", args.wait_timeout), ("--exit-timeout", args.exit_timeout)):
        problem = timeout_problem(flag, value)
        if problem is not None:
            parser.error(problem)
    checked_speed(parser, args)


def _playable(parser: Parser, paths: list[Path], tags: Sequence[str],
              defines: dict[str, bool | int | str]) -> list[Path]:
    """The files to play: each must load (else its issues, then exit 2, before anything
    runs: a broken input is not a failed test), and carry one of ``tags`` when given."""
    from scenarist.scenario import ScenarioError, load_scenario

    loaded, broken = [], 0
    for path in paths:
        try:
            loaded.append(load_scenario(path, defines=defines))
        except ScenarioError as exc:
            broken += 1
            for issue in exc.issues:
                print(issue, file=sys.stderr)
    if broken:
        parser.error(f"{broken} of {len(paths)} scenario(s) do not load (issues above); fix "
                     "them ('scenarist validate' shows the same) or leave them out")
    try:
        kept = {id(s) for s in select_tags(loaded, tags)}
    except ValueError as exc:
        parser.error(str(exc))
    return [path for path, scenario in zip(paths, loaded, strict=True) if id(scenario) in kept]


def _body(parser: Parser, args: argparse.Namespace) -> int:
    from rich.console import Console

    from scenarist.runner.report import (
        html_report,
        jsonl_line,
        junit_xml,
        print_result,
        print_totals,
    )

    _check(parser, args)
    defines = define_symbols(parser, args)
    paths = scenario_paths(parser, [*args.scenarios, *args.more])
    paths = _playable(parser, paths, args.tags, defines)
    outputs = [(flag, output_file(parser, flag, value), text)
               for flag, value, text in (("--junit", args.junit, junit_xml),
                                         ("--html", args.html, html_report))]
    target = output_dir(parser, "--target", args.target)
    assert target is not None
    # absolute once, here: the program runs in the workspace and gets HOME, CODEX_HOME and
    # CLAUDE_CONFIG_DIR below the target, which a relative path would not find
    options = RunOptions(runner=args.runner, target=target.resolve(),
                         update_golden=args.update_golden, defines=defines,
                         speed=clamp_speed(args.speed), agent=args.agent,
                         agent_bin=args.agent_bin, settle_ms=args.settle_ms,
                         wait_timeout_s=args.wait_timeout, exit_timeout_s=args.exit_timeout,
                         typing_ms=args.typing_ms)
    console = Console(stderr=False, highlight=False, soft_wrap=True)

    def show(result: RunResult) -> None:
        if args.format == "jsonl":
            print(jsonl_line(result), flush=True)
        else:
            print_result(result, console)

    results = run_all(paths, options, args.jobs, on_result=show, console=console,
                      progress=args.format == "text" and sys.stdout.isatty())
    if args.format == "text":
        print_totals(results, console)
    for flag, path, text in outputs:
        if path is not None:
            write_output(parser, flag, path, text(results))
    return EXIT_OK if all(r.outcome != "failed" for r in results) else EXIT_FAILED


def main(argv: Sequence[str]) -> int:
    parser = build_parser()
    return run(parser, argv, lambda args: _body(parser, args))
