"""What the scenario commands (``validate``, ``timeline``, ``schema``, ``select``) share on
the command line: an argparse parser whose usage errors are exit 2 (not ``SystemExit``
mid-way), the ``--define`` (alias ``--scenario-define``), ``--speed`` (alias
``--scenario-speed``) and ``--allow-outside-paths`` options, the one rule for a speed factor
(shared with ``scenarist llm``, ``rest`` and ``demo``), and the check that the paths given
hold scenario files.

Kept apart from the commands so each command module imports it at the top, with no cycle.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import NoReturn

from scenarist.errors import UsageError

__all__ = ["Parser", "UsageReported", "add_defines", "add_outside_paths", "add_speed",
           "define_symbols", "run", "scenario_paths", "speed_problem"]


class UsageReported(UsageError):
    """A usage error that argparse has already printed; the command exits 2."""


class Parser(argparse.ArgumentParser):
    """argparse that reports usage errors as exit 2 without raising SystemExit mid-way."""

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        print(f"{self.prog}: error: {message}", file=sys.stderr)
        raise UsageReported


def add_defines(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--define", "--scenario-define", dest="define", action="append", default=[],
                        metavar="KEY[=VAL]",
                        help="a rule symbol (repeatable; bare KEY = true); without any, "
                        "$AH_SCENARIO_DEFINES is read")


def add_speed(parser: argparse.ArgumentParser) -> None:
    """``--speed F``, also spelt ``--scenario-speed F`` (the spec's name for the mock
    servers); check it with :func:`speed_problem`."""
    parser.add_argument("--speed", "--scenario-speed", dest="speed", type=float, default=1.0,
                        metavar="F", help="multiply every scenario delay by F (0.1 = ten "
                        "times faster; at least 0.01)")


def add_outside_paths(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--allow-outside-paths", action="store_true",
                        help="let media, patches and repo.dir name files outside the scenario's "
                        "folder (refused by default)")


def speed_problem(flag: str, speed: float) -> str | None:
    """Why ``speed`` is not a valid speed factor for ``flag`` (a usage error), or None.

    One rule for every command that plays a scenario: a finite number above 0 (values under
    the player's minimum, 0.01, are raised to it, as the spec says)."""
    if speed > 0 and speed != float("inf"):  # False for NaN too
        return None
    return (f"{flag} must be a number above 0 (0.1 = ten times faster, 0.01 = the fastest), "
            f"got {speed:g}")


def run(parser: Parser, argv: Sequence[str], body: Callable[[argparse.Namespace], int]) -> int:
    """Parse ``argv`` and run ``body``: exit 2 on usage errors, 0 when stdout was closed."""
    try:
        args = parser.parse_args(list(argv))
    except UsageReported:
        return 2
    except SystemExit as exc:  # --help
        return int(exc.code or 0)
    try:
        return int(body(args))
    except UsageReported:
        return 2
    except BrokenPipeError:
        return 0


def define_symbols(parser: Parser, args: argparse.Namespace) -> dict[str, bool | int | str]:
    """The rule symbols of ``--define`` and ``$AH_SCENARIO_DEFINES``; a bad one is a usage error."""
    from scenarist.scenario.rules import parse_defines

    try:
        return parse_defines(args.define)
    except ValueError as exc:
        parser.error(str(exc))


def scenario_paths(parser: Parser, paths: Sequence[str]) -> list[Path]:
    """The scenario files under ``paths``; a missing path or no file at all is a usage error."""
    from scenarist.scenario.load import scenario_files

    missing = [p for p in paths if not Path(p).exists()]
    if missing:
        parser.error(f"no such file or folder: {', '.join(missing)}")
    files = scenario_files(paths)
    if not files:
        parser.error("no .yaml/.yml files found in " + ", ".join(paths))
    return files
