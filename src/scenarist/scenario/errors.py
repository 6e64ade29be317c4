"""Problems found in a scenario, as values: where, what, and how to fix it.

Loading collects every problem of a file before giving up, so one run of
``scenarist validate`` shows them all; :class:`ScenarioError` carries that list.
"""

from __future__ import annotations

from typing import Literal

from scenarist.errors import ScenaristError
from scenarist.scenario.record import Record

__all__ = ["Issue", "ScenarioError", "Severity"]

Severity = Literal["error", "warning"]


class Issue(Record):
    """One problem: ``file:line:col`` (1-based), the key path, a message and a fix."""

    file: str
    line: int
    col: int
    path: str
    message: str
    hint: str = ""
    severity: Severity = "error"

    def __str__(self) -> str:
        where = f" (at {self.path})" if self.path else ""
        text = f"{self.file}:{self.line}:{self.col}: {self.severity}: {self.message}{where}"
        if self.hint:
            text += f"\n  hint: {self.hint}"
        return text

    def as_error(self) -> Issue:
        """The same problem promoted to an error (``--strict``)."""
        return Issue(self.file, self.line, self.col, self.path, self.message, self.hint, "error")


class ScenarioError(ScenaristError):
    """A scenario could not be loaded; ``issues`` lists every error (and warning) found."""

    def __init__(self, issues: list[Issue]) -> None:
        self.issues = issues
        errors = [i for i in issues if i.severity == "error"] or issues
        super().__init__("\n".join(str(i) for i in errors))

    @property
    def errors(self) -> list[Issue]:
        return [i for i in self.issues if i.severity == "error"]
