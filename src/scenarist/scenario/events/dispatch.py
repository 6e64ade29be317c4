"""The timeline's items → events: which event an item holds, and which reader types it.

A timeline item is a one-key mapping (``- llmResponse: [...]``) with a few allowed
sibling keys (``target`` next to ``userInputs``, ``expectedResponse`` next to
``initialize``, ``_meta``), or a bare string for events without fields
(``- sessionStart``). Groups (``agentActions``, ``userActions``) are flattened in place.
Each event key has one reader in a family module; the tool events (every tool of
:data:`scenarist.scenario.tools.TOOLS`, looked up when read) share one.
"""

from __future__ import annotations

from typing import Any

from scenarist.scenario.events import agent, control, fault, llm, tool_use, user
from scenarist.scenario.events.context import Handler, ItemContext
from scenarist.scenario.model import AcpCapabilities, Event
from scenarist.scenario.report import Report, join
from scenarist.scenario.source import MISSING
from scenarist.scenario.tools import TOOLS

__all__ = ["AGENT_EVENTS", "CONTROL_EVENTS", "EVENT_KEYS", "GROUPS", "USER_EVENTS",
           "parse_timeline"]

_READERS: dict[str, Handler] = {**llm.HANDLERS, **tool_use.HANDLERS, **agent.HANDLERS,
                                **user.HANDLERS, **control.HANDLERS, **fault.HANDLERS}
#: the spec's tools are agent events too (tools declared later count as well: see _is_agent);
#: so is a ``fault`` between events (the agent's process or its wire misbehaves)
AGENT_EVENTS = ("llmResponse", "agentToolUse", "agentEdits", "agentPlan", "setMode", "setModel",
                "agentFileReads", "agentPermissionRequest", "fault", *TOOLS)
#: applyPatch changes the workspace from outside the agent, as userEdits does
USER_EVENTS = ("userInputs", "userEdits", "applyPatch", "userCommand", "userCancelSession")
CONTROL_EVENTS = ("initialize", "sessionStart", "assert", "screenshot", "log", "status",
                  "complete", "merge", "baseTimeDelta", "advanceMs")
GROUPS = ("agentActions", "userActions")
EVENT_KEYS = frozenset(AGENT_EVENTS + USER_EVENTS + CONTROL_EVENTS + GROUPS)
_BARE = ("sessionStart", "userCancelSession", "complete", "merge")
_SIBLINGS: dict[str, tuple[str, ...]] = {"userInputs": ("target",),
                                         "initialize": ("expectedResponse",)}
_LEGACY = {
    "think": "- llmResponse:\n      - think:\n          - [500, 'Reading the code']",
    "assistant": "- llmResponse:\n      - assistant:\n          - [200, 'Done.']",
}


def parse_timeline(report: Report, items: list[Any], caps: AcpCapabilities | None,
                   path: str = "timeline") -> list[Event]:
    """Type every item of ``items``; groups are flattened, indices are positions."""
    ctx = ItemContext(report, caps)
    _read_items(ctx, items, path)
    return ctx.events


def _is_event(key: Any) -> bool:
    return key in EVENT_KEYS or key in TOOLS


def _is_agent(key: str) -> bool:
    return key in AGENT_EVENTS or key in TOOLS


def _read_items(ctx: ItemContext, items: list[Any], path: str, group: str | None = None) -> None:
    report = ctx.report
    for i, item in enumerate(items):
        ipath = f"{path}[{i}]"
        if isinstance(item, dict):
            key = _event_key(report, item, ipath)
            if key is MISSING:
                continue
            if key is None:
                _no_event(report, item, ipath)
            elif key in GROUPS:
                _check_siblings(report, item, key, ipath)
                _read_group(ctx, item, key, ipath)
            else:
                _check_siblings(report, item, key, ipath)
                if group is not None:
                    _check_group(report, item, key, ipath, group)
                _read_event(ctx, items, i, item, key, ipath)
        elif isinstance(item, str) and item in _BARE:
            _read_event(ctx, items, i, {item: None}, item, ipath)
        elif isinstance(item, str) and _is_event(item):
            report.error(items, i, ipath, f"'{item}' needs fields",
                         f"write '- {item}:' with its fields indented below")
        else:
            report.wrong_type(items, i, path, "a timeline event such as '- llmResponse: ...'",
                              "- llmResponse:\n      - assistant: [[100, 'Hello']]")


def _event_key(report: Report, item: dict[Any, Any], ipath: str) -> Any:
    """The item's event key; None if it has none; MISSING if it has two (reported)."""
    key = None
    for k in item:
        if _is_event(k):
            if key is not None:
                report.error(item, k, join(ipath, k),
                             f"one timeline item holds one event, but this one has "
                             f"'{key}' and '{k}'",
                             f"start '{k}' on its own '- ' line", on_key=True)
                return MISSING
            key = k
    return key


def _read_event(ctx: ItemContext, items: list[Any], i: int, item: dict[Any, Any], key: str,
                ipath: str) -> None:
    ctx.line, ctx.col = ctx.report.source.where(items, i)
    ctx.item = item
    reader = _READERS.get(key, tool_use.tool_event)
    event = reader(ctx, item[key], item, key, join(ipath, key), ipath)
    if event is not None:
        ctx.events.append(event)


def _check_siblings(report: Report, item: dict[Any, Any], key: str, ipath: str) -> None:
    allowed = _SIBLINGS.get(key, ())
    for k in item:
        if k != key and k != "_meta" and k not in allowed:
            report.warn(item, k, join(ipath, k), f"unknown key {k!r} next to '{key}' is ignored",
                        f"indent it under '{key}:' if it belongs to the event", on_key=True)


def _no_event(report: Report, item: dict[Any, Any], ipath: str) -> None:
    for legacy, supported in _LEGACY.items():
        if legacy in item:
            report.error(item, legacy, join(ipath, legacy),
                         f"a top-level '{legacy}' item is a legacy shape and is not supported",
                         f"put it inside an llmResponse:\n    {supported}", on_key=True)
            return
    if "type" in item:
        report.error(item, "type", ipath,
                     "type-tagged timeline items are a legacy shape and are not supported",
                     f"write the event name as the key, e.g. '- {item['type']}: ...'"
                     if isinstance(item.get("type"), str) else
                     "write the event name as the key, e.g. '- llmResponse: ...'",
                     on_key=True)
        return
    if not item:
        report.error(item, MISSING, ipath, "empty timeline item",
                     "remove the '-' line or write an event")
        return
    for k in item:
        report.warn(item, k, join(ipath, k), f"unknown timeline event {k!r} is ignored",
                    "known events: " + ", ".join(sorted(EVENT_KEYS | TOOLS.keys())), on_key=True)


def _read_group(ctx: ItemContext, item: dict[Any, Any], key: str, ipath: str) -> None:
    value = item[key]
    if not isinstance(value, list):
        ctx.report.wrong_type(item, key, ipath, f"a list of events under '{key}'",
                              f"{key}:\n    - runCmd: {{cmd: 'ls'}}")
        return
    _read_items(ctx, value, join(ipath, key), key)


def _check_group(report: Report, item: dict[Any, Any], key: str, ipath: str, group: str) -> None:
    if (group == "agentActions" and key in USER_EVENTS) or (
            group == "userActions" and _is_agent(key)):
        other = "userActions" if group == "agentActions" else "agentActions"
        report.warn(item, key, join(ipath, key), f"'{key}' inside '{group}'",
                    f"move it to '{other}' or to the top level of the timeline", on_key=True)
