"""``assert`` events, checked against the workspace before the next model turn is served.

The spec's assertions: ``fs.exists`` / ``fs.notExists`` (paths), ``json.file`` (JSON pointer
equality; an object or a list of them), ``git.commit`` (``messageContains`` in the latest
commit; an object or a list). ``text.contains`` looks at a terminal buffer, which a model
server does not have: it is reported as skipped, as are unknown keys (forward compatible).
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from scenarist.llm.script import Check

Outcome = Literal["ok", "failed", "skipped"]


@dataclass(frozen=True, slots=True)
class Result:
    """One assertion's outcome, with a message that says what was looked at."""

    label: str
    outcome: Outcome
    message: str

    def as_json(self) -> dict[str, str]:
        return {"assert": self.label, "outcome": self.outcome, "message": self.message}


def _as_list(value: Any) -> list[Any]:
    if value is None:
        return []
    return list(value) if isinstance(value, list | tuple) else [value]


def _resolve(root: Path, path: Any) -> Path:
    p = Path(str(path))
    return p if p.is_absolute() else root / p


def json_pointer(doc: Any, pointer: str) -> Any:
    """RFC 6901 lookup; raises ``LookupError`` naming the missing step."""
    if pointer in ("", "/"):
        return doc
    node = doc
    for raw in pointer.lstrip("/").split("/"):
        token = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(node, list):
            if not token.isdigit() or int(token) >= len(node):
                raise LookupError(f"no index {token!r} in an array of {len(node)}")
            node = node[int(token)]
        elif isinstance(node, dict):
            if token not in node:
                raise LookupError(f"no key {token!r}")
            node = node[token]
        else:
            raise LookupError(f"cannot step into {type(node).__name__} with {token!r}")
    return node


def _fs(spec: Mapping[str, Any], root: Path) -> Iterator[Result]:
    for path in _as_list(spec.get("exists")):
        target = _resolve(root, path)
        ok = target.exists()
        yield Result(
            f"fs.exists {path}",
            "ok" if ok else "failed",
            f"{target} {'exists' if ok else 'does not exist'}",
        )
    for path in _as_list(spec.get("notExists")):
        target = _resolve(root, path)
        ok = not target.exists()
        yield Result(
            f"fs.notExists {path}",
            "ok" if ok else "failed",
            f"{target} {'does not exist' if ok else 'exists'}",
        )


def _json_file(spec: Any, root: Path) -> Iterator[Result]:
    for entry in _as_list(spec):
        if not isinstance(entry, Mapping):
            yield Result(
                "json.file", "failed", f"expected {{path, pointer, equals}}, got {entry!r}"
            )
            continue
        path, pointer = entry.get("path"), str(entry.get("pointer", ""))
        label = f"json.file {path}#{pointer}"
        target = _resolve(root, path)
        try:
            actual = json_pointer(json.loads(target.read_text()), pointer)
        except (OSError, ValueError, LookupError) as exc:
            yield Result(label, "failed", f"{target}: {exc}")
            continue
        ok = actual == entry.get("equals")
        yield Result(
            label,
            "ok" if ok else "failed",
            f"{target}{pointer} is {actual!r}, expected {entry.get('equals')!r}",
        )


def _git_commit(spec: Any, root: Path) -> Iterator[Result]:
    for entry in _as_list(spec):
        needle = str(entry.get("messageContains", "")) if isinstance(entry, Mapping) else ""
        label = f"git.commit messageContains {needle!r}"
        try:
            proc = subprocess.run(
                ["git", "-C", str(root), "log", "-1", "--format=%B"],
                capture_output=True,
                text=True,
                timeout=10,
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            yield Result(label, "failed", f"cannot run git in {root}: {exc}")
            continue
        if proc.returncode != 0:
            yield Result(label, "failed", f"git log in {root} failed: {proc.stderr.strip()}")
            continue
        ok = needle in proc.stdout
        yield Result(
            label, "ok" if ok else "failed", f"latest commit message is {proc.stdout.strip()!r}"
        )


def run_check(check: Check, root: Path) -> list[Result]:
    """Every assertion of one ``assert`` event, against the workspace ``root``."""
    results: list[Result] = []
    for key, value in check.spec.items():
        if key == "fs" and isinstance(value, Mapping):
            results.extend(_fs(value, root))
        elif key == "json" and isinstance(value, Mapping) and "file" in value:
            results.extend(_json_file(value["file"], root))
        elif key == "git" and isinstance(value, Mapping) and "commit" in value:
            results.extend(_git_commit(value["commit"], root))
        elif key == "text":
            results.append(
                Result(
                    "text.contains", "skipped", "a model server has no terminal buffer to look at"
                )
            )
        else:
            results.append(Result(str(key), "skipped", f"unknown assertion {key!r} ignored"))
    return results


def failures(results: list[Result]) -> list[Result]:
    return [r for r in results if r.outcome == "failed"]
