"""Where an ACP session stands, from the messages both ways: what ``acp-test`` says when the
agent fails (pure, no I/O).

A report that an agent "exited" or "sent a bad line" is only useful with *where*: which
request was waiting for its answer, in which prompt turn, after how many updates. The
client's transport observer feeds every message here in wire order (:meth:`sent`,
:meth:`received`); :meth:`where` names the moment, and the prompt-turn rules that ACP states
about the agent's side of a turn are checked as the messages pass:

- after ``session/cancel``, the answer to ``session/prompt`` MUST be ``cancelled``; updates
  between the cancel and the answer are allowed (the client SHOULD accept them), and so is an
  answer that takes its time (a *late* answer is tolerated, and counted);
- every ``session/update`` of a turn MUST come before the turn's answer;
- a ``tool_call_update`` names a tool call that a ``tool_call`` started (an update for an
  unknown call cannot be shown: a reordered stream).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["SessionProgress", "TurnRecord", "exit_text"]

_TURN_CONTENT = {"agent_message_chunk", "agent_thought_chunk", "tool_call", "tool_call_update",
                 "plan"}


def exit_text(code: int | None) -> str:
    """How a process ended, from its return code (negative: the signal that ended it)."""
    if code is None:
        return "still running"
    if code < 0:
        import signal

        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        return f"was killed by {name}"
    return f"exited with code {code}"


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


@dataclass(slots=True)
class TurnRecord:
    """One ``session/prompt`` as the wire showed it."""

    number: int  # 1-based: the n-th session/prompt the client sent
    request_id: Any
    updates: int = 0  # session/update notifications before the answer
    cancelled_at: int | None = None  # updates counted when the client sent session/cancel
    answer: Mapping[str, Any] | None = None  # the response message, once it came
    late_updates: int = 0  # updates after the answer (ACP: none)
    started: set[str] = field(default_factory=set)  # toolCallIds that a tool_call opened
    problems: list[str] = field(default_factory=list)

    @property
    def after_cancel(self) -> int:
        """Updates that came between the client's session/cancel and the answer."""
        return 0 if self.cancelled_at is None else self.updates - self.cancelled_at


class SessionProgress:
    """The requests in flight each way and the prompt turns, fed in wire order."""

    def __init__(self) -> None:
        self.pending: dict[Any, str] = {}  # client request id -> method, until answered
        self.agent_pending: dict[Any, str] = {}  # the agent's requests the client owes
        self.turns: list[TurnRecord] = []
        self.received_count = 0

    @property
    def turn(self) -> TurnRecord | None:
        return self.turns[-1] if self.turns else None

    # -- feeding ----------------------------------------------------------------------------
    def sent(self, message: Mapping[str, Any]) -> None:
        """A message the client wrote."""
        method = message.get("method")
        if isinstance(method, str):
            if "id" in message:
                self.pending[message["id"]] = method
                if method == "session/prompt":
                    self.turns.append(TurnRecord(len(self.turns) + 1, message["id"]))
            elif method == "session/cancel" and self._running() is not None:
                running = self._running()
                assert running is not None
                if running.cancelled_at is None:
                    running.cancelled_at = running.updates
        elif "id" in message:
            self.agent_pending.pop(message["id"], None)

    def received(self, message: Mapping[str, Any]) -> None:
        """A message the agent wrote (one the client's transport accepted)."""
        self.received_count += 1
        method = message.get("method")
        if isinstance(method, str):
            if "id" in message:
                self.agent_pending[message["id"]] = method
            elif method == "session/update":
                self._update(message.get("params"))
            return
        method = self.pending.pop(message.get("id"), None)
        turn = self.turn
        if method == "session/prompt" and turn is not None and turn.request_id == message.get("id"):
            turn.answer = message
            self._answered(turn)

    def _running(self) -> TurnRecord | None:
        turn = self.turn
        return turn if turn is not None and turn.answer is None else None

    def _update(self, params: Any) -> None:
        turn = self.turn
        update = params.get("update") if isinstance(params, Mapping) else None
        kind = update.get("sessionUpdate") if isinstance(update, Mapping) else None
        if turn is None:
            return
        if turn.answer is not None:
            if kind in _TURN_CONTENT:
                turn.late_updates += 1
            return
        turn.updates += 1
        assert isinstance(update, Mapping)
        call = update.get("toolCallId")
        if kind == "tool_call" and isinstance(call, str):
            turn.started.add(call)
        elif kind == "tool_call_update" and isinstance(call, str) and call not in turn.started:
            turn.problems.append(f"update {turn.updates} of turn {turn.number}: a "
                                 f"tool_call_update for toolCallId {call!r} came before its "
                                 "tool_call")
            turn.started.add(call)  # said once per call

    def _answered(self, turn: TurnRecord) -> None:
        result = turn.answer.get("result") if turn.answer is not None else None
        if turn.cancelled_at is None or not isinstance(result, Mapping):
            return
        reason = result.get("stopReason")
        if reason != "cancelled":
            turn.problems.append(
                f"session/prompt of turn {turn.number} was answered with stopReason "
                f"{reason!r} after the client's session/cancel; ACP requires 'cancelled'")

    # -- reading ----------------------------------------------------------------------------
    def where(self) -> str:
        """The moment, for a report: the request waiting for its answer (the prompt turn
        and the updates so far), else what the client was doing."""
        running = self._running()
        if running is not None and running.request_id in self.pending:
            text = (f"during session/prompt of turn {running.number}, after "
                    f"{_plural(running.updates, 'update')}")
            if running.cancelled_at is not None:
                text += f" ({running.after_cancel} since session/cancel)"
            others = [m for i, m in self.pending.items() if i != running.request_id]
            owed = sorted(set(self.agent_pending.values()))
            if owed:
                text += f", while the client answered {', '.join(owed)}"
            elif others:
                text += f", with {', '.join(sorted(set(others)))} pending"
            return text
        if self.pending:
            return f"during {', '.join(sorted(set(self.pending.values())))}"
        if self.turns:
            return f"after the answer to session/prompt of turn {self.turns[-1].number}"
        return "before any request was answered" if not self.received_count else (
            "between requests")

    def late_problems(self) -> list[str]:
        """The turns whose updates went on after their answer (ACP: every update of a
        turn comes before the answer to its session/prompt)."""
        return [f"{_plural(t.late_updates, 'session/update')} of turn {t.number} came after "
                "its session/prompt answer; ACP sends every update before the answer"
                for t in self.turns if t.late_updates]
