"""``assert`` events against a real workspace folder: typed in, results out."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from scenarist.llm.checks import json_equal, json_pointer, run_check
from scenarist.llm.plan import build_script
from scenarist.llm.script import Check
from scenarist.llm.workspace import Workspace
from scenarist.scenario import load_scenario_text
from scenarist.scenario.model import Assert, FileContainsAssert, GitCommitAssert, JsonFileAssert


def check(**fields: Any) -> Check:
    return Check(Assert(index=0, key_path="timeline[0].assert", line=1, col=1, **fields))


def outcomes(ws: Path, **fields: Any) -> list[tuple[str, str]]:
    return [(r.label, r.outcome) for r in run_check(check(**fields), Workspace(ws))]


def test_the_loader_s_assert_reaches_the_checks_typed() -> None:
    script = build_script(load_scenario_text(
        "name: typed\n"
        "timeline:\n"
        "  - userInputs: [{relativeTime: 0, input: go}]\n"
        "  - llmResponse: [{assistant: [[10, hi]]}]\n"
        "  - assert: {fs: {exists: [a.txt]}, json: {file: {path: p.json, pointer: /v, "
        "equals: 1}}}\n"))
    (final,) = script.final_checks
    assert final.assertion.fs_exists == ("a.txt",)
    assert final.assertion.json_file == (JsonFileAssert("p.json", "/v", 1),)


def test_fs_and_text(tmp_path: Path) -> None:
    (tmp_path / "here.txt").write_text("x")
    assert outcomes(tmp_path, fs_exists=("here.txt", "gone.txt"), fs_not_exists=("gone.txt",),
                    text_contains=("ready",)) == [
        ("fs.exists here.txt", "ok"), ("fs.exists gone.txt", "failed"),
        ("fs.notExists gone.txt", "ok"), ("text.contains", "skipped")]


def test_fs_contains_the_same_rule_as_the_executor(tmp_path: Path) -> None:
    (tmp_path / "greeting.txt").write_text("hello from scenarist\n")
    results = run_check(check(fs_contains=(
        FileContainsAssert("greeting.txt", ("hello",)),
        FileContainsAssert("greeting.txt", ("bye",)),
        FileContainsAssert("gone.txt", ("x",)),
        FileContainsAssert("../out.txt", ("x",)))), Workspace(tmp_path))
    assert [(r.label, r.outcome) for r in results] == [
        ("fs.contains greeting.txt", "ok"), ("fs.contains greeting.txt", "failed"),
        ("fs.contains gone.txt", "failed"), ("fs.contains ../out.txt", "failed")]
    assert results[1].message.endswith("greeting.txt does not contain 'bye'; it holds 21 "
                                       "characters: 'hello from scenarist\\n'")
    assert "outside the workspace" in results[3].message


@pytest.mark.parametrize(("stored", "expected", "ok"), [
    (1, True, False),  # Python's 1 == True must not make a JSON number equal a boolean
    (True, 1, False),
    (0, False, False),
    (True, True, True),
    (1, 1.0, True),  # one JSON number
    (2.5, 2.5, True),
    ("1", 1, False),
    (None, None, True),
    (None, False, False),
    ([1, True], [1.0, True], True),
    ([1, 1], [1, True], False),
    ({"a": [0]}, {"a": [False]}, False),
    ({"a": 1}, {"a": 1, "b": 2}, False),
])
def test_json_file_compares_json_values_strictly(tmp_path: Path, stored: Any, expected: Any,
                                                 ok: bool) -> None:
    (tmp_path / "v.json").write_text(json.dumps({"v": stored}))
    got = outcomes(tmp_path, json_file=(JsonFileAssert("v.json", "/v", expected),))
    assert got == [("json.file v.json#/v", "ok" if ok else "failed")]
    assert json_equal(stored, expected) is ok


def test_json_pointer_follows_rfc_6901() -> None:
    doc = {"": "empty key", "a/b": 1, "m~n": 2, "list": [10, 20], "x": {"": {"y": 3}}}
    assert json_pointer(doc, "") == doc  # "" is the whole document
    assert json_pointer(doc, "/") == "empty key"  # "/" is the key ""
    assert json_pointer(doc, "/a~1b") == 1
    assert json_pointer(doc, "/m~0n") == 2
    assert json_pointer(doc, "/list/1") == 20
    assert json_pointer(doc, "/x//y") == 3
    for bad in ("/list/01", "/list/2", "/list/-", "/nope", "list", "/a~1b/c"):
        with pytest.raises(LookupError):
            json_pointer(doc, bad)


def test_a_slash_pointer_reads_the_empty_key_from_a_file(tmp_path: Path) -> None:
    (tmp_path / "e.json").write_text('{"": "yes", "other": "no"}')
    assert outcomes(tmp_path, json_file=(JsonFileAssert("e.json", "/", "yes"),)) == [
        ("json.file e.json#/", "ok")]
    assert outcomes(tmp_path, json_file=(JsonFileAssert("e.json", "", {"": "yes",
                                                                        "other": "no"}),)) == [
        ("json.file e.json#", "ok")]


def test_git_commit_reads_the_latest_message(tmp_path: Path) -> None:
    def git(*args: str) -> None:
        subprocess.run(["git", "-C", str(tmp_path), *args], check=True, capture_output=True)

    missing = outcomes(tmp_path, git_commit=(GitCommitAssert("Fix"),))
    assert missing == [("git.commit messageContains 'Fix'", "failed")]
    git("init", "-q")
    git("-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q",
        "--allow-empty", "-m", "Fix the bug")
    assert outcomes(tmp_path, git_commit=(GitCommitAssert("Fix"), GitCommitAssert("Add"))) == [
        ("git.commit messageContains 'Fix'", "ok"), ("git.commit messageContains 'Add'", "failed")]


def test_turn_times_come_from_the_compiled_timeline() -> None:
    """Steps are due at their beat's time from the turn's start, wherever the turn sits."""
    script = build_script(load_scenario_text(
        "name: timed\n"
        "timeline:\n"
        "  - userInputs: [{relativeTime: 0, input: go}]\n"
        "  - llmResponse: [{think: [[100, hmm]]}, {assistant: [[50, one], [25, two]]}]\n"
        "  - baseTimeDelta: 5000\n"
        "  - llmResponse: [{assistant: [[200, later]]}]\n"))
    first, second = script.turns
    assert [(t.at_ms, t.text) for t in first.thinking] == [(100, "hmm")]
    assert [(t.at_ms, t.text) for t in first.text] == [(150, "one"), (175, "two")]
    assert first.duration_ms == 175
    assert [(t.at_ms, t.text) for t in second.text] == [(200, "later")]
    assert second.duration_ms == 200
