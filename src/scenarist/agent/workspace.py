"""Confinement: every path a scenario names resolves inside the workspace, or is refused.

A scenario is input, and the mock agent acts on it for real, so a path must not reach out
of the workspace by any route. The rules (the *acting* row of :mod:`scenarist.confine`'s
table; the names are checked there, the descriptors opened here), before anything is touched:

- a relative path is taken from the workspace root (or the tool's ``cwd``); an absolute path
  is accepted only when it lies under the root;
- a ``..`` component is refused outright (even one that would stay inside: the rule is
  easier to trust than the arithmetic);
- symbolic links are never followed: every directory on the way is opened with
  ``O_NOFOLLOW | O_DIRECTORY`` relative to its parent's descriptor, and the last component
  with ``O_NOFOLLOW``, so a link swapped in between the check and the use is refused too;
- file tools act on regular files only: a FIFO, socket or device at the target is refused
  (opened with ``O_NONBLOCK`` so a FIFO cannot stall the agent before the check).

Every refusal is a :class:`PathRefused` whose message names the path and the reason.
"""

from __future__ import annotations

import errno
import os
import posixpath
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from scenarist.confine import Escape, components
from scenarist.errors import ScenaristError

__all__ = ["AgentError", "Entry", "PathRefused", "Workspace"]

_REFUSALS = {
    "empty": "an empty path names nothing; give a path in the workspace",
    "nul": "{path!r} contains a NUL character",
    "parent": "{path}: '..' is not allowed; name the path from the workspace root instead",
    "outside": "{path} is outside the workspace {root}; use a path inside it (relative paths "
               "start at the workspace root)",
}
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_MAX_READ = 64 * 1024 * 1024


class AgentError(ScenaristError):
    """A problem of the mock agent that it reports as one line (base of its errors)."""


class PathRefused(AgentError):
    """A path that the mock agent will not touch (outside the workspace, a link, ...)."""


@dataclass(frozen=True, slots=True)
class Entry:
    """One directory entry met while walking: its path from the walk's start, and its kind."""

    rel: str  # "src/app.py", relative to the directory walked
    kind: str  # "file", "dir", "link" or "other"


def _kind(mode: int) -> str:
    if stat.S_ISREG(mode):
        return "file"
    if stat.S_ISDIR(mode):
        return "dir"
    if stat.S_ISLNK(mode):
        return "link"
    return "other"


class Workspace:
    """The directory the agent works in; all file access of the tools goes through here."""

    __slots__ = ("prefixes", "root")

    def __init__(self, root: str | Path, aliases: tuple[str, ...] = ()) -> None:
        """``aliases``: other absolute names of the root, such as the scenario's ``acp.cwd``
        (an ACP scenario's absolute paths are under it); they map into the workspace."""
        real = os.path.realpath(root)
        if not os.path.isdir(real):
            raise AgentError(f"workspace {root} is not a directory; create it first")
        self.root = real
        # absolute paths may name the root as given or as resolved (/tmp may be a link)
        names = (real, os.path.abspath(root),
                 *(posixpath.normpath(a) for a in aliases if a.startswith("/")))
        self.prefixes = tuple(dict.fromkeys(n.rstrip("/") for n in names))

    # -- pure resolution ---------------------------------------------------------------

    def parts(self, path: str, cwd: tuple[str, ...] = ()) -> tuple[str, ...]:
        """The components of ``path`` below the root (``()`` is the root itself), by the
        acting rule of :mod:`scenarist.confine`; a refusal is a :class:`PathRefused`."""
        text = str(path)
        try:
            return components(text, self.prefixes, cwd)
        except Escape as exc:
            raise PathRefused(_REFUSALS[exc.reason].format(path=text, root=self.root)) from None

    def display(self, parts: tuple[str, ...]) -> str:
        return "/".join(parts) or "."

    def absolute(self, parts: tuple[str, ...]) -> str:
        return os.path.join(self.root, *parts)

    # -- descriptors, one component at a time ---------------------------------------------

    @contextmanager
    def directory(self, parts: tuple[str, ...]) -> Iterator[int]:
        """A descriptor of the directory ``parts``, reached without following any link."""
        fd = os.open(self.root, _DIR_FLAGS)
        try:
            for i, name in enumerate(parts):
                try:
                    nxt = os.open(name, _DIR_FLAGS, dir_fd=fd)
                except OSError as exc:
                    raise self._refusal(parts[: i + 1], exc, fd, name) from None
                os.close(fd)
                fd = nxt
            yield fd
        finally:
            os.close(fd)

    def _refusal(self, parts: tuple[str, ...], exc: OSError, parent: int | None = None,
                 name: str | None = None) -> AgentError:
        where = self.display(parts)
        if parent is not None and name is not None:
            try:
                mode = os.stat(name, dir_fd=parent, follow_symlinks=False).st_mode
            except OSError:
                mode = None
            if mode is not None and stat.S_ISLNK(mode):
                target = os.readlink(name, dir_fd=parent)
                return PathRefused(f"{where} is a symbolic link (to {target}); the mock agent "
                                   "never follows links")
            if mode is not None and not stat.S_ISDIR(mode) and exc.errno == errno.ENOTDIR:
                return PathRefused(f"{where} is not a directory")
        if exc.errno == errno.ENOENT:
            return AgentError(f"{where}: no such file or directory")
        if exc.errno == errno.ELOOP:
            return PathRefused(f"{where} is a symbolic link; the mock agent never follows links")
        return AgentError(f"{where}: {exc.strerror or exc}")

    def _open_file(self, parts: tuple[str, ...], flags: int, *, create: bool) -> int:
        if not parts:
            raise PathRefused("the workspace root is a directory, not a file")
        if create:
            self.make_dirs(parts[:-1])
        with self.directory(parts[:-1]) as parent:
            name = parts[-1]
            try:
                mode = os.stat(name, dir_fd=parent, follow_symlinks=False).st_mode
            except FileNotFoundError:
                mode = None
                if not create:
                    raise AgentError(f"{self.display(parts)}: no such file") from None
            if mode is not None and not stat.S_ISREG(mode):
                if stat.S_ISLNK(mode):
                    raise self._refusal(parts, OSError(errno.ELOOP, "link"), parent, name)
                raise PathRefused(f"{self.display(parts)} is a {_describe(mode)}, not a regular "
                                  "file; the mock agent reads and writes regular files only")
            try:
                fd = os.open(name, flags | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC,
                             0o644, dir_fd=parent)
            except OSError as exc:
                raise self._refusal(parts, exc, parent, name) from None
        if not stat.S_ISREG(os.fstat(fd).st_mode):  # swapped since the check
            os.close(fd)
            raise PathRefused(f"{self.display(parts)} is not a regular file")
        return fd

    # -- the operations the tools use -----------------------------------------------------

    def read_bytes(self, parts: tuple[str, ...]) -> bytes:
        fd = self._open_file(parts, os.O_RDONLY, create=False)
        with os.fdopen(fd, "rb") as f:
            data = f.read(_MAX_READ + 1)
        if len(data) > _MAX_READ:
            raise AgentError(f"{self.display(parts)} is larger than {_MAX_READ} bytes")
        return data

    def read_text(self, parts: tuple[str, ...]) -> str:
        data = self.read_bytes(parts)
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            raise AgentError(f"{self.display(parts)} is not UTF-8 text") from None

    def write_text(self, parts: tuple[str, ...], text: str) -> None:
        fd = self._open_file(parts, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, create=True)
        with os.fdopen(fd, "wb") as f:
            f.write(text.encode("utf-8"))

    def exists(self, parts: tuple[str, ...]) -> bool:
        """Whether a regular file is at ``parts`` (refusals still raise)."""
        try:
            os.close(self._open_file(parts, os.O_RDONLY, create=False))
        except PathRefused:
            raise
        except AgentError:
            return False
        return True

    def make_dirs(self, parts: tuple[str, ...]) -> None:
        """Create the directories ``parts`` (each one checked as it is reached)."""
        for i in range(len(parts)):
            with self.directory(parts[:i]) as parent:
                try:
                    os.mkdir(parts[i], 0o755, dir_fd=parent)
                except FileExistsError:
                    pass
                except OSError as exc:
                    raise self._refusal(parts[: i + 1], exc, parent, parts[i]) from None

    def check_dir(self, parts: tuple[str, ...]) -> str:
        """The absolute path of the directory ``parts``, after checking the way to it."""
        with self.directory(parts):
            return self.absolute(parts)

    def kind(self, parts: tuple[str, ...]) -> str:
        """``file``, ``dir``, ``other`` (a link is refused); raises when it does not exist."""
        if not parts:
            return "dir"
        with self.directory(parts[:-1]) as parent:
            try:
                mode = os.stat(parts[-1], dir_fd=parent, follow_symlinks=False).st_mode
            except OSError as exc:
                raise self._refusal(parts, exc, parent, parts[-1]) from None
            if stat.S_ISLNK(mode):
                raise self._refusal(parts, OSError(errno.ELOOP, "link"), parent, parts[-1])
            return _kind(mode)

    def walk(self, parts: tuple[str, ...], *, recursive: bool = True) -> list[Entry]:
        """Every entry below the directory ``parts``, sorted; links are listed, never entered."""
        out: list[Entry] = []
        with self.directory(parts) as top:
            self._walk(top, "", recursive, out)
        return out

    def _walk(self, fd: int, prefix: str, recursive: bool, out: list[Entry]) -> None:
        with os.scandir(fd) as it:
            names = sorted((e.name, _kind(e.stat(follow_symlinks=False).st_mode)) for e in it)
        for name, kind in names:
            rel = prefix + name
            out.append(Entry(rel, kind))
            if kind == "dir" and recursive:
                try:
                    child = os.open(name, _DIR_FLAGS, dir_fd=fd)
                except OSError:
                    continue  # replaced by a link or removed meanwhile: not entered
                try:
                    self._walk(child, rel + "/", recursive, out)
                finally:
                    os.close(child)


def _describe(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "FIFO (named pipe)"
    if stat.S_ISSOCK(mode):
        return "socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "device"
    if stat.S_ISDIR(mode):
        return "directory"
    return "special file"
