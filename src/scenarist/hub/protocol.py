"""The hub's WebSocket protocol: JSON text frames, parsed and built by pure functions.

Client → hub: ``command`` (spawn on first use, then text + newline to stdin), ``kill``,
``restart`` (stop the running process if any, then start a new one), ``subscribe``. Hub → client: ``hello``, ``stdout``/``stderr``, ``status``, ``exit``, ``timeout``,
``killed``, ``skipped``, ``error``. The full description is ``docs/hub-protocol.md``.

Hub frames are built as UTF-8 ``bytes``: that is what goes on the wire, so a 1 MiB output
frame is encoded once and never decoded to ``str`` and re-encoded on its way out.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Literal

from scenarist.errors import WireError
from scenarist.json_out import dump_bytes

State = Literal["idle", "starting", "running", "exited", "error"]
OutputStream = Literal["stdout", "stderr"]
CLIENT_TYPES = ("command", "kill", "restart", "subscribe")


class ProtocolError(WireError, ValueError):
    """A client frame the hub refuses; the text is sent back in an ``error`` frame."""


@dataclass(frozen=True)
class Command:
    agent: str
    text: str


@dataclass(frozen=True)
class Kill:
    agent: str


@dataclass(frozen=True)
class Restart:
    agent: str


@dataclass(frozen=True)
class Subscribe:
    agent: str


ClientMessage = Command | Kill | Restart | Subscribe


def parse_client_message(raw: str | bytes) -> ClientMessage:
    """Decode one client frame, or raise :class:`ProtocolError` saying what a valid one looks like."""
    if isinstance(raw, bytes):
        raise ProtocolError("binary frames are not accepted; send JSON text frames, "
                            'e.g. {"type":"command","agent":"fake-codex","text":"hello"}')
    try:
        obj = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise ProtocolError(f"frame is not JSON ({exc.msg} at char {exc.pos}); send an object "
                            'like {"type":"subscribe","agent":"fake-codex"}') from None
    if not isinstance(obj, dict):
        raise ProtocolError("frame must be a JSON object with a \"type\" field")
    kind = obj.get("type")
    if kind not in CLIENT_TYPES:
        raise ProtocolError(f"unknown message type {kind!r}; expected one of "
                            f"{', '.join(CLIENT_TYPES)}")
    agent = obj.get("agent")
    if not isinstance(agent, str) or not agent:
        raise ProtocolError(f"{kind}: \"agent\" must be a non-empty string naming a configured agent")
    if kind == "command":
        text = obj.get("text")
        if not isinstance(text, str):
            raise ProtocolError("command: \"text\" must be a string (the line written to the "
                                "agent's stdin)")
        return Command(agent, text)
    if kind == "kill":
        return Kill(agent)
    if kind == "restart":
        return Restart(agent)
    return Subscribe(agent)


def hello(agents: list[str]) -> bytes:
    return dump_bytes({"type": "hello", "agents": agents})


def output(stream: OutputStream, agent: str, data: str) -> bytes:
    return dump_bytes({"type": stream, "agent": agent, "data": data})


def status(agent: str, state: State) -> bytes:
    return dump_bytes({"type": "status", "agent": agent, "state": state})


def exit_(agent: str, code: int | None, signal: str | None) -> bytes:
    return dump_bytes({"type": "exit", "agent": agent, "code": code, "signal": signal})


def done(agent: str, after_s: float) -> bytes:
    """A command finished (the agent's done marker appeared); ``after_s`` since it was sent."""
    return dump_bytes({"type": "done", "agent": agent, "after_s": round(after_s, 3)})


def timeout(agent: str, after_s: float) -> bytes:
    after: float | int = int(after_s) if float(after_s).is_integer() else after_s
    return dump_bytes({"type": "timeout", "agent": agent, "after_s": after})


def killed(agent: str) -> bytes:
    return dump_bytes({"type": "killed", "agent": agent})


def skipped(agent: str, nbytes: int) -> bytes:
    return dump_bytes({"type": "skipped", "agent": agent, "bytes": nbytes})


def error(message: str, agent: str | None = None) -> bytes:
    obj: dict[str, object] = {"type": "error", "message": message}
    if agent is not None:
        obj["agent"] = agent
    return dump_bytes(obj)
