"""The ``assert`` event and ``expect``, checked against the workspace and the screen.

The rules are pure functions (:func:`json_pointer`, :func:`json_equal`, the text and fs
checks take what they look at as arguments); only :func:`check_git` runs a program.

- ``fs.exists`` / ``fs.notExists``: paths relative to the workspace.
- ``text.contains``: on the normalised screen (see :func:`scenarist.runner.screen.contains_text`).
- ``json.file {path, pointer, equals}``: RFC 6901 pointer, type-strict equality: ``true``
  is not ``1``, ``1`` is not ``"1"``; ``1`` equals ``1.0`` (JSON has one number type).
- ``git.commit {messageContains}``: the latest commit's message.
- ``expect.artifacts [{type, pattern}]``: the glob matches at least one path.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from scenarist.runner.errors import RunnerError
from scenarist.runner.result import CheckResult
from scenarist.runner.screen import ScreenCapture, contains_text
from scenarist.runner.workspace import inside, run_git
from scenarist.scenario import Assert, ExpectArtifact, GitCommitAssert, JsonFileAssert

__all__ = [
    "PointerError",
    "check_artifacts",
    "check_assert",
    "check_fs",
    "check_git",
    "check_json",
    "check_text",
    "json_equal",
    "json_pointer",
]


class PointerError(LookupError):
    """A JSON pointer is malformed or names something the document does not have."""


def json_pointer(doc: Any, pointer: str) -> Any:
    """The value ``pointer`` (RFC 6901) names in ``doc``.

    ``""`` is the whole document; every other pointer starts with ``/``; ``~1`` is ``/`` and
    ``~0`` is ``~`` in a token; an array index is ``0`` or digits without a leading zero.
    """
    if pointer == "":
        return doc
    if not pointer.startswith("/"):
        raise PointerError(f"pointer {pointer!r} must be empty or start with '/'")
    node = doc
    walked = ""
    for raw in pointer[1:].split("/"):
        token = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(node, list):
            if not (token == "0" or (token.isdigit() and not token.startswith("0"))):
                raise PointerError(f"{walked or '/'} is an array; {raw!r} is not an index")
            if int(token) >= len(node):
                raise PointerError(f"{walked or '/'} has {len(node)} items, no index {token}")
            node = node[int(token)]
        elif isinstance(node, dict):
            if token not in node:
                raise PointerError(f"{walked or '/'} has no key {token!r}")
            node = node[token]
        else:
            raise PointerError(f"{walked} is {_json_type(node)}, it has no {token!r}")
        walked += "/" + raw
    return node


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    return "an array" if isinstance(value, list | tuple) else "an object"


def json_equal(left: Any, right: Any) -> bool:
    """JSON equality without Python's coercions: booleans equal only booleans."""
    if isinstance(left, bool) or isinstance(right, bool):
        return isinstance(left, bool) and isinstance(right, bool) and left is right
    if isinstance(left, int | float) and isinstance(right, int | float):
        return left == right or (isinstance(left, float) and isinstance(right, float)
                                 and math.isnan(left) and math.isnan(right))
    if isinstance(left, list | tuple) and isinstance(right, list | tuple):
        return len(left) == len(right) and all(map(json_equal, left, right))
    if isinstance(left, Mapping) and isinstance(right, Mapping):
        return left.keys() == right.keys() and all(json_equal(left[k], right[k]) for k in left)
    if left is None or right is None:
        return left is None and right is None
    return type(left) is type(right) and bool(left == right)


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
