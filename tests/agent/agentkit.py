"""Run ``scenarist agent`` as a real process for the tests, in its own process group."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from scenarist.processes import stop_group

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples"
SCENARIOS = Path(__file__).resolve().parent / "scenarios"
# the real agents' runners of tests/llm (``llm_agents``) serve these tests too
if str(REPO / "tests" / "llm") not in sys.path:
    sys.path.append(str(REPO / "tests" / "llm"))


def agent_env(**extra: str) -> dict[str, str]:
    """This environment with our source tree first on the path (and ``extra`` added)."""
    path = os.pathsep.join(p for p in (str(REPO / "src"), os.environ.get("PYTHONPATH")) if p)
    return {**os.environ, "PYTHONPATH": path, "COLUMNS": "200", **extra}


def agent(*args: str | Path, env: dict[str, str] | None = None,
          timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """``scenarist agent ARGS`` with stdin /dev/null; every process it started is stopped."""
    argv = [sys.executable, "-m", "scenarist", "agent", *map(str, args)]
    proc = subprocess.Popen(argv, env=env or agent_env(), text=True, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
    finally:
        stop_group(proc)
    return subprocess.CompletedProcess(argv, proc.returncode, out, err)


def filled(name: str, tmp_path: Path, **values: str) -> Path:
    """A copy of ``scenarios/NAME`` with ``{{KEY}}`` placeholders filled in."""
    text = (SCENARIOS / name).read_text()
    for key, value in values.items():
        text = text.replace("{{" + key + "}}", value)
    out = tmp_path / name
    out.write_text(text)
    return out


def jsonl(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def gone(pid: int) -> bool:
    """Whether process ``pid`` has died; a zombie waiting for its reaper counts as dead.

    SIGKILL takes effect a moment after it is sent, so look a few times (up to 10 s)."""
    for _ in range(200):
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (FileNotFoundError, ProcessLookupError):
            return True
        if state in ("Z", "X"):
            return True
        time.sleep(0.05)
    return False


def running(pid: int) -> bool:
    """Whether process ``pid`` is alive now (not a zombie)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state not in ("Z", "X")
