"""What a run found, as plain frozen data: checks, steps, and the run itself.

Everything here pickles, so a worker process (``-j N``, pytest-xdist) hands its
:class:`RunResult` back to the parent that writes the reports.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from scenarist.errors import ScenaristError
from scenarist.processes import ProcessInfo
from scenarist.runner.screen import ScreenCapture

__all__ = ["CheckResult", "Failure", "Outcome", "RunResult", "ScenarioFailed", "StepResult",
           "worst"]

Outcome = Literal["passed", "failed", "skipped"]


class ScenarioFailed(ScenaristError, AssertionError):
    """A scenario run by a test failed; the message lists every failure and the logs."""


@dataclass(frozen=True, slots=True)
class CheckResult:
    """One assertion (or expectation) and what was found."""

    label: str
    outcome: Outcome
    message: str
    diff: str = ""


@dataclass(frozen=True, slots=True)
class StepResult:
    """One timeline beat the runner played: when it was due, when it ran, what came of it.

    ``scheduled_ms``/``fired_ms`` are milliseconds from the start of playback (speed
    applied); ``at_ms`` is the scenario's own time.
    """

    index: int
    kind: str
    at_ms: int
    scheduled_ms: float
    fired_ms: float
    label: str
    outcome: Outcome
    message: str = ""
    checks: tuple[CheckResult, ...] = ()
    capture: ScreenCapture | None = None
    golden: str | None = None  # path of the golden file (screenshots)
    diff: str = ""


@dataclass(frozen=True, slots=True)
class Failure:
    """One failure of a run, with what a reader needs to see it: the screen at that moment
    (the step's capture, else the last screen) and the golden diff, if any."""

    line: str
    screen: ScreenCapture | None = None
    diff: str = ""


@dataclass(frozen=True, slots=True)
class RunResult:
    """One scenario played against one program in one terminal profile."""

    name: str
    path: str
    runner: str
    profile: str
    outcome: Outcome
    steps: tuple[StepResult, ...]
    expectations: tuple[CheckResult, ...]
    errors: tuple[str, ...]
    exit_code: int | None
    duration_ms: float
    log_dir: str
    final_screen: ScreenCapture | None
    argv: tuple[str, ...] = ()
    sessions: tuple[tuple[str, str, bool], ...] = ()  # (session, status, merged)
    # what was still running at the end and had to be stopped (the program included)
    leftover: tuple[ProcessInfo, ...] = field(default=())
    pid: int | None = None  # the program's
    # mode 2: the first request the model server refused as off the scenario (its journal's
    # divergence, status and message: :func:`scenarist.runner.agents.model_divergence`)
    divergence: Mapping[str, Any] | None = None
    # the program still ran when the run ended and the runner stopped it (no expect.exitCode):
    # ``exit_code`` is then what that hang-up left (-1 for SIGHUP), not a crash of its own
    stopped: bool = False

    @property
    def exit_text(self) -> str:
        """The exit code as the reports show it."""
        if self.stopped:
            return f"{self.exit_code} (still running at the end: stopped by the runner)"
        return str(self.exit_code)

    @property
    def left_behind(self) -> tuple[ProcessInfo, ...]:
        """What the program left running besides itself (daemons, jobs, tool processes)."""
        return tuple(p for p in self.leftover if p.pid != self.pid)

    def raise_for_failure(self) -> RunResult:
        """This result, or a :class:`ScenarioFailed` (an ``AssertionError``) listing every
        failure and the log folder (for tests)."""
        if self.outcome == "failed":
            lines = "\n".join(f"  - {line}" for line in self.failures)
            raise ScenarioFailed(f"scenario {self.name!r} failed:\n{lines}\n  logs: "
                                 f"{self.log_dir}")
        return self

    @property
    def failures(self) -> list[str]:
        """Every failure as one line: errors, failed steps, failed checks and expectations."""
        return [f.line for f in self.failure_details()]

    def failure_details(self) -> list[Failure]:
        """Every failure (as :attr:`failures`) with its screen and diff, for the reports."""
        last = self.final_screen
        out = [Failure(line, last) for line in self.errors]
        if self.divergence is not None and self.outcome == "failed":  # the likely cause first
            out.insert(0, Failure(f"the model server refused a request "
                                  f"({self.divergence.get('status')}): "
                                  f"{self.divergence.get('message')}", last))
        for step in self.steps:
            failed = [c for c in step.checks if c.outcome == "failed"]
            screen = step.capture or last
            out += [Failure(f"{step.kind} at {step.at_ms} ms: {c.label}: {c.message}", screen,
                            c.diff) for c in failed]
            if step.outcome == "failed" and not failed:
                out.append(Failure(f"{step.kind} {step.label} at {step.at_ms} ms: "
                                   f"{step.message}", screen, step.diff))
        out += [Failure(f"expect {c.label}: {c.message}", last, c.diff)
                for c in self.expectations if c.outcome == "failed"]
        return out


def worst(outcomes: list[Outcome]) -> Outcome:
    """failed if any failed, else passed if any passed, else skipped."""
    if "failed" in outcomes:
        return "failed"
    return "passed" if "passed" in outcomes or not outcomes else "skipped"
