"""``scenarist select``: which scenario a prompt (or a name) selects, and how close it was.

Exit codes: 0 selected, 1 nothing can be selected or a scenario is invalid, 2 usage error.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any

from scenarist.scenario.cli_parser import (
    Parser,
    add_defines,
    add_outside_paths,
    define_symbols,
    run,
    scenario_paths,
)

__all__ = ["select_main", "selection_json"]


def selection_json(selection: Any) -> dict[str, Any]:
    """A :class:`~scenarist.scenario.select.Selection` as JSON-ready data."""
    path = selection.scenario.source_path
    return {
        "name": selection.name,
        "by": selection.by,
        "distance": selection.distance,
        "source": None if path is None else str(path),
        "initial_prompt": selection.scenario.effective_initial_prompt,
        "runners_up": [{"name": n, "distance": d} for n, d in selection.runners_up],
    }


def select_main(argv: Sequence[str]) -> int:
    """Load scenarios, select one by ``--name`` or by the nearest initial prompt, print it."""
    parser = Parser(prog="scenarist select",
                     description="Show which scenario a prompt selects: exact --name wins, else "
                                 "the smallest Levenshtein distance to a scenario's initial prompt.")
    parser.add_argument("prompt", nargs="?", metavar="PROMPT",
                        help="the request prompt (omit with --name)")
    parser.add_argument("-s", "--scenario", dest="paths", action="append", default=[],
                        metavar="PATH", required=True,
                        help="scenario file or folder (repeatable; folders are read recursively)")
    parser.add_argument("-n", "--name", help="select this scenario by its exact name")
    add_defines(parser)
    add_outside_paths(parser)
    parser.add_argument("--json", action="store_true", help="print the selection as JSON")

    def body(args: argparse.Namespace) -> int:
        from scenarist.scenario.errors import ScenarioError
        from scenarist.scenario.load import load_scenarios
        from scenarist.scenario.select import ScenarioIndex, SelectionError

        if args.prompt is None and args.name is None:
            parser.error("give a PROMPT to match, or --name NAME")
        symbols = define_symbols(parser, args)
        files = scenario_paths(parser, args.paths)
        try:
            scenarios = load_scenarios(files, defines=symbols,
                                       allow_outside_paths=args.allow_outside_paths)
        except ScenarioError as exc:
            for issue in exc.issues:
                print(issue, file=sys.stderr)
            print("scenarist select: fix the scenario(s) above (see 'scenarist validate')",
                  file=sys.stderr)
            return 1
        try:
            selection = ScenarioIndex(scenarios).select(name=args.name, prompt=args.prompt)
        except SelectionError as exc:
            print(f"scenarist select: {exc}", file=sys.stderr)
            return 1
        if args.json:
            import json

            print(json.dumps(selection_json(selection), ensure_ascii=False, indent=2))
            return 0
        where = selection.scenario.source_path
        how = ("by name" if selection.by == "name" else "as the only scenario"
               if selection.by == "only" else f"by prompt, distance {selection.distance}")
        print(f"{selection.name}  ({how}){f'  {where}' if where else ''}")
        for name, distance in selection.runners_up:
            print(f"  runner-up: {name}  (distance {distance})")
        return 0

    return run(parser, argv, body)
