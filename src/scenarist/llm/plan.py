"""A loaded scenario → the :class:`~scenarist.llm.script.Script` the model server plays.

Walks the timeline once (pure):

- each ``userInputs`` entry opens a user segment (one user turn of the conversation);
- each ``llmResponse`` opens a model turn: think/assistant steps become timed text (steps are
  deltas that consume time, as the timeline compiler counts them), an ``error`` element makes
  it an error turn;
- ``agentToolUse`` (and the tool-specific events, which arrive as ``AgentToolUse`` with the
  tool's typed record) and ``agentEdits`` join the model turn before them; a tool use with no
  ``llmResponse`` before it in its segment gets a turn of its own with no text;
- ``assert`` events are checked before the next model turn (those after the last turn are
  kept as ``final_checks``);
- with a ``sessionStart`` boundary only the live part (after it) is played; what comes before
  is history for ACP ``session/load``, not something a model is asked for.

Everything else (screenshots, logs, user commands, ACP-only events) is not the model's
business and is skipped.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from scenarist.llm.script import (
    Action,
    Check,
    EditAction,
    ModelTurn,
    Script,
    ScriptedError,
    Segment,
    Timed,
    ToolAction,
)
from scenarist.scenario.model import (
    AgentEdits,
    AgentToolUse,
    Assert,
    LlmError,
    LlmResponse,
    Scenario,
    SessionStart,
    TextStep,
    UserInputs,
)


@dataclass
class _Turn:
    thinking: list[Timed] = field(default_factory=list)
    text: list[Timed] = field(default_factory=list)
    actions: list[Action] = field(default_factory=list)
    error: ScriptedError | None = None
    checks: list[Check] = field(default_factory=list)
    duration_ms: int = 0
    meta: dict[str, Any] = field(default_factory=dict)


@dataclass
class _Segment:
    prompt: str | None
    turns: list[_Turn] = field(default_factory=list)


def assert_spec(event: Assert) -> dict[str, Any]:
    """The spec's mapping form of a typed ``assert`` event (what :mod:`.checks` reads)."""
    spec: dict[str, Any] = {}
    fs: dict[str, Any] = {}
    if event.fs_exists:
        fs["exists"] = list(event.fs_exists)
    if event.fs_not_exists:
        fs["notExists"] = list(event.fs_not_exists)
    if fs:
        spec["fs"] = fs
    if event.text_contains:
        spec["text"] = {"contains": list(event.text_contains)}
    if event.json_file:
        spec["json"] = {
            "file": [
                {"path": j.path, "pointer": j.pointer, "equals": j.equals} for j in event.json_file
            ]
        }
    if event.git_commit:
        spec["git"] = {
            "commit": [{"messageContains": g.message_contains} for g in event.git_commit]
        }
    return spec


def _response(event: LlmResponse, checks: list[Check]) -> _Turn:
    turn = _Turn(checks=checks, meta=dict(event.meta or {}))
    clock = 0
    for step in event.steps:
        clock += step.delay_ms
        if isinstance(step, LlmError):
            turn.error = ScriptedError(
                message=step.message,
                status=step.status_code,
                error_type=step.error_type,
                details=step.details,
                retry_after_seconds=step.retry_after_seconds,
            )
        elif isinstance(step, TextStep):
            target = turn.thinking if step.kind == "think" else turn.text
            if step.text:
                target.append(Timed(clock, step.text))
    turn.duration_ms = clock
    return turn


def build_script(scenario: Scenario) -> Script:
    """The model-server view of ``scenario`` (see the module doc)."""
    events = scenario.timeline
    boundary = next((i for i, e in enumerate(events) if isinstance(e, SessionStart)), None)
    if boundary is not None:
        events = events[boundary + 1 :]
    segments: list[_Segment] = []
    pending: list[Check] = []
    current: _Turn | None = None
    implicit = False  # segment 0 exists only because a turn came before any userInputs

    def segment() -> _Segment:
        nonlocal implicit
        if not segments:
            segments.append(_Segment(scenario.effective_initial_prompt))
            implicit = True
        return segments[-1]

    for event in events:
        if isinstance(event, UserInputs):
            for entry in event.inputs:
                if len(segments) == 1 and not segments[0].turns and implicit:
                    segments[0].prompt = entry.text  # the first segment was opened early
                else:
                    segments.append(_Segment(entry.text))
                implicit = False
            current = None
        elif isinstance(event, LlmResponse):
            current = _response(event, pending)
            pending = []
            segment().turns.append(current)
        elif isinstance(event, AgentToolUse | AgentEdits):
            if current is None:
                current = _Turn(checks=pending)
                pending = []
                segment().turns.append(current)
            current.actions.append(_action(event))
        elif isinstance(event, Assert):
            pending.append(
                Check(assert_spec(event), label=f"assert at {event.key_path} (line {event.line})")
            )
            current = None  # a tool use after it needs the check first: a new turn
    if not segments:
        segments.append(_Segment(scenario.effective_initial_prompt))
    style = scenario.server.llm_api_style
    return Script(
        name=scenario.name,
        prompt=scenario.effective_initial_prompt,
        segments=_freeze(segments),
        api_style=style,
        coalesce_thinking_with_tool_use=scenario.server.coalesce_thinking_with_tool_use,
        final_checks=tuple(pending),
        source=str(scenario.source_path or ""),
    )


def _action(event: AgentToolUse | AgentEdits) -> Action:
    if isinstance(event, AgentEdits):
        return EditAction(
            path=event.path,
            lines_added=event.lines_added,
            lines_removed=event.lines_removed,
            old_text=event.old_text,
            new_text=event.new_text,
        )
    return ToolAction.of(event.tool)


def _freeze(segments: list[_Segment]) -> tuple[Segment, ...]:
    out: list[Segment] = []
    index = 0
    for seg in segments:
        turns: list[ModelTurn] = []
        for t in seg.turns:
            turns.append(
                ModelTurn(
                    index=index,
                    thinking=tuple(t.thinking),
                    text=tuple(t.text),
                    actions=tuple(t.actions),
                    error=t.error,
                    checks=tuple(t.checks),
                    duration_ms=t.duration_ms,
                    meta=t.meta,
                )
            )
            index += 1
        out.append(Segment(seg.prompt, tuple(turns)))
    return tuple(out)
