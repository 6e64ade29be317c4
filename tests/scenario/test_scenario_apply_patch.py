"""``applyPatch`` (the spec's top-level example): read into :class:`ApplyPatch`, every wrong
form reported at its file:line:col with a hint, the patch held to the scenario's folder."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
from scenario_testutil import EXAMPLES, errors, load, timeline

from scenarist.scenario import ApplyPatch, Issue, ScenarioError, compile_timeline
from scenarist.scenario.schema import scenario_schema

PATCH = "patches/add_file.patch"


def _only(text: str, **kwargs: object) -> Issue:
    found = errors(text, **kwargs)  # type: ignore[arg-type]
    assert len(found) == 1, [str(i) for i in found]
    return found[0]


def test_the_spec_example_reads_into_a_typed_event_and_one_beat() -> None:
    s = load(timeline(f"""
        - applyPatch:
            path: './{PATCH}'
            commit: true
            message: 'Apply scenario patch'
        - userActions:
            - applyPatch: {{path: {PATCH}, _meta: {{k: 1}}}}
    """))
    first, second = s.timeline
    assert isinstance(first, ApplyPatch) and isinstance(second, ApplyPatch)
    assert (first.path, first.commit, first.message) == (
        f"./{PATCH}", True, "Apply scenario patch")
    assert first.patch_path == (EXAMPLES / PATCH).resolve()
    assert first.commit_message == "Apply scenario patch"
    assert (first.key_path, first.line, first.col) == ("timeline[0].applyPatch", 4, 5)
    assert (second.commit, second.message, second.meta) == (False, None, {"k": 1})
    assert second.commit_message == f"Apply {PATCH}"
    assert s.warnings == []
    assert [(b.kind, b.at_ms, b.index) for b in compile_timeline(s).beats] == [
        ("applyPatch", 0, 0), ("applyPatch", 0, 1)]


@pytest.mark.parametrize(("item", "at", "where", "message", "hint"), [
    ("- applyPatch: {commit: true}", "{", "timeline[0].applyPatch",
     "missing required key 'path'", "add 'path: ...', e.g. patches/fix.patch"),
    ("- applyPatch: {path: ''}", "''", "timeline[0].applyPatch.path",
     "'path' must not be empty", "give 'path' a value"),
    ("- applyPatch: {path: [a]}", "[", "timeline[0].applyPatch.path",
     "expected a string, got a list", "for example: patches/fix.patch"),
    ("- applyPatch: {path: nope.patch}", "nope", "timeline[0].applyPatch.path",
     "patch file 'nope.patch' not found (looked at ", "paths are relative to the scenario"),
    ("- applyPatch: {path: patches}", "patches", "timeline[0].applyPatch.path",
     "patch file 'patches' not found", "paths are relative to the scenario"),
    (f"- applyPatch: {{path: {PATCH}, commit: 'yes'}}", "'yes'", "timeline[0].applyPatch.commit",
     "expected true or false, got a string ('yes')", "write true or false here"),
    (f"- applyPatch: {{path: {PATCH}, commit: true, message: {{a: 1}}}}",
     "{a", "timeline[0].applyPatch.message", "expected a string, got a mapping",
     "for example: 'Apply fix'"),
    (f"- applyPatch: {{path: {PATCH}, commit: true, message: ''}}",
     "''", "timeline[0].applyPatch.message", "'message' must not be empty",
     "give 'message' a value"),
    ("- applyPatch: patches/add_file.patch", "patches", "timeline[0].applyPatch",
     "expected a mapping of fields, got a string", "for example: {path: patches/fix.patch, "),
    ("- applyPatch", "applyPatch", "timeline[0]", "'applyPatch' needs fields", "write '- applyPatch:'"),
    ("- applyPatch: {path: ../../etc/passwd}", "..", "timeline[0].applyPatch.path",
     "patch file '../../etc/passwd' is outside the scenario's folder", "allow_outside_paths"),
])
def test_each_wrong_form_is_one_located_error_with_a_hint(item: str, at: str, where: str,
                                                          message: str, hint: str) -> None:
    """``at``: the text the error points at (its first occurrence in the item)."""
    issue = _only(timeline(item + "\n"))
    assert (issue.line, issue.col, issue.path) == (3, 3 + item.index(at), where)
    assert issue.message.startswith(message), issue.message
    assert hint in issue.hint, issue.hint


def test_an_outside_patch_is_refused_alike_whether_or_not_it_exists(tmp_path: Path) -> None:
    folder = tmp_path / "s"
    folder.mkdir()
    (tmp_path / "real.patch").write_text("--- a/x\n+++ b/x\n")
    messages = []
    for name in ("real.patch", "missing.patch"):
        with pytest.raises(ScenarioError) as info:
            load(timeline(f"- applyPatch: {{path: ../{name}}}\n"), path=folder / "s.yaml")
        messages.append([i.message.replace(name, "X") for i in info.value.errors])
    assert messages[0] == messages[1] == ["patch file '../X' is outside the scenario's folder"]
    allowed = load(timeline("- applyPatch: {path: ../real.patch}\n"), path=folder / "s.yaml",
                   allow_outside_paths=True)
    event = allowed.timeline[0]
    assert isinstance(event, ApplyPatch) and event.patch_path == tmp_path / "real.patch"


def test_message_without_commit_and_unknown_keys_are_warnings() -> None:
    item = f"- applyPatch: {{path: {PATCH}, message: unused, colour: red}}"
    s = load(timeline(item + "\n"))
    assert [(w.line, w.col, w.path, w.message) for w in s.warnings] == [
        (3, 3 + item.index("unused"), "timeline[0].applyPatch.message",
         "'message' is used only when the patch is committed; it is ignored"),
        (3, 3 + item.index("colour"), "timeline[0].applyPatch.colour",
         "unknown key 'colour' is ignored"),
    ]
    assert "add 'commit: true'" in s.warnings[0].hint
    assert "commit, message, path" in s.warnings[1].hint
    event = s.timeline[0]
    assert isinstance(event, ApplyPatch) and not event.commit
    with pytest.raises(ScenarioError):  # --strict makes the warnings errors
        load(timeline(f"- applyPatch: {{path: {PATCH}, message: unused}}\n"), strict=True)


def test_the_schema_describes_applypatch_as_the_loader_reads_it() -> None:
    validator = jsonschema.Draft7Validator(scenario_schema())

    def valid(item: object) -> bool:
        return validator.is_valid({"name": "t", "timeline": [item]})

    assert valid({"applyPatch": {"path": PATCH, "commit": True, "message": "m"}})
    assert valid({"applyPatch": {"path": PATCH}})
    assert not valid({"applyPatch": {"commit": True}})
    assert not valid({"applyPatch": {"path": PATCH, "commit": "yes"}})
    assert not valid({"applyPatch": {"path": PATCH, "commit": True, "message": ""}})
    assert not valid({"applyPatch": PATCH})
    assert valid({"applyPatch": {"path": PATCH, "colour": "red"}})  # the loader only warns


def test_scenarist_timeline_shows_the_patch_and_its_commit(tmp_path: Path) -> None:
    (tmp_path / "patches").mkdir()
    (tmp_path / PATCH).write_text("--- a/x\n+++ b/x\n")
    path = tmp_path / "s.yaml"
    path.write_text(timeline(f"- applyPatch: {{path: {PATCH}, commit: true, message: Go}}\n"
                             f"- applyPatch: {{path: {PATCH}}}\n"))
    run = [sys.executable, "-m", "scenarist", "timeline"]
    table = subprocess.run([*run, str(path)], capture_output=True, text=True, timeout=60,
                           check=True).stdout
    assert f"applyPatch              {PATCH} → commit 'Go'" in table
    rows = json.loads(subprocess.run([*run, "--json", str(path)], capture_output=True,
                                     text=True, timeout=60, check=True).stdout)
    assert [(r["kind"], r["text"], r.get("commit")) for r in rows] == [
        ("applyPatch", PATCH, "Go"), ("applyPatch", PATCH, None)]
