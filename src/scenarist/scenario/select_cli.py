"""``scenarist select``: which scenario a prompt (or a name) selects, and how close it was.

Exit codes (docs/cli.md): 0 selected, 1 nothing can be selected, 2 a usage or input error
(a scenario that does not load, a tag no scenario carries).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any

from scenarist.scenario.cli_parser import (
    EXIT_FAILED,
    EXIT_USAGE,
    Parser,
    add_defines,
    add_format,
    add_outside_paths,
    add_tags,
    define_symbols,
    run,
    scenario_paths,
    select_tags,
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
    add_tags(parser)
    add_defines(parser)
    add_outside_paths(parser)
    add_format(parser, ("text", "json"), "the selection as text or as JSON")
    parser.add_argument("--json", dest="format", action="store_const", const="json",
                        help="the same as --format json")

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
            return EXIT_USAGE
        try:
            scenarios = select_tags(scenarios, args.tags)
        except ValueError as exc:
            parser.error(str(exc))
        try:
            selection = ScenarioIndex(scenarios).select(name=args.name, prompt=args.prompt)
        except SelectionError as exc:
            print(f"scenarist select: {exc}", file=sys.stderr)
            return EXIT_FAILED
        if args.format == "json":
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
