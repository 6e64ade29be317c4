"""Screen masks: what a scenario declares volatile on a screen (``screen.masks`` and a
``screenshot``'s own ``masks``), read into :class:`TextMask` / :class:`RegionMask`.

A mask is either a regular expression over the text of each row (``regex``, with
``replace``) or a rectangle of cells (``rows``, ``columns``). A regex that does not compile,
a replacement naming a group the regex lacks, or a regex that matches the empty string (it
would mask nothing) is refused here, located, so a run never starts with a mask that cannot
apply. The runner applies them (``scenarist.runner.golden``).
"""

from __future__ import annotations

import re
from typing import Any

from scenarist.scenario.model import RegionMask, ScreenMask, TextMask
from scenarist.scenario.report import Report, join
from scenarist.scenario.source import MISSING

__all__ = ["MASK_KEYS", "parse_masks", "parse_screen"]

MASK_KEYS = ("regex", "replace", "rows", "columns")
_EXAMPLE = r"{regex: '\d\d?:\d\d', replace: '[CLOCK]'} or {rows: -1}"


def parse_screen(report: Report, top: dict[Any, Any]) -> tuple[ScreenMask, ...]:
    """The top-level ``screen`` section: ``masks`` applied to every screenshot."""
    d = report.mapping(top, "screen", "")
    if d is None:
        return ()
    report.unknown_keys(d, ("masks",), "screen")
    return parse_masks(report, d, "masks", "screen")


def parse_masks(report: Report, d: dict[Any, Any], key: str, path: str) -> tuple[ScreenMask, ...]:
    """The list ``d[key]`` of masks, each checked where it is written."""
    masks: list[ScreenMask] = []
    for ipath, item in report.records(d, key, path, MASK_KEYS, "a mask", _EXAMPLE):
        mask = _text_mask(report, item, ipath) if "regex" in item else _region(report, item, ipath)
        if mask is not None:
            masks.append(mask)
    return tuple(masks)


def _text_mask(report: Report, item: dict[Any, Any], path: str) -> TextMask | None:
    if "rows" in item or "columns" in item:
        report.error(item, "regex", join(path, "regex"), "a mask is a regex or a region of "
                     "rows and columns, not both", "split it into two masks")
        return None
    regex = report.string(item, "regex", path, nonempty=True, example=r"'\d+s'")
    replace = report.string(item, "replace", path)
    if not regex:
        return None
    try:
        compiled = re.compile(regex)
        if replace is not None:
            compiled.sub(replace, "")  # checks group references, even without a match
    except re.error as exc:
        bad = "replace" if replace is not None and _compiles(regex) else "regex"
        report.error(item, bad, join(path, bad), f"{bad} is not valid: {exc}",
                     r"Python re syntax; write \( \[ \. \* \+ \? \\ to match those literally, "
                     r"\1 or \g<name> for a group in replace")
        return None
    if compiled.fullmatch(""):
        report.error(item, "regex", join(path, "regex"), f"regex {regex!r} matches the empty "
                     "text, so it masks nothing", r"make it match at least one character, "
                     r"e.g. '\d+' rather than '\d*'")
        return None
    return TextMask(regex, "[MASKED]" if replace is None else replace)


def _compiles(regex: str) -> bool:
    try:
        re.compile(regex)
    except re.error:
        return False
    return True


def _region(report: Report, item: dict[Any, Any], path: str) -> RegionMask | None:
    if "rows" not in item and "columns" not in item:
        report.error(item, MISSING, path, "a mask needs regex (text to mask) or rows/columns (a region)",
                     f"for example: {_EXAMPLE}")
        return None
    if "replace" in item:
        report.warn(item, "replace", join(path, "replace"), "replace is for regex masks; a "
                    "region is written as ░", "remove replace")
    rows = _span(report, item, "rows", path)
    columns = _span(report, item, "columns", path)
    if rows is None or columns is None:
        return None
    return RegionMask(rows, columns)


def _span(report: Report, item: dict[Any, Any], key: str, path: str) -> tuple[int, int] | None:
    """``rows``/``columns``: one index, or ``[first, last]`` (inclusive); absent is all."""
    value = item.get(key)
    if value is None:
        return (0, -1)
    if _index(value):
        return (value, value)
    if isinstance(value, list) and len(value) == 2 and all(_index(v) for v in value):
        first, last = value
        if first > last and (first < 0) == (last < 0):  # same end, wrong order
            report.error(item, key, join(path, key), f"{key} [{first}, {last}] is empty: the "
                         "first comes after the last", f"write [{last}, {first}]")
            return None
        return (first, last)
    report.wrong_type(item, key, path, "a row/column number or [first, last]",
                      f"{key}: [0, 9] (negative numbers count from the end: -1 is the last)")
    return None


def _index(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)
