"""Settings of the fake agent, from JSON (``SCENARIST_CODEX_CONFIG``, ``--config``) and flags.

Later sources win: defaults, then the environment variable, then ``--config``,
then individual flags. The JSON keys follow the original fake agent's config
(``seed``, ``cadence_ms``, ``message_chunk_min``/``max``, ``include_reasoning``,
``tool_events {exec_command, apply_patch, mcp, web_search, approvals, errors}``,
``scenario_path``) plus our own; unknown keys are an error so typos surface.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from scenarist.codex.commands import DEFAULT_PREFIXES
from scenarist.codex.encode import FORMATS
from scenarist.codex.errors import CodexUsageError
from scenarist.codex.simulate import TOOL_KINDS
from scenarist.codex.turn import MAX_PAUSE_MS

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from typing import Any

ENV_VAR = "SCENARIST_CODEX_CONFIG"

_TOOL_NAMES = {
    "exec": "exec",
    "exec_command": "exec",
    "apply_patch": "apply_patch",
    "patch": "apply_patch",
    "mcp": "mcp",
    "web_search": "web_search",
    "web": "web_search",
}

_SANDBOXES = ("read-only", "workspace-write", "danger-full-access")


class Config:
    """The resolved settings of one run."""

    __slots__ = (
        "approvals",
        "cadence_ms",
        "chaos",
        "chunk_max",
        "chunk_min",
        "command_prefixes",
        "cwd",
        "errors",
        "format",
        "model",
        "reasoning",
        "replay",
        "sandbox",
        "scenario",
        "seed",
        "session_id",
        "time_scale",
        "tools",
        "turn_lifecycle",
    )

    def __init__(self) -> None:
        self.seed: int | None = None
        self.cadence_ms = 0
        self.chunk_min = 4
        self.chunk_max = 14
        self.reasoning = True
        self.tools: tuple[str, ...] = TOOL_KINDS
        self.approvals = False
        self.errors = False
        self.session_id: str | None = None
        self.cwd: str | None = None
        self.format = "codex-event"
        self.scenario: str | None = None
        self.time_scale = 1.0
        self.replay: str | None = None
        self.command_prefixes: tuple[str, ...] = DEFAULT_PREFIXES
        self.turn_lifecycle = True
        self.model = "fake-codex"
        self.sandbox = "workspace-write"
        self.chaos: str | None = None  # RATE[:kind,kind], read with the run's seed

    def update(self, values: Mapping[str, Any], source: str) -> None:
        """Apply JSON-style ``values``; ``source`` names where they came from, for errors."""
        for key, value in values.items():
            setter = _SETTERS.get(key)
            if setter is None:
                raise CodexUsageError(
                    f"{source}: unknown key {key!r}; known keys: {', '.join(sorted(_SETTERS))}"
                )
            try:
                setter(self, value)
            except (TypeError, ValueError) as exc:
                raise CodexUsageError(f"{source}: {key} {exc}") from None
        self.check(source)

    def check(self, source: str) -> None:
        if self.chunk_min > self.chunk_max:
            raise CodexUsageError(
                f"{source}: message_chunk_min ({self.chunk_min}) is larger than "
                f"message_chunk_max ({self.chunk_max})"
            )


def parse_json_config(text: str, source: str) -> dict[str, Any]:
    """Parse a JSON config object, failing with a one-line message naming ``source``."""
    try:
        value = json.loads(text)
    except ValueError as exc:
        raise CodexUsageError(f"{source}: bad JSON ({exc})") from None
    if not isinstance(value, dict):
        raise CodexUsageError(f'{source}: must be a JSON object like {{"seed": 42}}')
    return value


# ---- per-key validation ---------------------------------------------------


#: the largest ``time_scale``: a scenario played 1000 times slower is already a stall
MAX_TIME_SCALE = 1000.0


def _int(value: Any, lo: int = 0, hi: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"must be an integer, got {json.dumps(value)}")
    if value < lo:
        raise ValueError(f"must be at least {lo}, got {value}")
    if hi is not None and value > hi:
        raise ValueError(f"must be at most {hi}, got {value}")
    return value


def _scale(value: Any) -> float:
    if (isinstance(value, bool) or not isinstance(value, int | float)
            or not 0 <= value <= MAX_TIME_SCALE):  # NaN fails the comparison too
        raise ValueError(f"must be a number from 0 to {MAX_TIME_SCALE:g}, got {json.dumps(value)}")
    return float(value)


def _bool(value: Any) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"must be true or false, got {json.dumps(value)}")
    return value


def _str(value: Any) -> str:
    if not isinstance(value, str) or not value:
        raise TypeError(f"must be a non-empty string, got {json.dumps(value)}")
    return value


def _opt_str(value: Any) -> str | None:
    return None if value is None else _str(value)


def _choice(options: tuple[str, ...]) -> Callable[[Any], str]:
    def check(value: Any) -> str:
        if value not in options:
            raise ValueError(f"must be one of {', '.join(options)}, got {json.dumps(value)}")
        return str(value)

    return check


def tool_list(value: Any) -> tuple[str, ...]:
    """``"exec,mcp"``, ``["exec", "mcp"]`` → the canonical tool kinds, in our order."""
    names = value.split(",") if isinstance(value, str) else value
    if not isinstance(names, list | tuple):
        raise TypeError(f"must be a list of tool names, got {json.dumps(value)}")
    chosen = set()
    for name in names:
        key = _TOOL_NAMES.get(str(name).strip())
        if key is None and str(name).strip():
            raise ValueError(
                f"has unknown tool {name!r}; use exec, apply_patch, mcp and/or web_search"
            )
        if key:
            chosen.add(key)
    return tuple(kind for kind in TOOL_KINDS if kind in chosen)


def _tool_events(cfg: Config, value: Any) -> None:
    if not isinstance(value, dict):
        cfg.tools = tool_list(value)
        return
    tools = set(cfg.tools)
    for key, flag in value.items():
        on = _bool(flag)
        if key == "approvals":
            cfg.approvals = on
        elif key == "errors":
            cfg.errors = on
        elif key in _TOOL_NAMES:
            (tools.add if on else tools.discard)(_TOOL_NAMES[key])
        else:
            raise ValueError(
                f"has unknown key {key!r}; use exec_command, apply_patch, mcp, web_search, "
                "approvals, errors"
            )
    cfg.tools = tuple(kind for kind in TOOL_KINDS if kind in tools)


def _prefixes(value: Any) -> tuple[str, ...]:
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, list) or not items or not all(isinstance(p, str) and p for p in items):
        raise TypeError(f"must be a non-empty list of strings, got {json.dumps(value)}")
    return tuple(items)


def _seed(value: Any) -> int | None:
    return None if value is None else _int(value)


def _ignored(cfg: Config, value: Any) -> None:
    """``write_fake_files``: accepted for compatibility; fake-codex never writes files."""
    _bool(value)


_SETTERS: dict[str, Callable[[Config, Any], None]] = {
    "seed": lambda c, v: setattr(c, "seed", _seed(v)),
    "cadence_ms": lambda c, v: setattr(c, "cadence_ms", _int(v, 0, MAX_PAUSE_MS)),
    "message_chunk_min": lambda c, v: setattr(c, "chunk_min", _int(v, 1)),
    "message_chunk_max": lambda c, v: setattr(c, "chunk_max", _int(v, 1)),
    "include_reasoning": lambda c, v: setattr(c, "reasoning", _bool(v)),
    "tool_events": _tool_events,
    "approvals": lambda c, v: setattr(c, "approvals", _bool(v)),
    "errors": lambda c, v: setattr(c, "errors", _bool(v)),
    "session_id": lambda c, v: setattr(c, "session_id", _opt_str(v)),
    "cwd": lambda c, v: setattr(c, "cwd", _opt_str(v)),
    "format": lambda c, v: setattr(c, "format", _choice(FORMATS)(v)),
    "scenario_path": lambda c, v: setattr(c, "scenario", _opt_str(v)),
    "time_scale": lambda c, v: setattr(c, "time_scale", _scale(v)),
    "replay_path": lambda c, v: setattr(c, "replay", _opt_str(v)),
    "command_prefixes": lambda c, v: setattr(c, "command_prefixes", _prefixes(v)),
    "turn_lifecycle": lambda c, v: setattr(c, "turn_lifecycle", _bool(v)),
    "model": lambda c, v: setattr(c, "model", _str(v)),
    "sandbox": lambda c, v: setattr(c, "sandbox", _choice(_SANDBOXES)(v)),
    "chaos": lambda c, v: setattr(c, "chaos", _opt_str(v)),
    "write_fake_files": _ignored,
}
