"""The agent's other events: ``agentEdits``, ``agentPlan``, ``setMode``, ``setModel``,
``agentFileReads`` and ``agentPermissionRequest``."""

from __future__ import annotations

from typing import Any

from scenarist.scenario.content import parse_plan_entries
from scenarist.scenario.events.context import Handler, ItemContext
from scenarist.scenario.model import (
    AgentEdits,
    AgentFileReads,
    AgentPermissionRequest,
    AgentPlan,
    Event,
    FileRead,
    PermissionDecision,
    PermissionOption,
    SetMode,
    SetModel,
)
from scenarist.scenario.report import Report, join
from scenarist.scenario.source import MISSING

__all__ = ["HANDLERS", "PERMISSION_KINDS"]

PERMISSION_KINDS = ("allow_once", "allow_always", "reject_once", "reject_always")


def agent_edits(ctx: ItemContext, value: Any, item: dict[Any, Any], key: str, path: str,
                ipath: str) -> Event | None:
    d = ctx.as_mapping(value, item, key, path, "{path: hello.py, linesAdded: 1, linesRemoved: 0}")
    if d is None:
        return None
    report = ctx.report
    report.unknown_keys(d, ("path", "linesAdded", "linesRemoved", "oldText", "newText",
                            "description", "toolCallId", "_meta"), path)
    target = report.string(d, "path", path, required=True, nonempty=True, example="hello.py")
    base = ctx.base(path, report.meta(d, path))
    return AgentEdits(**base, path=target or "",
                      lines_added=report.integer(d, "linesAdded", path, 0) or 0,
                      lines_removed=report.integer(d, "linesRemoved", path, 0) or 0,
                      old_text=report.string(d, "oldText", path),
                      new_text=report.string(d, "newText", path),
                      description=report.string(d, "description", path),
                      tool_call_id=report.string(d, "toolCallId", path)
                      or f"call_{base['index']}")


def agent_plan(ctx: ItemContext, value: Any, item: dict[Any, Any], key: str, path: str,
               ipath: str) -> Event | None:
    d = ctx.as_mapping(value, item, key, path, "{entries: [{content: 'Read code'}]}")
    if d is None:
        return None
    ctx.report.unknown_keys(d, ("entries", "planUpdate", "_meta"), path)
    entries = parse_plan_entries(ctx.report, d, path)
    return AgentPlan(**ctx.base(path, ctx.report.meta(d, path)), entries=entries,
                     plan_update=ctx.report.boolean(d, "planUpdate", path, True))


def _id_event(ctx: ItemContext, value: Any, item: dict[Any, Any], key: str, path: str,
              field: str) -> tuple[dict[str, Any], str] | None:
    if isinstance(value, str):
        return ctx.base(path), value
    d = ctx.as_mapping(value, item, key, path, f"{{{field}: ...}}")
    if d is None:
        return None
    ctx.report.unknown_keys(d, (field, "_meta"), path)
    got = ctx.report.string(d, field, path, required=True, nonempty=True)
    return ctx.base(path, ctx.report.meta(d, path)), got or ""


def set_mode(ctx: ItemContext, value: Any, item: dict[Any, Any], key: str, path: str,
             ipath: str) -> Event | None:
    got = _id_event(ctx, value, item, key, path, "modeId")
    return None if got is None else SetMode(**got[0], mode_id=got[1])


def set_model(ctx: ItemContext, value: Any, item: dict[Any, Any], key: str, path: str,
              ipath: str) -> Event | None:
    got = _id_event(ctx, value, item, key, path, "modelId")
    return None if got is None else SetModel(**got[0], model_id=got[1])


def file_reads(ctx: ItemContext, value: Any, item: dict[Any, Any], key: str, path: str,
               ipath: str) -> Event | None:
    report = ctx.report
    if isinstance(value, list):
        files, fpath = value, path
    else:
        d = ctx.as_mapping(value, item, key, path, "{files: [{path: /workspace/a.py}]}")
        if d is None:
            return None
        report.unknown_keys(d, ("files", "_meta"), path)
        files, fpath = report.listing(d, "files", path, required=True) or [], join(path, "files")
    out: list[FileRead] = []
    for i, f in enumerate(files):
        fp = join(fpath, i)
        if isinstance(f, str):
            f = {"path": f}
        if not isinstance(f, dict):
            report.wrong_type(files, i, fpath, "a mapping with path and expectedContent")
            continue
        report.unknown_keys(f, ("path", "expectedContent"), fp)
        p = report.string(f, "path", fp, required=True, example="/workspace/main.py")
        if p is not None and not p.startswith("/"):
            report.error(f, "path", join(fp, "path"), f"agentFileReads paths are absolute, got {p!r}",
                         "write the full path, e.g. '/workspace/main.py' (ACP fs methods need it)")
        out.append(FileRead(p or "", report.string(f, "expectedContent", fp)))
    meta = report.meta(value, path) if isinstance(value, dict) else None
    return AgentFileReads(**ctx.base(path, meta), files=tuple(out))


def permission(ctx: ItemContext, value: Any, item: dict[Any, Any], key: str, path: str,
               ipath: str) -> Event | None:
    report = ctx.report
    d = ctx.as_mapping(value, item, key, path, "{options: [...], granted: true}")
    if d is None:
        return None
    report.unknown_keys(d, ("sessionId", "toolCall", "options", "decision", "granted", "_meta"),
                        path)
    options = _options(report, d, path)
    decision = _decision(report, d, path, options)
    tool_call = report.mapping(d, "toolCall", path) or {}
    base = ctx.base(path, report.meta(d, path))
    if "toolCallId" not in tool_call:
        tool_call = {**tool_call, "toolCallId": f"call_{base['index']}"}
    return AgentPermissionRequest(**base, options=options,
                                  decision=decision or PermissionDecision("cancelled"),
                                  tool_call=tool_call,
                                  session_id=report.string(d, "sessionId", path))


def _options(report: Report, d: dict[Any, Any], path: str) -> tuple[PermissionOption, ...]:
    options: list[PermissionOption] = []
    for op, o in report.records(d, "options", path,
                                ("id", "optionId", "label", "name", "kind", "_meta"),
                                "a mapping with id, label, kind",
                                "{id: allow, label: 'Allow once', kind: allow_once}",
                                required=True):
        oid = report.string(o, "id" if "id" in o else "optionId", op, required=True, nonempty=True)
        label = report.string(o, "label" if "label" in o else "name", op) or oid or ""
        kind = report.choice(o, "kind", op, PERMISSION_KINDS)
        if kind is None and o.get("kind") is None:  # left out, or null (the same)
            report.error(o, MISSING, op, "a permission option needs 'kind'",
                         f"kind: one of {', '.join(PERMISSION_KINDS)}")
        options.append(PermissionOption(oid or "", label, kind or "allow_once"))  # type: ignore[arg-type]
    ids = [o.option_id for o in options]
    if len(set(ids)) != len(ids):
        report.error(d, "options", join(path, "options"), "permission option ids must be unique",
                     "give each option its own id")
    return tuple(options)


def _decision(report: Report, d: dict[Any, Any], path: str,
              options: tuple[PermissionOption, ...]) -> PermissionDecision | None:
    """``decision`` as written, or what ``granted`` is shorthand for."""
    if "decision" in d and "granted" in d:
        report.error(d, "granted", join(path, "granted"),
                     "use either 'decision' or 'granted', not both",
                     "'granted: true' is shorthand for selecting the first allow_once option")
        return None
    if "decision" in d:
        return _written_decision(report, d, path, [o.option_id for o in options])
    if "granted" in d:
        granted = report.boolean(d, "granted", path)
        want = "allow_once" if granted else "reject_once"
        chosen = next((o for o in options if o.kind == want), None)
        if chosen is None and options:
            report.error(d, "granted", join(path, "granted"),
                         f"'granted: {str(granted).lower()}' selects the first {want} option, "
                         "but there is none", f"add an option with kind: {want}, or use 'decision'")
        return PermissionDecision("selected", chosen.option_id if chosen else None)
    report.error(d, MISSING, path, "a permission request needs 'decision' or 'granted'",
                 "add 'granted: true' (or a decision: {outcome: selected, optionId: ...})")
    return None


def _written_decision(report: Report, d: dict[Any, Any], path: str,
                      ids: list[str]) -> PermissionDecision | None:
    dec = report.mapping(d, "decision", path)
    if dec is None:
        return None
    dpath = join(path, "decision")
    report.unknown_keys(dec, ("outcome", "optionId", "_meta"), dpath)
    outcome = report.choice(dec, "outcome", dpath, ("selected", "cancelled"))
    option_id = report.string(dec, "optionId", dpath)
    if outcome is None and dec.get("outcome") is None:  # left out, or null (the same)
        report.error(dec, MISSING, dpath, "a decision needs 'outcome'",
                     "outcome: selected (with optionId) or cancelled")
    elif outcome == "selected":
        if option_id is None:
            report.error(dec, MISSING, dpath, "outcome 'selected' needs 'optionId'",
                         f"add optionId: one of {ids}")
        elif option_id not in ids:
            report.error(dec, "optionId", join(dpath, "optionId"),
                         f"optionId {option_id!r} is not one of the options {ids}",
                         "use the id of one of the options")
    if outcome is None:
        return None
    return PermissionDecision(outcome, option_id)  # type: ignore[arg-type]


HANDLERS: dict[str, Handler] = {
    "agentEdits": agent_edits, "agentPlan": agent_plan, "setMode": set_mode, "setModel": set_model,
    "agentFileReads": file_reads, "agentPermissionRequest": permission,
}
