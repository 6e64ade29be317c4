"""``scenarist validate``: check scenario files and folders, print every issue.

Exit codes (docs/cli.md): 0 every file is valid, 1 one is not, 2 a usage or input error. A
module of its own, importing only the loader and the command-line vocabulary, because the
command has a start-up budget (<= 5x ``python -c pass``, docs/architecture.md): ``json`` and
the other commands of :mod:`scenarist.scenario.cli` are not its business (~1 ms).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from scenarist.scenario.cli_parser import (
    Parser,
    add_defines,
    add_outside_paths,
    define_symbols,
    run,
    scenario_paths,
)
from scenarist.scenario.errors import ScenarioError
from scenarist.scenario.load import load_scenario

__all__ = ["validate_main"]


def validate_main(argv: Sequence[str]) -> int:
    """Check scenario files and folders; print every issue; exit 0 (valid) or 1."""
    parser = Parser(prog="scenarist validate", description="Check scenario files.")
    parser.add_argument("paths", nargs="+", metavar="PATH", help="scenario files or folders")
    add_defines(parser)
    add_outside_paths(parser)
    parser.add_argument("--strict", action="store_true", help="treat warnings as errors")
    parser.add_argument("-q", "--quiet", action="store_true", help="print only problems")

    def body(args: argparse.Namespace) -> int:
        symbols = define_symbols(parser, args)
        files = scenario_paths(parser, args.paths)
        bad = 0
        for path in files:
            try:
                scenario = load_scenario(path, defines=symbols, strict=args.strict,
                                         allow_outside_paths=args.allow_outside_paths)
            except ScenarioError as exc:
                bad += 1
                for issue in exc.issues:
                    print(issue, file=sys.stderr)
                print(f"{path}: invalid ({len(exc.errors)} error(s))", file=sys.stderr)
                continue
            for issue in scenario.warnings:
                print(issue, file=sys.stderr)
            if not args.quiet:
                note = f", {len(scenario.warnings)} warning(s)" if scenario.warnings else ""
                print(f"{path}: ok ({scenario.name}: {len(scenario.timeline)} events{note})")
        if len(files) > 1 and not args.quiet:
            print(f"{len(files) - bad} of {len(files)} scenario(s) valid")
        return 1 if bad else 0

    return run(parser, argv, body)
