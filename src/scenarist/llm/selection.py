"""Which scenario answers a request: by name, by the ``x-scenario-prompt`` header, or by the
Levenshtein distance between the conversation's first prompt and each effective initial prompt.

A prompt *matches* when it is close enough that a person would call it the same request:
equal after whitespace/case normalisation, one containing the other, or a normalised
similarity of at least :data:`MIN_SIMILARITY`. Otherwise the request fails loudly, naming the
nearest scenarios and their distances.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from rapidfuzz.distance import Levenshtein

from scenarist.llm.script import Script

MIN_SIMILARITY = 0.5


@dataclass(frozen=True, slots=True)
class Choice:
    script: Script
    by: Literal["name", "header-prompt", "prompt", "only"]
    distance: int | None = None


class SelectionError(LookupError):
    def __init__(self, message: str, status: int = 404) -> None:
        super().__init__(message)
        self.message = message
        self.status = status


def _norm(text: str) -> str:
    return " ".join(text.split()).lower()


def ranked(scripts: Sequence[Script], prompt: str) -> list[tuple[int, Script]]:
    """Scenarios by distance from ``prompt`` (ties keep load order)."""
    scored = [
        (Levenshtein.distance(_norm(prompt), _norm(s.prompt or "")), i, s)
        for i, s in enumerate(scripts)
    ]
    scored.sort(key=lambda t: (t[0], t[1]))
    return [(d, s) for d, _i, s in scored]


def is_match(prompt: str, candidate: str | None) -> bool:
    a, b = _norm(prompt), _norm(candidate or "")
    if not b:
        return False
    if a == b or a in b or b in a:
        return True
    return bool(Levenshtein.normalized_similarity(a, b) >= MIN_SIMILARITY)


def choose(
    scripts: Sequence[Script],
    *,
    name: str | None = None,
    prompt: str | None = None,
    conversation_prompt: str | None = None,
) -> Choice:
    """The scenario for a request (see the module doc for the order)."""
    if name:
        for script in scripts:
            if script.name == name:
                return Choice(script, "name")
        known = ", ".join(repr(s.name) for s in scripts)
        raise SelectionError(
            f"scenarist: no scenario is named {name!r} (x-scenario-name); loaded: {known}"
        )
    by: Literal["header-prompt", "prompt"] = "header-prompt" if prompt else "prompt"
    text = prompt or conversation_prompt
    if text is None:
        if len(scripts) == 1:
            return Choice(scripts[0], "only")
        raise SelectionError(
            "scenarist: the request has no user prompt to match a scenario with; send "
            "x-scenario-name or x-scenario-prompt, or load a single scenario",
            status=400,
        )
    order = ranked(scripts, text)
    distance, best = order[0]
    if is_match(text, best.prompt):
        return Choice(best, by, distance)
    nearest = "; ".join(f"{s.name!r} (distance {d}, prompt {s.prompt!r})" for d, s in order[:3])
    raise SelectionError(f"scenarist: no scenario matches the prompt {text!r}; nearest: {nearest}")
