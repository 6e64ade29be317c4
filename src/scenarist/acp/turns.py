"""A compiled timeline cut into what ACP plays: history, then one prompt turn at a time.

Pure. The history (beats before ``sessionStart``) is replayed on ``session/load``. The live
part is cut at each ``userInputs`` prompt: a turn is the prompt and the agent beats up to
the next prompt. Agent beats that come before the first live prompt (a session loaded
mid-task) belong to the first turn, which then answers whatever the client prompts first.
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

from scenarist.scenario.model import Scenario, SessionStart, UserInput
from scenarist.scenario.timeline import Beat, Timeline, compile_timeline

__all__ = ["AGENT_KINDS", "CLIENT_KINDS", "AcpScript", "Turn", "script_of"]

#: beats the agent plays in a turn
AGENT_KINDS = frozenset({"think", "assistant", "error", "agentToolUse", "progress",
                         "toolExecution", "toolResult", "agentEdits", "agentPlan",
                         "agentFileReads", "agentPermissionRequest", "userCancelSession"})
#: beats the client originates (acp-test sends them)
CLIENT_KINDS = frozenset({"userInputs", "setMode", "setModel", "userCancelSession"})
# Neither: the harness's beats (userEdits, applyPatch, userCommand, assert, screenshot, log,
# ...) have no ACP message; a test executor plays them in the workspace, not over the wire.


@dataclass(frozen=True, slots=True)
class Turn:
    """One ``session/prompt``: the scripted prompt (None for a turn that answers any
    prompt), the agent's beats, and what the prompt's answer should be."""

    prompt: UserInput | None
    beats: tuple[Beat, ...]
    origin_ms: int  # the beat time at which the turn starts
    expected: Mapping[str, Any] | None = None
    retry: bool = False  # the rest of a prompt after a scripted error: the client retries

    @property
    def fails(self) -> bool:
        """Whether the turn ends with a scripted error (its prompt is answered with it)."""
        return bool(self.beats) and self.beats[-1].kind == "error"

    @property
    def cancels(self) -> bool:
        return any(b.kind == "userCancelSession" for b in self.beats)


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
    """Cut ``scenario``'s compiled timeline into history and turns."""
    timeline = timeline or compile_timeline(scenario)
    start = next((b.event for b in timeline.beats if b.kind == "sessionStart"), None)
    assert start is None or isinstance(start, SessionStart)
    history = tuple(b for b in timeline.beats if not b.live)
    live = [b for b in timeline.beats if b.live]
    origin = next((b.at_ms for b in live), 0)
    cuts: list[tuple[UserInput | None, int, list[Beat]]] = [(None, origin, [])]
    for beat in live:
        if beat.kind == "userInputs":
            prompt = beat.step
            assert isinstance(prompt, UserInput)
            if cuts[-1][0] is None and not cuts[-1][2] and len(cuts) == 1:
                cuts[-1] = (prompt, beat.at_ms, [])
            elif cuts[-1][0] is None and len(cuts) == 1:
                cuts[-1] = (prompt, cuts[-1][1], cuts[-1][2])  # lead-in joins the first turn
            else:
                cuts.append((prompt, beat.at_ms, []))
        elif beat.kind in AGENT_KINDS:
            cuts[-1][2].append(beat)
    turns = []
    for n, (prompt, at, beats) in enumerate(cuts):
        if prompt is None and not beats:
            continue
        expected = prompt.expected_response if prompt is not None else None
        if n == 0 and start is not None and start.expected_prompt_response:
            expected = {**start.expected_prompt_response, **(expected or {})}
        turns += _split_at_errors(Turn(prompt, tuple(beats), at, expected))
    return AcpScript(scenario, history, tuple(turns), start)


def _split_at_errors(turn: Turn) -> list[Turn]:
    """``turn`` cut after each scripted error: the error answers the prompt, the rest is a
    retry turn (the prompt's expected answer stays with the last part)."""
    parts: list[Turn] = []
    beats: list[Beat] = []
    origin = turn.origin_ms
    for beat in turn.beats:
        beats.append(beat)
        if beat.kind == "error":
            parts.append(Turn(turn.prompt, tuple(beats), origin, None, retry=bool(parts)))
            beats, origin = [], beat.at_ms
    if beats or not parts:
        parts.append(Turn(turn.prompt, tuple(beats), origin, turn.expected, retry=bool(parts)))
    return parts
