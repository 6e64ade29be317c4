"""The one place the model server reads the agent's workspace, and the fence around it.

Asserts look at files and at git, and ``agentEdits`` / ``editFile`` render against a file's
current text. Everything else in answering a request is pure, so these reads sit behind one
narrow boundary: a :class:`Workspace` rooted where the agent works, and :func:`read_file`.

Confinement (the *reading* rule of :mod:`scenarist.confine`): a scenario path is read or edited
only inside the workspace. ``--workspace``, when
given, bounds the working directory an agent reports; a path that leaves the workspace (``..``,
an absolute path elsewhere, a symlink that points out) is refused with :class:`OutsideWorkspace`,
which the server answers with 403 in the API's error format. Only regular files are read, and
opening one never blocks (a FIFO at a target path would stall the event loop).
"""

# Annotations are not postponed here: see "Records" in docs/architecture.md.
import os
import subprocess
from pathlib import Path
from typing import NamedTuple

from scenarist.confine import Escape, resolve_inside
from scenarist.errors import ScenaristError
from scenarist.files import read_regular_bytes

GIT_TIMEOUT_S = 10


MAX_READ_BYTES = 16 * 1024 * 1024  # the largest file read to check or render an edit


class WorkspaceError(ScenaristError):
    """The workspace could not be read (git missing or failing); the message says where."""


class OutsideWorkspace(WorkspaceError):
    """A path (or a reported working directory) that leaves the workspace."""


def confine(root: str | os.PathLike[str], path: str | os.PathLike[str], *, what: str = "path"
            ) -> Path:
    """``path`` (relative ones from ``root``) with symlinks resolved, if it stays inside
    ``root`` (the *reading* rule of :mod:`scenarist.confine`); else :class:`OutsideWorkspace`
    naming both."""
    try:
        return resolve_inside(root, path)
    except Escape as exc:
        raise OutsideWorkspace(
            f"{what} {str(path)[:300]!r} is outside the workspace {exc.root}; scenario paths "
            "must stay inside it (no '..' out of it, no absolute path or symlink elsewhere)"
        ) from None


def read_regular_file(path: str | os.PathLike[str]) -> str:
    """A regular file's text (invalid UTF-8 replaced), opened without blocking: a FIFO or a
    device is an ``OSError``, so is a file over :data:`MAX_READ_BYTES`."""
    return read_regular_bytes(path, MAX_READ_BYTES).decode("utf-8", "replace")


class Workspace(NamedTuple):
    """The agent's working directory; relative paths are read from ``root``."""

    root: Path

    @classmethod
    def of_agent(cls, configured: Path | None, cwd: str | None) -> "Workspace":
        """The working directory the agent reported, inside ``--workspace`` when that is
        given (else :class:`OutsideWorkspace`); ``--workspace`` when the agent reports none;
        else ours."""
        if configured is not None:
            return cls(confine(configured, cwd, what="the agent's working directory")
                       if cwd else configured)
        return cls(Path(cwd or os.getcwd()))

    def path(self, relative: str) -> Path:
        """``relative`` inside the workspace (:class:`OutsideWorkspace` if it leaves it)."""
        return confine(self.root, relative)

    def exists(self, relative: str) -> bool:
        return self.path(relative).exists()

    def read_text(self, relative: str) -> str:
        """The file's text; ``OSError`` (missing, unreadable, not a regular file) is the
        caller's to report."""
        return read_regular_file(self.path(relative))

    def last_commit_message(self) -> str:
        """The message of the latest commit in ``root`` (``git log -1``)."""
        try:
            proc = subprocess.run(
                ["git", "-C", str(self.root), "log", "-1", "--format=%B"],
                capture_output=True, text=True, timeout=GIT_TIMEOUT_S, check=False,
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise WorkspaceError(f"cannot run git in {self.root}: {exc}") from None
        if proc.returncode != 0:
            raise WorkspaceError(f"git log in {self.root} failed: {proc.stderr.strip()}")
        return proc.stdout


def read_file(path: str) -> str | None:
    """A file's text for rendering an edit, or ``None`` when there is no such file."""
    try:
        return read_regular_file(path)
    except (FileNotFoundError, NotADirectoryError):
        return None
