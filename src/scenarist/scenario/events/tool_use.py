"""Tool calls: ``agentToolUse`` and the tool events (``runCmd``, ...) → ``AgentToolUse``.

Both spellings end in one place (:func:`tool_common`); the tool's arguments are checked
against its record in :mod:`scenarist.scenario.tools` and become that record (old names of
tools and arguments read as the current ones, with a warning). Tool names the vocabulary does
not know give a ``GenericTool`` with the arguments as written.
"""

from __future__ import annotations

from typing import Any

from scenarist.scenario.events.context import Handler, ItemContext, read_step, read_time
from scenarist.scenario.model import (
    AgentToolUse,
    Event,
    ExecEvent,
    ProgressStep,
    ToolExecution,
)
from scenarist.scenario.report import Report, join
from scenarist.scenario.source import MISSING
from scenarist.scenario.tools import (
    TOOLS,
    ArgError,
    GenericTool,
    Tool,
    ToolSpec,
    build_tool,
    canonical_tool_name,
    tool_spec,
)

__all__ = ["EXEC_TYPES", "HANDLERS", "TOOL_STATUSES", "tool_event"]

TOOL_STATUSES = ("ok", "error", "pending", "in_progress", "completed", "failed")
EXEC_TYPES = ("stdout", "stderr", "progress", "completion")
_TOOL_LEVEL = frozenset({"progress", "result", "status", "toolExecution", "toolCallId",
                         "rawInput", "_meta"})
_TOOL_USE_KEYS = _TOOL_LEVEL | {"toolName", "args"}


def tool_use(ctx: ItemContext, value: Any, item: dict[Any, Any], key: str, path: str,
             ipath: str) -> Event | None:
    d = ctx.as_mapping(value, item, key, path, "{toolName: runCmd, args: {cmd: 'ls'}}")
    if d is None:
        return None
    report = ctx.report
    report.unknown_keys(d, _TOOL_USE_KEYS, path)
    name = report.string(d, "toolName", path, required=True, nonempty=True, example="runCmd")
    if name is None:
        return None
    canonical = canonical_tool_name(name)
    if canonical is not None and canonical != name:
        report.warn(d, "toolName", join(path, "toolName"),
                    f"toolName {name!r} is read as {canonical!r}", f"write '{canonical}'")
        name = canonical
    args = report.mapping(d, "args", path)
    return _tool_common(ctx, d, path, name, args if args is not None else {}, key, "args")


def tool_event(ctx: ItemContext, value: Any, item: dict[Any, Any], key: str, path: str,
               ipath: str) -> Event | None:
    required = tool_spec(TOOLS[key]).required
    if isinstance(value, str) and required:
        value = {required[0].key: value}
    d = ctx.as_mapping(value, item, key, path,
                       f"{{{', '.join(f'{a.key}: ...' for a in required)}}}")
    if d is None:
        return None
    args = {k: v for k, v in d.items() if k not in _TOOL_LEVEL}
    ctx.report.source.adopt(args, d)
    ctx.report.source.adopt_keys(args, {k: (d, k) for k in args})
    return _tool_common(ctx, d, path, key, args, key, MISSING)


def _tool_common(ctx: ItemContext, d: dict[Any, Any], path: str, name: str, args: dict[Any, Any],
                 source_key: str, args_key: Any) -> AgentToolUse:
    report = ctx.report
    apath = join(path, args_key) if args_key is not MISSING else path
    tool: Tool = (_typed_tool(ctx, tool_spec(TOOLS[name]), args, apath) if name in TOOLS
                  else GenericTool(name, args))
    progress = _progress(report, d, path)
    status = report.choice(d, "status", path, TOOL_STATUSES)
    execution = None
    ex = report.mapping(d, "toolExecution", path)
    if ex is not None:
        execution = _tool_execution(ctx, ex, join(path, "toolExecution"))
    base = ctx.base(path, report.meta(d, path))
    call_id = report.string(d, "toolCallId", path, nonempty=True) or f"call_{base['index']}"
    return AgentToolUse(**base, tool=tool, tool_call_id=call_id,
                        progress=progress, result=d.get("result"), status=status,
                        tool_execution=execution, raw_input=d.get("rawInput"),
                        source_key=source_key)


def _progress(report: Report, d: dict[Any, Any], path: str) -> tuple[ProgressStep, ...]:
    """``progress``: [ms, message] steps (numbers are kept as written)."""
    progress: list[ProgressStep] = []
    steps = report.listing(d, "progress", path) or []
    ppath = join(path, "progress")
    for i in range(len(steps)):
        parsed = read_step(report, steps, i, ppath, ("message", "text", "content"))
        if parsed is None:
            continue
        delay, h, k, _ = parsed
        message = h[k]
        if not isinstance(message, str):
            if isinstance(message, (int, float)) and not isinstance(message, bool):
                message = str(message)
            else:
                report.wrong_type(h, k, join(ppath, i), "a progress message (text)")
                continue
        progress.append(ProgressStep(delay, message))
    return tuple(progress)


def _typed_tool(ctx: ItemContext, spec: ToolSpec, args: dict[Any, Any], path: str) -> Tool:
    """The record of ``spec`` from ``args``: old names read as new, the declared checks."""
    report = ctx.report
    name = spec.name
    renamed: dict[Any, Any] | None = None
    written_as: dict[str, str] = {}  # new spelling -> the old one written
    for arg in spec.args:
        for old in arg.aliases:
            if old in args and arg.key not in args and arg.key not in written_as:
                report.warn(args, old, join(path, old),
                            f"{name} argument {old!r} is read as {arg.key!r}",
                            f"write '{arg.key}'", on_key=True)
                renamed = renamed or dict(args)
                renamed[arg.key] = renamed.pop(old)
                written_as[arg.key] = old
    if renamed is not None:
        report.source.adopt(renamed, args)
        report.source.adopt_keys(renamed, {k: (args, written_as.get(k, k)) for k in renamed})
        args = renamed
    for k in args:
        if spec.arg(k) is None:
            report.warn(args, k, join(path, k), f"{name} has no argument {k!r}; it is ignored",
                        f"{name} takes: {', '.join(a.key for a in spec.args)}", on_key=True)
    values: dict[str, Any] = {}
    for arg in spec.args:
        value = args.get(arg.key)
        if value is None:
            if arg.required:
                report.error(args, MISSING, path, f"{name} needs argument '{arg.key}'",
                             f"add '{arg.key}: ...'")
            continue
        try:
            values[arg.key] = arg.convert(value)
        except ArgError as exc:
            report.wrong_type(args, arg.key, path, exc.want, f"{arg.key}: {exc.example}")
    return build_tool(spec, values)


def _tool_execution(ctx: ItemContext, ex: dict[Any, Any], path: str) -> ToolExecution:
    report = ctx.report
    report.unknown_keys(ex, ("startTimeMs", "events"), path)
    start = read_time(ctx.report, ex, "startTimeMs", path, "startTimeMs") if "startTimeMs" in ex else 0
    events: list[ExecEvent] = []
    items = report.listing(ex, "events", path) or []
    epath = join(path, "events")
    for i, ev in enumerate(items):
        ipath = join(epath, i)
        if not isinstance(ev, dict):
            report.wrong_type(items, i, epath, "a mapping with type, timeMs, content",
                              "{type: stdout, timeMs: 100, content: 'ok'}")
            continue
        report.unknown_keys(ev, ("type", "timeMs", "content", "exitCode"), ipath)
        kind = report.choice(ev, "type", ipath, EXEC_TYPES)
        if kind is None:
            if ev.get("type") is None:  # left out, or null (the same)
                report.error(ev, MISSING, ipath, "a toolExecution event needs 'type'",
                             "type: stdout | stderr | progress | completion")
            continue
        at = read_time(ctx.report, ev, "timeMs", ipath, "timeMs") if "timeMs" in ev else 0
        content = report.string(ev, "content", ipath) or ""
        code = report.integer(ev, "exitCode", ipath, minimum=None)
        line, col = report.source.where(items, i)
        events.append(ExecEvent(kind, at, content, code, line, col))  # type: ignore[arg-type]
    return ToolExecution(start, tuple(events))


HANDLERS: dict[str, Handler] = {
    "agentToolUse": tool_use,
}
