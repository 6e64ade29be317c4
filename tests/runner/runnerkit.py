"""Helpers for the runner's tests: scenario files written on the fly, committed goldens."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

HERE = Path(__file__).resolve().parent
SCENARIOS = HERE / "scenarios"
GOLDENS = HERE / "goldens"


def write_scenario(folder: Path, name: str, body: str) -> Path:
    """``folder/name.yaml`` holding ``name: NAME`` followed by ``body``."""
    path = folder / f"{name}.yaml"
    path.write_text(f"name: {name}\n{body}", encoding="utf-8")
    return path


def golden_copy(tmp_path: Path) -> Path:
    """A copy of the committed goldens to run against (a run never writes into the tree)."""
    target = tmp_path / "target"
    shutil.copytree(GOLDENS, target)
    return target


def running(pid: int) -> bool:
    """Whether ``pid`` is a live process (zombies count as gone)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rfind(")") + 2] != "Z"
