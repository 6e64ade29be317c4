"""The three confinement rules of scenarist.confine, one per purpose, side by side on the same
paths: reading (model API), standing in for a filesystem (acp-test), acting (mock agent)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from scenarist.confine import Escape, components, inside, reroot, resolve_inside


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """A root holding a file, a folder, a link inside and a link out."""
    base = tmp_path / "root"
    (base / "src").mkdir(parents=True)
    (base / "src" / "app.py").write_text("x", encoding="utf-8")
    (tmp_path / "secret").write_text("s", encoding="utf-8")
    os.symlink(base / "src", base / "current")
    os.symlink(tmp_path / "secret", base / "out")
    return Path(os.path.realpath(base))


def test_inside_is_about_whole_names() -> None:
    assert inside("/w", "/w") and inside("/w", "/w/a") and inside("/", "/etc")
    assert not inside("/w", "/work") and not inside("/w/a", "/w")


def test_reading_follows_links_that_stay_inside(root: Path) -> None:
    assert resolve_inside(root, "current/app.py") == root / "src" / "app.py"
    assert resolve_inside(root, "src/../src/app.py") == root / "src" / "app.py"
    assert resolve_inside(root, str(root / "src")) == root / "src"
    for away in ("out", "../secret", "/etc/passwd", "src/../../secret"):
        with pytest.raises(Escape) as info:
            resolve_inside(root, away)
        assert info.value.reason == "outside" and info.value.root == str(root)


def test_standing_in_reroots_what_lies_elsewhere(root: Path) -> None:
    r = str(root)
    assert reroot(r, "/tmp/x") == f"{r}/tmp/x"
    assert reroot(r, f"{r}/src/app.py") == f"{r}/src/app.py"
    assert reroot(r, "src/./app.py") == f"{r}/src/app.py"
    assert inside(r, reroot(r, "../../../../etc/passwd"))  # cannot climb above the root
    assert resolve_inside(root, reroot(r, "/current/app.py")) == root / "src" / "app.py"
    with pytest.raises(Escape):  # re-rooted text can still name a link out
        resolve_inside(root, reroot(r, "/out"))


def test_acting_takes_names_and_refuses_any_parent_step(root: Path) -> None:
    roots = (str(root), "/workspace")
    assert components("src/app.py", roots) == ("src", "app.py")
    assert components("app.py", roots, cwd=("src",)) == ("src", "app.py")
    assert components(f"{root}/src/./app.py", roots) == ("src", "app.py")
    assert components("/workspace/src", roots) == ("src",)
    assert components("/workspace", roots) == ()
    refused = {"": "empty", "a\0b": "nul", "src/../src/app.py": "parent", "/etc/passwd": "outside",
               "/workspacex/a": "outside", f"{root}/../secret": "parent"}
    for path, reason in refused.items():
        with pytest.raises(Escape) as info:
            components(path, roots)
        assert info.value.reason == reason, path
    assert components("/anything/at/all", ("",)) == ("anything", "at", "all")  # root is "/"
