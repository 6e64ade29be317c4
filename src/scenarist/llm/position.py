"""Where in a scenario a request stands, derived from the request alone.

Clients resend the whole conversation, so the next model turn follows from what is already
in it: which user turn it is, and the assistant text and tool calls made since that prompt.
A multi-prompt scenario continues at the matching user turn: the *k*-th prompt of the
conversation must match the *k*-th ``userInputs`` (by the selection's closeness rule), else
the request fails naming both.
No cursor is kept per client, so concurrent conversations, restarts and several server
processes all agree.

The walk matches the history of the current user turn against the scenario's model turns:
each turn with *k* actions consumes *k* tool calls (with any text or reasoning before them),
a turn without actions consumes its text. This copes with clients that interleave tool calls
and their results (Codex records ``call, output, call, output``).

A request that refuses parallel tool calls (``conv.one_call``) gets a turn with several calls
as consecutive one-call answers: a history that ends part-way through a turn's calls stands
at that turn's next call (:attr:`Position.part`).

A request that continues state held by the server (a Responses ``previous_response_id``, a
message-thread ``continue``) carries only what is new; its position follows from the id it
continues, which names the turn it answered (:func:`continue_from`).

Scripted ``error`` turns leave nothing in the history, so a retry looks exactly like the
request that got the error. The caller passes ``served_error(turn_index)``: an error turn that
was already answered to this conversation is stepped over (the one bit of state, see
:mod:`scenarist.llm.server`).
"""

# Annotations are not postponed here: see "Records" in docs/architecture.md.
from collections.abc import Callable
from typing import NamedTuple

from scenarist.errors import WireError
from scenarist.llm.conversation import Conversation
from scenarist.llm.divergence import (
    Divergence,
    ToolCall,
    action_label,
    carries,
    missing_result,
    result_divergence,
)
from scenarist.llm.ids import TurnRef
from scenarist.llm.script import Action, ModelTurn, Script, ToolAction
from scenarist.llm.selection import is_match, match_score


class Position(NamedTuple):
    """The model turn to answer with, and where it sits (a ``NamedTuple``: one per request,
    see :mod:`scenarist.llm.answer`)."""

    segment: int  # 0-based user turn
    turn: ModelTurn
    step: int  # index of the turn within its segment
    part: int = 0  # the turn's first call to make (one call per answer)


class PositionError(WireError, LookupError):
    """The request does not fit the scenario: it is past the end, or strays from it.
    ``divergence`` names the first step where it left the scenario, when one does."""

    def __init__(self, message: str, *, expected: str | None = None,
                 divergence: Divergence | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.expected = expected
        self.divergence = divergence


def locate(
    script: Script,
    conv: Conversation,
    served_error: Callable[[int], bool] = lambda _index: False,
) -> Position:
    """The next model turn of ``script`` for the conversation ``conv``."""
    segment = max(conv.user_turns, 1) - 1
    if segment >= len(script.segments):
        raise PositionError(
            f"scenario {script.name!r} has {len(script.segments)} user turn(s) but the request "
            f"is at user turn {segment + 1}: the scenario is already past its end",
            expected="no more user turns",
            divergence=Divergence(
                script.name, f"user prompt {segment + 1}", script.where(0), "user turns",
                f"{len(script.segments)} user prompt(s)",
                f"user prompt {segment + 1}: {conv.prompts[-1] if conv.prompts else ''}"),
        )
    _check_prompts(script, conv, segment)
    turns = script.segments[segment].turns
    marks = conv.marks
    i = 0
    for step, turn in enumerate(turns):
        if turn.error is not None:  # leaves nothing in the history
            if i == len(marks) and not served_error(turn.index):
                return Position(segment, turn, step)
            continue
        if i == len(marks):
            return Position(segment, turn, step)
        want = len(turn.actions)
        if want == 0:
            if marks[i].kind != "text":
                raise _stray(script, segment, turn, conv, "a tool call where text was expected",
                             _diverged(script, turn, "tool calls", "text, no tool call",
                                       f"a call to {marks[i].name!r}"))
            while i < len(marks) and marks[i].kind == "text":
                i += 1
            continue
        got = 0
        while i < len(marks) and got < want:
            if marks[i].kind == "call":
                action = turn.actions[got]
                if not carries(action, marks[i].name):
                    raise _stray(script, segment, turn, conv,
                                 f"a call to {marks[i].name!r} where the scenario makes "
                                 f"{action_label(action)}",
                                 _diverged(script, turn, "tool call name", action_label(action),
                                           marks[i].name, call=got))
                got += 1
            i += 1
        if conv.one_call and 0 < got < want and i == len(marks):
            return Position(segment, turn, step, part=got)
        if got < want:
            raise _stray(
                script,
                segment,
                turn,
                conv,
                f"{got} of its {want} tool call(s) in the history",
                _diverged(script, turn, "tool calls",
                          f"{want} call(s): " + ", ".join(action_label(a) for a in turn.actions),
                          f"{got} call(s)", call=got),
            )
    last = turns[-1].describe() if turns else "no model turns"
    raise PositionError(
        f"scenario {script.name!r} has no model turn left in user turn {segment + 1}: the "
        f"history already holds {conv.assistant_turns} assistant turn(s) and "
        f"{conv.tool_calls} tool call(s), which covers all {len(turns)} turn(s) "
        f"(last: {last})",
        expected="a new user prompt (the scenario's next userInputs)"
        if segment + 1 < len(script.segments)
        else "nothing: the scenario is complete",
        divergence=Divergence(
            script.name, f"user turn {segment + 1}, after {last}",
            script.where(turns[-1].line if turns else script.segments[segment].line),
            "model turns", f"{len(turns)} model turn(s)",
            f"a request after {conv.assistant_turns} assistant turn(s) and "
            f"{conv.tool_calls} tool call(s)"),
    )


def continue_from(
    script: Script,
    previous: TurnRef,
    conv: Conversation,
    served_error: Callable[[int], bool] = lambda _index: False,
) -> Position:
    """The next model turn after the answer ``previous``, for a request that carries only
    what followed it: a new user prompt opens the next segment, anything else (tool results)
    moves to the turn's next call (one call per answer) or to the next turn."""
    found = find_turn(script, previous.turn)
    if found is None:
        raise PositionError(
            f"scenario {script.name!r} has no model turn {previous.turn}: the id continued "
            "does not belong to this scenario", expected="an id this server handed out")
    segment, step = found
    turns = script.segments[segment].turns
    if conv.prompts:
        segment, step = segment + 1, 0
        if segment >= len(script.segments):
            raise PositionError(
                f"scenario {script.name!r} has {len(script.segments)} user turn(s) and the "
                "continued conversation already answered the last one",
                expected="nothing: the scenario is complete")
        scripted = script.segments[segment].prompt
        if scripted is not None and not is_match(conv.prompts[-1], scripted):
            raise PositionError(
                f"user prompt {segment + 1} of the conversation, {conv.prompts[-1]!r}, does not "
                f"match userInputs {segment + 1} of scenario {script.name!r}, {scripted!r}",
                expected=f"user prompt {segment + 1}: {scripted!r}",
                divergence=_prompt_divergence(script, segment, conv.prompts[-1]))
        turns = script.segments[segment].turns
    else:
        turn = turns[step]
        if conv.one_call and previous.part + 1 < len(turn.actions):
            return Position(segment, turn, step, part=previous.part + 1)
        step += 1
    for k in range(step, len(turns)):
        if turns[k].error is None or not served_error(turns[k].index):
            return Position(segment, turns[k], k)
    raise PositionError(
        f"scenario {script.name!r} has no model turn left in user turn {segment + 1} after "
        f"turn {previous.turn}",
        expected="a new user prompt (the scenario's next userInputs)"
        if segment + 1 < len(script.segments) else "nothing: the scenario is complete")


def find_turn(script: Script, index: int) -> tuple[int, int] | None:
    """(segment, step) of the model turn with ``index``."""
    for segment, seg in enumerate(script.segments):
        for step, turn in enumerate(seg.turns):
            if turn.index == index:
                return segment, step
    return None
def first_prompt_index(conv: Conversation, script: Script) -> int:
    """Where ``script``'s first prompt sits among the conversation's user prompts: clients
    such as aider send few-shot examples and a repository map as user/assistant pairs before
    the real request, and those are context, not user turns. The prompt that matches best
    (the first of equals): a few-shot example can resemble the real request (aider's "Change
    the greeting to be more casual"). 0 when no prompt matches (or the scenario has none)."""
    if script.prompt is None or len(conv.prompts) < 2:
        return 0
    scores = [match_score(typed, script.prompt) for typed in conv.prompts]
    best = max(scores)
    return scores.index(best) if best > 0.0 else 0


def from_prompt(conv: Conversation, start: int) -> Conversation:
    """``conv`` as if it began at user prompt ``start`` (the context before it dropped)."""
    if start == 0:
        return conv
    return conv._replace(prompts=conv.prompts[start:])


def _check_prompts(script: Script, conv: Conversation, segment: int) -> None:
    """Each later user prompt must be the scenario's ``userInputs`` at that turn (the first
    one chose the scenario already): a conversation that took another turn is not this
    scenario's, and answering it with the scripted turn would be a silent lie."""
    for k in range(1, segment + 1):
        typed, scripted = conv.prompts[k], script.segments[k].prompt
        if scripted is not None and not is_match(typed, scripted):
            raise PositionError(
                f"user prompt {k + 1} of the conversation, {typed!r}, does not match "
                f"userInputs {k + 1} of scenario {script.name!r}, {scripted!r}",
                expected=f"user prompt {k + 1}: {scripted!r}",
                divergence=_prompt_divergence(script, k, typed),
            )


def _stray(
    script: Script, segment: int, turn: ModelTurn, conv: Conversation, what: str,
    divergence: Divergence | None = None,
) -> PositionError:
    return PositionError(
        f"the conversation strays from scenario {script.name!r} in user turn {segment + 1}: "
        f"{what} ({turn.describe()}); the history holds {conv.tool_calls} tool call(s) and "
        f"{conv.assistant_turns} assistant turn(s)",
        expected=turn.describe(),
        divergence=divergence,
    )


def _prompt_divergence(script: Script, segment: int, typed: str) -> Divergence:
    scripted = script.segments[segment].prompt or ""
    return Divergence(script.name, f"user prompt {segment + 1}",
                      script.where(script.segments[segment].line), "prompt", scripted, typed)


def _call_step(turn: ModelTurn, call: int) -> str:
    """``turn 2, call 1 of 2: runCmd 'make'`` (a turn without that call: the turn alone)."""
    if call >= len(turn.actions):
        return f"turn {turn.index}"
    return (f"turn {turn.index}, call {call + 1} of {len(turn.actions)}: "
            f"{action_label(turn.actions[call])}")


def _diverged(script: Script, turn: ModelTurn, field: str, expected: str, got: str,
              *, call: int = 0) -> Divergence:
    action = turn.actions[call] if call < len(turn.actions) else None
    line = action.line if action is not None and action.line else turn.line
    return Divergence(script.name, _call_step(turn, call), script.where(line), field, expected,
                      got)


def made_calls(script: Script, position: Position) -> list[tuple[ModelTurn, int, Action]]:
    """The scenario's calls the history holds at ``position`` in its user turn, in order:
    (turn, index of the call in its turn, action)."""
    turns = script.segments[position.segment].turns
    made = [(t, k, a) for t in turns[:position.step] if t.error is None
            for k, a in enumerate(t.actions)]
    made += [(position.turn, k, a) for k, a in enumerate(position.turn.actions[:position.part])]
    return made


def check_results(script: Script, position: Position, calls: list[ToolCall]) -> None:
    """The tool results of the calls made in this user turn against the scenario's
    ``result``/``status``, and every call answered: the last ``len(made)`` calls of the
    history are the scenario's calls of this turn (see :func:`locate`)."""
    made = made_calls(script, position)
    if not made or len(calls) < len(made):
        return
    for (turn, k, action), call in zip(made, calls[len(calls) - len(made):], strict=True):
        if isinstance(action, ToolAction):
            found = result_divergence(action, call)
        else:
            found = missing_result(action) if call.result is None else None
        if found is not None:
            raise PositionError(
                f"the tool results in the request do not match scenario {script.name!r}",
                divergence=Divergence(script.name, _call_step(turn, k),
                                      script.where(action.line or turn.line), *found))
