"""A session as an agent-neutral transcript: prompts, then what the model did, in order.

Every source of a real session (a Codex rollout file, a Claude Code transcript, an ACP line
log, proxied model traffic) is read into this one small form, and one writer
(:mod:`.writer`) turns it into a scenario. Tool calls keep the agent's own name and input:
which table reads them back into scenario tools (:mod:`scenarist.vocabulary`) is the
transcript's ``vocabulary``, decided by the writer, so the readers need not know the format's
tools. Each step's ``delay_ms`` is the time since the previous step (or the turn's prompt).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

__all__ = ["Failure", "Step", "Text", "Thinking", "ToolCall", "Transcript", "Turn",
           "Vocabulary"]

#: whose tool names the calls use: Claude Code's, Codex's, or the format's own (``runCmd``)
Vocabulary = Literal["claude-code", "codex", "format"]


@dataclass(frozen=True, slots=True)
class Thinking:
    """The model's reasoning text."""

    text: str
    delay_ms: int = 0


@dataclass(frozen=True, slots=True)
class Text:
    """Text the model said to the user."""

    text: str
    delay_ms: int = 0


@dataclass(frozen=True, slots=True)
class ToolCall:
    """A tool call as the agent made it (``input``: its JSON arguments, or the raw text of a
    freeform tool such as Codex's ``apply_patch``), with what it returned."""

    name: str
    input: Mapping[str, Any] | str
    result: Any = None  # text, or the JSON value a scenario gave
    status: str | None = None  # ok, error (or another status of the format)
    call_id: str | None = None
    delay_ms: int = 0


@dataclass(frozen=True, slots=True)
class Failure:
    """An error the model API answered with instead of a turn (a 429, a 529, ...)."""

    message: str
    status_code: int = 500
    error_type: str = "api_error"
    retry_after_seconds: float | None = None
    delay_ms: int = 0


Step = Thinking | Text | ToolCall | Failure


@dataclass(frozen=True, slots=True)
class Turn:
    """One prompt of the user and the steps that answered it."""

    prompt: str
    steps: tuple[Step, ...] = ()
    delay_ms: int = 0  # from the end of the previous turn (the first: from the start)


@dataclass(frozen=True, slots=True)
class Transcript:
    """A whole session: its turns, whose tools they call, and where the agent worked
    (``cwd``: absolute paths inside it become the scenario's relative ones)."""

    name: str
    turns: tuple[Turn, ...]
    vocabulary: Vocabulary = "format"
    cwd: str | None = None
    description: str | None = None
    tags: tuple[str, ...] = field(default=())
