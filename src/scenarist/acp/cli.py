"""``scenarist acp`` (the mock ACP agent on stdio) and ``scenarist acp-test`` (the ACP test client).

    scenarist acp --scenario PATH... [--tag TAG] [--scenario-name N] [--session-id ID]
                  [--cwd DIR] [--mcp-servers JSON] [--define K=V] [--speed F]
                  [--chaos RATE[:kind,kind]] [--seed N]
    scenarist acp-test --agent "CMD ARGS" --scenario PATH... [--tag TAG] [--cwd DIR]
                  [--transcript FILE] [--junit FILE] [--format text|jsonl] [--speed F]
                  [--timeout S]

stdout of ``scenarist acp`` carries only ACP; everything else goes to stderr. It exits 0
when the client closes its stdin. ``acp-test`` plays each scenario against a fresh agent
process and prints its result as it ends; it exits 0 when every check passed, 1 on a failed
check, 2 on a usage or input error (docs/cli.md).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from scenarist.scenario.cli_parser import (
    EXIT_FAILED,
    EXIT_OK,
    Parser,
    add_chaos,
    add_format,
    add_junit,
    add_scenario,
    add_scenario_options,
    add_tags,
    add_timeout,
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

__all__ = ["acp_main", "acp_test_main"]


def _scenarios(parser: Parser, args: Any) -> list[Any]:
    """The scenarios of ``--scenario`` that carry a ``--tag``; loading errors are usage errors."""
    import sys

    from scenarist.scenario import ScenarioError, load_scenarios

    try:
        loaded = load_scenarios(scenario_paths(parser, args.scenario),
                                defines=define_symbols(parser, args))
    except ScenarioError as exc:
        print(str(exc), file=sys.stderr)
        parser.error("the scenarios above do not load")
    try:
        return select_tags(loaded, args.tags)
    except ValueError as exc:
        parser.error(str(exc))


def acp_parser() -> Parser:
    p = Parser(prog="scenarist acp",
               description="A mock ACP agent on stdio that plays scenarios to an ACP client.")
    add_scenario(p)
    add_tags(p)
    p.add_argument("--scenario-name", metavar="N",
                   help="play this scenario (default: chosen by the first prompt)")
    p.add_argument("--session-id", metavar="ID", help="the sessionId session/new answers")
    p.add_argument("--cwd", metavar="DIR",
                   help="resolve relative scenario paths against DIR (default: the client's cwd)")
    p.add_argument("--mcp-servers", metavar="JSON",
                   help="the mcpServers the client should send (a JSON list); differences "
                   "are logged")
    add_chaos(p, "prompt turns", header=False)
    add_scenario_options(p)
    return p


def _chaos(parser: Parser, args: Any) -> Any:
    """``--chaos`` read (None without it); a value that cannot be read is a usage error."""
    if args.chaos is None:
        return None
    from scenarist.acp.faulty import CHAOS_KINDS
    from scenarist.faults import ChaosError, parse_chaos

    try:
        return parse_chaos(args.chaos, args.seed, CHAOS_KINDS)
    except ChaosError as exc:
        parser.error(f"--chaos: {exc}")


def acp_main(argv: Sequence[str]) -> int:
    parser = acp_parser()
    return run(parser, argv, lambda args: _serve(parser, args))


def _serve(parser: Parser, args: Any) -> int:
    import sys

    from scenarist.acp.handshake import candidates, initialize_answer
    from scenarist.acp.stdio import event_loop_runner, serve_stdio, stdio_problem
    from scenarist.scenario.select import ScenarioIndex, SelectionError

    speed = checked_speed(parser, args)
    chaos = _chaos(parser, args)
    problem = stdio_problem()
    if problem is not None:
        parser.error(problem)
    mcp = None
    if args.mcp_servers is not None:
        try:
            mcp = json.loads(args.mcp_servers)
        except json.JSONDecodeError as exc:
            parser.error(f"--mcp-servers is not JSON: {exc}")
        if not isinstance(mcp, list):
            parser.error("--mcp-servers must be a JSON list of MCP servers")
    scenarios = _scenarios(parser, args)
    _warn_unplayed(scenarios)
    try:
        playable = candidates(ScenarioIndex(scenarios), args.scenario_name)
    except SelectionError as exc:
        parser.error(str(exc))

    def make_agent() -> Any:
        from scenarist.acp.agent import AgentOptions, ScenarioAgent

        cwd = str(Path(args.cwd).resolve()) if args.cwd else None
        options = AgentOptions(scenario_name=args.scenario_name, session_id=args.session_id,
                               cwd=cwd, mcp_servers=tuple(mcp) if mcp is not None else None,
                               speed=speed, chaos=chaos)
        return ScenarioAgent(scenarios, options)

    def answer() -> dict[str, Any]:
        result, problems = initialize_answer(playable)
        for problem in problems:
            print(f"scenarist acp: initialize: the answer differs from expectedResponse: "
                  f"{problem}", file=sys.stderr)
        return result

    with event_loop_runner() as runner:
        runner.run(serve_stdio(answer, make_agent))
    return 0


def _warn_unplayed(scenarios: Sequence[Any]) -> None:
    """Say (stderr) which of the scenarios' faults the ACP agent does not play."""
    import sys

    from scenarist.faults import unplayed

    for scenario in scenarios:
        for issue in unplayed(scenario, "acp"):
            print(issue, file=sys.stderr)


def acp_test_parser() -> Parser:
    p = Parser(prog="scenarist acp-test",
               description="Play the client side of scenarios against an ACP agent and "
               "check what it sends.")
    p.add_argument("--agent", required=True, metavar="CMD",
                   help="the agent command line (split like a shell), started afresh for "
                   "each scenario")
    add_scenario(p)
    add_tags(p)
    p.add_argument("--cwd", metavar="DIR",
                   help="the workspace the client confines files and terminals to "
                   "(default: a new temporary folder per scenario)")
    p.add_argument("--transcript", metavar="FILE",
                   help="write every JSON-RPC message here (JSONL, the scenarios in order)")
    add_junit(p)
    add_format(p, ("text", "jsonl"),
               "stdout: PASS/FAIL lines, or one JSON object per scenario as it ends")
    add_timeout(p, 120.0, "give up on the agent of a scenario after S seconds")
    add_scenario_options(p)
    return p


def acp_test_main(argv: Sequence[str]) -> int:
    parser = acp_test_parser()
    return run(parser, argv, lambda args: _test(parser, args))


def _test(parser: Parser, args: Any) -> int:
    import shlex

    from scenarist.acp.client import AcpTestOptions

    speed = checked_speed(parser, args)
    problem = timeout_problem("--timeout", args.timeout)
    if problem is not None:
        parser.error(problem)
    command = shlex.split(args.agent)
    if not command:
        parser.error("--agent is empty")
    scenarios = _scenarios(parser, args)
    transcript = output_file(parser, "--transcript", args.transcript)
    junit = output_file(parser, "--junit", args.junit)
    cwd = output_dir(parser, "--cwd", args.cwd)
    options = AcpTestOptions(command=tuple(command), cwd=cwd, speed=speed, timeout=args.timeout)
    reports = _play_all(scenarios, options, args.format)
    if transcript is not None:
        write_output(parser, "--transcript", transcript, "".join(
            json.dumps(entry, ensure_ascii=False) + "\n"
            for report in reports for entry in report.transcript))
    if junit is not None:
        from scenarist.acp.client import junit_text

        write_output(parser, "--junit", junit, junit_text(reports))
    return EXIT_OK if all(r.ok for r in reports) else EXIT_FAILED


def _play_all(scenarios: Sequence[Any], options: Any, fmt: str) -> list[Any]:
    """Play each scenario, printing its result as it ends; a progress line on a terminal."""
    import asyncio
    import sys

    from rich.console import Console
    from rich.progress import Progress

    from scenarist.acp.client import format_report, run_report

    console = Console(highlight=False, markup=False)
    reports = []
    with Progress(console=console, transient=True,
                  disable=fmt != "text" or not sys.stdout.isatty()) as bar:
        task = bar.add_task("scenarios", total=len(scenarios))
        for scenario in scenarios:
            bar.update(task, description=scenario.name)
            report = asyncio.run(run_report(scenario, options))
            reports.append(report)
            if fmt == "jsonl":
                print(_jsonl(report), flush=True)
            else:
                console.print(format_report(report), soft_wrap=True)
            bar.advance(task)
    if fmt == "text" and len(reports) > 1:
        failed = sum(not r.ok for r in reports)
        console.print(f"{len(reports) - failed} passed, {failed} failed of {len(reports)} "
                      "scenario(s)")
    return reports


def _jsonl(report: Any) -> str:
    return json.dumps({"name": report.scenario, "outcome": "passed" if report.ok else "failed",
                       "checks": [{"name": c.name, "problems": list(c.problems)}
                                  for c in report.checks]}, ensure_ascii=False)
