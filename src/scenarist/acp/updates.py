"""Scenario beats → ACP ``session/update`` payloads and client requests (pure, no I/O).

Each function builds the ACP SDK's own models (``acp.schema``), so what the agent sends is
what the SDK serialises; the tests dump them and check them against the ACP JSON Schema
and golden files. :class:`BeatRenderer` is the one fold of a turn: it turns each beat
into the updates a client sees, keeping the little state a tool call needs (its log so
far), for live turns and for history replayed on ``session/load`` alike.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, assert_never

from acp import schema as s

from scenarist.acp.tools import Diff, ToolView, absolute, describe_tool
from scenarist.scenario.beats import (
    AgentEditsBeat,
    AgentFileReadsBeat,
    AgentPermissionRequestBeat,
    AgentPlanBeat,
    ApplyPatchBeat,
    AssertBeat,
    AssistantBeat,
    Beat,
    CompleteBeat,
    ErrorBeat,
    FaultBeat,
    InitializeBeat,
    LogBeat,
    MergeBeat,
    ProgressBeat,
    PromptBeat,
    ScreenshotBeat,
    SessionStartBeat,
    SetModeBeat,
    SetModelBeat,
    StatusBeat,
    ThinkBeat,
    ToolBeat,
    ToolExecutionBeat,
    ToolResultBeat,
    ToolStartBeat,
    UserCancelSessionBeat,
    UserCommandBeat,
    UserEditsBeat,
)
from scenarist.scenario.model import (
    AgentEdits,
    AgentPermissionRequest,
    AgentToolUse,
    Annotations,
    AudioContent,
    ContentBlock,
    DiffContent,
    ImageContent,
    PlanContent,
    PlanEntry,
    ResourceContent,
    ResourceLinkContent,
    TextContent,
    TextStep,
    UserInput,
)
from scenarist.scenario.tools import tool_args

__all__ = [
    "STOP_REASONS", "BeatRenderer", "SessionUpdate", "content_block", "edit_tool_call",
    "merge_meta", "permission_options", "permission_tool_call", "plan_update",
    "prompt_blocks", "stop_reason", "tool_call_start", "tool_status", "usage",
    "user_chunks",
]

SessionUpdate = (s.UserMessageChunk | s.AgentMessageChunk | s.AgentThoughtChunk
                 | s.ToolCallStart | s.ToolCallProgress | s.AgentPlanUpdate
                 | s.CurrentModeUpdate)
ToolCallContent = s.ContentToolCallContent | s.FileEditToolCallContent | s.TerminalToolCallContent
PromptBlock = (s.TextContentBlock | s.ImageContentBlock | s.AudioContentBlock
               | s.ResourceContentBlock | s.EmbeddedResourceContentBlock)

STOP_REASONS: tuple[s.StopReason, ...] = ("end_turn", "max_tokens", "max_turn_requests", "refusal", "cancelled")
#: stop reasons written in older scenarios, read as ACP's
_STOP_ALIASES = {"completed": "end_turn", "complete": "end_turn", "interrupted": "cancelled",
                 "canceled": "cancelled"}
_DONE: dict[str, s.ToolCallStatus] = {"ok": "completed", "success": "completed", "completed": "completed", "done": "completed",
         "error": "failed", "failed": "failed", "failure": "failed",
         "in_progress": "in_progress", "running": "in_progress", "pending": "pending"}


def merge_meta(*metas: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """The ``_meta`` objects merged left to right (None when there is none)."""
    merged: dict[str, Any] = {}
    for meta in metas:
        if meta:
            merged.update(meta)
    return merged or None


# -- content --------------------------------------------------------------------------


def _annotations(a: Annotations | None) -> s.Annotations | None:
    if a is None:
        return None
    return s.Annotations(audience=list(a.audience) if a.audience is not None else None,
                         priority=a.priority, last_modified=a.last_modified)


def content_block(block: ContentBlock) -> PromptBlock | None:
    """An ACP ContentBlock for a scenario block; None for ``diff`` and ``plan`` blocks,
    which ACP shows as a tool call and a plan (see :meth:`BeatRenderer.render`)."""
    ann = _annotations(block.annotations)
    if isinstance(block, TextContent):
        return s.TextContentBlock(type="text", text=block.text, annotations=ann)
    if isinstance(block, ImageContent):
        return s.ImageContentBlock(type="image", data=block.base64_data(),
                                   mime_type=block.mime_type, uri=block.uri, annotations=ann)
    if isinstance(block, AudioContent):
        return s.AudioContentBlock(type="audio", data=block.base64_data(),
                                   mime_type=block.mime_type, annotations=ann)
    if isinstance(block, ResourceContent):
        r = block.resource
        inner: s.TextResourceContents | s.BlobResourceContents
        if r.blob is not None:
            inner = s.BlobResourceContents(uri=r.uri, blob=r.blob, mime_type=r.mime_type)
        else:
            inner = s.TextResourceContents(uri=r.uri, text=r.text or "", mime_type=r.mime_type)
        return s.EmbeddedResourceContentBlock(type="resource", resource=inner, annotations=ann)
    if isinstance(block, ResourceLinkContent):
        return s.ResourceContentBlock(type="resource_link", uri=block.uri, name=block.name,
                                      mime_type=block.mime_type, title=block.title,
                                      description=block.description, size=block.size,
                                      annotations=ann)
    return None


def prompt_blocks(entry: UserInput) -> list[PromptBlock]:
    """A ``userInputs`` entry as the ``prompt`` of ``session/prompt``."""
    return [b for b in map(content_block, entry.content) if b is not None]


def user_chunks(entry: UserInput) -> list[SessionUpdate]:
    """A prompt replayed as history: one ``user_message_chunk`` per content block."""
    meta = dict(entry.meta) if entry.meta else None
    return [s.UserMessageChunk(session_update="user_message_chunk", content=b, field_meta=meta)
            for b in prompt_blocks(entry)]


def plan_update(entries: tuple[PlanEntry, ...], meta: Mapping[str, Any] | None = None
                ) -> s.AgentPlanUpdate:
    return s.AgentPlanUpdate(
        session_update="plan", field_meta=dict(meta) if meta else None,
        entries=[s.PlanEntry(content=e.content, priority=e.priority, status=e.status)
                 for e in entries])


def _todo_plan(todos: tuple[Mapping[str, Any], ...]) -> s.AgentPlanUpdate | None:
    entries = []
    for todo in todos:
        content = todo.get("content")
        if not isinstance(content, str):
            continue
        status = todo.get("status")
        priority = todo.get("priority")
        entries.append(PlanEntry(
            content, priority if priority in ("high", "medium", "low") else "medium",
            status if status in ("pending", "in_progress", "completed") else "pending"))
    return plan_update(tuple(entries)) if entries else None


# -- tool calls -----------------------------------------------------------------------


def _diff(d: Diff) -> s.FileEditToolCallContent:
    return s.FileEditToolCallContent(type="diff", path=d.path, new_text=d.new_text,
                                     old_text=d.old_text)


def _text_content(text: str) -> s.ContentToolCallContent:
    return s.ContentToolCallContent(type="content",
                                    content=s.TextContentBlock(type="text", text=text))


def _locations(view: ToolView) -> list[s.ToolCallLocation] | None:
    return [s.ToolCallLocation(path=p, line=view.line) for p in view.paths] or None


def tool_call_start(use: AgentToolUse, view: ToolView,
                    terminal_id: str | None = None) -> s.ToolCallStart:
    """The ``tool_call`` that opens ``use``: kind, title, locations, rawInput, its diff or
    the client terminal it runs in."""
    content: list[Any] = []
    if view.diff is not None:
        content.append(_diff(view.diff))
    if terminal_id is not None:
        content.append(s.TerminalToolCallContent(type="terminal", terminal_id=terminal_id))
    raw_input = use.raw_input if use.raw_input is not None else tool_args(use.tool)
    return s.ToolCallStart(
        session_update="tool_call", tool_call_id=use.tool_call_id, title=view.title,
        kind=view.kind, status="pending" if terminal_id is None else "in_progress",
        content=content or None, locations=_locations(view), raw_input=raw_input,
        field_meta=dict(use.meta) if use.meta else None)


def tool_status(use: AgentToolUse, exit_code: int | None = None) -> s.ToolCallStatus:
    """ACP status at the end of ``use``: its scripted ``status``, else from the exit code."""
    if use.status is not None:
        return _DONE.get(use.status.lower(), "completed")
    return "failed" if exit_code not in (None, 0) else "completed"


def _raw_output(use: AgentToolUse, exit_code: int | None) -> Any:
    if exit_code is None:
        return use.result
    return {"result": use.result, "exitCode": exit_code}


def edit_tool_call(edit: AgentEdits, cwd: str) -> s.ToolCallStart:
    """``agentEdits`` as a completed ``edit`` tool call with its diff (when texts are given)."""
    path = absolute(edit.path, cwd)
    content: list[ToolCallContent] | None = None
    if edit.new_text is not None:
        content = [_diff(Diff(path, edit.new_text, edit.old_text))]
    title = edit.description or f"Edit {edit.path} (+{edit.lines_added} -{edit.lines_removed})"
    return s.ToolCallStart(
        session_update="tool_call", tool_call_id=edit.tool_call_id or f"call_{edit.index}",
        title=title, kind="edit", status="completed", content=content,
        locations=[s.ToolCallLocation(path=path)],
        raw_input={"path": edit.path, "linesAdded": edit.lines_added,
                   "linesRemoved": edit.lines_removed},
        field_meta=dict(edit.meta) if edit.meta else None)


def _step_meta(step: TextStep, event_meta: Mapping[str, Any] | None) -> dict[str, Any] | None:
    return merge_meta(event_meta, step.meta)


# -- permission requests ----------------------------------------------------------------


_TOOL_KINDS = frozenset({"read", "edit", "delete", "move", "search", "execute", "think",
                         "fetch", "switch_mode", "other"})


def permission_tool_call(event: AgentPermissionRequest) -> s.ToolCallUpdate:
    """The scenario's ``toolCall`` as ACP's ToolCallUpdate (a kind outside ACP's list,
    such as ``fs/write_text_file`` in older scenarios, is sent as ``other``)."""
    call = dict(event.tool_call)
    kind = call.get("kind")
    if kind is not None and kind not in _TOOL_KINDS:
        call["kind"] = "other"
    return s.ToolCallUpdate.model_validate(call)


def permission_options(event: AgentPermissionRequest) -> list[s.PermissionOption]:
    return [s.PermissionOption(option_id=o.option_id, name=o.name, kind=o.kind)
            for o in event.options]


# -- prompt answers --------------------------------------------------------------------


def stop_reason(expected: Mapping[str, Any] | None) -> s.StopReason:
    """The scripted stop reason (older spellings read as ACP's), default ``end_turn``."""
    value = (expected or {}).get("stopReason")
    if not isinstance(value, str):
        return "end_turn"
    value = _STOP_ALIASES.get(value, value)
    for reason in STOP_REASONS:
        if value == reason:
            return reason
    return "end_turn"


def usage(expected: Mapping[str, Any] | None) -> s.Usage | None:
    """The scripted ``usage`` (``totalTokens`` filled in when only its parts are given)."""
    raw = (expected or {}).get("usage")
    if not isinstance(raw, Mapping):
        return None
    data = dict(raw)
    data.setdefault("inputTokens", 0)
    data.setdefault("outputTokens", 0)
    data.setdefault("totalTokens", data["inputTokens"] + data["outputTokens"])
    return s.Usage.model_validate(data)


# -- the fold of a turn ------------------------------------------------------------------


class BeatRenderer:
    """Turns beats into session updates; remembers each tool call's log (progress and
    output lines), because ACP's tool-call ``content`` replaces what was shown before."""

    def __init__(self, cwd: str) -> None:
        self.cwd = cwd
        self._logs: dict[str, list[str]] = {}
        self._exit: dict[str, int] = {}
        self._terminals: dict[str, str] = {}

    def view(self, use: AgentToolUse) -> ToolView:
        return describe_tool(use, self.cwd)

    def render(self, beat: Beat, *, terminal_id: str | None = None) -> list[SessionUpdate]:
        """The updates for ``beat`` (none for beats that are not agent output)."""
        match beat:
            case ThinkBeat() | AssistantBeat():
                return self._step(beat.step, beat.event.meta,
                                  f"diff_{beat.index}_{beat.at_ms}")
            case PromptBeat():
                return user_chunks(beat.step)
            case ToolStartBeat() | ProgressBeat() | ToolExecutionBeat() | ToolResultBeat():
                return self._tool(beat, terminal_id)
            case AgentEditsBeat():
                return [edit_tool_call(beat.event, self.cwd)]
            case AgentPlanBeat():
                return [plan_update(beat.event.entries, beat.event.meta)]
            case (ErrorBeat() | AgentFileReadsBeat() | AgentPermissionRequestBeat()
                  | SetModeBeat() | SetModelBeat() | UserEditsBeat() | ApplyPatchBeat()
                  | UserCommandBeat() | UserCancelSessionBeat() | InitializeBeat()
                  | SessionStartBeat() | AssertBeat() | ScreenshotBeat() | LogBeat()
                  | StatusBeat() | CompleteBeat() | MergeBeat() | FaultBeat()):
                return []  # played as requests (errors, reads, permissions), on the wire
                # (faults), or not ACP's
            case _:
                assert_never(beat)

    def _step(self, step: TextStep, event_meta: Mapping[str, Any] | None,
              diff_id: str) -> list[SessionUpdate]:
        meta = _step_meta(step, event_meta)
        block = step.content
        if isinstance(block, PlanContent):
            return [plan_update(block.entries, meta)]
        if isinstance(block, DiffContent):
            return [s.ToolCallStart(
                session_update="tool_call", tool_call_id=diff_id,
                title=f"Edit {block.path}", kind="edit", status="completed",
                content=[_diff(Diff(block.path, block.new_text, block.old_text))],
                locations=[s.ToolCallLocation(path=block.path)], field_meta=meta)]
        content = content_block(block)
        assert content is not None
        if step.kind == "think":
            return [s.AgentThoughtChunk(session_update="agent_thought_chunk", content=content,
                                        field_meta=meta)]
        return [s.AgentMessageChunk(session_update="agent_message_chunk", content=content,
                                    field_meta=meta)]

    def _tool(self, beat: ToolBeat, terminal_id: str | None) -> list[SessionUpdate]:
        use = beat.event
        call_id = use.tool_call_id
        match beat:
            case ToolStartBeat():
                self._logs[call_id] = []
                if terminal_id is not None:
                    self._terminals[call_id] = terminal_id
                view = self.view(use)
                updates: list[SessionUpdate] = [tool_call_start(use, view, terminal_id)]
                todo_plan = _todo_plan(view.todos)
                if todo_plan is not None:
                    updates.append(todo_plan)
                return updates
            case ProgressBeat(step=progress):
                log = self._logs.setdefault(call_id, [])
                log.append(progress.message)
            case ToolExecutionBeat(step=ev):
                log = self._logs.setdefault(call_id, [])
                if ev.type == "completion":
                    if ev.exit_code is not None:
                        self._exit[call_id] = ev.exit_code
                    return []
                log.append(ev.content)
            case ToolResultBeat():
                return [self.result(use)]
            case _:
                assert_never(beat)
        content: list[Any] = [_text_content(self._joined(log))]
        terminal = self._terminals.get(call_id)
        if terminal is not None:
            content.insert(0, s.TerminalToolCallContent(type="terminal", terminal_id=terminal))
        return [s.ToolCallProgress(session_update="tool_call_update", tool_call_id=call_id,
                                   status="in_progress", content=content)]

    @staticmethod
    def _joined(log: list[str]) -> str:
        return "".join(p if p.endswith("\n") else p + "\n" for p in log)

    def result(self, use: AgentToolUse, *, terminal_id: str | None = None,
               exit_code: int | None = None) -> s.ToolCallProgress:
        """The ``tool_call_update`` that ends ``use``: status, rawOutput and what it showed
        (its log, else its result; the terminal when it ran in one)."""
        call_id = use.tool_call_id
        log = self._logs.pop(call_id, [])
        self._terminals.pop(call_id, None)
        code = exit_code if exit_code is not None else self._exit.pop(call_id, None)
        content: list[Any] = []
        if terminal_id is not None:
            content.append(s.TerminalToolCallContent(type="terminal", terminal_id=terminal_id))
        elif log:
            content.append(_text_content(self._joined(log)))
        elif isinstance(use.result, str) and use.result:
            content.append(_text_content(use.result))
        return s.ToolCallProgress(
            session_update="tool_call_update", tool_call_id=call_id,
            status=tool_status(use, code), content=content or None,
            raw_output=_raw_output(use, code))
