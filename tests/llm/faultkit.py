"""What the fault tests share: a two-prompt scenario with a fault in its first answer, and a
verdict sentence made from what a client did (docs/faults.md's tables are written from it)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from scenarist.llm.plan import build_script
from scenarist.llm.script import Script
from scenarist.scenario import load_scenario_text

PROMPT = "Explain the retry policy"
FIRST = ("Retries back off exponentially, ", "up to four attempts.")
WHOLE = "".join(FIRST)
NEXT_PROMPT = "And the timeout?"
NEXT = "Thirty seconds per attempt."

#: each kind the model API plays, as the verdict tests write it, and whether it is placed
#: first in the answer (a status instead of the answer; a wait before it) or after its first step
FAULTS: dict[str, tuple[str, bool]] = {
    "disconnect": ("{kind: disconnect}", False),
    "truncate": ("{kind: truncate}", False),
    "malformed": ("{kind: malformed}", False),
    "stall": ("{kind: stall, ms: 300}", False),
    "slowFirstByte": ("{kind: slowFirstByte, ms: 300}", True),
    "duplicate": ("{kind: duplicate}", False),
    "reorder": ("{kind: reorder}", False),
    "httpStatus": ("{kind: httpStatus, statusCode: 529, retryAfterSeconds: 0}", True),
}


def scenario_text(fault: str | None, first: bool, style: str = "openai",
                  follow_up: bool = True) -> str:
    """The scenario: ``fault`` (if any) in the first answer, after its first step or
    ``first``; with ``follow_up``, a second prompt and its answer."""
    place = f"      - fault: {fault}\n" if fault else ""
    steps = [f'      - assistant: [[0, "{FIRST[0]}"]]\n',
             f'      - assistant: [[0, "{FIRST[1]}"]]\n']
    body = place + "".join(steps) if first else steps[0] + place + steps[1]
    text = (f"name: faulted\nserver:\n  llmApiStyle: {style}\ntimeline:\n"
            f'  - userInputs: [[0, "{PROMPT}"]]\n  - llmResponse:\n{body}')
    if follow_up:
        text += (f'  - userInputs: [[0, "{NEXT_PROMPT}"]]\n  - llmResponse:\n'
                 f'      - assistant: [[0, "{NEXT}"]]\n')
    return text


def script(kind: str, style: str = "openai") -> Script:
    """The two-prompt scenario with the verdict tests' fault of ``kind``."""
    fault, first = FAULTS[kind]
    return build_script(load_scenario_text(scenario_text(fault, first, style)))


def one_answer(fault: str | None, *, first: bool = False, style: str = "openai") -> Script:
    """A one-answer scenario with ``fault`` (YAML flow text, or None for no fault)."""
    return build_script(load_scenario_text(scenario_text(fault, first, style, follow_up=False)))


@dataclass
class Seen:
    """What one call of a client did: the text it got (so far), and how it ended."""

    parts: list[str] = field(default_factory=list)
    error: BaseException | None = None

    @property
    def text(self) -> str:
        return "".join(self.parts)


def observe(call: Callable[[Seen], None]) -> Seen:
    """Run ``call`` (which appends the text it reads to ``seen.parts``), catching what it
    raises."""
    seen = Seen()
    try:
        call(seen)
    except Exception as exc:  # the verdict is which exception a client raises
        seen.error = exc
    return seen


def verdict(seen: Seen, requests: int, expected: str = WHOLE) -> str:
    """One sentence: what the client returned or raised, and how many requests it made."""
    text = seen.text
    if seen.error is not None:
        kind = type(seen.error)
        what = f"raises {kind.__module__.split('.')[0]}.{kind.__name__}"
        if text:
            what += " after part of the answer"
    elif text == expected:
        what = "reads the whole answer"
    elif expected.startswith(text):
        what = "reads a cut answer without an error"
    else:
        what = "reads a changed answer without an error"
    retried = " (retries by itself)" if requests > 1 else ""
    return f"{what}; {requests} request{'s' if requests > 1 else ''}{retried}"


def deliveries(journal: list[dict[str, Any]]) -> int:
    """The requests of the first answer (turn 0) in a server's journal."""
    return sum(1 for e in journal if e.get("turn") == 0)
