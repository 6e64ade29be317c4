"""What the scenario commands (``validate``, ``timeline``, ``schema``, ``select``) share on
the command line: an argparse parser whose usage errors are exit 2 (not ``SystemExit``
mid-way), the ``--define`` and ``--allow-outside-paths`` options, the one rule for a speed
factor (shared with ``scenarist llm`` and ``scenarist demo``), and the check that the paths
given hold scenario files.

Kept apart from the commands so each command module imports it at the top, with no cycle.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NoReturn

__all__ = ["Parser", "UsageError", "add_defines", "add_outside_paths", "define_symbols", "run",
           "scenario_paths", "speed_problem"]


class UsageError(Exception):
    """A usage error that has already been printed; the command exits 2."""


class _Formatter(argparse.HelpFormatter):
    """argparse's help formatter, minus its ``import shutil`` (which brings bz2 and lzma:
    ~2.5 ms of every start, paid when the first argument is added): the width is found as
    ``shutil.get_terminal_size`` finds it, $COLUMNS else the terminal else 80."""

    def __init__(self, prog: str, indent_increment: int = 2, max_help_position: int = 24,
                 width: int | None = None) -> None:
        super().__init__(prog, indent_increment, max_help_position,
                         _columns() - 2 if width is None else width)


def _columns() -> int:
    try:
        columns = int(os.environ.get("COLUMNS", "0"))
    except ValueError:
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns if columns > 0 else 80


class Parser(argparse.ArgumentParser):
    """argparse that reports usage errors as exit 2 without raising SystemExit mid-way."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", _Formatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        print(f"{self.prog}: error: {message}", file=sys.stderr)
        raise UsageError


def add_defines(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--define", "--scenario-define", dest="define", action="append", default=[],
                        metavar="KEY[=VAL]",
                        help="a rule symbol (repeatable; bare KEY = true); without any, "
                        "$AH_SCENARIO_DEFINES is read")


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
    except UsageError:
        return 2
    except SystemExit as exc:  # --help
        return int(exc.code or 0)
    try:
        return int(body(args))
    except UsageError:
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
