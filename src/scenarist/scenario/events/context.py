"""What every timeline-item reader shares: the report, the events so far, where the item is.

Readers of one event family (:mod:`.llm`, :mod:`.tool_use`, :mod:`.agent`, :mod:`.user`,
:mod:`.control`) are plain functions ``(ctx, value, item, key, path, ipath) -> Event | None``:
``value`` is the event's value, ``item`` the timeline item holding it (for siblings such as
``_meta``), ``path`` the key path of the value and ``ipath`` that of the item.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from scenarist.scenario.model import AcpCapabilities, Event
from scenarist.scenario.record import Record, field
from scenarist.scenario.report import Report, join
from scenarist.scenario.source import MISSING

__all__ = ["Handler", "ItemContext", "is_time", "read_step", "read_time"]


class ItemContext(Record, frozen=False):
    """One timeline being read: where problems go, what is built, the item being read."""

    report: Report
    caps: AcpCapabilities | None  # the scenario's ACP capabilities (prompt content checks)
    events: list[Event] = field(default_factory=list)
    line: int = 0  # source position of the current item
    col: int = 0
    item: dict[Any, Any] = field(default_factory=dict)

    def base(self, path: str, meta: dict[str, Any] | None = None) -> dict[str, Any]:
        """The fields every event has: index, key path, position and ``_meta`` (the event's,
        else the item's)."""
        item_meta = self.item.get("_meta")
        if meta is None and isinstance(item_meta, dict):
            meta = item_meta
        return {"index": len(self.events), "key_path": path, "line": self.line, "col": self.col,
                "meta": meta}

    def as_mapping(self, value: Any, item: dict[Any, Any], key: str, path: str,
                   example: str) -> dict[Any, Any] | None:
        """``value`` if it is a mapping, else reported (with ``example``) and None."""
        if isinstance(value, dict):
            return value
        self.report.wrong_type(item, key, path.rsplit(".", 1)[0], "a mapping of fields", example)
        return None


Handler = Callable[[ItemContext, Any, dict[Any, Any], str, str, str], Event | None]


def is_time(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    return (isinstance(value, int) and value >= 0) or (
        isinstance(value, float) and value >= 0 and value.is_integer())


def read_time(report: Report, holder: Any, key: Any, path: str, what: str = "time") -> int:
    """``holder[key]`` as whole milliseconds >= 0 (reported and 0 when it is not)."""
    value = holder[key]
    if is_time(value):
        return int(value)
    report.error(holder, key, join(path, key),
                 f"{what} must be a whole number of milliseconds >= 0, got {value!r}",
                 "write e.g. 500 (ms)")
    return 0


def read_step(report: Report, steps: list[Any], i: int, path: str,
              text_keys: tuple[str, ...]) -> tuple[int, Any, Any, dict[str, Any] | None] | None:
    """A step in pair form ``[ms, value]`` or object form: (delay, holder, key, meta)."""
    s = steps[i]
    spath = join(path, i)
    if isinstance(s, list):
        if len(s) != 2:
            report.error(steps, i, spath,
                         f"a step pair has 2 items [milliseconds, content], got {len(s)}",
                         "write [500, 'text']")
            return None
        return read_time(report, s, 0, spath), s, 1, None
    if isinstance(s, dict):
        tkey = "relativeTime" if "relativeTime" in s else "timestamp" if "timestamp" in s else None
        delay = read_time(report, s, tkey, spath) if tkey is not None else 0
        vkey = next((k for k in text_keys if k in s), None)
        for k in s:
            if k not in text_keys and k not in ("relativeTime", "timestamp", "_meta"):
                report.warn(s, k, join(spath, k), f"unknown key {k!r} in a step is ignored",
                            f"a step has relativeTime, {text_keys[0]} and _meta", on_key=True)
        if vkey is None:
            report.error(s, MISSING, spath, f"a step needs '{text_keys[0]}'",
                         f"write {{relativeTime: 500, {text_keys[0]}: '...'}}")
            return None
        return delay, s, vkey, report.meta(s, spath)
    example = f"[0, {s!r}]" if isinstance(s, str) else "[500, 'text']"
    report.wrong_type(steps, i, path, "a step: [milliseconds, content] or "
                      f"{{relativeTime: ms, {text_keys[0]}: ...}}", example)
    return None
