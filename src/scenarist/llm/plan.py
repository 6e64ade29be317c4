"""A loaded scenario → the :class:`~scenarist.llm.script.Script` the model server plays.

Reads the compiled :class:`~scenarist.scenario.timeline.Timeline`'s turns
(:func:`~scenarist.scenario.turns.turns_of`, pure): the live beats (after a ``sessionStart``
boundary, what comes before is history for ACP ``session/load``, not something a model is
asked for), taken event by event in timeline order:

- each ``userInputs`` entry opens a user segment (one user turn of the conversation); the
  turns of the lead-in (before any) answer the scenario's initial prompt;
- each ``llmResponse`` opens a model turn: its think/assistant beats become text due at the
  beat's time measured from the turn's start (the timeline compiler has placed them), an
  ``error`` beat makes it an error turn;
- ``agentToolUse`` (and the tool-specific events, which arrive as ``AgentToolUse`` with the
  tool's typed record) and ``agentEdits`` join the model turn before them; a tool use with no
  ``llmResponse`` before it in its segment gets a turn of its own with no text;
- ``assert`` events are checked before the next model turn (those after the last turn are
  kept as ``final_checks``), as the typed :class:`~scenarist.scenario.model.Assert`.

Everything else (screenshots, logs, user commands, ``userEdits``/``applyPatch`` patches,
ACP-only events) is not the model's business and is skipped: the test executor plays them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import groupby
from typing import Any, assert_never

from scenarist.llm.script import (
    Action,
    Check,
    EditAction,
    ModelTurn,
    Script,
    ScriptedError,
    Segment,
    TimedText,
    ToolAction,
)
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
    ResponseBeat,
    ScreenshotBeat,
    SessionStartBeat,
    SetModeBeat,
    SetModelBeat,
    StatusBeat,
    ThinkBeat,
    ToolExecutionBeat,
    ToolResultBeat,
    ToolStartBeat,
    UserCancelSessionBeat,
    UserCommandBeat,
    UserEditsBeat,
)
from scenarist.scenario.model import AgentEdits, AgentToolUse, Fault, LlmResponse, Scenario
from scenarist.scenario.timeline import compile_timeline
from scenarist.scenario.turns import turns_of


@dataclass
class _Turn:
    """A model turn while it is being collected from the timeline (becomes a ModelTurn)."""

    thinking: list[TimedText] = field(default_factory=list)
    text: list[TimedText] = field(default_factory=list)
    actions: list[Action] = field(default_factory=list)
    error: ScriptedError | None = None
    checks: list[Check] = field(default_factory=list)
    duration_ms: int = 0
    meta: dict[str, Any] = field(default_factory=dict)
    line: int = 0
    fault: Fault | None = None
    fault_after: tuple[int, int] = (0, 0)


@dataclass
class _Segment:
    """The turns that answer one user prompt, while they are being collected."""

    prompt: str | None
    turns: list[_Turn] = field(default_factory=list)
    line: int = 0


def _index(beat: Beat) -> int:
    return beat.index


def _response(event: LlmResponse, beats: tuple[ResponseBeat | FaultBeat, ...],
              checks: list[Check]) -> _Turn:
    """A model turn from an ``llmResponse``'s beats, timed from the turn's start (its fault
    placed after the thinking and text before it)."""
    turn = _Turn(checks=checks, meta=dict(event.meta or {}), line=event.line)
    steps = [b for b in beats if not isinstance(b, FaultBeat)]
    if not steps:
        return turn
    start = steps[0].at_ms - steps[0].step.delay_ms  # the cursor before the first step
    for beat in beats:
        match beat:
            case FaultBeat(step=fault):
                turn.fault = fault
                turn.fault_after = (len(turn.thinking), len(turn.text))
            case ErrorBeat(step=step):
                turn.error = ScriptedError(
                    message=step.message,
                    status=step.status_code,
                    error_type=step.error_type,
                    details=step.details,
                    retry_after_seconds=step.retry_after_seconds,
                )
            case ThinkBeat(step=step) if step.text:
                turn.thinking.append(TimedText(beat.at_ms - start, step.text))
            case AssistantBeat(step=step) if step.text:
                turn.text.append(TimedText(beat.at_ms - start, step.text))
            case ThinkBeat() | AssistantBeat():
                pass  # an empty step only takes time
            case _:
                assert_never(beat)
    turn.duration_ms = steps[-1].at_ms - start
    return turn


def build_script(scenario: Scenario) -> Script:
    """The model-server view of ``scenario`` (see the module doc)."""
    segments: list[_Segment] = []
    pending: list[Check] = []

    def segment() -> _Segment:
        if not segments:  # a turn before any userInputs answers the initial prompt
            segments.append(_Segment(scenario.effective_initial_prompt))
        return segments[-1]

    for turn in turns_of(compile_timeline(scenario)):
        segments += [_Segment(prompt.step.text, line=prompt.step.line or prompt.event.line)
                     for prompt in turn.prompts]
        current: _Turn | None = None
        for _, group in groupby(sorted(turn.beats, key=_index), key=_index):
            beats = tuple(group)  # one event's beats, in time order
            match beats[0]:
                case (ThinkBeat(event=response) | AssistantBeat(event=response)
                      | ErrorBeat(event=response) | FaultBeat(event=LlmResponse() as response)):
                    steps = tuple(b for b in beats if isinstance(b, ResponseBeat | FaultBeat))
                    current = _response(response, steps, pending)
                    pending = []
                    segment().turns.append(current)
                case (ToolStartBeat(event=action) | ProgressBeat(event=action)
                      | ToolExecutionBeat(event=action) | ToolResultBeat(event=action)
                      | AgentEditsBeat(event=action)):
                    if current is None:
                        current = _Turn(checks=pending, line=action.line)
                        pending = []
                        segment().turns.append(current)
                    current.actions.append(_action(action))
                case AssertBeat(event=check):
                    pending.append(Check(check, label=f"assert at {check.key_path} "
                                                      f"(line {check.line})"))
                    current = None  # a tool use after it needs the check first: a new turn
                case (PromptBeat() | AgentPlanBeat() | AgentFileReadsBeat()
                      | AgentPermissionRequestBeat() | SetModeBeat() | SetModelBeat()
                      | UserEditsBeat() | ApplyPatchBeat() | UserCommandBeat()
                      | UserCancelSessionBeat() | InitializeBeat() | SessionStartBeat()
                      | ScreenshotBeat() | LogBeat() | StatusBeat() | CompleteBeat()
                      | MergeBeat() | FaultBeat()):
                    pass  # not the model's business (see the module doc)
                case _:
                    assert_never(beats[0])
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
            line=event.line,
        )
    return ToolAction.of(event.tool, result=event.result, status=event.status, line=event.line)


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
                    line=t.line,
                    fault=t.fault,
                    fault_after=t.fault_after,
                )
            )
            index += 1
        out.append(Segment(seg.prompt, tuple(turns), seg.line))
    return tuple(out)
