"""What a terminal screen looked like, as plain data: capture, normalised text, looks.

A :class:`ScreenCapture` is read once from the VT emulator (pyte) and is plain data from
then on, so the report can draw it and a worker process can send it back to its parent.
Everything else here is pure. Its styles are runs of cells with the same non-default look
(:func:`row_runs`); a blank cell keeps only what shows on a blank (background, reverse,
underline, strikethrough). The text that ``text.contains`` reads is normalised
(:func:`normalise_line`: the run's paths, ISO timestamps, "5s ago"); goldens are written by
:mod:`scenarist.runner.golden`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pyte

__all__ = [
    "DEFAULT_LOOK",
    "TIMESTAMP",
    "TIME_AGO",
    "Look",
    "ScreenCapture",
    "StyleRun",
    "capture_screen",
    "contains_text",
    "normalise_line",
    "row_runs",
    "screen_text",
    "shows_typed",
    "styles_by_row",
    "visible_look",
]

TIMESTAMP = re.compile(r"\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)?")
TIME_AGO = re.compile(r"\b\d+\s?[smhd] ago\b")
_BLANK_VISIBLE = frozenset({"reverse", "underscore", "strikethrough"})
_FLAGS = ("bold", "italics", "underscore", "strikethrough", "reverse", "blink")


@dataclass(frozen=True, slots=True)
class StyleRun:
    """Cells ``first..last`` (inclusive) of ``row`` drawn with the same non-default look."""

    row: int
    first: int
    last: int
    fg: str = "default"
    bg: str = "default"
    flags: tuple[str, ...] = ()

    def describe(self) -> str:
        parts = [f"{self.row} {self.first}-{self.last}"]
        if self.fg != "default":
            parts.append(f"fg={self.fg}")
        if self.bg != "default":
            parts.append(f"bg={self.bg}")
        parts.extend(self.flags)
        return " ".join(parts)


@dataclass(frozen=True, slots=True)
class ScreenCapture:
    """The screen at one moment: its rows (full width, as drawn), styles and cursor."""

    width: int
    height: int
    rows: tuple[str, ...]
    styles: tuple[StyleRun, ...]
    cursor: tuple[int, int]  # (row, column)

    @property
    def lines(self) -> tuple[str, ...]:
        """Rows with trailing spaces stripped."""
        return tuple(row.rstrip() for row in self.rows)


Look = tuple[str, str, tuple[str, ...]]  # (fg, bg, flags)
DEFAULT_LOOK: Look = ("default", "default", ())


def visible_look(look: Look) -> Look:
    """The part of a look that shows on a blank cell."""
    return "default", look[1], tuple(f for f in look[2] if f in _BLANK_VISIBLE)


def _look(char: pyte.screens.Char) -> Look:
    look = (char.fg, char.bg, tuple(name for name in _FLAGS if getattr(char, name)))
    return look if char.data.strip() else visible_look(look)


def _cell(char: pyte.screens.Char, cache: dict[pyte.screens.Char, tuple[Look, bool]]
          ) -> tuple[Look, bool]:
    """(look, blank) of a cell; a screen holds few distinct cells, so each is computed once."""
    found = cache.get(char)
    if found is None:
        found = cache[char] = (_look(char), not char.data.strip())
    return found


def row_runs(y: int, looks: list[tuple[Look, bool]]) -> list[StyleRun]:
    """Runs of equal look in one row; a blank that looks the same on screen as the run it
    sits in (a space between two bold words) does not break the run."""
    runs: list[StyleRun] = []
    start, strong, look = 0, 0, DEFAULT_LOOK

    def close(end: int) -> None:
        if look != DEFAULT_LOOK:
            runs.append(StyleRun(y, start, strong, *look))
        tail = visible_look(look)
        if strong < end and tail != DEFAULT_LOOK:
            runs.append(StyleRun(y, strong + 1, end, *tail))

    for x, (cell, blank) in enumerate(looks):
        if x and cell == look:
            strong = x
        elif not (x and blank and cell == visible_look(look)):
            if x:
                close(x - 1)
            start, strong, look = x, x, cell
    close(len(looks) - 1)
    return runs


def capture_screen(screen: pyte.Screen) -> ScreenCapture:
    """Read a pyte screen into a :class:`ScreenCapture` (wide characters count once)."""
    rows: list[str] = []
    styles: list[StyleRun] = []
    cache: dict[pyte.screens.Char, tuple[Look, bool]] = {}
    blank_row = " " * screen.columns
    for y in range(screen.lines):
        line = screen.buffer[y]
        if not line and _look(line.default) == DEFAULT_LOOK:  # nothing drawn on this row
            rows.append(blank_row)
            continue
        get, default = line.get, line.default  # dict.get: no Python-level __missing__
        cells = [get(x, default) for x in range(screen.columns)]
        rows.append("".join([char.data for char in cells]))
        distinct = {char: _cell(char, cache) for char in set(cells)}
        if any(look != DEFAULT_LOOK for look, _ in distinct.values()):
            styles += row_runs(y, [distinct[char] for char in cells])
    return ScreenCapture(screen.columns, screen.lines, tuple(rows), tuple(styles),
                         (screen.cursor.y, screen.cursor.x))


def normalise_line(line: str, replacements: Mapping[str, str] = {}) -> str:
    """A row with volatile text replaced: given strings (longest first), then timestamps
    (``[TIMESTAMP]``) and relative times (``[TIME_AGO]``); trailing spaces stripped."""
    for old in sorted(replacements, key=len, reverse=True):
        if old:
            line = line.replace(old, replacements[old])
    line = TIMESTAMP.sub("[TIMESTAMP]", line)
    return TIME_AGO.sub("[TIME_AGO]", line).rstrip()


def screen_text(capture: ScreenCapture, replacements: Mapping[str, str] = {}) -> str:
    """The normalised screen as text: one line per row, trailing blank rows dropped."""
    lines = [normalise_line(row, replacements) for row in capture.rows]
    while lines and not lines[-1]:
        lines.pop()
    return "\n".join(lines)


def contains_text(capture: ScreenCapture, needle: str,
                  replacements: Mapping[str, str] = {}) -> bool:
    """``text.contains``: is ``needle`` on the normalised screen?

    It matches within the text as shown, across a row that wrapped into the next (rows
    joined at full width), or with any run of whitespace standing for any other.
    """
    shown = screen_text(capture, replacements)
    if needle in shown:
        return True
    # rows are kept at full width, so joined they are the text as it wrapped; normalised
    # after the join, so a path (or the needle) cut by the wrap is still found whole
    wrapped = normalise_line("".join(capture.rows), replacements)
    if needle in wrapped:
        return True
    return " ".join(needle.split()) in " ".join(wrapped.split())


#: what a TUI draws around and between the rows of its input box, besides the typed text
_UNTYPED = re.compile(r"[\s\u2500-\u257f]+")


def shows_typed(capture: ScreenCapture, text: str) -> bool:
    """Whether ``text`` typed into a TUI's input box shows on the screen whole. Whitespace
    and box-drawing characters are left out of the comparison: the box wraps the text at
    words, dropping the space, and draws its borders between the wrapped rows."""
    typed = _UNTYPED.sub("", text)
    return typed in _UNTYPED.sub("", "".join(capture.rows))


def styles_by_row(styles: Iterable[StyleRun]) -> dict[int, list[StyleRun]]:
    """Style runs grouped by row (for drawing a capture)."""
    rows: dict[int, list[StyleRun]] = {}
    for run in styles:
        rows.setdefault(run.row, []).append(run)
    return rows


def capture_lines(capture: ScreenCapture) -> Sequence[str]:
    """The rows of a capture as shown (for a timeout message)."""
    return screen_text(capture).splitlines()
