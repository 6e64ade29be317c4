"""A compiled timeline cut into what ACP plays: history, then one prompt turn at a time.

Pure. The history (beats before ``sessionStart``) is replayed on ``session/load``. The live
part is cut at each ``userInputs`` prompt: a turn is the prompt and the agent beats written
after it, up to the next prompt (:func:`scenarist.scenario.turns_of` makes the cut). Agent
beats written before the first live prompt (a session loaded mid-task) belong to the first
turn, which then answers whatever the client prompts first.
A ``userCancelSession`` stays in its turn: the agent plays up to it and waits there for
the client's ``session/cancel``. A scripted ``error`` ends the prompt it falls in (the
prompt is answered with the error); the beats after it form a *retry* turn, which the
client's next ``session/prompt`` (its retry of the same prompt) plays, as the model server
answers a retried request with the scenario's next response.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from scenarist.scenario.beats import (
    AgentBeat,
    Beat,
    ErrorBeat,
    PromptBeat,
    SessionStartBeat,
    SetModeBeat,
    SetModelBeat,
    UserCancelSessionBeat,
)
from scenarist.scenario.model import Scenario, SessionStart, UserInput
from scenarist.scenario.timeline import Timeline, compile_timeline
from scenarist.scenario.turns import turns_of

__all__ = ["AcpAgentBeat", "AcpScript", "ClientBeat", "Turn", "script_of"]

#: beats the agent plays in a turn
AcpAgentBeat = AgentBeat | UserCancelSessionBeat
#: beats the client originates (acp-test sends them)
ClientBeat = PromptBeat | SetModeBeat | SetModelBeat | UserCancelSessionBeat
# Neither: the harness's beats (userEdits, applyPatch, userCommand, assert, screenshot, log,
# ...) have no ACP message; a test executor plays them in the workspace, not over the wire.


@dataclass(frozen=True, slots=True)
class Turn:
    """One ``session/prompt``: the scripted prompt (None for a turn that answers any
    prompt), the agent's beats, and what the prompt's answer should be."""

    prompt: UserInput | None
    beats: tuple[AcpAgentBeat, ...]
    origin_ms: int  # the beat time at which the turn starts
    expected: Mapping[str, Any] | None = None
    retry: bool = False  # the rest of a prompt after a scripted error: the client retries

    @property
    def fails(self) -> bool:
        """Whether the turn ends with a scripted error (its prompt is answered with it)."""
        return bool(self.beats) and isinstance(self.beats[-1], ErrorBeat)

    @property
    def cancels(self) -> bool:
        return any(isinstance(b, UserCancelSessionBeat) for b in self.beats)


@dataclass(frozen=True, slots=True)
class AcpScript:
    """A scenario as ACP plays it."""

    scenario: Scenario
    history: tuple[Beat, ...]
    turns: tuple[Turn, ...]
    session_start: SessionStart | None

    @property
    def session_id(self) -> str | None:
        return self.session_start.session_id if self.session_start else None


def script_of(scenario: Scenario, timeline: Timeline | None = None) -> AcpScript:
    """Cut ``scenario``'s compiled timeline into history and turns: one per prompt, the
    lead-in joining the first (:func:`scenarist.scenario.turns_of` makes the cut)."""
    timeline = timeline or compile_timeline(scenario)
    start = next((b.event for b in timeline.beats if isinstance(b, SessionStartBeat)), None)
    structure = turns_of(timeline)
    origin = next((b.at_ms for b in timeline.beats if b.live), 0)
    cuts: list[tuple[UserInput | None, int, list[AcpAgentBeat]]] = []
    lead_in = _agent(structure.lead_in)
    for turn in structure.turns:
        for beat in turn.prompts:
            if not cuts and lead_in:
                cuts.append((beat.step, origin, lead_in))  # the lead-in joins the first turn
            else:
                cuts.append((beat.step, beat.at_ms, []))
        cuts[-1][2].extend(_agent(turn.beats))
    if not cuts and lead_in:
        cuts.append((None, origin, lead_in))
    turns = []
    for n, (prompt, at, beats) in enumerate(cuts):
        expected = prompt.expected_response if prompt is not None else None
        if n == 0 and start is not None and start.expected_prompt_response:
            expected = {**start.expected_prompt_response, **(expected or {})}
        turns += _split_at_errors(Turn(prompt, tuple(beats), at, expected))
    return AcpScript(scenario, structure.history, tuple(turns), start)


def _agent(beats: tuple[Beat, ...]) -> list[AcpAgentBeat]:
    return [b for b in beats if isinstance(b, AcpAgentBeat)]


def _split_at_errors(turn: Turn) -> list[Turn]:
    """``turn`` cut after each scripted error: the error answers the prompt, the rest is a
    retry turn (the prompt's expected answer stays with the last part)."""
    parts: list[Turn] = []
    beats: list[AcpAgentBeat] = []
    origin = turn.origin_ms
    for beat in turn.beats:
        beats.append(beat)
        if isinstance(beat, ErrorBeat):
            parts.append(Turn(turn.prompt, tuple(beats), origin, None, retry=bool(parts)))
            beats, origin = [], beat.at_ms
    if beats or not parts:
        parts.append(Turn(turn.prompt, tuple(beats), origin, turn.expected, retry=bool(parts)))
    return parts
