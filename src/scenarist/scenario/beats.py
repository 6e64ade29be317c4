"""The typed beats of a compiled timeline: one record per kind, and the kind groups as unions.

A front end plays a beat by ``match``-ing on its type, so mypy knows what ``event`` and
``step`` hold in each case and, with ``case _: assert_never(beat)``, reports the kinds a front
end claims to play but does not handle. A group of kinds is a union type (``AgentBeat``), not
a set of strings, so a misspelt kind is a type error rather than a silently empty test.

Per-step beats carry the step they play (``ThinkBeat.step`` is the ``TextStep``); the other
beats stand for their whole event. ``kind`` names a beat as the scenario format does
(``"userInputs"``, ``"think"``), for output and messages only: code tests types, never kinds.

The fields are declared once, on two frozen dataclasses (``_Beat``, ``_StepBeat``); a kind's
record is a plain subclass that narrows the types of ``event`` and ``step`` for mypy. It
inherits the dataclass's ``__init__``, ``__eq__`` (same class only) and ``__repr__`` (its own
name), and making each kind a dataclass of its own would add nothing but start-up time: 26
generated classes cost ``scenarist validate`` about 6% more instructions.

A new timeline event that happens at one moment needs a record here (its ``kind`` the
event's own, added to ``Beat``); the compiler (:mod:`.timeline`) builds it through
:data:`EVENT_BEATS` without a change of its own. (The inherited ``__init__`` takes any event
and step: the compiler is the one place that builds beats, and a test checks what it builds
against each record's annotations.)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
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

__all__ = [
    "BEATS", "BEAT_KINDS", "EVENT_BEATS", "AgentBeat", "AgentEditsBeat", "AgentFileReadsBeat",
    "AgentPermissionRequestBeat", "AgentPlanBeat", "ApplyPatchBeat", "AssertBeat",
    "AssistantBeat", "Beat", "CompleteBeat", "ErrorBeat", "FaultBeat", "InitializeBeat", "LogBeat",
    "MergeBeat", "ProgressBeat", "PromptBeat", "ResponseBeat", "ScreenshotBeat",
    "SessionStartBeat", "SetModeBeat", "SetModelBeat", "StatusBeat", "ThinkBeat", "ToolBeat",
    "ToolExecutionBeat", "ToolResultBeat", "ToolStartBeat", "UserCancelSessionBeat",
    "UserCommandBeat", "UserEditsBeat",
]


@dataclass(frozen=True, slots=True, kw_only=True)
class _Beat:
    """What every beat has: when (absolute, unscaled ms), which event, whether live."""

    at_ms: int
    index: int  # timeline index of ``event``
    live: bool  # False before ``sessionStart`` (historical, replayed on session/load)
    event: Event
    kind: ClassVar[str]


@dataclass(frozen=True, slots=True, kw_only=True)
class _StepBeat(_Beat):
    """A beat that plays one step of its event."""

    step: object


# -- the steps of an llmResponse ------------------------------------------------------------


class ThinkBeat(_StepBeat):
    """A think step of an ``llmResponse``."""

    __slots__ = ()
    event: LlmResponse
    step: TextStep
    kind: ClassVar[str] = "think"


class AssistantBeat(_StepBeat):
    """An assistant step of an ``llmResponse``."""

    __slots__ = ()
    event: LlmResponse
    step: TextStep
    kind: ClassVar[str] = "assistant"


class ErrorBeat(_StepBeat):
    """The error element of an ``llmResponse``."""

    __slots__ = ()
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


class ToolStartBeat(_Beat):
    """A tool call starts."""

    __slots__ = ()
    event: AgentToolUse
    kind: ClassVar[str] = "agentToolUse"


class ProgressBeat(_StepBeat):
    """A progress message of a tool call."""

    __slots__ = ()
    event: AgentToolUse
    step: ProgressStep
    kind: ClassVar[str] = "progress"


class ToolExecutionBeat(_StepBeat):
    """One stdout/stderr/progress/completion event of a tool run."""

    __slots__ = ()
    event: AgentToolUse
    step: ExecEvent
    kind: ClassVar[str] = "toolExecution"


class ToolResultBeat(_Beat):
    """A tool call ends with its result and status."""

    __slots__ = ()
    event: AgentToolUse
    kind: ClassVar[str] = "toolResult"


# -- one prompt of userInputs -------------------------------------------------------------


class PromptBeat(_StepBeat):
    """One prompt sent by the user (an entry of ``userInputs``)."""

    __slots__ = ()
    event: UserInputs
    step: UserInput
    kind: ClassVar[str] = "userInputs"


# -- events that happen at one moment -------------------------------------------------------


class AgentEditsBeat(_Beat):
    """The agent edited a file."""

    __slots__ = ()
    event: AgentEdits
    kind: ClassVar[str] = "agentEdits"


class AgentPlanBeat(_Beat):
    """The agent's plan."""

    __slots__ = ()
    event: AgentPlan
    kind: ClassVar[str] = "agentPlan"


class AgentFileReadsBeat(_Beat):
    """The agent reads client files."""

    __slots__ = ()
    event: AgentFileReads
    kind: ClassVar[str] = "agentFileReads"


class AgentPermissionRequestBeat(_Beat):
    """The agent asks for permission."""

    __slots__ = ()
    event: AgentPermissionRequest
    kind: ClassVar[str] = "agentPermissionRequest"


class SetModeBeat(_Beat):
    """The client switches mode."""

    __slots__ = ()
    event: SetMode
    kind: ClassVar[str] = "setMode"


class SetModelBeat(_Beat):
    """The client switches model."""

    __slots__ = ()
    event: SetModel
    kind: ClassVar[str] = "setModel"


class UserEditsBeat(_Beat):
    """The user applies a patch."""

    __slots__ = ()
    event: UserEdits
    kind: ClassVar[str] = "userEdits"


class ApplyPatchBeat(_Beat):
    """The harness applies a patch and may commit it."""

    __slots__ = ()
    event: ApplyPatch
    kind: ClassVar[str] = "applyPatch"


class UserCommandBeat(_Beat):
    """The user runs a command."""

    __slots__ = ()
    event: UserCommand
    kind: ClassVar[str] = "userCommand"


class UserCancelSessionBeat(_Beat):
    """The user cancels the turn."""

    __slots__ = ()
    event: UserCancelSession
    kind: ClassVar[str] = "userCancelSession"


class InitializeBeat(_Beat):
    """The ACP ``initialize`` handshake."""

    __slots__ = ()
    event: Initialize
    kind: ClassVar[str] = "initialize"


class SessionStartBeat(_Beat):
    """The historical/live boundary."""

    __slots__ = ()
    event: SessionStart
    kind: ClassVar[str] = "sessionStart"


class AssertBeat(_Beat):
    """Check files, terminal, JSON or git."""

    __slots__ = ()
    event: Assert
    kind: ClassVar[str] = "assert"


class ScreenshotBeat(_Beat):
    """Capture the terminal."""

    __slots__ = ()
    event: Screenshot
    kind: ClassVar[str] = "screenshot"


class LogBeat(_Beat):
    """A harness log line."""

    __slots__ = ()
    event: Log
    kind: ClassVar[str] = "log"


class StatusBeat(_Beat):
    """A session status change."""

    __slots__ = ()
    event: Status
    kind: ClassVar[str] = "status"


class CompleteBeat(_Beat):
    """The task completed."""

    __slots__ = ()
    event: Complete
    kind: ClassVar[str] = "complete"


class MergeBeat(_Beat):
    """Keep the session listed after completion."""

    __slots__ = ()
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
