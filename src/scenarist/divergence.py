"""A divergence: the first step where a run left its scenario, as people and tests read it.

The model server (:mod:`scenarist.llm.divergence`), the mock agent and the test executor's
reports all say the same thing the same way: the step, the scenario's ``file:line``, the
field that differs, and expected vs got as a short diff — long values cut around the first
difference, secrets (``Authorization`` values, API keys, ``sk-…`` tokens) masked, so that a
report, a journal or a CI log never carries a key an agent had in its output.
"""

from __future__ import annotations

import re
from typing import Any, NamedTuple

from scenarist.text_compare import normalise

__all__ = ["WIDTH", "Divergence", "cut", "mask"]

WIDTH = 80  # characters of a value shown around its first difference

_SECRETS = (
    # an Authorization header or field, whatever its scheme
    re.compile(r"(?i)(\bauthorization[\"']?\s*[:=]\s*[\"']?(?:bearer\s+|basic\s+)?)[^\s\"',;]+"),
    # API keys and tokens named as such: x-api-key: …, api_key=…, "token": "…"
    re.compile(r"(?i)(\b(?:x-)?(?:api[-_]?key|access[-_]?token|auth[-_]?token|secret|password)"
               r"[\"']?\s*[:=]\s*[\"']?)[^\s\"',;]+"),
    # provider keys by their look: sk-…, sk-ant-…, AIza…
    re.compile(r"()\b(?:sk-[A-Za-z0-9_\-]{6,}|AIza[0-9A-Za-z_\-]{20,})"),
)
_MASK = "****"


def mask(text: str) -> str:
    """``text`` with secrets masked: Authorization values, named API keys, tokens and
    passwords, and strings that look like provider keys (``sk-…``)."""
    for pattern in _SECRETS:
        text = pattern.sub(lambda m: m.group(1) + _MASK, text)
    return text


def _first_difference(a: str, b: str) -> int:
    n = min(len(a), len(b))
    return next((i for i in range(n) if a[i] != b[i]), n)


def cut(text: str, at: int, width: int) -> str:
    """``text`` shown around position ``at``, at most about ``width`` characters."""
    if len(text) <= width:
        return text
    start = max(0, min(at - width // 3, len(text) - width))
    end = start + width
    return ("…" if start else "") + text[start:end] + ("…" if end < len(text) else "")


class Divergence(NamedTuple):
    """The first step where a run (a model request, a mock agent's tool) left its scenario."""

    scenario: str
    step: str  # e.g. "turn 2, call 1 of 1: runCmd 'npm test'", "timeline[3].runCmd"
    where: str  # the scenario's file:line of that step
    field: str  # e.g. "tool result of runCmd 'npm test'", "prompt", "tool call name"
    expected: str
    got: str
    nearest: tuple[tuple[str, int, str], ...] = ()  # (scenario, distance, prompt): no selection

    def shown(self, width: int = WIDTH) -> tuple[str, str, str]:
        """Expected and got, masked and cut around their first difference, and where that is
        (``line L, column C`` of the normalised text)."""
        expected, got = mask(normalise(self.expected)), mask(normalise(self.got))
        at = _first_difference(expected, got)
        line = expected.count("\n", 0, at) + 1
        column = at - (expected.rfind("\n", 0, at) + 1) + 1
        return cut(expected, at, width), cut(got, at, width), f"line {line}, column {column}"

    def describe(self, *, nearest: bool = True) -> str:
        """One line for a person reading an SDK exception or a report (``nearest``: with the
        nearest scenarios, when selection failed)."""
        expected, got, at = self.shown()
        text = (f"first divergence from scenario {self.scenario!r} at {self.step} "
                f"({self.where}): {self.field}: expected {expected!r}, got {got!r} "
                f"(first difference at {at})")
        if self.nearest and nearest:
            text += "; nearest: " + "; ".join(
                f"{name!r} at distance {d} (prompt {mask(cut(p, 0, WIDTH))!r})"
                for name, d, p in self.nearest)
        return text

    def as_json(self) -> dict[str, Any]:
        """The journal's ``divergence`` object (values masked and cut as in the message)."""
        expected, got, at = self.shown()
        out: dict[str, Any] = {"scenario": self.scenario, "step": self.step,
                               "where": self.where, "field": self.field, "expected": expected,
                               "got": got, "first_difference": at}
        if self.nearest:
            out["nearest"] = [{"scenario": n, "distance": d, "prompt": mask(cut(p, 0, WIDTH))}
                              for n, d, p in self.nearest]
        return out


