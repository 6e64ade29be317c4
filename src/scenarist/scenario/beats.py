"""The typed beats of a compiled timeline: one record per kind, and the kind groups as unions.

A front end plays a beat by ``match``-ing on its type, so mypy knows what ``event`` and
``step`` hold in each case and, with ``case _: assert_never(beat)``, reports the kinds a front
end claims to play but does not handle. A group of kinds is a union type (``AgentBeat``), not
a set of strings, so a misspelt kind is a type error rather than a silently empty test.

Per-step beats carry the step they play (``ThinkBeat.step`` is the ``TextStep``); the other
beats stand for their whole event. ``kind`` names a beat as the scenario format does
(``"userInputs"``, ``"think"``), for output and messages only: code tests types, never kinds.

The fields are declared once, on two frozen records (``_Beat``, ``_StepBeat``:
:class:`~scenarist.scenario.record.Record`, declared as a frozen dataclass is, because
``scenarist validate`` creates every class here and has a start-up budget); a kind's record is
a subclass that narrows the types of ``event`` and ``step``, so mypy checks what the compiler
builds and what a front end reads.

A new timeline event that happens at one moment needs a record here (its ``kind`` the
event's own, added to ``Beat``); the compiler (:mod:`.timeline`) builds it through
:data:`EVENT_BEATS` without a change of its own. (That table is untyped and a record checks
no types when built: the compiler is the one place that builds beats, and a test checks what
it builds against each record's annotations.)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar, get_args

from scenarist.scenario.model import (
    AgentEdits,
    AgentFileReads,
    AgentPermissionRequest,
    AgentPlan,
    AgentToolUse,
    ApplyPatch,
    Assert,
    Complete,
    Event,
    ExecEvent,
    Fault,
    FaultEvent,
    Initialize,
    LlmError,
    LlmResponse,
    Log,
    Merge,
    ProgressStep,
    Screenshot,
    SessionStart,
    SetMode,
    SetModel,
    Status,
    TextStep,
    UserCancelSession,
    UserCommand,
    UserEdits,
    UserInput,
    UserInputs,
)
from scenarist.scenario.record import Record

__all__ = [
    "BEATS", "BEAT_KINDS", "EVENT_BEATS", "AgentBeat", "AgentEditsBeat", "AgentFileReadsBeat",
    "AgentPermissionRequestBeat", "AgentPlanBeat", "ApplyPatchBeat", "AssertBeat",
    "AssistantBeat", "Beat", "CompleteBeat", "ErrorBeat", "FaultBeat", "InitializeBeat", "LogBeat",
    "MergeBeat", "ProgressBeat", "PromptBeat", "ResponseBeat", "ScreenshotBeat",
    "SessionStartBeat", "SetModeBeat", "SetModelBeat", "StatusBeat", "ThinkBeat", "ToolBeat",
    "ToolExecutionBeat", "ToolResultBeat", "ToolStartBeat", "UserCancelSessionBeat",
    "UserCommandBeat", "UserEditsBeat",
]


class _Beat(Record, kw_only=True):
    """What every beat has: when (absolute, unscaled ms), which event, whether live."""

    at_ms: int
    index: int  # timeline index of ``event``
    live: bool  # False before ``sessionStart`` (historical, replayed on session/load)
    event: Event
    kind: ClassVar[str]


class _StepBeat(_Beat, kw_only=True):
    """A beat that plays one step of its event."""

    step: object


# -- the steps of an llmResponse ------------------------------------------------------------


class ThinkBeat(_StepBeat, kw_only=True):
    """A think step of an ``llmResponse``."""

    event: LlmResponse
    step: TextStep
    kind: ClassVar[str] = "think"


class AssistantBeat(_StepBeat, kw_only=True):
    """An assistant step of an ``llmResponse``."""

    event: LlmResponse
    step: TextStep
    kind: ClassVar[str] = "assistant"


class ErrorBeat(_StepBeat, kw_only=True):
    """The error element of an ``llmResponse``."""

    event: LlmResponse
    step: LlmError
    kind: ClassVar[str] = "error"


class FaultBeat(_StepBeat):
    """A fault strikes: inside an ``llmResponse`` (after the steps before it) or between events."""

    __slots__ = ()
    event: LlmResponse | FaultEvent
    step: Fault
    kind: ClassVar[str] = "fault"


# -- a tool call ------------------------------------------------------------------------


class ToolStartBeat(_Beat, kw_only=True):
    """A tool call starts."""

    event: AgentToolUse
    kind: ClassVar[str] = "agentToolUse"


class ProgressBeat(_StepBeat, kw_only=True):
    """A progress message of a tool call."""

    event: AgentToolUse
    step: ProgressStep
    kind: ClassVar[str] = "progress"


class ToolExecutionBeat(_StepBeat, kw_only=True):
    """One stdout/stderr/progress/completion event of a tool run."""

    event: AgentToolUse
    step: ExecEvent
    kind: ClassVar[str] = "toolExecution"


class ToolResultBeat(_Beat, kw_only=True):
    """A tool call ends with its result and status."""

    event: AgentToolUse
    kind: ClassVar[str] = "toolResult"


# -- one prompt of userInputs -------------------------------------------------------------


class PromptBeat(_StepBeat, kw_only=True):
    """One prompt sent by the user (an entry of ``userInputs``)."""

    event: UserInputs
    step: UserInput
    kind: ClassVar[str] = "userInputs"


# -- events that happen at one moment -------------------------------------------------------


class AgentEditsBeat(_Beat, kw_only=True):
    """The agent edited a file."""

    event: AgentEdits
    kind: ClassVar[str] = "agentEdits"


class AgentPlanBeat(_Beat, kw_only=True):
    """The agent's plan."""

    event: AgentPlan
    kind: ClassVar[str] = "agentPlan"


class AgentFileReadsBeat(_Beat, kw_only=True):
    """The agent reads client files."""

    event: AgentFileReads
    kind: ClassVar[str] = "agentFileReads"


class AgentPermissionRequestBeat(_Beat, kw_only=True):
    """The agent asks for permission."""

    event: AgentPermissionRequest
    kind: ClassVar[str] = "agentPermissionRequest"


class SetModeBeat(_Beat, kw_only=True):
    """The client switches mode."""

    event: SetMode
    kind: ClassVar[str] = "setMode"


class SetModelBeat(_Beat, kw_only=True):
    """The client switches model."""

    event: SetModel
    kind: ClassVar[str] = "setModel"


class UserEditsBeat(_Beat, kw_only=True):
    """The user applies a patch."""

    event: UserEdits
    kind: ClassVar[str] = "userEdits"


class ApplyPatchBeat(_Beat, kw_only=True):
    """The harness applies a patch and may commit it."""

    event: ApplyPatch
    kind: ClassVar[str] = "applyPatch"


class UserCommandBeat(_Beat, kw_only=True):
    """The user runs a command."""

    event: UserCommand
    kind: ClassVar[str] = "userCommand"


class UserCancelSessionBeat(_Beat, kw_only=True):
    """The user cancels the turn."""

    event: UserCancelSession
    kind: ClassVar[str] = "userCancelSession"


class InitializeBeat(_Beat, kw_only=True):
    """The ACP ``initialize`` handshake."""

    event: Initialize
    kind: ClassVar[str] = "initialize"


class SessionStartBeat(_Beat, kw_only=True):
    """The historical/live boundary."""

    event: SessionStart
    kind: ClassVar[str] = "sessionStart"


class AssertBeat(_Beat, kw_only=True):
    """Check files, terminal, JSON or git."""

    event: Assert
    kind: ClassVar[str] = "assert"


class ScreenshotBeat(_Beat, kw_only=True):
    """Capture the terminal."""

    event: Screenshot
    kind: ClassVar[str] = "screenshot"


class LogBeat(_Beat, kw_only=True):
    """A harness log line."""

    event: Log
    kind: ClassVar[str] = "log"


class StatusBeat(_Beat, kw_only=True):
    """A session status change."""

    event: Status
    kind: ClassVar[str] = "status"


class CompleteBeat(_Beat, kw_only=True):
    """The task completed."""

    event: Complete
    kind: ClassVar[str] = "complete"


class MergeBeat(_Beat, kw_only=True):
    """Keep the session listed after completion."""

    event: Merge
    kind: ClassVar[str] = "merge"


# -- the unions ---------------------------------------------------------------------------

#: the beats of an ``llmResponse``
ResponseBeat = ThinkBeat | AssistantBeat | ErrorBeat
#: the beats of a tool call
ToolBeat = ToolStartBeat | ProgressBeat | ToolExecutionBeat | ToolResultBeat
#: what the agent does (the events that wait for the prompts written above them); a fault
#: is the agent's (or its wire's) doing, inside a response or between events
AgentBeat = (ResponseBeat | FaultBeat | ToolBeat | AgentEditsBeat | AgentPlanBeat
             | AgentFileReadsBeat | AgentPermissionRequestBeat)
#: every beat
Beat = (AgentBeat | PromptBeat | SetModeBeat | SetModelBeat | UserEditsBeat | ApplyPatchBeat
        | UserCommandBeat | UserCancelSessionBeat | InitializeBeat | SessionStartBeat
        | AssertBeat | ScreenshotBeat | LogBeat | StatusBeat | CompleteBeat | MergeBeat)

#: every beat type, in the order above (``Beat`` at run time, for lists and checks)
BEATS: tuple[type[Beat], ...] = get_args(Beat)

#: every kind, with what its beat is (the record's docstring): the stable API's table
BEAT_KINDS: dict[str, str] = {b.kind: (b.__doc__ or "").strip() for b in BEATS}

#: the beat of an event that happens at one moment, by the event's kind: every beat but
#: those the compiler times step by step and the fault's (it carries its ``Fault``)
EVENT_BEATS: dict[str, Callable[..., Beat]] = {
    b.kind: b for b in BEATS
    if b not in get_args(ResponseBeat | FaultBeat | ToolBeat | PromptBeat)}


def event_beat(event: Event, at_ms: int, live: bool) -> Beat:
    """The beat of ``event``, an event that happens at one moment, at ``at_ms``."""
    return EVENT_BEATS[event.kind](at_ms=at_ms, index=event.index, live=live, event=event)
