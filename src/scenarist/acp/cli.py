"""``scenarist acp`` (the mock ACP agent on stdio) and ``scenarist acp-test`` (the ACP test client).

    scenarist acp --scenario PATH... [--scenario-name N] [--session-id ID] [--cwd DIR]
                  [--mcp-servers JSON] [--define K=V] [--speed F]
    scenarist acp-test --agent "CMD ARGS" --scenario PATH [--cwd DIR] [--transcript FILE]
                  [--junit FILE] [--speed F]

stdout of ``scenarist acp`` carries only ACP; everything else goes to stderr. It exits 0
when the client closes its stdin. ``acp-test`` exits 0 when every check passed, 1 on a
failed check, 2 on a usage error.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from scenarist.scenario.cli_parser import (
    Parser,
    add_defines,
    define_symbols,
    run,
    scenario_paths,
    speed_problem,
)

__all__ = ["acp_main", "acp_test_main"]


def _speed(parser: Parser, value: float) -> float:
    problem = speed_problem("--speed", value)
    if problem is not None:
        parser.error(problem)
    return value


def _scenarios(parser: Parser, paths: Sequence[str], defines: Mapping[str, bool | int | str]
               ) -> list[Any]:
    import sys

    from scenarist.scenario import ScenarioError, load_scenarios

    try:
        return load_scenarios(scenario_paths(parser, paths), defines=defines)
    except ScenarioError as exc:
        print(str(exc), file=sys.stderr)
        parser.error("the scenarios above do not load")


def acp_parser() -> Parser:
    p = Parser(prog="scenarist acp",
               description="A mock ACP agent on stdio that plays scenarios to an ACP client.")
    p.add_argument("--scenario", action="append", required=True, metavar="PATH",
                   help="scenario file or directory (repeatable)")
    p.add_argument("--scenario-name", metavar="N",
                   help="play this scenario (default: chosen by the first prompt)")
    p.add_argument("--session-id", metavar="ID", help="the sessionId session/new answers")
    p.add_argument("--cwd", metavar="DIR",
                   help="resolve relative scenario paths against DIR (default: the client's cwd)")
    p.add_argument("--mcp-servers", metavar="JSON",
                   help="the mcpServers the client should send (a JSON list); differences "
                   "are logged")
    p.add_argument("--speed", type=float, default=1.0, metavar="F",
                   help="multiply every scenario delay by F (0.01 = a hundred times faster)")
    add_defines(p)
    return p


def acp_main(argv: Sequence[str]) -> int:
    parser = acp_parser()
    return run(parser, argv, lambda args: _serve(parser, args))


def _serve(parser: Parser, args: Any) -> int:
    import sys

    from scenarist.acp.handshake import candidates, initialize_answer
    from scenarist.acp.stdio import event_loop_runner, serve_stdio, stdio_problem
    from scenarist.scenario.select import ScenarioIndex, SelectionError

    speed = _speed(parser, args.speed)
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
    scenarios = _scenarios(parser, args.scenario, define_symbols(parser, args))
    try:
        playable = candidates(ScenarioIndex(scenarios), args.scenario_name)
    except SelectionError as exc:
        parser.error(str(exc))

    def make_agent() -> Any:
        from scenarist.acp.agent import AgentOptions, ScenarioAgent

        cwd = str(Path(args.cwd).resolve()) if args.cwd else None
        options = AgentOptions(scenario_name=args.scenario_name, session_id=args.session_id,
                               cwd=cwd, mcp_servers=tuple(mcp) if mcp is not None else None,
                               speed=speed)
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


def acp_test_parser() -> Parser:
    p = Parser(prog="scenarist acp-test",
               description="Play the client side of a scenario against an ACP agent and "
               "check what it sends.")
    p.add_argument("--agent", required=True, metavar="CMD",
                   help="the agent command line (split like a shell)")
    p.add_argument("--scenario", required=True, metavar="PATH", help="the scenario file")
    p.add_argument("--cwd", metavar="DIR",
                   help="the workspace the client confines files and terminals to "
                   "(default: a new temporary folder)")
    p.add_argument("--transcript", metavar="FILE", help="write every JSON-RPC message here (JSONL)")
    p.add_argument("--junit", metavar="FILE", help="write a JUnit XML report here")
    p.add_argument("--speed", type=float, default=1.0, metavar="F",
                   help="multiply the scenario's client-side delays by F")
    p.add_argument("--timeout", type=float, default=120.0, metavar="S",
                   help="give up on the agent after S seconds (default 120)")
    add_defines(p)
    return p


def acp_test_main(argv: Sequence[str]) -> int:
    parser = acp_test_parser()
    return run(parser, argv, lambda args: _test(parser, args))


def _test(parser: Parser, args: Any) -> int:
    import shlex

    from scenarist.acp.client import AcpTestOptions, run_test

    speed = _speed(parser, args.speed)
    command = shlex.split(args.agent)
    if not command:
        parser.error("--agent is empty")
    scenarios = _scenarios(parser, [args.scenario], define_symbols(parser, args))
    if len(scenarios) != 1:
        parser.error(f"--scenario must name one scenario file ({len(scenarios)} found)")
    options = AcpTestOptions(
        command=tuple(command), cwd=Path(args.cwd) if args.cwd else None,
        transcript=Path(args.transcript) if args.transcript else None,
        junit=Path(args.junit) if args.junit else None, speed=speed, timeout=args.timeout)
    return run_test(scenarios[0], options)
