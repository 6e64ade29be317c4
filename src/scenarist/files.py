"""Reading an input file that may be anything: a regular file, or a FIFO, a device, a folder.

A path from a scenario, a command line or an agent can name ``/dev/zero`` (endless), a FIFO (an
``open`` that blocks until a writer comes) or a huge file. :func:`read_regular_bytes` opens it
without blocking, refuses what is not a regular file, and reads at most ``limit`` bytes; the
callers (the scenario loader, the model server's workspace, fake-codex) turn its ``OSError``\\ s
into their own located or one-line errors.
"""

from __future__ import annotations

import os
import stat

from scenarist.errors import ScenaristError

__all__ = ["FileTooLarge", "NotRegularFile", "read_regular_bytes"]


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
