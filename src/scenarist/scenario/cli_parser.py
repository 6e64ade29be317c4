"""The one command-line vocabulary of every ``scenarist`` subcommand, defined once.

A flag means the same thing wherever it appears (docs/cli.md): ``--scenario`` (a file or a
folder), ``--scenario-define``/``--define`` (rule symbols), ``--speed`` (the time factor;
``--scenario-speed`` where the spec names it), ``--tag`` (keep the scenarios that carry a
tag), ``--timeout``, ``--format`` and ``--junit``. Each has one ``add_*`` function here,
and the exit codes (:data:`EXIT_OK`, :data:`EXIT_FAILED`, :data:`EXIT_USAGE`) are named
once. The parser reports usage errors as exit 2 without raising ``SystemExit`` mid-way, and
file-system problems of an option (missing, a folder where a file is meant, not writable)
are one-line usage errors, never a traceback.

Kept apart from the commands so each command module imports it at the top, with no cycle.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, NoReturn, Protocol, TypeVar

from scenarist.errors import UsageError

__all__ = ["EXIT_FAILED", "EXIT_OK", "EXIT_USAGE", "HelpFormatter", "Parser", "UsageReported",
           "add_chaos", "add_defines", "add_format", "add_junit", "add_outside_paths", "add_scenario",
           "add_scenario_options", "add_speed", "add_tags", "add_timeout", "checked_speed",
           "define_symbols", "output_dir", "output_file", "output_problem", "run",
           "scenario_paths", "select_tags", "speed_problem", "timeout_problem", "write_output"]

EXIT_OK = 0  #: every check passed (a server: it stopped cleanly)
EXIT_FAILED = 1  #: a check failed: a mismatch, a failed scenario, an invalid file to validate
EXIT_USAGE = 2  #: the command line or its input is wrong: bad flag, missing or unreadable file


class UsageReported(UsageError):
    """A usage error that argparse has already printed; the command exits 2."""


class HelpFormatter(argparse.HelpFormatter):
    """argparse's help formatter, given the terminal's width as ``shutil.get_terminal_size``
    finds it: argparse would import shutil for it, and with shutil bz2 and lzma, ~1.5 ms of
    ``scenarist validate``'s start-up, which has a budget (docs/architecture.md)."""

    def __init__(self, prog: str, indent_increment: int = 2, max_help_position: int = 24,
                 width: int | None = None) -> None:
        super().__init__(prog, indent_increment, max_help_position,
                         _terminal_columns() - 2 if width is None else width)


def _terminal_columns() -> int:
    """``$COLUMNS``, else the width of the terminal on stdout, else 80 (as shutil's)."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns <= 0 and sys.__stdout__ is not None:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns if columns > 0 else 80


class Parser(argparse.ArgumentParser):
    """argparse that reports usage errors as exit 2 without raising SystemExit mid-way
    (and formats help with :class:`HelpFormatter` unless told otherwise)."""

    def __init__(self, *, formatter_class: type[argparse.HelpFormatter] = HelpFormatter,
                 **kwargs: Any) -> None:
        super().__init__(formatter_class=formatter_class, **kwargs)

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        print(f"{self.prog}: error: {message}", file=sys.stderr)
        raise UsageReported


class _Tagged(Protocol):
    @property
    def tags(self) -> tuple[str, ...]: ...


T = TypeVar("T", bound=_Tagged)


# -- the shared flags -----------------------------------------------------------------------

def add_scenario(parser: argparse.ArgumentParser, *, many: bool = True,
                 required: bool = True) -> None:
    """``--scenario PATH``: a scenario file or a folder of them (repeatable when ``many``)."""
    if many:
        parser.add_argument("--scenario", action="append", required=required, metavar="PATH",
                            help="scenario file or folder (repeatable)")
    else:
        parser.add_argument("--scenario", required=required, metavar="PATH",
                            help="scenario file, or a folder of them")


def add_defines(parser: argparse.ArgumentParser) -> None:
    """``--scenario-define KEY[=VAL]`` (alias ``--define``): a rule symbol."""
    parser.add_argument("--scenario-define", "--define", dest="define", action="append",
                        default=[], metavar="KEY[=VAL]",
                        help="a rule symbol (repeatable; bare KEY = true); without any, "
                        "$AH_SCENARIO_DEFINES is read")


def add_speed(parser: argparse.ArgumentParser, *aliases: str,
              what: str = "multiply every scenario delay by F") -> None:
    """``--speed F`` (plus ``aliases``, e.g. ``--scenario-speed``): the time factor, checked
    by :func:`checked_speed`."""
    parser.add_argument("--speed", *aliases, dest="speed", type=float, default=1.0,
                        metavar="F", help=f"{what} (0.1 = ten times faster; default 1; "
                        "min 0.01)")


def add_scenario_options(parser: argparse.ArgumentParser, *speed_aliases: str) -> None:
    """The options of every command that plays scenarios it is given (``--scenario`` aside):
    ``--scenario-define``/``--define`` and ``--speed`` with ``speed_aliases``."""
    add_speed(parser, *speed_aliases)
    add_defines(parser)


def add_tags(parser: argparse.ArgumentParser) -> None:
    """``--tag TAG``: keep only the scenarios whose ``tags:`` hold one of the given tags."""
    parser.add_argument("--tag", dest="tags", action="append", default=[], metavar="TAG",
                        help="only scenarios tagged TAG (repeatable: any of them)")


def add_chaos(parser: argparse.ArgumentParser, what: str, *, header: bool = True) -> None:
    """``--chaos RATE[:kind,kind]`` and ``--seed N``: seeded faults on ``what`` (each command
    reads the kinds its channel plays: :func:`scenarist.faults.parse_chaos`); ``header``: the
    server also takes chaos per request (``x-scenarist-chaos``)."""
    parser.add_argument("--chaos", metavar="RATE[:kind,kind]",
                        help=f"fault this share (0..1) of {what} by one of the kinds named "
                        "(default: every kind it plays), the same faults for the same --seed; "
                        "see docs/faults.md")
    seeds = "--chaos and of the x-scenarist-chaos header" if header else "--chaos"
    parser.add_argument("--seed", type=int, default=0, metavar="N",
                        help=f"the seed of {seeds}: the same seed faults the same "
                        f"{what} (default 0)")


def add_timeout(parser: argparse.ArgumentParser, default: float, what: str) -> None:
    """``--timeout S``: how long the command waits for the program under test (``what``)."""
    parser.add_argument("--timeout", type=float, default=default, metavar="S",
                        help=f"{what} (default {default:g} s)")


def add_format(parser: argparse.ArgumentParser, choices: Sequence[str], what: str) -> None:
    """``--format NAME``: what stdout carries; the first choice is the default."""
    parser.add_argument("--format", choices=tuple(choices), default=choices[0],
                        help=f"{what} (default {choices[0]})")


def add_junit(parser: argparse.ArgumentParser) -> None:
    """``--junit FILE``: a JUnit XML report for CI (failures carry what went wrong)."""
    parser.add_argument("--junit", metavar="FILE", help="write a JUnit XML report")


def add_outside_paths(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--allow-outside-paths", action="store_true",
                        help="let media, patches and repo.dir name files outside the scenario's "
                        "folder (refused by default)")


# -- their rules ----------------------------------------------------------------------------

def speed_problem(flag: str, speed: float) -> str | None:
    """Why ``speed`` is not a valid speed factor for ``flag`` (a usage error), or None.

    One rule for every command that plays a scenario: a finite number above 0 (values under
    the player's minimum, 0.01, are raised to it, as the spec says)."""
    if speed > 0 and speed != float("inf"):  # False for NaN too
        return None
    return (f"{flag} must be a number above 0 (0.1 = ten times faster, 0.01 = the fastest), "
            f"got {speed:g}")


def checked_speed(parser: Parser, args: argparse.Namespace, flag: str = "--speed") -> float:
    """The ``--speed`` given, or a usage error naming the rule."""
    speed = float(args.speed)
    problem = speed_problem(flag, speed)
    if problem is not None:
        parser.error(problem)
    return speed


def timeout_problem(flag: str, seconds: float) -> str | None:
    """Why ``seconds`` is no timeout (a finite number above 0), or None."""
    if seconds > 0 and seconds != float("inf"):
        return None
    return f"{flag} must be a number of seconds above 0, got {seconds:g}"


def select_tags(scenarios: Iterable[T], tags: Sequence[str]) -> list[T]:
    """The scenarios that carry one of ``tags`` (all of them when ``tags`` is empty), in order.

    Raises ``ValueError`` naming the tags that do exist when none matches, so a misspelt tag
    is a usage error rather than a run of nothing."""
    every = list(scenarios)
    if not tags:
        return every
    wanted = set(tags)
    kept = [s for s in every if wanted.intersection(s.tags)]
    if every and not kept:
        known = sorted({t for s in every for t in s.tags})
        raise ValueError(f"no scenario is tagged {' or '.join(map(repr, tags))}; "
                         + (f"the tags in use: {', '.join(known)}" if known
                            else "none of these scenarios has tags:"))
    return kept


def run(parser: Parser, argv: Sequence[str], body: Callable[[argparse.Namespace], int]) -> int:
    """Parse ``argv`` and run ``body``: exit 2 on usage errors, 0 when stdout was closed."""
    try:
        args = parser.parse_args(list(argv))
    except UsageReported:
        return EXIT_USAGE
    except SystemExit as exc:  # --help
        return int(exc.code or 0)
    try:
        return int(body(args))
    except UsageReported:
        return EXIT_USAGE
    except BrokenPipeError:
        return EXIT_OK


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
    unreadable = [p for p in paths if not os.access(p, os.R_OK)]
    if unreadable:
        parser.error(f"permission denied: {', '.join(unreadable)}; make it readable")
    files = scenario_files(paths)
    if not files:
        parser.error("no .yaml/.yml files found in " + ", ".join(paths))
    return files


# -- files named by options -----------------------------------------------------------------

def output_problem(path: Path, *, folder: bool = False) -> str | None:
    """Why ``path`` cannot be written (with ``folder``: made a folder to write in), or None.

    Probed for real before a run, not guessed from permission bits (which say yes to root):
    the folders are made and the file is opened for appending (created empty if new), so a
    report is never lost at the end of a long run."""
    if folder:
        if path.exists() and not path.is_dir():
            return f"{path} is a file; name a folder"
        target = path
    elif path.is_dir():
        return f"{path} is a folder; name a file"
    else:
        target = path.parent
    blocker = next((p for p in (target, *target.parents) if p.exists()), None)
    if blocker is not None and not blocker.is_dir():
        return f"{blocker} is a file, so nothing can be made under it"
    try:
        target.mkdir(parents=True, exist_ok=True)
        if not folder:
            with path.open("a", encoding="utf-8"):
                pass
        elif not os.access(path, os.W_OK | os.X_OK):
            raise PermissionError(13, "Permission denied")
    except OSError as exc:
        return f"cannot {'create' if folder else 'write'} it: {exc.strerror or exc}"
    return None


def output_file(parser: Parser, flag: str, value: str | None, *,
                folder: bool = False) -> Path | None:
    """``value`` of ``flag`` as a path that can be written, or a one-line usage error."""
    if value is None:
        return None
    path = Path(value)
    problem = output_problem(path, folder=folder)
    if problem is not None:
        parser.error(f"{flag} {value}: {problem}")
    return path


def write_output(parser: Parser, flag: str, path: Path, text: str) -> None:
    """Write ``text`` to ``path`` (parents made); an ``OSError`` is a one-line usage error."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        parser.error(f"{flag} {path}: cannot write: {exc.strerror or exc}")


def output_dir(parser: Parser, flag: str, value: str | None) -> Path | None:
    """``value`` of ``flag`` as a folder that exists or can be made, or a usage error."""
    return output_file(parser, flag, value, folder=True)
