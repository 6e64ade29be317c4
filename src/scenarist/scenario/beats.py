"""The typed beats of a compiled timeline: one record per kind, and the kind groups as unions.

A front end plays a beat by ``match``-ing on its type, so mypy knows what ``event`` and
``step`` hold in each case and, with ``case _: assert_never(beat)``, reports the kinds a front
end claims to play but does not handle. A group of kinds is a union type (``AgentBeat``), not
a set of strings, so a misspelt kind is a type error rather than a silently empty test.

Per-step beats carry the step they play (``ThinkBeat.step`` is the ``TextStep``); the other
beats stand for their whole event. ``kind`` names a beat as the scenario format does
(``"userInputs"``, ``"think"``), for output and messages only: code tests types, never kinds.

A new timeline event that happens at one moment needs a record here (its ``kind`` the
event's own, added to ``Beat`` and ``BEATS``); the compiler (:mod:`.timeline`) builds it
through :data:`EVENT_BEATS` without a change of its own.
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
    "AssistantBeat", "Beat", "CompleteBeat", "ErrorBeat", "InitializeBeat", "LogBeat",
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
    kind: ClassVar[str]


# -- the steps of an llmResponse ------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class ThinkBeat(_Beat):
    """A think step of an ``llmResponse``."""

    event: LlmResponse
    step: TextStep
    kind: ClassVar[str] = "think"


@dataclass(frozen=True, slots=True, kw_only=True)
class AssistantBeat(_Beat):
    """An assistant step of an ``llmResponse``."""

    event: LlmResponse
    step: TextStep
    kind: ClassVar[str] = "assistant"


@dataclass(frozen=True, slots=True, kw_only=True)
class ErrorBeat(_Beat):
    """The error element of an ``llmResponse``."""

    event: LlmResponse
    step: LlmError
    kind: ClassVar[str] = "error"


# -- a tool call ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolStartBeat(_Beat):
    """A tool call starts."""

    event: AgentToolUse
    kind: ClassVar[str] = "agentToolUse"


@dataclass(frozen=True, slots=True, kw_only=True)
class ProgressBeat(_Beat):
    """A progress message of a tool call."""

    event: AgentToolUse
    step: ProgressStep
    kind: ClassVar[str] = "progress"


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolExecutionBeat(_Beat):
    """One stdout/stderr/progress/completion event of a tool run."""

    event: AgentToolUse
    step: ExecEvent
    kind: ClassVar[str] = "toolExecution"


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolResultBeat(_Beat):
    """A tool call ends with its result and status."""

    event: AgentToolUse
    kind: ClassVar[str] = "toolResult"


# -- one prompt of userInputs -------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class PromptBeat(_Beat):
    """One prompt sent by the user (an entry of ``userInputs``)."""

    event: UserInputs
    step: UserInput
    kind: ClassVar[str] = "userInputs"


# -- events that happen at one moment -------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class AgentEditsBeat(_Beat):
    """The agent edited a file."""

    event: AgentEdits
    kind: ClassVar[str] = "agentEdits"


@dataclass(frozen=True, slots=True, kw_only=True)
class AgentPlanBeat(_Beat):
    """The agent's plan."""

    event: AgentPlan
    kind: ClassVar[str] = "agentPlan"


@dataclass(frozen=True, slots=True, kw_only=True)
class AgentFileReadsBeat(_Beat):
    """The agent reads client files."""

    event: AgentFileReads
    kind: ClassVar[str] = "agentFileReads"


@dataclass(frozen=True, slots=True, kw_only=True)
class AgentPermissionRequestBeat(_Beat):
    """The agent asks for permission."""

    event: AgentPermissionRequest
    kind: ClassVar[str] = "agentPermissionRequest"


@dataclass(frozen=True, slots=True, kw_only=True)
class SetModeBeat(_Beat):
    """The client switches mode."""

    event: SetMode
    kind: ClassVar[str] = "setMode"


@dataclass(frozen=True, slots=True, kw_only=True)
class SetModelBeat(_Beat):
    """The client switches model."""

    event: SetModel
    kind: ClassVar[str] = "setModel"


@dataclass(frozen=True, slots=True, kw_only=True)
class UserEditsBeat(_Beat):
    """The user applies a patch."""

    event: UserEdits
    kind: ClassVar[str] = "userEdits"


@dataclass(frozen=True, slots=True, kw_only=True)
class ApplyPatchBeat(_Beat):
    """The harness applies a patch and may commit it."""

    event: ApplyPatch
    kind: ClassVar[str] = "applyPatch"


@dataclass(frozen=True, slots=True, kw_only=True)
class UserCommandBeat(_Beat):
    """The user runs a command."""

    event: UserCommand
    kind: ClassVar[str] = "userCommand"


@dataclass(frozen=True, slots=True, kw_only=True)
class UserCancelSessionBeat(_Beat):
    """The user cancels the turn."""

    event: UserCancelSession
    kind: ClassVar[str] = "userCancelSession"


@dataclass(frozen=True, slots=True, kw_only=True)
class InitializeBeat(_Beat):
    """The ACP ``initialize`` handshake."""

    event: Initialize
    kind: ClassVar[str] = "initialize"


@dataclass(frozen=True, slots=True, kw_only=True)
class SessionStartBeat(_Beat):
    """The historical/live boundary."""

    event: SessionStart
    kind: ClassVar[str] = "sessionStart"


@dataclass(frozen=True, slots=True, kw_only=True)
class AssertBeat(_Beat):
    """Check files, terminal, JSON or git."""

    event: Assert
    kind: ClassVar[str] = "assert"


@dataclass(frozen=True, slots=True, kw_only=True)
class ScreenshotBeat(_Beat):
    """Capture the terminal."""

    event: Screenshot
    kind: ClassVar[str] = "screenshot"


@dataclass(frozen=True, slots=True, kw_only=True)
class LogBeat(_Beat):
    """A harness log line."""

    event: Log
    kind: ClassVar[str] = "log"


@dataclass(frozen=True, slots=True, kw_only=True)
class StatusBeat(_Beat):
    """A session status change."""

    event: Status
    kind: ClassVar[str] = "status"


@dataclass(frozen=True, slots=True, kw_only=True)
class CompleteBeat(_Beat):
    """The task completed."""

    event: Complete
    kind: ClassVar[str] = "complete"


@dataclass(frozen=True, slots=True, kw_only=True)
class MergeBeat(_Beat):
    """Keep the session listed after completion."""

    event: Merge
    kind: ClassVar[str] = "merge"


# -- the unions ---------------------------------------------------------------------------

#: the beats of an ``llmResponse``
ResponseBeat = ThinkBeat | AssistantBeat | ErrorBeat
#: the beats of a tool call
ToolBeat = ToolStartBeat | ProgressBeat | ToolExecutionBeat | ToolResultBeat
#: what the agent does (the events that wait for the prompts written above them)
AgentBeat = (ResponseBeat | ToolBeat | AgentEditsBeat | AgentPlanBeat | AgentFileReadsBeat
             | AgentPermissionRequestBeat)
#: every beat
Beat = (AgentBeat | PromptBeat | SetModeBeat | SetModelBeat | UserEditsBeat | ApplyPatchBeat
        | UserCommandBeat | UserCancelSessionBeat | InitializeBeat | SessionStartBeat
        | AssertBeat | ScreenshotBeat | LogBeat | StatusBeat | CompleteBeat | MergeBeat)

#: every beat type, in the order above (``Beat`` at run time, for lists and checks)
BEATS: tuple[type[Beat], ...] = get_args(Beat)

#: every kind, with what its beat is (the record's docstring): the stable API's table
BEAT_KINDS: dict[str, str] = {b.kind: (b.__doc__ or "").strip() for b in BEATS}

#: the beat of an event that happens at one moment, by the event's kind: every beat but
#: those the compiler times step by step
EVENT_BEATS: dict[str, Callable[..., Beat]] = {
    b.kind: b for b in BEATS if b not in get_args(ResponseBeat | ToolBeat | PromptBeat)}


def event_beat(event: Event, at_ms: int, live: bool) -> Beat:
    """The beat of ``event``, an event that happens at one moment, at ``at_ms``."""
    return EVENT_BEATS[event.kind](at_ms=at_ms, index=event.index, live=live, event=event)
