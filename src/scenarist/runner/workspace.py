"""The workspace a scenario runs in, prepared from its ``repo`` section.

Order (the spec's): copy the ``dir`` seed folder, write the inline ``files`` over it, then,
with ``init``, make it a git repository on ``branch`` (default ``main``) holding one commit
"Initial commit" of everything, so a run starts from a clean tree. Git runs without the
user's or the system's configuration and with fixed author/committer names and dates, so
the same scenario gives the same commit ids on every machine.

Paths are relative to the workspace; a path that would leave it (absolute, ``..``) is
refused: a test must never write outside its own folder.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Mapping
from pathlib import Path

from scenarist.runner.errors import RunnerError
from scenarist.scenario import Repo

__all__ = ["GIT_ENV", "apply_patch", "commit_all", "inside", "is_repository", "prepare_workspace",
           "run_git"]

#: Environment for every git command the runner runs: no user/system config, fixed identity.
GIT_ENV: Mapping[str, str] = {
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_AUTHOR_NAME": "scenarist",
    "GIT_AUTHOR_EMAIL": "scenarist@example.invalid",
    "GIT_COMMITTER_NAME": "scenarist",
    "GIT_COMMITTER_EMAIL": "scenarist@example.invalid",
    "GIT_AUTHOR_DATE": "2025-01-01T00:00:00Z",
    "GIT_COMMITTER_DATE": "2025-01-01T00:00:00Z",
}


def inside(root: Path, path: str, what: str) -> Path:
    """``path`` resolved in the workspace ``root``; :class:`RunnerError` if it leaves it."""
    target = (root / path).resolve()
    base = root.resolve()
    if target != base and base not in target.parents:
        raise RunnerError(f"{what} {path!r} is outside the workspace ({base}); use a path "
                          "relative to the workspace, without '..'")
    return target


def run_git(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``git ARGS`` in ``root`` with :data:`GIT_ENV`; :class:`RunnerError` when it fails."""
    try:
        done = subprocess.run(["git", *args], cwd=root, env={**os.environ, **GIT_ENV},
                              capture_output=True, text=True, timeout=60, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise RunnerError(f"cannot run git {' '.join(args)} in {root}: {exc}; is git installed?"
                          ) from exc
    if done.returncode != 0:
        raise RunnerError(f"git {' '.join(args)} failed in {root}: {done.stderr.strip()}")
    return done


def is_repository(root: Path) -> bool:
    """Whether ``root`` is the top of a git work tree (not a folder inside some other
    repository, whose commits a test must never touch)."""
    try:
        top = run_git(root, "rev-parse", "--show-toplevel").stdout.strip()
    except RunnerError:
        return False
    return Path(top).resolve() == root.resolve()


def apply_patch(root: Path, patch: Path, written: str) -> str:
    """``git apply`` the file ``patch`` (``written`` as the scenario names it) in ``root``:
    what git reports (the files it touched), or :class:`RunnerError` saying why it did not
    apply. Outside a repository git applies it to the plain files, as ``patch`` would."""
    try:
        done = subprocess.run(["git", "apply", "--verbose", str(patch)], cwd=root,
                              env={**os.environ, **GIT_ENV}, capture_output=True, text=True,
                              timeout=60, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise RunnerError(f"cannot run git apply {written}: {exc}; is git installed?") from exc
    if done.returncode != 0:
        raise RunnerError(f"git apply {written} failed: {done.stderr.strip()}")
    return done.stderr.strip()


def commit_all(root: Path, message: str) -> str:
    """Commit everything in the repository ``root`` (``git add -A``) with the fixed identity
    and dates of :data:`GIT_ENV`, so the commit id is the same on every run; the new commit's
    short id. :class:`RunnerError` when ``root`` is no repository or git fails."""
    if not is_repository(root):
        raise RunnerError(f"cannot commit: the workspace {root} is not a git repository "
                          "(set repo.init: true in the scenario)")
    run_git(root, "add", "-A")
    run_git(root, "commit", "-q", "-m", message)
    return run_git(root, "rev-parse", "--short", "HEAD").stdout.strip()


def prepare_workspace(repo: Repo | None, root: Path) -> None:
    """Create ``root`` and fill it as ``repo`` says (nothing more when ``repo`` is None)."""
    root.mkdir(parents=True, exist_ok=True)
    if repo is None:
        return
    if repo.dir_path is not None:
        shutil.copytree(repo.dir_path, root, dirs_exist_ok=True, symlinks=True)
    for item in repo.files:
        target = inside(root, item.path, "repo.files path")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(item.data)
    if repo.init:
        run_git(root, "init", "-q", "-b", repo.branch or "main")
        run_git(root, "add", "-A")
        run_git(root, "commit", "-q", "--allow-empty", "-m", "Initial commit")
    elif repo.branch is not None:
        raise RunnerError(f"repo.branch {repo.branch!r} needs repo.init: true (the runner only "
                          "creates branches in the repository it initialises)")
