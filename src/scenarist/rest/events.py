"""Session events: a compiled Timeline → the events a simulated session emits, and the two
dialects a client may read them in. Pure functions, no I/O, no clock.

A session plays a list of :class:`Planned` events (``at_ms`` on the scenario's own time
axis, unscaled); the player stamps each with ``ts`` when it is due and the store gives it a
per-session ``seq``. Planning the whole session up front keeps the mapping in one place and
makes a session's position one integer, so another replica can resume it exactly.

The *typed* dialect is the spec's (``type`` + fields, ``ts`` ISO-8601): ``status``, ``log``,
``thought``, ``tool_use``, ``tool_result``, ``file_edit``, ``diff``, ``error``. Scenario items
the spec has no type for (the assistant's text, user inputs, harness markers) become ``log``
events with a ``source`` field naming what they were, so strict clients of the spec's types
keep parsing. The *webui* dialect is the named-event one the reference web UI listens for
(``status``, ``thinking``, ``tool_execution`` with ``last_line``, ``file_edit``, ``log``).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace
from typing import Any, Literal, assert_never

from scenarist.json_out import as_text
from scenarist.rest.tools import tool_call
from scenarist.scenario import (
    AgentEdits,
    AgentEditsBeat,
    AgentFileReadsBeat,
    AgentPermissionRequestBeat,
    AgentPlanBeat,
    AgentToolUse,
    ApplyPatchBeat,
    AssertBeat,
    AssistantBeat,
    Beat,
    CompleteBeat,
    ErrorBeat,
    Fault,
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
    Timeline,
    ToolBeat,
    ToolExecutionBeat,
    ToolResultBeat,
    ToolStartBeat,
    UserCancelSessionBeat,
    UserCommandBeat,
    UserEditsBeat,
)

__all__ = [
    "ACTIVE_STATUSES",
    "DIALECTS",
    "FINAL_STATUSES",
    "STATUSES",
    "Dialect",
    "Planned",
    "is_final",
    "plan_session",
    "user_prompt_event",
    "webui_event",
]

Body = dict[str, Any]
Dialect = Literal["typed", "webui"]
DIALECTS: tuple[Dialect, ...] = ("typed", "webui")

#: The spec's lifecycle statuses.
STATUSES = ("queued", "provisioning", "running", "pausing", "paused", "resuming", "stopping",
            "stopped", "completed", "failed", "cancelled")
#: A session's stream ends after one of these (``stopped``: ended by ``POST .../stop``).
FINAL_STATUSES = frozenset({"completed", "failed", "cancelled", "stopped"})
#: Statuses for which ``recent_events`` is filled in (the spec's "active" set, plus the
#: transitions between them).
ACTIVE_STATUSES = frozenset({"queued", "provisioning", "running", "pausing", "paused",
                             "resuming", "stopping"})

#: A diff larger than this is sent as head and tail only (the spec's rule).
DIFF_MAX_BYTES = 64 * 1024
DIFF_MAX_LINES = 2000
DIFF_HEAD_LINES = 200
DIFF_TAIL_LINES = 50


@dataclass(frozen=True, slots=True)
class Planned:
    """One session event due ``at_ms`` after the session starts (unscaled), and the beat it
    came from (None for the statuses the session adds; a prompt's can be matched by a live
    prompt). ``faults``: the scenario's faults that strike a stream reaching this event
    (:mod:`scenarist.rest.delivery`; stored history never has them)."""

    at_ms: int
    body: Body
    beat: Beat | None = None
    faults: tuple[Fault, ...] = ()

    @property
    def prompt(self) -> str | None:
        """The text of the prompt this event plays, if it plays one."""
        return self.beat.step.text if isinstance(self.beat, PromptBeat) else None

    @property
    def merges(self) -> bool:
        """Whether this event keeps the session listed after completion (``merge``)."""
        return isinstance(self.beat, MergeBeat)


def is_final(body: Mapping[str, Any]) -> bool:
    """Whether ``body`` is the status event that ends a session's stream."""
    return body.get("type") == "status" and body.get("status") in FINAL_STATUSES


def plan_session(timeline: Timeline) -> tuple[Planned, ...]:
    """Every event of a session playing ``timeline``, in order.

    The session is ``queued`` at creation and ``running`` before its first other event
    (unless the scenario says otherwise with ``status`` events); it ends with one final
    status: the scenario's own, ``failed`` after an ``error`` element that nothing follows,
    else ``completed``. An ``error`` element with more of the scenario after it does not
    end the session: the agent's retry gets the scenario's next answer, as with the model
    server. Nothing is planned after the final status, except that a ``merge`` written
    after it moves just before it (the session is kept listed after completion).
    A ``fault`` is no event: it goes on the event a stream reaches it at (:func:`_place`).
    """
    planned: list[Planned] = []
    faults: list[tuple[int, Fault]] = []
    starts: dict[int, int] = {}  # id(llmResponse) → its first planned event
    status = ""
    beats = timeline.beats
    last = max((n for n, b in enumerate(beats) if _plays(b)), default=-1)
    for n, beat in enumerate(beats):
        if isinstance(beat, FaultBeat):
            counted = beat.step.after_events is not None or beat.step.after_bytes is not None
            here = len(planned)
            faults.append((starts.get(id(beat.event), here) if counted else here, beat.step))
            continue
        for body in _with_failure(beat, n == last):
            kind = body["type"]
            if kind == "status":
                if body["status"] == status:
                    continue  # ``complete`` after ``status: completed`` says nothing new
                status = body["status"]
            elif not status:
                planned.append(Planned(0, _status("queued")))
                planned.append(Planned(beat.at_ms, _status("running")))
                status = "running"
            elif status == "queued":
                planned.append(Planned(beat.at_ms, _status("running")))
                status = "running"
            if status in FINAL_STATUSES:  # a later ``merge`` still counts: it goes first
                merges = [b for b in beats[n + 1:] if isinstance(b, MergeBeat)]
                planned += [Planned(beat.at_ms, next(beat_events(b)), b) for b in merges]
                planned.append(Planned(beat.at_ms, body, beat))
                return _place(planned, faults)
            starts.setdefault(id(beat.event), len(planned))
            planned.append(Planned(beat.at_ms, body, beat))
    if not status:
        planned.append(Planned(0, _status("queued")))
    end = max(timeline.duration_ms, planned[-1].at_ms if planned else 0)
    planned.append(Planned(end, _status("completed")))
    return _place(planned, faults)


def _place(planned: list[Planned], faults: list[tuple[int, Fault]]) -> tuple[Planned, ...]:
    """``planned`` with each fault on the event it strikes before: its place (after the
    events before it), or, with ``afterEvents``, that many events after the first event of
    its ``llmResponse`` (a timeline ``fault``: after its place); an ``afterBytes`` fault
    counts its bytes from the first event's frame. A fault with nothing but the final
    status after it strikes before that status."""
    for start, fault in faults:
        at = min(start + (fault.after_events or 0), len(planned) - 1)
        planned[at] = replace(planned[at], faults=(*planned[at].faults, fault))
    return tuple(planned)


def _plays(beat: Beat) -> bool:
    """Whether ``beat`` is part of the session (harness items, shown as debug logs, and
    beats with no event are not): after the last one, an ``error`` fails the session."""
    return any(not (b["type"] == "log" and b["level"] == "debug") for b in beat_events(beat))


def _with_failure(beat: Beat, last: bool) -> Iterator[Body]:
    """``beat``'s events; the scenario's last one, when an ``error``, fails the session."""
    yield from beat_events(beat)
    if last and isinstance(beat, ErrorBeat):
        yield _status("failed")


def beat_events(beat: Beat) -> Iterator[Body]:
    """The typed events (without ``ts``) one timeline beat becomes."""
    match beat:
        case ThinkBeat(step=step):
            yield {"type": "thought", "thought": step.text, "reasoning": None}
        case AssistantBeat(step=step):
            yield _log(step.text, source="assistant")
        case ErrorBeat(step=error):
            yield {"type": "error", "message": error.message, "error_type": error.error_type,
                   "status_code": error.status_code,
                   "retry_after_seconds": error.retry_after_seconds, "details": error.details}
        case ToolStartBeat() | ProgressBeat() | ToolExecutionBeat() | ToolResultBeat():
            yield from _tool_events(beat)
        case AgentEditsBeat(event=edit):
            yield from _edit_events(edit)
        case PromptBeat(step=entry):
            yield _log(entry.text, source="user", target=entry.target)
        case StatusBeat(event=e):
            yield _status(e.status if e.status in STATUSES else "running")
        case CompleteBeat(event=e):
            yield _status("completed" if e.success else "failed")
        case LogBeat(event=e):
            yield _log(e.message, level=_level(e.level), source="scenario")
        case UserCommandBeat(event=e):
            yield _log(f"user command: {e.cmd}", source="userCommand", cwd=e.cwd)
        case ApplyPatchBeat(event=e):
            yield _log(f"apply patch: {e.path}", source="applyPatch",
                       commit=e.commit_message if e.commit else None)
        case SessionStartBeat() | InitializeBeat():
            pass  # shapes an ACP session; nothing happens in this one
        case FaultBeat():
            pass  # strikes a stream, not the session: placed by ``plan_session``
        case (AgentPlanBeat() | AgentFileReadsBeat() | AgentPermissionRequestBeat()
              | SetModeBeat() | SetModelBeat() | UserEditsBeat() | UserCancelSessionBeat()
              | AssertBeat() | ScreenshotBeat() | MergeBeat()):
            yield _log(_marker(beat), level="debug", source=beat.kind)
        case _:
            assert_never(beat)


def _tool_events(beat: ToolBeat) -> Iterator[Body]:
    use = beat.event
    name, args = tool_call(use)
    tid = use.tool_call_id
    match beat:
        case ToolStartBeat():
            yield {"type": "tool_use", "tool_name": name, "tool_args": args,
                   "tool_execution_id": tid, "status": "started"}
        case ProgressBeat(step=progress):
            yield _log(progress.message, tool_execution_id=tid, tool_name=name,
                       source="progress")
        case ToolExecutionBeat(step=step):
            if step.type == "completion":
                return
            level = "warn" if step.type == "stderr" else "info"
            for line in step.content.splitlines() or [""]:
                yield _log(line, level=level, tool_execution_id=tid, tool_name=name,
                           source=step.type)
        case ToolResultBeat():
            yield {"type": "tool_result", "tool_name": name, "tool_output": as_text(use.result),
                   "tool_execution_id": tid, "status": _tool_status(use)}
        case _:
            assert_never(beat)


def _tool_status(use: AgentToolUse) -> Literal["completed", "failed"]:
    if use.tool_execution is not None:
        codes = [e.exit_code for e in use.tool_execution.events if e.type == "completion"]
        if codes and codes[-1] not in (None, 0):
            return "failed"
    return "failed" if use.status in ("error", "failed") else "completed"


def _edit_events(edit: AgentEdits) -> Iterator[Body]:
    yield {"type": "file_edit", "file_path": edit.path, "lines_added": edit.lines_added,
           "lines_removed": edit.lines_removed, "description": edit.description}
    if edit.old_text is not None or edit.new_text is not None:
        yield diff_event(edit.tool_call_id or None, edit.path, edit.old_text or "",
                         edit.new_text or "")


def diff_event(tool_execution_id: str | None, path: str, old: str, new: str) -> Body:
    """The spec's ``diff`` event; large texts are cut to head and tail (``truncated``)."""
    body: Body = {"type": "diff", "tool_execution_id": tool_execution_id, "path": path}
    if not _large(old) and not _large(new):
        return body | {"oldText": old, "newText": new}
    for key, text in (("old", old), ("new", new)):
        lines = text.splitlines(keepends=True)
        body[f"{key}TextHead"] = "".join(lines[:DIFF_HEAD_LINES])
        body[f"{key}TextTail"] = "".join(lines[-DIFF_TAIL_LINES:])
    return body | {"truncated": True, "fullDiffUrl": None}


def _large(text: str) -> bool:
    return len(text.encode()) > DIFF_MAX_BYTES or text.count("\n") > DIFF_MAX_LINES


def _marker(beat: Beat) -> str:
    label = beat.event.label if isinstance(beat, ScreenshotBeat) else None
    return f"{beat.kind}: {label}" if label else beat.kind


def _level(level: str) -> str:
    return {"warning": "warn", "err": "error"}.get(level, level) \
        if level not in ("debug", "info", "warn", "error") else level


def _status(status: str) -> Body:
    return {"type": "status", "status": status}


def _log(message: str, *, level: str = "info", tool_execution_id: str | None = None,
         **extra: Any) -> Body:
    body: Body = {"type": "log", "level": level, "message": message,
                  "tool_execution_id": tool_execution_id}
    body.update((k, v) for k, v in extra.items() if v is not None)
    return body


def user_prompt_event(text: str) -> Body:
    """The event a live ``POST .../prompt`` appends."""
    return _log(text, source="user", target="api")


# -- the web UI's named-event dialect ---------------------------------------------------


def webui_event(body: Mapping[str, Any], session_id: str) -> tuple[str, Body] | None:
    """``(event name, data)`` of a typed event in the reference web UI's dialect, or None
    for events it has no name for (``diff``: the web UI shows edits by ``file_edit``)."""
    kind, base = body.get("type"), {"sessionId": session_id, "ts": body.get("ts")}
    if kind == "status":
        return "status", base | {"status": body["status"]}
    if kind == "thought":
        return "thinking", base | {"thought": body["thought"]}
    if kind == "tool_use":
        return "tool_execution", base | {"tool_name": body["tool_name"],
                                         "tool_args": body["tool_args"],
                                         "tool_execution_id": body["tool_execution_id"]}
    if kind == "tool_result":
        return "tool_execution", base | {
            "tool_name": body["tool_name"], "tool_output": body["tool_output"],
            "tool_status": "success" if body["status"] == "completed" else "error",
            "tool_execution_id": body["tool_execution_id"]}
    if kind == "file_edit":
        return "file_edit", base | {k: body[k] for k in
                                    ("file_path", "lines_added", "lines_removed")}
    if kind == "log" and body.get("tool_execution_id"):
        return "tool_execution", base | {"tool_name": body.get("tool_name", ""),
                                         "last_line": body["message"],
                                         "tool_execution_id": body["tool_execution_id"]}
    if kind == "log":
        return "log", base | {"level": body["level"], "message": _webui_message(body)}
    if kind == "error":
        return "log", base | {"level": "error", "message": body["message"]}
    return None


def _webui_message(body: Mapping[str, Any]) -> str:
    source = body.get("source")
    prefix = {"assistant": "Assistant: ", "user": "User: "}.get(str(source), "")
    return prefix + str(body["message"])
