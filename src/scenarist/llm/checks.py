"""``assert`` events, checked against the workspace before the next model turn is served.

The spec's assertions, read from the typed :class:`~scenarist.scenario.model.Assert`:
``fs.exists`` / ``fs.notExists`` (paths), ``fs.contains`` (a file's text holds each text;
the rule of :mod:`scenarist.scenario.file_assert`), ``json.file`` (RFC 6901 pointer, JSON equality),
``git.commit`` (``messageContains`` in the latest commit). ``text.contains`` looks at a
terminal buffer, which a model server does not have: it is reported as skipped.

The checks are pure apart from what they read through the :class:`~.workspace.Workspace`.
"""

# Annotations are not postponed here: see "Records" in docs/architecture.md.
import json
from collections.abc import Iterator
from typing import Literal, NamedTuple

from scenarist.llm.script import Check
from scenarist.llm.workspace import Workspace, WorkspaceError
from scenarist.scenario.file_assert import file_contains
from scenarist.scenario.json_assert import json_equal, json_pointer
from scenarist.scenario.model import Assert, FileContainsAssert, GitCommitAssert, JsonFileAssert

__all__ = ["Outcome", "Result", "failures", "json_equal", "json_pointer", "run_check"]

Outcome = Literal["ok", "failed", "skipped"]


class Result(NamedTuple):
    """One assertion's outcome, with a message that says what was looked at."""

    label: str
    outcome: Outcome
    message: str

    def as_json(self) -> dict[str, str]:
        return {"assert": self.label, "outcome": self.outcome, "message": self.message}


def _outcome(ok: bool) -> Outcome:
    return "ok" if ok else "failed"


def _exists(path: str, ws: Workspace) -> Result:
    try:
        target = ws.path(path)
    except WorkspaceError as exc:
        return Result(f"fs.exists {path}", "failed", str(exc))
    ok = target.exists()
    return Result(f"fs.exists {path}", _outcome(ok),
                  f"{target} {'exists' if ok else 'does not exist'}")


def _not_exists(path: str, ws: Workspace) -> Result:
    try:
        target = ws.path(path)
    except WorkspaceError as exc:
        return Result(f"fs.notExists {path}", "failed", str(exc))
    ok = not target.exists()
    return Result(f"fs.notExists {path}", _outcome(ok),
                  f"{target} {'does not exist' if ok else 'exists'}")


def _contains(entry: FileContainsAssert, ws: Workspace) -> Result:
    label = f"fs.contains {entry.path}"
    try:
        target = ws.path(entry.path)
        text = ws.read_text(entry.path)
    except WorkspaceError as exc:
        return Result(label, "failed", str(exc))
    except OSError as exc:
        return Result(label, "failed", f"{target}: cannot read it: {exc}")
    ok, message = file_contains(text, entry.texts)
    return Result(label, _outcome(ok), f"{target} {message}")


def _json_file(entry: JsonFileAssert, ws: Workspace) -> Result:
    label = f"json.file {entry.path}#{entry.pointer}"
    try:
        target = ws.path(entry.path)
        actual = json_pointer(json.loads(ws.read_text(entry.path)), entry.pointer)
    except WorkspaceError as exc:
        return Result(label, "failed", str(exc))
    except (OSError, ValueError, LookupError) as exc:
        return Result(label, "failed", f"{target}: {exc}")
    return Result(label, _outcome(json_equal(actual, entry.equals)),
                  f"{target}{entry.pointer} is {actual!r}, expected {entry.equals!r}")


def _git_commit(entry: GitCommitAssert, ws: Workspace) -> Result:
    label = f"git.commit messageContains {entry.message_contains!r}"
    try:
        message = ws.last_commit_message()
    except WorkspaceError as exc:
        return Result(label, "failed", str(exc))
    return Result(label, _outcome(entry.message_contains in message),
                  f"latest commit message is {message.strip()!r}")


def _assertion_results(assertion: Assert, ws: Workspace) -> Iterator[Result]:
    for path in assertion.fs_exists:
        yield _exists(path, ws)
    for path in assertion.fs_not_exists:
        yield _not_exists(path, ws)
    for contains in assertion.fs_contains:
        yield _contains(contains, ws)
    if assertion.text_contains:
        yield Result("text.contains", "skipped",
                     "a model server has no terminal buffer to look at")
    for entry in assertion.json_file:
        yield _json_file(entry, ws)
    for commit in assertion.git_commit:
        yield _git_commit(commit, ws)


def run_check(check: Check, ws: Workspace) -> list[Result]:
    """Every assertion of one ``assert`` event, against the workspace ``ws``."""
    return list(_assertion_results(check.assertion, ws))


def failures(results: list[Result]) -> list[Result]:
    return [r for r in results if r.outcome == "failed"]
