"""Confinement, in-process: what resolves, what is refused, and a property over odd paths."""

from __future__ import annotations

import os
import string
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scenarist.agent.workspace import AgentError, PathRefused, Workspace


@pytest.fixture
def tree(tmp_path: Path) -> tuple[Workspace, Path]:
    """A workspace with a file, a subdirectory, links in and out, and an outside victim."""
    work, outside = tmp_path / "work", tmp_path / "outside"
    (work / "src").mkdir(parents=True)
    outside.mkdir()
    (work / "src" / "app.py").write_text("print(1)\n")
    (outside / "victim.txt").write_text("keep\n")
    (work / "out").symlink_to(outside)
    (work / "in").symlink_to(work / "src")  # points inside, still never followed
    (work / "victim.txt").symlink_to(outside / "victim.txt")
    (work / "dangling").symlink_to(tmp_path / "nowhere")
    os.mkfifo(work / "pipe")
    return Workspace(work), outside


def test_paths_resolve_from_the_root_or_the_cwd(tree: tuple[Workspace, Path]) -> None:
    ws, _ = tree
    assert ws.parts("src/app.py") == ("src", "app.py")
    assert ws.parts("./src//app.py") == ("src", "app.py")
    assert ws.parts("app.py", cwd=("src",)) == ("src", "app.py")
    assert ws.parts(ws.root + "/src/app.py", cwd=("other",)) == ("src", "app.py")
    assert ws.parts(ws.root) == ()
    assert ws.read_text(ws.parts("src/app.py")) == "print(1)\n"


def test_the_root_may_be_named_through_a_link(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "alias").symlink_to(real)
    ws = Workspace(tmp_path / "alias")
    assert ws.root == str(real)
    assert ws.parts(str(tmp_path / "alias" / "a.txt")) == ("a.txt",)
    assert ws.parts(str(real / "a.txt")) == ("a.txt",)


@pytest.mark.parametrize("path", ["..", "../x", "src/../../x", "src/..", "/tmp/../etc/passwd"])
def test_dotdot_is_refused(tree: tuple[Workspace, Path], path: str) -> None:
    ws, _ = tree
    with pytest.raises(PathRefused, match=r"'\.\.' is not allowed"):
        ws.parts(path)


@pytest.mark.parametrize("path", ["/etc/passwd", "/", "/tmp"])
def test_absolute_paths_outside_are_refused(tree: tuple[Workspace, Path], path: str) -> None:
    ws, _ = tree
    with pytest.raises(PathRefused, match="is outside the workspace"):
        ws.parts(path)


def test_a_sibling_with_the_root_as_prefix_is_outside(tmp_path: Path) -> None:
    (tmp_path / "work").mkdir()
    (tmp_path / "work2").mkdir()
    ws = Workspace(tmp_path / "work")
    with pytest.raises(PathRefused, match="outside"):
        ws.parts(str(tmp_path / "work2" / "x"))


def test_links_are_never_followed(tree: tuple[Workspace, Path]) -> None:
    ws, outside = tree
    for path in ("out/victim.txt", "victim.txt", "in/app.py", "dangling"):
        with pytest.raises(PathRefused, match="symbolic link"):
            ws.read_text(ws.parts(path))
        with pytest.raises(PathRefused, match="symbolic link"):
            ws.write_text(ws.parts(path), "changed\n")
    with pytest.raises(PathRefused, match="symbolic link"):
        ws.write_text(ws.parts("out/new/deeper.txt"), "x")
    with pytest.raises(PathRefused, match="symbolic link"):
        ws.check_dir(ws.parts("out"))
    with pytest.raises(PathRefused, match="symbolic link"):
        ws.walk(ws.parts("out"))
    assert (outside / "victim.txt").read_text() == "keep\n"
    assert sorted(p.name for p in outside.iterdir()) == ["victim.txt"]
    assert (Path(ws.root) / "victim.txt").is_symlink()


def test_walking_lists_links_without_entering_them(tree: tuple[Workspace, Path]) -> None:
    ws, _ = tree
    entries = {e.rel: e.kind for e in ws.walk(())}
    assert entries == {"dangling": "link", "in": "link", "out": "link", "pipe": "other",
                       "src": "dir", "src/app.py": "file", "victim.txt": "link"}


def test_only_regular_files_are_read_or_written(tree: tuple[Workspace, Path]) -> None:
    ws, _ = tree
    with pytest.raises(PathRefused, match=r"FIFO \(named pipe\), not a regular file"):
        ws.read_text(ws.parts("pipe"))
    with pytest.raises(PathRefused, match="FIFO"):
        ws.write_text(ws.parts("pipe"), "x")
    with pytest.raises(PathRefused, match="directory, not a regular file"):
        ws.read_text(ws.parts("src"))
    with pytest.raises(PathRefused, match="the workspace root is a directory"):
        ws.read_text(())


def test_writing_creates_the_directories_on_the_way(tree: tuple[Workspace, Path]) -> None:
    ws, _ = tree
    ws.write_text(ws.parts("a/b/c.txt"), "deep\n")
    assert (Path(ws.root) / "a" / "b" / "c.txt").read_text() == "deep\n"
    with pytest.raises(PathRefused, match="not a directory"):
        ws.write_text(ws.parts("src/app.py/x.txt"), "x")
    with pytest.raises(AgentError, match="no such file"):
        ws.read_text(ws.parts("missing.txt"))


def test_a_missing_workspace_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(AgentError, match="is not a directory"):
        Workspace(tmp_path / "missing")


_NAMES = st.sampled_from(["src", "app.py", "..", ".", "", "out", "in", "victim.txt", "pipe",
                          "new", "dangling"])
_PATHS = st.lists(_NAMES, min_size=1, max_size=5).map("/".join)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(path=_PATHS, absolute=st.booleans(), content=st.text(string.ascii_letters, max_size=5))
def test_no_path_reaches_outside(tree: tuple[Workspace, Path], path: str, absolute: bool,
                                 content: str) -> None:
    """Whatever the path, a write either lands in a regular file inside the root or is
    refused; the outside never changes."""
    ws, outside = tree
    text = ws.root + "/" + path if absolute else path
    try:
        parts = ws.parts(text)
        ws.write_text(parts, content)
    except AgentError:
        pass
    else:
        target = Path(ws.root, *parts)
        assert target.resolve().is_relative_to(Path(ws.root))
        assert not target.is_symlink() and target.is_file()
        assert target.read_text() == content
    assert sorted(p.name for p in outside.iterdir()) == ["victim.txt"]
    assert (outside / "victim.txt").read_text() == "keep\n"


def test_an_alias_such_as_acp_cwd_maps_into_the_workspace(tmp_path: Path) -> None:
    ws = Workspace(tmp_path, aliases=("/tmp/acp-workspace/",))
    assert ws.parts("/tmp/acp-workspace/src/main.py") == ("src", "main.py")
    assert ws.parts("/tmp/acp-workspace") == ()
    with pytest.raises(PathRefused, match=r"'\.\.' is not allowed"):
        ws.parts("/tmp/acp-workspace/../etc/passwd")
    with pytest.raises(PathRefused, match="outside the workspace"):
        ws.parts("/tmp/acp-workspace2/x")
