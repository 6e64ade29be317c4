"""Collecting a session's turns as they are read: prompts, steps, results matched to calls,
and the delay of each step from the one before (from the file's timestamps)."""

from __future__ import annotations

import dataclasses
from typing import Any

from scenarist.record.transcript import Step, ToolCall, Turn

__all__ = ["TurnBuilder"]


class TurnBuilder:
    """Turns built step by step; a tool's result is put on its call by call id."""

    def __init__(self) -> None:
        self.turns: list[Turn] = []
        self._prompt: str | None = None
        self._delay = 0
        self._steps: list[Step] = []
        self._calls: dict[str, int] = {}
        self._last_ms: int | None = None

    def _since(self, at_ms: int | None) -> int:
        if at_ms is None:
            return 0
        delay = 0 if self._last_ms is None else max(at_ms - self._last_ms, 0)
        self._last_ms = at_ms
        return delay

    def prompt(self, text: str, at_ms: int | None = None) -> None:
        self.close()
        self._prompt, self._delay = text, self._since(at_ms)

    def step(self, step: Step, at_ms: int | None = None) -> None:
        if self._prompt is None:  # steps before any prompt (a resumed session): no turn
            return
        step = dataclasses.replace(step, delay_ms=self._since(at_ms))
        if isinstance(step, ToolCall):
            if not isinstance(step.call_id, str):  # an id of another type: not trusted
                step = dataclasses.replace(step, call_id=None)
            elif step.call_id:
                self._calls[step.call_id] = len(self._steps)
        self._steps.append(step)

    def result(self, call_id: Any, result: Any, status: str | None) -> None:
        """The result of the call ``call_id`` (unknown ids: ignored, as the agent did)."""
        index = self._calls.get(call_id) if isinstance(call_id, str) else None
        if index is None:
            return
        call = self._steps[index]
        if isinstance(call, ToolCall):
            self._steps[index] = dataclasses.replace(call, result=result, status=status)

    def close(self) -> list[Turn]:
        if self._prompt is not None:
            self.turns.append(Turn(self._prompt, tuple(self._steps), self._delay))
        self._prompt, self._steps, self._calls = None, [], {}
        return self.turns
