"""The one place the model server reads the agent's workspace.

Asserts look at files and at git, and ``agentEdits`` / ``editFile`` render against a file's
current text. Everything else in answering a request is pure, so these reads sit behind one
narrow boundary: a :class:`Workspace` rooted where the agent works, and :func:`read_file`.
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

GIT_TIMEOUT_S = 10


class WorkspaceError(Exception):
    """The workspace could not be read (git missing or failing); the message says where."""


@dataclass(frozen=True, slots=True)
class Workspace:
    """The agent's working directory; relative paths are read from ``root``."""

    root: Path

    @classmethod
    def of_agent(cls, configured: Path | None, cwd: str | None) -> Workspace:
        """``--workspace``, else the working directory the agent reported, else ours."""
        return cls(configured or Path(cwd or os.getcwd()))

    def path(self, relative: str) -> Path:
        p = Path(relative)
        return p if p.is_absolute() else self.root / p

    def exists(self, relative: str) -> bool:
        return self.path(relative).exists()

    def read_text(self, relative: str) -> str:
        """The file's text; ``OSError`` (missing, unreadable) is the caller's to report."""
        return self.path(relative).read_text()

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
        return Path(path).read_text()
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        return None
