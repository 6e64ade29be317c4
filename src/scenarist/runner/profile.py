"""The terminal a scenario runs in: its ``terminalRef`` profile, or the runner's default.

A profile is a JSON file ``{name?, width, height, ...}`` (other keys, such as ``theme`` and
``rendering``, are ignored). Its id, used in the screenshot and log paths, is ``name`` when
given, else ``<width>x<height>``. ``terminalRef`` is looked up next to the scenario file
first, then in the current folder.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from scenarist.runner.errors import RunnerError

__all__ = ["DEFAULT_PROFILE", "TerminalProfile", "load_profile", "parse_profile"]


@dataclass(frozen=True, slots=True)
class TerminalProfile:
    width: int
    height: int
    name: str | None = None

    @property
    def id(self) -> str:
        return self.name or f"{self.width}x{self.height}"


DEFAULT_PROFILE = TerminalProfile(100, 30)


def parse_profile(data: Any, where: str) -> TerminalProfile:
    """A profile from decoded JSON; :class:`RunnerError` naming ``where`` when it is wrong."""
    if not isinstance(data, dict):
        raise RunnerError(f"{where}: a terminal profile is a JSON object "
                          '{"name": ..., "width": 100, "height": 30}')
    size = {}
    for key, low, high in (("width", 10, 1000), ("height", 2, 1000)):
        value = data.get(key)
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise RunnerError(f"{where}: {key!r} must be an integer from {low} to {high}, "
                              f"got {value!r}")
        size[key] = value
    name = data.get("name")
    if name is not None and (not isinstance(name, str) or not name.strip() or "/" in name):
        raise RunnerError(f"{where}: 'name' must be a non-empty string without '/', "
                          f"got {name!r}")
    return TerminalProfile(size["width"], size["height"], name)


def load_profile(terminal_ref: str | None, scenario_path: Path | None) -> TerminalProfile:
    """The profile ``terminalRef`` names (:data:`DEFAULT_PROFILE`, 100×30, without one)."""
    if terminal_ref is None:
        return DEFAULT_PROFILE
    candidates = [Path(terminal_ref)]
    if scenario_path is not None and not Path(terminal_ref).is_absolute():
        candidates.insert(0, scenario_path.parent / terminal_ref)
    found = next((p for p in candidates if p.is_file()), None)
    if found is None:
        raise RunnerError(f"{scenario_path}: terminalRef {terminal_ref!r} not found (looked at "
                          f"{', '.join(str(c) for c in candidates)}); the path is relative to "
                          "the scenario file's folder")
    try:
        data = json.loads(found.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise RunnerError(f"{found}: not a JSON terminal profile: {exc}") from exc
    return parse_profile(data, str(found))
