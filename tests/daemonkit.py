"""A hostile program for the process-hygiene tests of every front end (fixture ``daemons``; imported as ``daemonkit``).

It double-forks a daemon that calls ``setsid``, ignores SIGTERM, keeps the inherited stdio
and sleeps for a minute, then returns once the daemon runs and its parent has exited. The daemon's command line carries
a marker, so a test finds it (at any depth) by scanning ``/proc``.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import signal
import sys
from pathlib import Path

_DAEMON = """\
import os, signal, sys, time
ready_r, ready_w = os.pipe()
middle = os.fork()
if middle == 0:
    os.setsid()
    if os.fork() == 0:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        os.write(ready_w, b"x")
        time.sleep(60)
    os._exit(0)
os.read(ready_r, 1)
os.waitpid(middle, 0)  # the daemon's parent is gone too: one process of it remains
"""


class Daemons:
    """Writes the hostile program and finds the daemons it left (see ``daemons``)."""

    def __init__(self, folder: Path) -> None:
        self.marker = f"scenarist-hostile-{os.getpid()}-{os.urandom(4).hex()}"
        self.script = folder / "double_fork_daemon.py"
        self.script.write_text(_DAEMON, encoding="utf-8")

    @property
    def argv(self) -> list[str]:
        return [sys.executable, str(self.script), self.marker]

    @property
    def command(self) -> str:
        """The program as one shell command."""
        return shlex.join(self.argv)

    def alive(self) -> list[int]:
        """Pids of live (non-zombie) processes whose command line has the marker."""
        found = []
        for name in os.listdir("/proc"):
            if not name.isdigit():
                continue
            try:
                cmdline = Path(f"/proc/{name}/cmdline").read_bytes()
                stat = Path(f"/proc/{name}/stat").read_bytes()
            except OSError:
                continue
            if self.marker.encode() in cmdline and stat[stat.rfind(b")") + 2:][:1] not in b"ZX":
                found.append(int(name))
        return sorted(found)

    def kill_all(self) -> None:
        for pid in self.alive():
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
