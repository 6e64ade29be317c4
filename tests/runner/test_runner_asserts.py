"""Assertions: RFC 6901 pointers, type-strict JSON equality, fs (file text too), git and
artifacts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scenarist.runner.asserts import (
    PointerError,
    check_artifacts,
    check_contains,
    check_fs,
    check_git,
    check_json,
    json_equal,
    json_pointer,
)
from scenarist.runner.errors import RunnerError
from scenarist.runner.workspace import prepare_workspace, run_git
from scenarist.scenario import (
    ExpectArtifact,
    FileContainsAssert,
    GitCommitAssert,
    JsonFileAssert,
    Repo,
    RepoFile,
)

# The example document of RFC 6901, section 5, and what each pointer names.
RFC_DOC = {"foo": ["bar", "baz"], "": 0, "a/b": 1, "c%d": 2, "e^f": 3, "g|h": 4, "i\\j": 5,
           "k\"l": 6, " ": 7, "m~n": 8}


@pytest.mark.parametrize(("pointer", "value"), [
    ("", RFC_DOC), ("/foo", ["bar", "baz"]), ("/foo/0", "bar"), ("/", 0), ("/a~1b", 1),
    ("/c%d", 2), ("/e^f", 3), ("/g|h", 4), ("/i\\j", 5), ("/k\"l", 6), ("/ ", 7), ("/m~0n", 8),
])
def test_rfc6901_examples(pointer: str, value: object) -> None:
    assert json_pointer(RFC_DOC, pointer) == value


@pytest.mark.parametrize(("pointer", "message"), [
    ("foo", "must be empty or start with '/'"), ("/foo/2", "has 2 items, no index 2"),
    ("/foo/01", "not an index"), ("/foo/-", "not an index"), ("/nope", "no key 'nope'"),
    ("/a~1b/x", "is a number"),
])
def test_bad_pointers_say_why(pointer: str, message: str) -> None:
    with pytest.raises(PointerError, match=message):
        json_pointer(RFC_DOC, pointer)


def test_equality_is_type_strict() -> None:
    assert not json_equal(True, 1) and not json_equal(1, True) and not json_equal(0, False)
    assert not json_equal("1", 1) and not json_equal(None, False) and not json_equal([1], (True,))
    assert json_equal(1, 1.0) and json_equal({"a": [1, None]}, {"a": [1.0, None]})
    assert not json_equal({"a": 1}, {"a": 1, "b": 2}) and json_equal(True, True)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20)


@given(json_values)
def test_a_value_equals_its_json_round_trip_and_every_pointer_into_it_resolves(value: object) -> None:
    assert json_equal(value, json.loads(json.dumps(value)))
    if isinstance(value, dict):
        for key in value:
            token = key.replace("~", "~0").replace("/", "~1")
            assert json_equal(json_pointer(value, "/" + token), value[key])


def test_fs_json_git_and_artifacts_on_a_prepared_workspace(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    repo = Repo(init=True, branch="feature/x", files=(
        RepoFile("conf/app.json", b'{"debug": true, "n": 1, "tags": ["a"]}'),
        RepoFile("logo.bin", bytes(range(256)))))
    prepare_workspace(repo, ws)
    assert (ws / "logo.bin").read_bytes() == bytes(range(256))
    assert run_git(ws, "branch", "--show-current").stdout.strip() == "feature/x"
    fs = check_fs(["conf/app.json"], ["missing.txt", "conf/app.json"], ws)
    assert [c.outcome for c in fs] == ["passed", "passed", "failed"]
    checks = check_json([JsonFileAssert("conf/app.json", "/debug", True),
                         JsonFileAssert("conf/app.json", "/n", True),
                         JsonFileAssert("conf/app.json", "/tags/0", "a"),
                         JsonFileAssert("conf/app.json", "/tags/1", "b"),
                         JsonFileAssert("nope.json", "", None)], ws)
    assert [c.outcome for c in checks] == ["passed", "failed", "passed", "failed", "failed"]
    assert checks[1].message == "is 1, expected true"
    assert "has 1 items" in checks[3].message and "No such file" in checks[4].message
    git = check_git([GitCommitAssert("Initial"), GitCommitAssert("other")], ws)
    assert [c.outcome for c in git] == ["passed", "failed"]
    arts = check_artifacts([ExpectArtifact("json", "conf/*.json"), ExpectArtifact("x", "*.txt")],
                           ws)
    assert [(c.outcome, c.message) for c in arts] == [
        ("passed", "matches conf/app.json"), ("failed", "matches nothing in the workspace")]


def test_paths_that_leave_the_workspace_are_refused(tmp_path: Path) -> None:
    with pytest.raises(RunnerError, match="outside the workspace"):
        prepare_workspace(Repo(files=(RepoFile("../escape.txt", b"x"),)), tmp_path / "ws")
    assert not (tmp_path / "escape.txt").exists()
    with pytest.raises(RunnerError, match="outside the workspace"):
        check_fs(["/etc/passwd"], [], tmp_path / "ws")
    with pytest.raises(RunnerError, match=r"needs repo\.init"):
        prepare_workspace(Repo(branch="x"), tmp_path / "ws2")


def test_fs_contains_reads_the_file_s_text(tmp_path: Path) -> None:
    (tmp_path / "notes.md").write_text("# Todo\n- greet\n- wave\n")
    (tmp_path / "bin").write_bytes(b"caf\xe9 ok")
    (tmp_path / "folder").mkdir()
    results = check_contains([FileContainsAssert("notes.md", ("# Todo\n", "- wave")),
                              FileContainsAssert("notes.md", ("- greet", "- run", "- WAVE")),
                              FileContainsAssert("bin", ("ok",)),
                              FileContainsAssert("missing.txt", ("x",)),
                              FileContainsAssert("folder", ("x",))], tmp_path)
    assert [(r.label, r.outcome) for r in results] == [
        ("fs.contains notes.md", "passed"), ("fs.contains notes.md", "failed"),
        ("fs.contains bin", "passed"), ("fs.contains missing.txt", "failed"),
        ("fs.contains folder", "failed")]
    assert results[0].message == "contains '# Todo\\n', '- wave'"
    assert results[1].message == ("does not contain '- run', '- WAVE'; it holds 22 characters: "
                                  "'# Todo\\n- greet\\n- wave\\n'")
    assert "No such file or directory" in results[3].message
    assert "is a folder" in results[4].message
    with pytest.raises(RunnerError, match=r"fs\.contains path '\.\./x' is outside the workspace"):
        check_contains([FileContainsAssert("../x", ("x",))], tmp_path)
