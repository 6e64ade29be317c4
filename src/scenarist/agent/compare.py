"""Real results against the scenario's expectations: pure rules, each mismatch with a diff.

What is compared:

- ``status`` (when the scenario gives one): ``ok``/``completed`` expects success,
  ``error``/``failed`` a failure, ``pending``/``in_progress`` a background start. When the
  status is left out only a refusal counts (the agent would not do what the file says).
- ``result`` (when given) for the tools whose result *is* their output (``runCmd``,
  ``readFile``, ``grep``, ``listDir``, ``find``, ``sed``, ``bashOutput``). Text is compared
  after normalising line endings, trailing spaces and trailing blank lines, which terminals
  and YAML scalars lose anyway. For other tools the result is a description (shown, not
  compared); simulated tools answer it verbatim.
- ``agentEdits``: the edit must apply, and the lines it added/removed must be the declared
  ``linesAdded``/``linesRemoved`` (skipped when ``oldText``/``newText`` are given and both
  counts are left at 0).
- a prompt typed at the terminal against the scenario's ``userInputs`` text.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Any

from scenarist.agent.tools import Outcome
from scenarist.json_out import as_text
from scenarist.text_compare import normalise

__all__ = ["Problem", "check_edit", "check_prompt", "check_tool", "normalise", "text_diff"]

_SUCCESS = ("ok", "completed")
_FAILURE = ("error", "failed")
_STARTED = ("pending", "in_progress")


@dataclass(frozen=True, slots=True)
class Problem:
    """One way a real result differs from the scenario: a sentence, and a diff if texts differ;
    ``field``, ``expected`` and ``got`` say the same for a divergence record
    (:class:`scenarist.divergence.Divergence`)."""

    what: str
    diff: str = ""
    field: str = ""
    expected: str = ""
    got: str = ""


def text_diff(expected: str, actual: str) -> str:
    """A unified diff from the scenario's text to the real one (normalised)."""
    lines = difflib.unified_diff(normalise(expected).split("\n"), normalise(actual).split("\n"),
                                 "scenario", "actual", lineterm="")
    return "\n".join(lines)


def _how_it_went(outcome: Outcome) -> str:
    if outcome.refused:
        return "it was refused"
    if outcome.timed_out:
        return "it timed out"
    if outcome.exit_code is not None:
        return f"it exited with code {outcome.exit_code}"
    return "it succeeded" if outcome.ok else "it failed"


def check_tool(outcome: Outcome, *, result: Any, status: str | None,
               compares_output: bool) -> tuple[Problem, ...]:
    """How ``outcome`` differs from the scenario's ``result``/``status`` (empty: it matches)."""
    problems: list[Problem] = []
    if status in _SUCCESS and not outcome.ok:
        shown = "" if result is not None and compares_output else outcome.output.strip()
        problems.append(Problem(f"status: the scenario expects {status}, but "
                                f"{_how_it_went(outcome)}", shown, "status", status,
                                _how_it_went(outcome)))
    elif status in _FAILURE and outcome.ok:
        problems.append(Problem(f"status: the scenario expects {status}, but it succeeded",
                                field="status", expected=status, got="it succeeded"))
    elif status in _STARTED and not (outcome.background or outcome.simulated):
        problems.append(Problem(f"status: the scenario expects {status} (a background start), "
                                "but the tool ran to the end; set run_in_background: true",
                                field="status", expected=f"{status} (a background start)",
                                got="it ran to the end"))
    elif status is None and outcome.refused:
        problems.append(Problem(outcome.output, field="outcome", expected="the tool runs",
                                got=outcome.output))
    if (result is not None and compares_output and not outcome.simulated
            and not outcome.background and not outcome.refused):
        expected = as_text(result)
        if normalise(expected) != normalise(outcome.output):
            problems.append(Problem("result: the real output differs from the scenario's result",
                                    text_diff(expected, outcome.output), "result", expected,
                                    outcome.output))
    return tuple(problems)


def check_edit(outcome: Outcome, *, lines_added: int, lines_removed: int,
               has_texts: bool) -> tuple[Problem, ...]:
    """Whether an ``agentEdits`` applied and changed exactly the declared number of lines."""
    if not outcome.ok or outcome.change is None:
        return (Problem(f"the edit failed: {outcome.output}", field="edit",
                        expected="the edit applies", got=outcome.output),)
    if has_texts and lines_added == 0 and lines_removed == 0:
        return ()
    added, removed = outcome.change.counts
    if (added, removed) == (lines_added, lines_removed):
        return ()
    return (Problem(f"line counts: the scenario declares +{lines_added} -{lines_removed}, the "
                    f"edit made +{added} -{removed}", outcome.change.unified_diff(),
                    "line counts", f"+{lines_added} -{lines_removed}", f"+{added} -{removed}"),)


def check_prompt(expected: str, typed: str) -> tuple[Problem, ...]:
    """Whether the user typed the prompt the scenario's ``userInputs`` expects."""
    if normalise(expected) == normalise(typed):
        return ()
    return (Problem("prompt: the text typed differs from the scenario's userInputs",
                    text_diff(expected, typed), "prompt", expected, typed),)
