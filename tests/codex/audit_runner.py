"""Run fake-codex under an audit hook that refuses writes, deletes, exec and network.

Usage: ``python -B audit_runner.py RUNS.json`` where RUNS.json is a list of
``{"argv": [...], "stdin": "..."}``. Every run calls ``scenarist.codex.cli.main``
in this process. The hook is installed before scenarist is imported, records
each forbidden operation and blocks it; the last stderr line is a JSON report
``{"runs": N, "codes": [...], "violations": [...], "audited": COUNT}``.
With ``--selftest`` it first attempts each forbidden operation itself, to prove
the hook sees them.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import sys
from typing import Any

WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
FORBIDDEN_EVENTS = {
    "os.remove",
    "os.rmdir",
    "os.rename",
    "os.replace",
    "os.mkdir",
    "os.symlink",
    "os.link",
    "os.truncate",
    "os.chmod",
    "os.chown",
    "os.utime",
    "shutil.rmtree",
    "shutil.move",
    "os.system",
    "os.exec",
    "os.posix_spawn",
    "os.spawn",
    "os.fork",
    "os.forkpty",
    "subprocess.Popen",
    "pty.spawn",
    "socket.connect",
    "socket.bind",
    "socket.sendto",
    "socket.getaddrinfo",
    "urllib.Request",
    "http.client.connect",
}

violations: list[str] = []
audited = 0
armed = True


def hook(event: str, args: tuple[Any, ...]) -> None:
    global audited
    if not armed:
        return
    audited += 1
    bad = event in FORBIDDEN_EVENTS
    if event == "open":
        _path, mode, flags = ((*tuple(args), None, None, None))[:3]
        if isinstance(mode, str) and any(c in mode for c in "wax+"):
            bad = True
        if isinstance(flags, int) and flags & WRITE_FLAGS:
            bad = True
    if bad:
        violations.append(f"{event} {args!r}"[:300])
        raise PermissionError(f"audit: {event} is forbidden for fake-codex")


def selftest(tmpdir: str) -> None:
    """Attempt each kind of forbidden operation; each must be recorded and blocked."""
    import socket
    import subprocess

    attempts = [
        lambda: open(os.path.join(tmpdir, "x.txt"), "w"),  # noqa: SIM115
        lambda: os.open(os.path.join(tmpdir, "y.txt"), os.O_WRONLY | os.O_CREAT),
        lambda: os.remove(os.path.join(tmpdir, "absent")),
        lambda: subprocess.run(["true"], check=False),
        lambda: sock.connect(("127.0.0.1", 9)),
    ]
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    for attempt in attempts:
        with contextlib.suppress(PermissionError, OSError):
            attempt()
    sock.close()


def main() -> int:
    global armed
    args = sys.argv[1:]
    selftest_dir = None
    if args and args[0] == "--selftest":
        selftest_dir = args[1]
        args = args[2:]
    with open(args[0], encoding="utf-8") as handle:
        runs = json.load(handle)
    sys.addaudithook(hook)
    if selftest_dir is not None:
        selftest(selftest_dir)
    from scenarist.codex.cli import main as fake_codex_main

    codes = []
    real_stdin = sys.stdin
    for spec in runs:
        sys.stdin = io.TextIOWrapper(io.BytesIO(spec.get("stdin", "").encode()))
        try:
            codes.append(fake_codex_main(spec["argv"]))
        finally:
            sys.stdin = real_stdin
    sys.stdout.flush()
    armed = False
    report = {"runs": len(runs), "codes": codes, "violations": violations, "audited": audited}
    sys.stderr.write(json.dumps(report) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
