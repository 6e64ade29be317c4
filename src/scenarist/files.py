"""Files at the edges: reading an input that may be anything (a regular file, or a FIFO, a
device, a folder), and writing a private output all or nothing.

A path from a scenario, a command line or an agent can name ``/dev/zero`` (endless), a FIFO (an
``open`` that blocks until a writer comes) or a huge file. :func:`read_regular_bytes` opens it
without blocking, refuses what is not a regular file, and reads at most ``limit`` bytes; the
callers (the scenario loader, the model server's workspace, fake-codex) turn its ``OSError``\\ s
into their own located or one-line errors.
"""

from __future__ import annotations

import os
import stat
from typing import TYPE_CHECKING

from scenarist.errors import ScenaristError

if TYPE_CHECKING:  # pathlib (~4 ms with urllib.parse) is not paid by fake-codex's start-up
    from pathlib import Path

__all__ = ["FileTooLarge", "NotRegularFile", "read_regular_bytes", "write_private"]


class NotRegularFile(ScenaristError, OSError):
    """The path is a FIFO, a device or a socket."""


class FileTooLarge(ScenaristError, OSError):
    """The file holds more than the caller's limit."""


def read_regular_bytes(path: str | os.PathLike[str], limit: int) -> bytes:
    """The bytes of the regular file at ``path``, at most ``limit`` of them (else
    :class:`FileTooLarge`). A folder is an ``IsADirectoryError``, anything else that is not a
    regular file a :class:`NotRegularFile`; a missing file the usual ``FileNotFoundError``."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    try:
        mode = os.fstat(fd).st_mode  # before fdopen, which refuses a folder naming only its fd
    except OSError:
        os.close(fd)
        raise
    if stat.S_ISDIR(mode) or not stat.S_ISREG(mode):
        os.close(fd)
        if stat.S_ISDIR(mode):
            raise IsADirectoryError(f"{os.fspath(path)} is a folder")
        raise NotRegularFile(f"{os.fspath(path)} is not a regular file")
    with os.fdopen(fd, "rb") as handle:
        data = handle.read(limit + 1)  # bounded even if the file grows while it is read
    if len(data) > limit:
        raise FileTooLarge(f"{os.fspath(path)} is larger than {limit // 2**20} MiB")
    return data


def write_private(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` readable by its owner only (0600), all or nothing: a
    temporary file next to it, then a rename (recordings and imports may hold secrets)."""
    # imported here, not above: tempfile brings shutil and random (~3 ms), and the loader,
    # which imports this module for read_regular_bytes, has a start-up budget (validate)
    import tempfile

    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:  # mkstemp: mode 0600
            handle.write(text)
        os.replace(temp, path)
    except BaseException:
        if os.path.lexists(temp):
            os.unlink(temp)
        raise
