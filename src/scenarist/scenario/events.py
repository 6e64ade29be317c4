"""Timeline items → typed events: every event of the spec, its aliases and both step forms.

A timeline item is a one-key mapping (``- llmResponse: [...]``) with a few allowed
sibling keys (``target`` next to ``userInputs``, ``expectedResponse`` next to
``initialize``, ``_meta``), or a bare string for events without fields
(``- sessionStart``). Groups (``agentActions``, ``userActions``) are flattened in place.
Tool-specific events (``runCmd``, ``grep``, ...) become :class:`AgentToolUse` with the
event key as ``tool_name`` and the remaining fields as ``args``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from scenarist.scenario.content import parse_content, parse_plan_entries
from scenarist.scenario.model import (
    AcpCapabilities,
    AgentEdits,
    AgentFileReads,
    AgentPermissionRequest,
    AgentPlan,
    AgentToolUse,
    Assert,
    AudioContent,
    BaseTimeDelta,
    Complete,
    ContentBlock,
    DiffContent,
    Event,
    ExecEvent,
    FileRead,
    GitCommitAssert,
    ImageContent,
    Initialize,
    JsonFileAssert,
    LlmError,
    LlmResponse,
    Log,
    Merge,
    PermissionDecision,
    PermissionOption,
    PlanContent,
    ProgressStep,
    ResourceContent,
    Screenshot,
    SessionStart,
    SetMode,
    SetModel,
    Status,
    TextContent,
    TextStep,
    ToolExecution,
    UserCancelSession,
    UserCommand,
    UserEdits,
    UserInput,
    UserInputs,
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

__all__ = ["AGENT_EVENTS", "EVENT_KEYS", "USER_EVENTS", "parse_timeline"]

_TOOL_LEVEL = frozenset({"progress", "result", "status", "toolExecution", "toolCallId",
                         "rawInput", "_meta"})
_TOOL_USE_KEYS = _TOOL_LEVEL | {"toolName", "args"}
TOOL_STATUSES = ("ok", "error", "pending", "in_progress", "completed", "failed")
EXEC_TYPES = ("stdout", "stderr", "progress", "completion")
PERMISSION_KINDS = ("allow_once", "allow_always", "reject_once", "reject_always")
TARGETS = ("tui", "webui", "cli")

AGENT_EVENTS = ("llmResponse", "agentToolUse", "agentEdits", "agentPlan", "setMode", "setModel",
                "agentFileReads", "agentPermissionRequest", *TOOLS)
USER_EVENTS = ("userInputs", "userEdits", "userCommand", "userCancelSession")
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
_ELEMENTS = ("think", "assistant", "error")

Handler = Callable[[Any, dict[Any, Any], str, str, str], Event | None]


def _is_time(value: Any) -> bool:
    return (value.__class__ is int and value >= 0) or (
        value.__class__ is float and value >= 0 and value.is_integer())


class _Timeline:
    """Builds the flat event list of one timeline, reporting into ``report``."""

    def __init__(self, report: Report, caps: AcpCapabilities | None) -> None:
        self.report = report
        self.caps = caps
        self.events: list[Event] = []
        self.handlers: dict[str, Handler] = {
            "llmResponse": self.llm_response, "agentToolUse": self.tool_use,
            "agentEdits": self.agent_edits, "agentPlan": self.agent_plan,
            "setMode": self.set_mode, "setModel": self.set_model,
            "agentFileReads": self.file_reads, "agentPermissionRequest": self.permission,
            "userInputs": self.user_inputs, "userEdits": self.user_edits,
            "userCommand": self.user_command, "userCancelSession": self.cancel,
            "initialize": self.initialize, "sessionStart": self.session_start,
            "assert": self.assertion, "screenshot": self.screenshot, "log": self.log,
            "status": self.status, "complete": self.complete, "merge": self.merge,
            "baseTimeDelta": self.base_time_delta, "advanceMs": self.base_time_delta,
        }
        self._line = 0
        self._col = 0
        self._item: dict[Any, Any] = {}

    # -- items -----------------------------------------------------------------------
    def items(self, items: list[Any], path: str, group: str | None = None) -> None:
        report = self.report
        where = report.source.where
        for i, item in enumerate(items):
            ipath = f"{path}[{i}]"
            if item.__class__ is dict:
                key = None
                for k in item:
                    if k in EVENT_KEYS or k in TOOLS:
                        if key is not None:
                            report.error(item, k, join(ipath, k),
                                         f"one timeline item holds one event, but this one has "
                                         f"'{key}' and '{k}'",
                                         f"start '{k}' on its own '- ' line", on_key=True)
                            break
                        key = k
                else:
                    if key is None:
                        self.no_event(item, ipath, group)
                        continue
                    allowed = _SIBLINGS.get(key, ())
                    for k in item:
                        if k != key and k != "_meta" and k not in allowed:
                            report.warn(item, k, join(ipath, k), f"unknown key {k!r} next to "
                                        f"'{key}' is ignored",
                                        f"indent it under '{key}:' if it belongs to the event",
                                        on_key=True)
                    if key in GROUPS:
                        self.group(item, key, ipath)
                        continue
                    if group is not None:
                        self.check_group(item, key, ipath, group)
                    self._line, self._col = where(items, i)
                    self._item = item
                    handler = self.handlers.get(key, self.tool_event)
                    event = handler(item[key], item, key, join(ipath, key), ipath)
                    if event is not None:
                        self.events.append(event)
            elif item.__class__ is str and item in _BARE:
                self._line, self._col = where(items, i)
                self._item = {item: None}
                event = self.handlers[item](None, self._item, item, join(ipath, item), ipath)
                if event is not None:
                    self.events.append(event)
            elif item.__class__ is str and (item in EVENT_KEYS or item in TOOLS):
                report.error(items, i, ipath, f"'{item}' needs fields",
                             f"write '- {item}:' with its fields indented below")
            else:
                report.wrong_type(items, i, path, "a timeline event such as '- llmResponse: ...'",
                                  "- llmResponse:\n      - assistant: [[100, 'Hello']]")

    def no_event(self, item: dict[Any, Any], ipath: str, group: str | None) -> None:
        report = self.report
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
                        "known events: " + ", ".join(sorted(EVENT_KEYS | TOOLS.keys())),
                        on_key=True)

    def group(self, item: dict[Any, Any], key: str, ipath: str) -> None:
        value = item[key]
        if value.__class__ is not list:
            self.report.wrong_type(item, key, ipath, f"a list of events under '{key}'",
                                   f"{key}:\n    - runCmd: {{cmd: 'ls'}}")
            return
        self.items(value, join(ipath, key), key)

    def check_group(self, item: dict[Any, Any], key: str, ipath: str, group: str) -> None:
        if (group == "agentActions" and key in USER_EVENTS) or (
                group == "userActions" and (key in AGENT_EVENTS or key in TOOLS)):
            other = "userActions" if group == "agentActions" else "agentActions"
            self.report.warn(item, key, join(ipath, key), f"'{key}' inside '{group}'",
                             f"move it to '{other}' or to the top level of the timeline",
                             on_key=True)

    def base(self, path: str, meta: dict[str, Any] | None = None) -> dict[str, Any]:
        item_meta = self._item.get("_meta")
        if meta is None and isinstance(item_meta, dict):
            meta = item_meta
        return {"index": len(self.events), "key_path": path, "line": self._line, "col": self._col,
                "meta": meta}

    def as_mapping(self, value: Any, item: dict[Any, Any], key: str, path: str,
                   example: str) -> dict[Any, Any] | None:
        if value.__class__ is dict:
            return value  # type: ignore[no-any-return]
        self.report.wrong_type(item, key, path.rsplit(".", 1)[0], "a mapping of fields", example)
        return None

    # -- steps -----------------------------------------------------------------------
    def time(self, holder: Any, key: Any, path: str, what: str = "time") -> int:
        value = holder[key]
        if _is_time(value):
            return int(value)
        self.report.error(holder, key, join(path, key),
                          f"{what} must be a whole number of milliseconds >= 0, got {value!r}",
                          "write e.g. 500 (ms)")
        return 0

    def step(self, steps: list[Any], i: int, path: str,
             text_keys: tuple[str, ...]) -> tuple[int, Any, Any, dict[str, Any] | None] | None:
        """A step in pair form ``[ms, value]`` or object form: (delay, holder, key, meta)."""
        s = steps[i]
        spath = join(path, i)
        cls = s.__class__
        if cls is list:
            if len(s) != 2:
                self.report.error(steps, i, spath,
                                  f"a step pair has 2 items [milliseconds, content], got {len(s)}",
                                  "write [500, 'text']")
                return None
            return self.time(s, 0, spath), s, 1, None
        if cls is dict:
            tkey = "relativeTime" if "relativeTime" in s else "timestamp" if "timestamp" in s else None
            delay = self.time(s, tkey, spath) if tkey is not None else 0
            vkey = next((k for k in text_keys if k in s), None)
            for k in s:
                if k not in text_keys and k not in ("relativeTime", "timestamp", "_meta"):
                    self.report.warn(s, k, join(spath, k), f"unknown key {k!r} in a step is ignored",
                                     f"a step has relativeTime, {text_keys[0]} and _meta",
                                     on_key=True)
            if vkey is None:
                self.report.error(s, MISSING, spath, f"a step needs '{text_keys[0]}'",
                                  f"write {{relativeTime: 500, {text_keys[0]}: '...'}}")
                return None
            return delay, s, vkey, self.report.meta(s, spath)
        if cls is str:
            return 0, steps, i, None
        self.report.wrong_type(steps, i, path, "a step: [milliseconds, content] or "
                               f"{{relativeTime: ms, {text_keys[0]}: ...}}", "[500, 'text']")
        return None

    def text_steps(self, holder: dict[Any, Any], key: str, path: str,
                   kind: str) -> list[TextStep]:
        value = holder[key]
        out: list[TextStep] = []
        if value.__class__ is not list:
            self.report.wrong_type(holder, key, path.rsplit(".", 1)[0],
                                   f"a list of {kind} steps", f"{kind}:\n  - [500, 'text']")
            return out
        for i in range(len(value)):
            parsed = self.step(value, i, path, ("content", "text"))
            if parsed is None:
                continue
            delay, h, k, meta = parsed
            content = parse_content(self.report, h, k, join(path, i))
            if content is None:
                continue
            if kind == "think" and not isinstance(content, TextContent):
                self.report.error(h, k, join(join(path, i), k), "think steps are text",
                                  "write the thought as a string")
                continue
            out.append(TextStep(kind, delay, content, meta))  # type: ignore[arg-type]
        return out

    # -- agent events ----------------------------------------------------------------
    def llm_response(self, value: Any, item: dict[Any, Any], key: str, path: str,
                     ipath: str) -> Event | None:
        report = self.report
        elements: list[tuple[dict[Any, Any], str, str]] = []
        meta = None
        if value.__class__ is dict:
            meta = report.meta(value, path)
            for k in value:
                if k in _ELEMENTS:
                    elements.append((value, k, join(path, k)))
                elif k == "agentToolUse" or k in TOOLS:
                    self.inline_tool(value, k, path)
                elif k != "_meta":
                    report.warn(value, k, join(path, k), f"unknown key {k!r} in llmResponse is ignored",
                                "an llmResponse holds think, assistant, error and _meta", on_key=True)
        elif value.__class__ is list:
            for i, element in enumerate(value):
                epath = join(path, i)
                if element.__class__ is not dict:
                    report.wrong_type(value, i, path, "an element: think, assistant or error",
                                      "- assistant:\n    - [100, 'Hello']")
                    continue
                found = [k for k in element if k in _ELEMENTS]
                for k in element:
                    if k in _ELEMENTS or k == "_meta":
                        continue
                    if k == "agentToolUse" or k in TOOLS:
                        self.inline_tool(element, k, epath)
                    else:
                        report.warn(element, k, join(epath, k), f"unknown key {k!r} is ignored",
                                    "an element holds one of think/assistant/error, and _meta",
                                    on_key=True)
                if len(found) != 1:
                    if len(found) > 1:
                        report.error(element, found[1], join(epath, found[1]),
                                     f"one element per '- ' item, but this one has {found}",
                                     f"start '{found[1]}' on its own '- ' line", on_key=True)
                    elif not any(k == "agentToolUse" or k in TOOLS for k in element):
                        report.error(value, i, epath, "an llmResponse element needs think, "
                                     "assistant or error", "- think:\n    - [300, 'Reading']")
                    continue
                elements.append((element, found[0], join(epath, found[0])))
                element_meta = report.meta(element, epath)
                if element_meta is not None and meta is None:
                    meta = element_meta
        else:
            report.wrong_type(item, key, ipath, "a list of think/assistant/error elements",
                              "llmResponse:\n    - assistant: [[100, 'Hello']]")
            return None
        steps: list[TextStep | LlmError] = []
        issues_before = len(report.issues)
        for holder, k, epath in elements:
            if k == "error":
                err = self.llm_error(holder, epath)
                if err is not None:
                    steps.append(err)
            else:
                steps.extend(self.text_steps(holder, k, epath, k))
        if not steps and len(report.issues) == issues_before:
            report.error(item, key, path, "this llmResponse has no think, assistant or error steps",
                         "add '- assistant: [[100, \"...\"]]' or remove the item")
        return LlmResponse(**self.base(path, meta), steps=tuple(steps))

    def inline_tool(self, holder: dict[Any, Any], key: str, path: str) -> None:
        self.report.error(holder, key, join(path, key),
                          "tool use inside llmResponse is not supported",
                          f"move '{key}' out of the llmResponse to its own timeline item right "
                          "after it (the mock model API attaches it to the response)", on_key=True)

    def llm_error(self, holder: dict[Any, Any], path: str) -> LlmError | None:
        report = self.report
        d = holder["error"]
        if d.__class__ is not dict:
            report.wrong_type(holder, "error", path.rsplit(".", 1)[0], "a mapping with errorType, "
                              "statusCode, message", "{errorType: rate_limit_exceeded, "
                              "statusCode: 429, message: 'Slow down'}")
            return None
        report.unknown_keys(d, ("errorType", "statusCode", "message", "details",
                                "retryAfterSeconds", "relativeTime", "_meta"), path)
        error_type = report.string(d, "errorType", path, required=True, example="rate_limit_exceeded")
        message = report.string(d, "message", path) or error_type or ""
        status = report.integer(d, "statusCode", path, 400, minimum=None) or 400
        if not 400 <= status <= 599:
            report.error(d, "statusCode", join(path, "statusCode"),
                         f"statusCode {status} is not an HTTP error status",
                         "use 400..599, e.g. 429 for rate limits, 500 for server errors")
        retry = report.number(d, "retryAfterSeconds", path)
        if retry is not None and retry < 0:
            report.error(d, "retryAfterSeconds", join(path, "retryAfterSeconds"),
                         "retryAfterSeconds must be >= 0", "use e.g. 1")
        delay = self.time(d, "relativeTime", path) if "relativeTime" in d else 0
        return LlmError(error_type or "", message, status, d.get("details"), retry, delay,
                        report.meta(d, path))

    def tool_use(self, value: Any, item: dict[Any, Any], key: str, path: str,
                 ipath: str) -> Event | None:
        d = self.as_mapping(value, item, key, path, "{toolName: runCmd, args: {cmd: 'ls'}}")
        if d is None:
            return None
        report = self.report
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
        return self.tool_common(d, path, name, args if args is not None else {}, key, "args")

    def tool_event(self, value: Any, item: dict[Any, Any], key: str, path: str,
                   ipath: str) -> Event | None:
        required = tool_spec(TOOLS[key]).required
        if isinstance(value, str) and required:
            value = {required[0].key: value}
        d = self.as_mapping(value, item, key, path,
                            f"{{{', '.join(f'{a.key}: ...' for a in required)}}}")
        if d is None:
            return None
        args = {k: v for k, v in d.items() if k not in _TOOL_LEVEL}
        self.report.source.adopt(args, d)
        self.report.source.adopt_keys(args, {k: (d, k) for k in args})
        return self.tool_common(d, path, key, args, key, MISSING)

    def tool_common(self, d: dict[Any, Any], path: str, name: str, args: dict[Any, Any],
                    source_key: str, args_key: Any) -> AgentToolUse:
        report = self.report
        apath = join(path, args_key) if args_key is not MISSING else path
        tool: Tool = (self.typed_tool(tool_spec(TOOLS[name]), args, apath) if name in TOOLS
                      else GenericTool(name, args))
        progress: list[ProgressStep] = []
        steps = report.listing(d, "progress", path)
        if steps:
            ppath = join(path, "progress")
            for i in range(len(steps)):
                parsed = self.step(steps, i, ppath, ("message", "text", "content"))
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
        status = report.choice(d, "status", path, TOOL_STATUSES)
        execution = None
        ex = report.mapping(d, "toolExecution", path)
        if ex is not None:
            execution = self.tool_execution(ex, join(path, "toolExecution"))
        base = self.base(path, report.meta(d, path))
        call_id = report.string(d, "toolCallId", path, nonempty=True) or f"call_{base['index']}"
        return AgentToolUse(**base, tool=tool, tool_call_id=call_id,
                            progress=tuple(progress), result=d.get("result"), status=status,
                            tool_execution=execution, raw_input=d.get("rawInput"),
                            source_key=source_key)

    def typed_tool(self, spec: ToolSpec, args: dict[Any, Any], path: str) -> Tool:
        """The record of ``spec`` from ``args``: old names read as new, the declared checks."""
        report = self.report
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

    def tool_execution(self, ex: dict[Any, Any], path: str) -> ToolExecution:
        report = self.report
        report.unknown_keys(ex, ("startTimeMs", "events"), path)
        start = self.time(ex, "startTimeMs", path, "startTimeMs") if "startTimeMs" in ex else 0
        events: list[ExecEvent] = []
        items = report.listing(ex, "events", path) or []
        epath = join(path, "events")
        for i, ev in enumerate(items):
            ipath = join(epath, i)
            if ev.__class__ is not dict:
                report.wrong_type(items, i, epath, "a mapping with type, timeMs, content",
                                  "{type: stdout, timeMs: 100, content: 'ok'}")
                continue
            report.unknown_keys(ev, ("type", "timeMs", "content", "exitCode"), ipath)
            kind = report.choice(ev, "type", ipath, EXEC_TYPES)
            if kind is None:
                if "type" not in ev:
                    report.error(ev, MISSING, ipath, "a toolExecution event needs 'type'",
                                 "type: stdout | stderr | progress | completion")
                continue
            at = self.time(ev, "timeMs", ipath, "timeMs") if "timeMs" in ev else 0
            content = report.string(ev, "content", ipath) or ""
            code = report.integer(ev, "exitCode", ipath, minimum=None)
            line, col = report.source.where(items, i)
            events.append(ExecEvent(kind, at, content, code, line, col))  # type: ignore[arg-type]
        return ToolExecution(start, tuple(events))

    def agent_edits(self, value: Any, item: dict[Any, Any], key: str, path: str,
                    ipath: str) -> Event | None:
        d = self.as_mapping(value, item, key, path, "{path: hello.py, linesAdded: 1, linesRemoved: 0}")
        if d is None:
            return None
        report = self.report
        report.unknown_keys(d, ("path", "linesAdded", "linesRemoved", "oldText", "newText",
                                "description", "toolCallId", "_meta"), path)
        target = report.string(d, "path", path, required=True, nonempty=True, example="hello.py")
        base = self.base(path, report.meta(d, path))
        return AgentEdits(**base, path=target or "",
                          lines_added=report.integer(d, "linesAdded", path, 0) or 0,
                          lines_removed=report.integer(d, "linesRemoved", path, 0) or 0,
                          old_text=report.string(d, "oldText", path),
                          new_text=report.string(d, "newText", path),
                          description=report.string(d, "description", path),
                          tool_call_id=report.string(d, "toolCallId", path)
                          or f"call_{base['index']}")

    def agent_plan(self, value: Any, item: dict[Any, Any], key: str, path: str,
                   ipath: str) -> Event | None:
        d = self.as_mapping(value, item, key, path, "{entries: [{content: 'Read code'}]}")
        if d is None:
            return None
        self.report.unknown_keys(d, ("entries", "planUpdate", "_meta"), path)
        entries = parse_plan_entries(self.report, d, path)
        return AgentPlan(**self.base(path, self.report.meta(d, path)), entries=entries,
                         plan_update=self.report.boolean(d, "planUpdate", path, True))

    def _id_event(self, value: Any, item: dict[Any, Any], key: str, path: str,
                  field: str) -> tuple[dict[str, Any], str] | None:
        if value.__class__ is str:
            return self.base(path), value
        d = self.as_mapping(value, item, key, path, f"{{{field}: ...}}")
        if d is None:
            return None
        self.report.unknown_keys(d, (field, "_meta"), path)
        got = self.report.string(d, field, path, required=True, nonempty=True)
        return self.base(path, self.report.meta(d, path)), got or ""

    def set_mode(self, value: Any, item: dict[Any, Any], key: str, path: str,
                 ipath: str) -> Event | None:
        got = self._id_event(value, item, key, path, "modeId")
        return None if got is None else SetMode(**got[0], mode_id=got[1])

    def set_model(self, value: Any, item: dict[Any, Any], key: str, path: str,
                  ipath: str) -> Event | None:
        got = self._id_event(value, item, key, path, "modelId")
        return None if got is None else SetModel(**got[0], model_id=got[1])

    def file_reads(self, value: Any, item: dict[Any, Any], key: str, path: str,
                   ipath: str) -> Event | None:
        report = self.report
        if value.__class__ is list:
            files, fpath = value, path
        else:
            d = self.as_mapping(value, item, key, path, "{files: [{path: /workspace/a.py}]}")
            if d is None:
                return None
            report.unknown_keys(d, ("files", "_meta"), path)
            files, fpath = report.listing(d, "files", path, required=True) or [], join(path, "files")
        out: list[FileRead] = []
        for i, f in enumerate(files):
            fp = join(fpath, i)
            if f.__class__ is str:
                f = {"path": f}
            if f.__class__ is not dict:
                report.wrong_type(files, i, fpath, "a mapping with path and expectedContent")
                continue
            report.unknown_keys(f, ("path", "expectedContent"), fp)
            p = report.string(f, "path", fp, required=True, example="/workspace/main.py")
            if p is not None and not p.startswith("/"):
                report.error(f, "path", join(fp, "path"), f"agentFileReads paths are absolute, got {p!r}",
                             "write the full path, e.g. '/workspace/main.py' (ACP fs methods need it)")
            out.append(FileRead(p or "", report.string(f, "expectedContent", fp)))
        meta = report.meta(value, path) if value.__class__ is dict else None
        return AgentFileReads(**self.base(path, meta), files=tuple(out))

    def permission(self, value: Any, item: dict[Any, Any], key: str, path: str,
                   ipath: str) -> Event | None:
        report = self.report
        d = self.as_mapping(value, item, key, path, "{options: [...], granted: true}")
        if d is None:
            return None
        report.unknown_keys(d, ("sessionId", "toolCall", "options", "decision", "granted", "_meta"), path)
        options: list[PermissionOption] = []
        for op, o in report.records(d, "options", path,
                                    ("id", "optionId", "label", "name", "kind", "_meta"),
                                    "a mapping with id, label, kind",
                                    "{id: allow, label: 'Allow once', kind: allow_once}",
                                    required=True):
            oid = report.string(o, "id" if "id" in o else "optionId", op, required=True, nonempty=True)
            label = report.string(o, "label" if "label" in o else "name", op) or oid or ""
            kind = report.choice(o, "kind", op, PERMISSION_KINDS)
            if kind is None and "kind" not in o:
                report.error(o, MISSING, op, "a permission option needs 'kind'",
                             f"kind: one of {', '.join(PERMISSION_KINDS)}")
            options.append(PermissionOption(oid or "", label, kind or "allow_once"))  # type: ignore[arg-type]
        ids = [o.option_id for o in options]
        if len(set(ids)) != len(ids):
            report.error(d, "options", join(path, "options"), "permission option ids must be unique",
                         "give each option its own id")
        decision: PermissionDecision | None = None
        if "decision" in d and "granted" in d:
            report.error(d, "granted", join(path, "granted"), "use either 'decision' or 'granted', not both",
                         "'granted: true' is shorthand for selecting the first allow_once option")
        elif "decision" in d:
            dec = report.mapping(d, "decision", path)
            if dec is not None:
                dpath = join(path, "decision")
                report.unknown_keys(dec, ("outcome", "optionId", "_meta"), dpath)
                outcome = report.choice(dec, "outcome", dpath, ("selected", "cancelled"))
                option_id = report.string(dec, "optionId", dpath)
                if outcome is None and "outcome" not in dec:
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
                if outcome is not None:
                    decision = PermissionDecision(outcome, option_id)  # type: ignore[arg-type]
        elif "granted" in d:
            granted = report.boolean(d, "granted", path)
            want = "allow_once" if granted else "reject_once"
            chosen = next((o for o in options if o.kind == want), None)
            if chosen is None and options:
                report.error(d, "granted", join(path, "granted"),
                             f"'granted: {str(granted).lower()}' selects the first {want} option, "
                             "but there is none", f"add an option with kind: {want}, or use 'decision'")
            decision = PermissionDecision("selected", chosen.option_id if chosen else None)
        else:
            report.error(d, MISSING, path, "a permission request needs 'decision' or 'granted'",
                         "add 'granted: true' (or a decision: {outcome: selected, optionId: ...})")
        tool_call = report.mapping(d, "toolCall", path) or {}
        base = self.base(path, report.meta(d, path))
        if "toolCallId" not in tool_call:
            tool_call = {**tool_call, "toolCallId": f"call_{base['index']}"}
        return AgentPermissionRequest(**base, options=tuple(options),
                                      decision=decision or PermissionDecision("cancelled"),
                                      tool_call=tool_call,
                                      session_id=report.string(d, "sessionId", path))

    # -- user events -----------------------------------------------------------------
    def prompt_content(self, holder: Any, key: Any, path: str) -> tuple[ContentBlock, ...]:
        value = holder[key]
        report = self.report
        if value.__class__ is list:
            blocks = [parse_content(report, value, i, join(path, key)) for i in range(len(value))]
            cpath = join(path, key)
            where = [(value, i, join(cpath, i)) for i in range(len(value))]
        else:
            blocks = [parse_content(report, holder, key, path)]
            where = [(holder, key, join(path, key))]
        out: list[ContentBlock] = []
        caps = self.caps
        for block, (h, k, p) in zip(blocks, where, strict=True):
            if block is None:
                continue
            need = None
            if isinstance(block, ImageContent):
                need = "image" if caps is not None and not caps.image else None
            elif isinstance(block, AudioContent):
                need = "audio" if caps is not None and not caps.audio else None
            elif isinstance(block, ResourceContent):
                need = "embeddedContext" if caps is not None and not caps.embedded_context else None
            elif isinstance(block, (DiffContent, PlanContent)):
                report.error(h, k, p, f"a {block.type} block cannot be sent as a prompt",
                             "prompts carry text, image, audio, resource and resource_link blocks")
                continue
            if need is not None:
                report.error(h, k, p, f"this prompt sends {block.type} content, but "
                             f"acp.capabilities.promptCapabilities.{need} is not true",
                             f"set promptCapabilities.{need}: true in the acp section, "
                             "or remove the block")
            out.append(block)
        return tuple(out)

    def expected(self, d: dict[Any, Any], key: str, path: str) -> dict[Any, Any] | None:
        report = self.report
        exp = report.mapping(d, key, path)
        if exp is None:
            return None
        epath = join(path, key)
        for field in ("sessionId", "stopReason"):
            if field in exp:
                report.string(exp, field, epath, nonempty=True)
        if "usage" in exp:
            report.mapping(exp, "usage", epath)
        report.meta(exp, epath)
        return exp

    def user_inputs(self, value: Any, item: dict[Any, Any], key: str, path: str,
                    ipath: str) -> Event | None:
        report = self.report
        target = report.choice(item, "target", ipath, TARGETS)
        if value.__class__ is not list:
            report.wrong_type(item, key, ipath, "a list of inputs",
                              "userInputs:\n    - relativeTime: 0\n      input: 'Hello'")
            return None
        inputs: list[UserInput] = []
        for i, entry in enumerate(value):
            epath = join(path, i)
            line, col = report.source.where(value, i)
            if entry.__class__ is list:
                if len(entry) != 2:
                    report.error(value, i, epath, "an input pair is [milliseconds, input]",
                                 "write [0, 'Hello']")
                    continue
                at = self.time(entry, 0, epath, "relativeTime")
                content = self.prompt_content(entry, 1, epath)
                inputs.append(UserInput(at, content, None, None, target, line, col))
            elif entry.__class__ is dict:
                report.unknown_keys(entry, ("relativeTime", "timestamp", "input", "_meta",
                                            "expectedResponse", "target"), epath)
                tkey = "relativeTime" if "relativeTime" in entry else "timestamp"
                at = self.time(entry, tkey, epath, "relativeTime") if tkey in entry else 0
                if "input" not in entry:
                    report.error(entry, MISSING, epath, "a user input needs 'input'",
                                 "add input: 'Hello' (or a list of content blocks)")
                    continue
                content = self.prompt_content(entry, "input", epath)
                entry_target = report.choice(entry, "target", epath, TARGETS, target)
                inputs.append(UserInput(at, content, report.meta(entry, epath),
                                        self.expected(entry, "expectedResponse", epath),
                                        entry_target, line, col))
            else:
                report.wrong_type(value, i, path, "an input: [ms, 'text'] or "
                                  "{relativeTime: ms, input: ...}", "[0, 'Hello']")
        if not inputs and value == []:
            report.error(item, key, path, "userInputs is empty", "add at least one input")
        return UserInputs(**self.base(path), inputs=tuple(inputs), target=target)

    def user_edits(self, value: Any, item: dict[Any, Any], key: str, path: str,
                   ipath: str) -> Event | None:
        report = self.report
        if value.__class__ is str:
            d: dict[Any, Any] | None = {"patch": value}
            holder: Any = item
            hkey = key
        else:
            d = self.as_mapping(value, item, key, path, "{patch: patches/fix.patch}")
            holder = d
            hkey = "patch"
        if d is None:
            return None
        report.unknown_keys(d, ("patch", "_meta"), path)
        patch = report.string(d, "patch", path, required=True, nonempty=True,
                              example="patches/fix.patch")
        resolved = (report.base_dir / (patch or "")).resolve()
        if patch and not resolved.is_file():
            report.error(holder, hkey, join(path, "patch") if hkey == "patch" else path,
                         f"patch file {patch!r} not found (looked at {resolved})",
                         "patch paths are relative to the scenario file's folder")
        return UserEdits(**self.base(path, report.meta(d, path)), patch=patch or "",
                         patch_path=resolved)

    def user_command(self, value: Any, item: dict[Any, Any], key: str, path: str,
                     ipath: str) -> Event | None:
        if value.__class__ is str:
            return UserCommand(**self.base(path), cmd=value)
        d = self.as_mapping(value, item, key, path, "{cmd: 'git status'}")
        if d is None:
            return None
        self.report.unknown_keys(d, ("cmd", "cwd", "_meta"), path)
        cmd = self.report.string(d, "cmd", path, required=True, nonempty=True, example="'git status'")
        return UserCommand(**self.base(path, self.report.meta(d, path)), cmd=cmd or "",
                           cwd=self.report.string(d, "cwd", path))

    def cancel(self, value: Any, item: dict[Any, Any], key: str, path: str,
               ipath: str) -> Event | None:
        meta = None
        if value.__class__ is dict:
            self.report.unknown_keys(value, ("_meta",), path)
            meta = self.report.meta(value, path)
        return UserCancelSession(**self.base(path, meta))

    # -- control events --------------------------------------------------------------
    def initialize(self, value: Any, item: dict[Any, Any], key: str, path: str,
                   ipath: str) -> Event | None:
        report = self.report
        d = {} if value is None else self.as_mapping(value, item, key, path,
                                                     "{protocolVersion: 1, clientCapabilities: {}}")
        if d is None:
            return None
        report.unknown_keys(d, ("protocolVersion", "clientCapabilities", "clientInfo",
                                "expectedResponse", "_meta"), path)
        expected = self.expected(item, "expectedResponse", ipath) if "expectedResponse" in item \
            else self.expected(d, "expectedResponse", path)
        return Initialize(**self.base(path, report.meta(d, path)),
                          protocol_version=report.integer(d, "protocolVersion", path, 1) or 1,
                          client_capabilities=report.mapping(d, "clientCapabilities", path) or {},
                          client_info=report.mapping(d, "clientInfo", path),
                          expected_response=expected)

    def session_start(self, value: Any, item: dict[Any, Any], key: str, path: str,
                      ipath: str) -> Event | None:
        report = self.report
        if value is None:
            return SessionStart(**self.base(path))
        if value.__class__ is str:
            return SessionStart(**self.base(path), session_id=value)
        d = self.as_mapping(value, item, key, path, "{sessionId: 's-1'}")
        if d is None:
            return None
        report.unknown_keys(d, ("sessionId", "expectedPromptResponse", "_meta"), path)
        return SessionStart(**self.base(path, report.meta(d, path)),
                            session_id=report.string(d, "sessionId", path, nonempty=True),
                            expected_prompt_response=self.expected(d, "expectedPromptResponse", path))

    def assertion(self, value: Any, item: dict[Any, Any], key: str, path: str,
                  ipath: str) -> Event | None:
        report = self.report
        d = self.as_mapping(value, item, key, path, "{fs: {exists: ['hello.py']}}")
        if d is None:
            return None
        report.unknown_keys(d, ("fs", "text", "json", "git", "_meta"), path)
        fs = report.mapping(d, "fs", path) or {}
        fpath = join(path, "fs")
        report.unknown_keys(fs, ("exists", "notExists"), fpath)
        text = report.mapping(d, "text", path) or {}
        report.unknown_keys(text, ("contains",), join(path, "text"))
        json_asserts: list[JsonFileAssert] = []
        jd = report.mapping(d, "json", path) or {}
        jpath = join(path, "json")
        report.unknown_keys(jd, ("file",), jpath)
        for h, k, p in self.one_or_many(jd, "file", jpath):
            spec = h[k]
            report.unknown_keys(spec, ("path", "pointer", "equals"), p)
            jp = report.string(spec, "path", p, required=True, example="package.json")
            pointer = report.string(spec, "pointer", p) or ""
            if pointer and not pointer.startswith("/"):
                report.error(spec, "pointer", join(p, "pointer"),
                             f"a JSON pointer starts with '/', got {pointer!r}",
                             "e.g. '/version' or '/scripts/test' ('' is the whole document)")
            json_asserts.append(JsonFileAssert(jp or "", pointer, spec.get("equals")))
        commits: list[GitCommitAssert] = []
        gd = report.mapping(d, "git", path) or {}
        gpath = join(path, "git")
        report.unknown_keys(gd, ("commit",), gpath)
        for h, k, p in self.one_or_many(gd, "commit", gpath):
            spec = h[k]
            report.unknown_keys(spec, ("messageContains",), p)
            msg = report.string(spec, "messageContains", p, required=True, example="'Fix bug'")
            commits.append(GitCommitAssert(msg or ""))
        result = Assert(**self.base(path, report.meta(d, path)),
                        fs_exists=report.strings(fs, "exists", fpath),
                        fs_not_exists=report.strings(fs, "notExists", fpath),
                        text_contains=report.strings(text, "contains", join(path, "text")),
                        json_file=tuple(json_asserts), git_commit=tuple(commits))
        if not (result.fs_exists or result.fs_not_exists or result.text_contains
                or result.json_file or result.git_commit):
            report.warn(item, key, path, "this assert checks nothing",
                        "add fs.exists, fs.notExists, text.contains, json.file or git.commit")
        return result

    def one_or_many(self, d: dict[Any, Any], key: str, path: str) -> list[tuple[Any, Any, str]]:
        """``d[key]`` as a mapping or a list of mappings (the spec and the reference differ)."""
        value = d.get(key)
        if value is None:
            return []
        if value.__class__ is dict:
            return [(d, key, join(path, key))]
        if value.__class__ is list:
            out = []
            for i, v in enumerate(value):
                if v.__class__ is dict:
                    out.append((value, i, join(join(path, key), i)))
                else:
                    self.report.wrong_type(value, i, join(path, key), "a mapping")
            return out
        self.report.wrong_type(d, key, path, "a mapping (or a list of them)")
        return []

    def _text_event(self, value: Any, item: dict[Any, Any], key: str, path: str,
                    field: str) -> tuple[dict[str, Any], str, dict[Any, Any]] | None:
        if value.__class__ is str and value.strip():
            return self.base(path), value, {}
        if value.__class__ is dict:
            self.report.unknown_keys(value, (field, "level", "_meta"), path)
            got = self.report.string(value, field, path, required=True, nonempty=True)
            return self.base(path, self.report.meta(value, path)), got or "", value
        self.report.wrong_type(item, key, path.rsplit(".", 1)[0], "a non-empty string",
                               f"{key}: 'after_first_edit'")
        return None

    def screenshot(self, value: Any, item: dict[Any, Any], key: str, path: str,
                   ipath: str) -> Event | None:
        got = self._text_event(value, item, key, path, "label")
        return None if got is None else Screenshot(**got[0], label=got[1])

    def log(self, value: Any, item: dict[Any, Any], key: str, path: str,
            ipath: str) -> Event | None:
        got = self._text_event(value, item, key, path, "message")
        if got is None:
            return None
        level = self.report.string(got[2], "level", path) or "info"
        return Log(**got[0], message=got[1], level=level)

    def status(self, value: Any, item: dict[Any, Any], key: str, path: str,
               ipath: str) -> Event | None:
        got = self._text_event(value, item, key, path, "status")
        return None if got is None else Status(**got[0], status=got[1])

    def _flag(self, value: Any, item: dict[Any, Any], key: str, path: str) -> bool:
        if value is None or value is True or value is False:
            return value is not False
        if value.__class__ is dict:
            self.report.unknown_keys(value, ("_meta",), path)
            return True
        self.report.wrong_type(item, key, path.rsplit(".", 1)[0], "true or false", f"{key}: true")
        return True

    def complete(self, value: Any, item: dict[Any, Any], key: str, path: str,
                 ipath: str) -> Event | None:
        return Complete(**self.base(path), success=self._flag(value, item, key, path))

    def merge(self, value: Any, item: dict[Any, Any], key: str, path: str,
              ipath: str) -> Event | None:
        return Merge(**self.base(path), merge=self._flag(value, item, key, path))

    def base_time_delta(self, value: Any, item: dict[Any, Any], key: str, path: str,
                        ipath: str) -> Event | None:
        if not _is_time(value):
            self.report.error(item, key, path, f"{key} must be a whole number of milliseconds "
                              f">= 0, got {value!r}", f"{key}: 1000")
            return None
        return BaseTimeDelta(**self.base(path), ms=int(value))


def parse_timeline(report: Report, items: list[Any], caps: AcpCapabilities | None,
                   path: str = "timeline") -> list[Event]:
    """Type every item of ``items``; groups are flattened, indices are positions."""
    builder = _Timeline(report, caps)
    builder.items(items, path)
    return builder.events

