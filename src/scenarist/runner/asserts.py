"""The ``assert`` event and ``expect``, checked against the workspace and the screen.

The rules are pure functions (pointers and equality from :mod:`scenarist.scenario.json_assert`,
shared with the model server; the text and fs checks take what they look at as arguments); only :func:`check_git` runs a program.

- ``fs.exists`` / ``fs.notExists``: paths relative to the workspace.
- ``fs.contains [{path, text}]``: the file's text holds every text
  (:func:`scenarist.scenario.file_assert.file_contains`, shared with the model server).
- ``text.contains``: on the normalised screen (see :func:`scenarist.runner.screen.contains_text`).
- ``json.file {path, pointer, equals}``: RFC 6901 pointer, type-strict equality: ``true``
  is not ``1``, ``1`` is not ``"1"``; ``1`` equals ``1.0`` (JSON has one number type).
- ``git.commit {messageContains}``: the latest commit's message.
- ``expect.artifacts [{type, pattern}]``: the glob matches at least one path.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from scenarist.files import read_regular_bytes
from scenarist.runner.errors import RunnerError
from scenarist.runner.result import CheckResult
from scenarist.runner.screen import ScreenCapture, contains_text
from scenarist.runner.workspace import inside, run_git
from scenarist.scenario import (
    Assert,
    ExpectArtifact,
    FileContainsAssert,
    GitCommitAssert,
    JsonFileAssert,
)
from scenarist.scenario.file_assert import MAX_FILE_BYTES, file_contains
from scenarist.scenario.json_assert import PointerError, json_equal, json_pointer

__all__ = [
    "PointerError",
    "check_artifacts",
    "check_assert",
    "check_contains",
    "check_fs",
    "check_git",
    "check_json",
    "check_text",
    "json_equal",
    "json_pointer",
]


def _passed(ok: bool) -> Any:
    return "passed" if ok else "failed"


def check_fs(exists: Iterable[str], not_exists: Iterable[str], root: Path) -> list[CheckResult]:
    results = []
    for path in exists:
        ok = inside(root, path, "fs.exists path").exists()
        results.append(CheckResult(f"fs.exists {path}", _passed(ok),
                                   "exists" if ok else "does not exist"))
    for path in not_exists:
        gone = not inside(root, path, "fs.notExists path").exists()
        results.append(CheckResult(f"fs.notExists {path}", _passed(gone),
                                   "does not exist" if gone else "exists"))
    return results


def check_contains(entries: Iterable[FileContainsAssert], root: Path) -> list[CheckResult]:
    results = []
    for entry in entries:
        label = f"fs.contains {entry.path}"
        path = inside(root, entry.path, "fs.contains path")
        try:
            text = read_regular_bytes(path, MAX_FILE_BYTES).decode("utf-8", "replace")
        except OSError as exc:
            results.append(CheckResult(label, "failed", f"cannot read it: {exc}"))
            continue
        ok, message = file_contains(text, entry.texts)
        results.append(CheckResult(label, _passed(ok), message))
    return results


def check_text(needles: Iterable[str], capture: ScreenCapture,
               replacements: Mapping[str, str]) -> list[CheckResult]:
    return [CheckResult(f"text.contains {needle!r}", _passed(found),
                        "on the screen" if found else "not on the screen")
            for needle in needles
            for found in (contains_text(capture, needle, replacements),)]


def check_json(entries: Iterable[JsonFileAssert], root: Path) -> list[CheckResult]:
    results = []
    for entry in entries:
        label = f"json.file {entry.path}#{entry.pointer}"
        try:
            text = inside(root, entry.path, "json.file path").read_text(encoding="utf-8")
            actual = json_pointer(json.loads(text), entry.pointer)
        except (OSError, ValueError, PointerError) as exc:
            results.append(CheckResult(label, "failed", str(exc)))
            continue
        ok = json_equal(actual, entry.equals)
        results.append(CheckResult(
            label, _passed(ok),
            f"is {json.dumps(actual)}" + ("" if ok else f", expected {json.dumps(entry.equals)}")))
    return results


def check_git(entries: Iterable[GitCommitAssert], root: Path) -> list[CheckResult]:
    results = []
    for entry in entries:
        label = f"git.commit messageContains {entry.message_contains!r}"
        try:
            message = run_git(root, "log", "-1", "--format=%B").stdout.strip()
        except RunnerError as exc:
            results.append(CheckResult(label, "failed", str(exc)))
            continue
        ok = entry.message_contains in message
        results.append(CheckResult(label, _passed(ok), f"latest commit message is {message!r}"))
    return results


def check_assert(event: Assert, root: Path, capture: ScreenCapture | None,
                 replacements: Mapping[str, str]) -> list[CheckResult]:
    """Every check of one ``assert`` event (``capture`` is needed for ``text.contains``)."""
    results = check_fs(event.fs_exists, event.fs_not_exists, root)
    results += check_contains(event.fs_contains, root)
    if event.text_contains:
        if capture is None:
            raise RunnerError("text.contains needs a screen, and this run has none")
        results += check_text(event.text_contains, capture, replacements)
    results += check_json(event.json_file, root)
    results += check_git(event.git_commit, root)
    return results


def check_artifacts(artifacts: Iterable[ExpectArtifact], root: Path) -> list[CheckResult]:
    results = []
    for artifact in artifacts:
        inside(root, artifact.pattern.split("*", 1)[0] or ".", "expect.artifacts pattern")
        matches = sorted(str(p.relative_to(root)) for p in root.glob(artifact.pattern))
        results.append(CheckResult(
            f"artifact {artifact.type} {artifact.pattern}", _passed(bool(matches)),
            f"matches {', '.join(matches[:5])}" + (" ..." if len(matches) > 5 else "")
            if matches else "matches nothing in the workspace"))
    return results
