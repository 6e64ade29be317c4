"""The golden of a screen: what changes from run to run taken out, in a diff-friendly format.

Golden format (``<label>.golden``, UTF-8)::

    scenarist-screen 1 100x30
    |first row, trailing spaces stripped
    |
    |third row
    ...                                   (one ``|`` line per row, every row kept)
    -- styles
    0 0-4 fg=red bold                     (row, first-last column, attributes)

What a golden leaves out, in this order (all pure):

1. region masks (``rows`` × ``columns``, cells of the screen as drawn): each cell is ``░``;
2. the built-in normalisers: the run's own paths (longest first, e.g. ``$WORKSPACE``), also
   where a TUI shortened one with ``…`` (``/…/100x30/<run>/workspace`` → ``$WORKSPACE…``) or
   wrapped it onto the next row (the head becomes the marker, the tail goes); ISO
   timestamps (``[TIMESTAMP]``) and "5s ago" (``[TIME_AGO]``);
3. the scenario's regex masks, in order, on the text as 2 left it: a match becomes
   ``replace`` (``\\1`` and ``\\g<name>`` name groups).

A replacement by 2 keeps the look of the first cell it replaces; a mask is drawn plain (a
spinner's colours change with its words). Style columns are those of the text as written in
the golden, so a replacement that is shorter or longer than the text it replaced moves the
styles after it with it: a golden does not change with the length of a path or a word.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

from pyte.screens import wcwidth

from scenarist.runner.screen import (
    DEFAULT_LOOK,
    TIME_AGO,
    TIMESTAMP,
    Look,
    ScreenCapture,
    StyleRun,
    row_runs,
    styles_by_row,
    visible_look,
)
from scenarist.scenario import RegionMask, ScreenMask, TextMask

__all__ = ["GOLDEN_HEADER", "MASK_FILL", "golden_diff", "golden_text"]

GOLDEN_HEADER = "scenarist-screen 1"
STYLES_MARKER = "-- styles"
MASK_FILL = "░"  # a cell of a region mask
ELLIPSIS = "…"
_MIN_ELIDED = 12  # characters of a run path around an ellipsis that make it that path

Glyph = tuple[str, Look]  # one code point and the look of the cell it is drawn in


@dataclass(frozen=True, slots=True)
class _Rule:
    """Replace what ``find`` finds in a row's text; ``keep_look``: the replacement takes the
    look of the first replaced cell (else it is drawn plain)."""

    find: Callable[[str], list[tuple[int, int, str]]]
    keep_look: bool


def golden_text(capture: ScreenCapture, replacements: Mapping[str, str] = {},
                masks: Sequence[ScreenMask] = ()) -> str:
    """The capture in the golden format, ``replacements`` (a run path → its marker) and
    ``masks`` applied as the module docstring says."""
    rules = [*_builtin_rules(replacements),
             *(_regex_rule(m.regex, m.replace) for m in masks if isinstance(m, TextMask))]
    regions = [m for m in masks if isinstance(m, RegionMask)]
    by_row = styles_by_row(capture.styles)
    # 1: regions, on the screen as drawn; a row no region touches stays text until a rule
    # finds something in it (most rows: nothing to do)
    drawn: list[str | list[Glyph]] = []
    for y, line in enumerate(capture.rows):
        masked = _masked_columns(regions, y, capture.width, capture.height)
        drawn.append(_mask_region(_glyphs(line, by_row.get(y, []), capture.width), masked)
                     if masked else line)
    texts = [row if isinstance(row, str) else "".join(char for char, _ in row)
             for row in drawn]
    wrapped = _wrapped_paths(texts, replacements)
    rows: list[str] = []
    styles: list[StyleRun] = []
    for y, (row, plain) in enumerate(zip(drawn, texts, strict=True)):
        if isinstance(row, str) and y not in wrapped and not any(r.find(plain) for r in rules):
            rows.append(plain.rstrip())
            styles += by_row.get(y, [])
            continue
        glyphs = _glyphs(row, by_row.get(y, []), capture.width) if isinstance(row, str) else row
        if y in wrapped:
            glyphs = _apply(glyphs, _fixed(wrapped[y]))
        for rule in rules:
            glyphs = _apply(glyphs, rule)
        text, looks = _cells(glyphs, capture.width)
        rows.append(text.rstrip())
        styles += row_runs(y, looks)
    out = [f"{GOLDEN_HEADER} {capture.width}x{capture.height}"]
    out += ["|" + row for row in rows]
    out.append(STYLES_MARKER)
    out += [run.describe() for run in styles]
    return "\n".join(out) + "\n"


# -- rules -----------------------------------------------------------------------------


def _builtin_rules(replacements: Mapping[str, str]) -> list[_Rule]:
    rules = [_path_rule(old, new) for old, new in
             sorted(replacements.items(), key=lambda item: len(item[0]), reverse=True) if old]
    return [*rules, _regex_rule(TIMESTAMP.pattern, "[TIMESTAMP]", keep_look=True),
            _regex_rule(TIME_AGO.pattern, "[TIME_AGO]", keep_look=True)]


def _fixed(spans: list[tuple[int, int, str]]) -> _Rule:
    """A rule that finds ``spans``, found beforehand."""
    return _Rule(lambda _text: spans, keep_look=True)


def _regex_rule(regex: str, replace: str, *, keep_look: bool = False) -> _Rule:
    pattern = _compiled(regex)

    def find(text: str) -> list[tuple[int, int, str]]:
        return [(m.start(), m.end(), m.expand(replace)) for m in pattern.finditer(text)
                if m.end() > m.start()]

    return _Rule(find, keep_look)


@lru_cache(maxsize=256)
def _compiled(regex: str) -> re.Pattern[str]:
    return re.compile(regex)


def _path_rule(path: str, marker: str) -> _Rule:
    """``path`` → ``marker``, whole or shortened around an ellipsis (``/…/tail`` or
    ``head…``): a shortened one becomes ``marker…``."""

    def find(text: str) -> list[tuple[int, int, str]]:
        spans: list[tuple[int, int, str]] = []
        start = 0
        while (at := text.find(path, start)) >= 0:
            spans.append((at, at + len(path), marker))
            start = at + len(path)
        at = -1
        while (at := text.find(ELLIPSIS, at + 1)) >= 0:
            before, after = text[:at], text[at + 1:]
            # the longest head of the path that ends here, and the longest tail that starts
            # here; only places holding the path's first / the text's next character can
            head = next((at - p for p in range(max(at - len(path) + 1, 0), at)
                         if before[p] == path[0] and path.startswith(before[p:])), 0)
            tail = next((len(path) - i for i in range(1, len(path))
                         if path[i] == after[:1] and after.startswith(path[i:])), 0)
            span = (at - head, at + 1 + tail, marker + ELLIPSIS)
            if head + tail >= min(_MIN_ELIDED, len(path) - 1) and not _overlaps(span, spans):
                spans.append(span)
        return sorted(spans)

    return _Rule(find, keep_look=True)


def _wrapped_paths(rows: Sequence[str], replacements: Mapping[str, str]
                  ) -> dict[int, list[tuple[int, int, str]]]:
    """Run paths that a TUI wrapped onto the next row (``…/target/`` | ``tmp/…/workspace``):
    the head becomes the marker, the tail goes. Spans per row, for the first rule."""
    spans: dict[int, list[tuple[int, int, str]]] = {}
    paths = sorted((p for p in replacements if p), key=len, reverse=True)
    for y in range(len(rows) - 1):
        ending, below = rows[y].rstrip(), rows[y + 1]
        indent = len(below) - len(below.lstrip())
        for path in paths:
            need = min(_MIN_ELIDED, len(path) // 2)
            start = below[indent:indent + need]
            cut = path.find(start) if len(start) == need and need else -1
            while cut >= 0 and not (cut and ending.endswith(path[:cut])
                                    and below.startswith(path[cut:], indent)):
                cut = path.find(start, cut + 1)
            if cut > 0 and y not in spans and y + 1 not in spans:
                spans[y] = [(len(ending) - cut, len(ending), replacements[path])]
                spans[y + 1] = [(indent, indent + len(path) - cut, "")]
                break
    return spans


def _overlaps(span: tuple[int, int, str], spans: Iterable[tuple[int, int, str]]) -> bool:
    return any(span[0] < end and start < span[1] for start, end, _ in spans)


# -- cells -------------------------------------------------------------------------------


def _glyphs(row: str, runs: Iterable[StyleRun], width: int) -> list[Glyph]:
    """The row's code points, each with the look of its cell (a wide character's first)."""
    looks = [DEFAULT_LOOK] * width
    for run in runs:
        for x in range(run.first, min(run.last + 1, width)):
            looks[x] = (run.fg, run.bg, run.flags)
    glyphs: list[Glyph] = []
    column = 0
    for char in row:
        size = wcwidth(char)
        look = looks[min(max(column - (size == 0), 0), width - 1)]
        glyphs.append((char, look))
        column += max(size, 0)
    return glyphs


def _masked_columns(regions: Iterable[RegionMask], y: int, width: int,
                    height: int) -> frozenset[int]:
    columns: set[int] = set()
    for region in regions:
        first, last = (n if n >= 0 else height + n for n in region.rows)
        if first <= y <= last:
            left, right = (n if n >= 0 else width + n for n in region.columns)
            columns.update(range(max(left, 0), min(right, width - 1) + 1))
    return frozenset(columns)


def _mask_region(glyphs: list[Glyph], masked: frozenset[int]) -> list[Glyph]:
    if not masked:
        return glyphs
    out: list[Glyph] = []
    column = 0
    hidden = False
    for char, look in glyphs:
        size = max(wcwidth(char), 0)
        if size == 0:  # a combining mark goes with the character before it
            if not hidden:
                out.append((char, look))
            continue
        hidden = any(x in masked for x in range(column, column + size))
        out += [(MASK_FILL, DEFAULT_LOOK)] * size if hidden else [(char, look)]
        column += size
    return out


def _apply(glyphs: list[Glyph], rule: _Rule) -> list[Glyph]:
    spans = rule.find("".join(char for char, _ in glyphs))
    if not spans:
        return glyphs
    out: list[Glyph] = []
    done = 0
    for start, end, new in spans:
        if start < done:  # overlapping finds: the first one wins
            continue
        look = glyphs[start][1] if rule.keep_look else DEFAULT_LOOK
        out += glyphs[done:start]
        out += [(char, look) for char in new]
        done = end
    return out + glyphs[done:]


def _cells(glyphs: list[Glyph], width: int) -> tuple[str, list[tuple[Look, bool]]]:
    """The text of ``glyphs`` and the (look, blank) of each cell it takes, as pyte draws it
    (a wide character's second cell is blank; past the last column, as at the right edge,
    there is no cell)."""
    looks: list[tuple[Look, bool]] = []
    for char, look in glyphs:
        size = wcwidth(char)
        if size <= 0:
            continue
        blank = not char.strip()
        looks.append((visible_look(look) if blank else look, blank))  # as capture_screen
        if size == 2:
            looks.append((visible_look(look), True))
    return "".join(char for char, _ in glyphs), looks[:width]


# -- diff --------------------------------------------------------------------------------


def golden_diff(expected: str, actual: str, *, expected_name: str = "golden",
                actual_name: str = "actual") -> str:
    """A unified diff of two golden texts, ``""`` when they are equal.

    Trailing whitespace and a missing final newline are not differences (editors strip
    them); everything else is.
    """
    left, right = _golden_lines(expected), _golden_lines(actual)
    if left == right:
        return ""
    return "\n".join(difflib.unified_diff(left, right, expected_name, actual_name, lineterm=""))


def _golden_lines(text: str) -> list[str]:
    lines = [line.rstrip() for line in text.splitlines()]
    while lines and not lines[-1]:
        lines.pop()
    return lines
