"""Hub configuration: which agents clients may start, and the limits that keep the hub safe.

Clients never send a command line; they name an agent, and only agents listed here can run.
Each agent is an argv list (executed without a shell), so no client text can become a command.
The TOML file adds agents or overrides fields of existing ones::

    include_defaults = true          # keep droid, claudecode, codex, fake-codex (default true)

    [agents.mine]
    argv = ["python3", "-u", "agent.py"]   # required for a new agent; a list, never a string
    cwd = "work"                           # relative to the config file's folder
    env = { MODE = "test" }                # added to the hub's environment
    timeout_s = 60                         # default: the hub's --timeout
    kill_on_timeout = true                 # default: false (send "timeout" only)

Parsing is pure (:func:`parse_config` takes the decoded TOML); :func:`load_config` reads the file.
"""

from __future__ import annotations

import re
import sys
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from scenarist.errors import UsageError

DEFAULT_TIMEOUT_S = 300.0
AGENT_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
_AGENT_KEYS = ("argv", "cwd", "env", "timeout_s", "kill_on_timeout", "done_marker")
#: fake-codex ends each turn with this event, in both of its output formats
FAKE_CODEX_DONE = r'"type":\s*"(task_complete|turn\.completed|turn\.failed)"'

_TOP_KEYS = ("include_defaults", "agents")


class ConfigError(UsageError, ValueError):
    """A configuration problem, phrased as what is wrong, where, and how to fix it."""


@dataclass(frozen=True)
class AgentSpec:
    """How to start one agent. ``timeout_s`` None means the hub's default timeout.

    ``done_marker`` tells when a command is finished for an agent that keeps running between
    commands: a regular expression searched in each line of its stdout (an event type in JSON
    output, a prompt). Without one, a command is finished when the process exits (one-shot
    CLIs)."""

    name: str
    argv: tuple[str, ...]
    cwd: str | None = None
    env: Mapping[str, str] = field(default_factory=dict)
    timeout_s: float | None = None
    kill_on_timeout: bool = False
    done_marker: str | None = None


@dataclass(frozen=True)
class Limits:
    """Resource limits; every one bounds what a client (or a chatty agent) can make the hub hold."""

    max_frame_bytes: int = 64 * 1024  # largest WebSocket message a client may send
    rate_per_s: float = 20.0  # sustained client messages per second
    rate_burst: int = 40  # messages allowed in a burst above the sustained rate
    rate_strikes: int = 40  # refused messages before the connection is closed (1008)
    ring_bytes: int = 1024 * 1024  # output kept per agent for late subscribers
    client_queue_bytes: int = 4 * 1024 * 1024  # output queued for one client before it skips
    pace_bytes: int = 1024 * 1024  # all pacing clients this far behind: pause the agent's pipes
    pace_window_s: float = 0.1  # a pause longer than this drops the laggards from pacing
    client_queue_messages: int = 10_000  # control messages queued before a client is dropped
    stdin_buffer_bytes: int = 1024 * 1024  # unread stdin an agent may leave before refusals
    kill_grace_s: float = 3.0  # SIGTERM → SIGKILL grace for an agent's process group


@dataclass(frozen=True)
class HubConfig:
    """Everything a running hub needs; built by the CLI or directly by tests."""

    agents: Mapping[str, AgentSpec]
    token: str
    timeout_s: float = DEFAULT_TIMEOUT_S
    allow_origins: frozenset[str] = frozenset()
    limits: Limits = Limits()
    bind_host: str = "127.0.0.1"  # the name in the Host header that means "this hub"

    def timeout_for(self, spec: AgentSpec) -> float:
        return self.timeout_s if spec.timeout_s is None else spec.timeout_s


def default_agents() -> dict[str, AgentSpec]:
    """The spec's mapping (droid, claudecode, codex) plus our fake Codex agent, which always works."""
    return {
        "droid": AgentSpec("droid", ("openspec", "droid")),
        "claudecode": AgentSpec("claudecode", ("claude",)),
        "codex": AgentSpec("codex", ("codex",)),
        "fake-codex": AgentSpec(
            "fake-codex", (sys.executable, "-m", "scenarist", "codex", "--interactive"),
            done_marker=FAKE_CODEX_DONE,
        ),
    }


def _where(source: str, key: str) -> str:
    return f"{source}: {key}"


def _check_keys(table: Mapping[str, Any], allowed: tuple[str, ...], where: str) -> None:
    unknown = sorted(set(table) - set(allowed))
    if unknown:
        raise ConfigError(
            f"{where}: unknown key(s) {', '.join(map(repr, unknown))}; "
            f"allowed keys are {', '.join(allowed)}"
        )


def _parse_agent(name: str, table: Any, base: AgentSpec | None, source: str,
                 base_dir: Path | None) -> AgentSpec:
    where = _where(source, f"[agents.{name}]")
    if not AGENT_NAME.match(name):
        raise ConfigError(
            f"{where}: agent name must be 1-64 letters, digits, '.', '_' or '-', "
            "starting with a letter or digit"
        )
    if not isinstance(table, dict):
        raise ConfigError(f"{where}: must be a table, e.g. [agents.{name}] argv = [\"prog\"]")
    _check_keys(table, _AGENT_KEYS, where)
    spec = base if base is not None else AgentSpec(name, ())
    if "argv" in table:
        argv = table["argv"]
        if isinstance(argv, str):
            raise ConfigError(
                f"{where}: argv is a string ({argv!r}); write it as a list, e.g. "
                f"argv = {argv.split()!r} — the hub never runs a shell"
            )
        if not isinstance(argv, list) or not argv or not all(isinstance(a, str) and a
                                                             for a in argv):
            raise ConfigError(f"{where}: argv must be a non-empty list of non-empty strings")
        spec = replace(spec, argv=tuple(argv))
    elif base is None:
        raise ConfigError(f"{where}: a new agent needs argv, e.g. argv = [\"my-agent\", \"--flag\"]")
    if "cwd" in table:
        cwd = table["cwd"]
        if not isinstance(cwd, str) or not cwd:
            raise ConfigError(f"{where}: cwd must be a non-empty string (a folder)")
        path = Path(cwd).expanduser()
        if not path.is_absolute() and base_dir is not None:
            path = base_dir / path
        spec = replace(spec, cwd=str(path))
    if "env" in table:
        env = table["env"]
        if not isinstance(env, dict) or not all(isinstance(k, str) and isinstance(v, str)
                                                for k, v in env.items()):
            raise ConfigError(f"{where}: env must be a table of strings, e.g. env = {{ KEY = \"value\" }}")
        spec = replace(spec, env=dict(env))
    if "timeout_s" in table:
        timeout = table["timeout_s"]
        if isinstance(timeout, bool) or not isinstance(timeout, int | float) or timeout <= 0:
            raise ConfigError(f"{where}: timeout_s must be a positive number of seconds")
        spec = replace(spec, timeout_s=float(timeout))
    if "kill_on_timeout" in table:
        kill = table["kill_on_timeout"]
        if not isinstance(kill, bool):
            raise ConfigError(f"{where}: kill_on_timeout must be true or false")
        spec = replace(spec, kill_on_timeout=kill)
    if "done_marker" in table:
        marker = table["done_marker"]
        if not isinstance(marker, str) or not marker:
            raise ConfigError(f"{where}: done_marker must be a non-empty regular expression, "
                              "e.g. done_marker = '\"type\":\"task_complete\"'")
        try:
            re.compile(marker)
        except re.error as exc:
            raise ConfigError(f"{where}: done_marker is not a valid regular expression: {exc}"
                              ) from None
        spec = replace(spec, done_marker=marker)
    return spec


def parse_config(data: Mapping[str, Any], source: str = "<config>",
                 base_dir: Path | None = None) -> dict[str, AgentSpec]:
    """Merge a decoded TOML document into the default agents and return the agent table."""
    _check_keys(data, _TOP_KEYS, source)
    include = data.get("include_defaults", True)
    if not isinstance(include, bool):
        raise ConfigError(f"{_where(source, 'include_defaults')}: must be true or false")
    agents = default_agents() if include else {}
    tables = data.get("agents", {})
    if not isinstance(tables, dict):
        raise ConfigError(f"{_where(source, 'agents')}: must be a table of [agents.NAME] tables")
    for name, table in tables.items():
        agents[name] = _parse_agent(name, table, agents.get(name), source, base_dir)
    if not agents:
        raise ConfigError(f"{source}: no agents configured; add an [agents.NAME] table or set "
                          "include_defaults = true")
    return agents


def load_config(path: str | Path) -> dict[str, AgentSpec]:
    """Read a TOML config file; errors name the file and, for syntax errors, the line."""
    file = Path(path)
    try:
        data = tomllib.loads(file.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(f"{file}: cannot read config file ({exc.strerror or exc})") from exc
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{file}: not valid TOML: {exc}") from exc
    return parse_config(data, str(file), file.resolve().parent)
