"""Helpers for hub tests (imported as `hubkit`): test agents, an in-process hub, a client."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sys
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import uvicorn
from websockets.asyncio.client import ClientConnection, connect

from scenarist.hub.config import AgentSpec, HubConfig, Limits
from scenarist.hub.server import create_app, uvicorn_config
from scenarist.hub.sessions import Hub
from scenarist.serving import bind

AGENTS = Path(__file__).parent / "agents"
TOKEN = "test-token-0123456789"
WAIT_S = 20.0  # liveness bound only; nothing asserts on elapsed time


def agent(name: str, *args: str, script: str | None = None, **kw: Any) -> AgentSpec:
    """An AgentSpec running ``tests/hub/agents/<script or name>_agent.py`` with ``args``."""
    path = AGENTS / f"{script or name}_agent.py"
    return AgentSpec(name, (sys.executable, "-u", str(path), *args), **kw)


def make_config(*specs: AgentSpec, limits: Limits | None = None, timeout_s: float = 300.0,
                allow_origins: frozenset[str] = frozenset()) -> HubConfig:
    return HubConfig(agents={s.name: s for s in specs}, token=TOKEN, timeout_s=timeout_s,
                     allow_origins=allow_origins, limits=limits or Limits(kill_grace_s=1.0))


@dataclass
class RunningHub:
    port: int
    hub: Hub
    config: HubConfig

    def http(self, path: str = "/") -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def ws_url(self, token: str | None = TOKEN) -> str:
        return f"ws://127.0.0.1:{self.port}/ws" + (f"?token={token}" if token else "")


@contextlib.asynccontextmanager
async def running_hub(config: HubConfig, port: int = 0) -> AsyncIterator[RunningHub]:
    """Serve ``config`` in this event loop; on exit the server stops and every agent is killed."""
    app = create_app(config)
    server = uvicorn.Server(uvicorn_config(app, config))
    sock = bind("127.0.0.1", port)
    port = sock.getsockname()[1]
    task = asyncio.get_running_loop().create_task(server.serve(sockets=[sock]))
    while not server.started:
        if task.done():
            task.result()
        await asyncio.sleep(0.01)
    try:
        yield RunningHub(port, app.state.hub, config)
    finally:
        server.should_exit = True
        await asyncio.wait_for(task, 30)
        sock.close()


@dataclass
class Client:
    """A protocol client that keeps every frame it received (``seen``) for later assertions."""

    ws: ClientConnection
    seen: list[dict[str, Any]] = field(default_factory=list)

    async def send(self, **obj: Any) -> None:
        await self.ws.send(json.dumps(obj))

    async def recv(self) -> dict[str, Any]:
        msg = json.loads(await asyncio.wait_for(self.ws.recv(), WAIT_S))
        self.seen.append(msg)
        return msg  # type: ignore[no-any-return]

    async def until(self, pred: Callable[[dict[str, Any]], bool]) -> list[dict[str, Any]]:
        """Receive until ``pred`` matches a frame; returns the frames received, that one last."""
        got = []
        while True:
            msg = await self.recv()
            got.append(msg)
            if pred(msg):
                return got

    async def until_type(self, kind: str, agent: str | None = None) -> list[dict[str, Any]]:
        return await self.until(lambda m: m["type"] == kind and (agent is None or m.get("agent") == agent))


@contextlib.asynccontextmanager
async def client(hub: RunningHub, **kw: Any) -> AsyncIterator[Client]:
    async with connect(hub.ws_url(), max_size=None, **kw) as ws:
        c = Client(ws)
        hello = await c.recv()
        assert hello["type"] == "hello"
        yield c


def text_of(frames: list[dict[str, Any]], stream: str = "stdout") -> str:
    return "".join(f["data"] for f in frames if f["type"] == stream)


def process_gone(pid: int) -> bool:
    """True if ``pid`` no longer runs (absent, or a zombie nobody reaped: already dead)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True
    return stat[stat.rfind(")") + 2] in "ZX"


async def wait_gone(pid: int) -> bool:
    for _ in range(int(WAIT_S / 0.02)):
        if process_gone(pid):
            return True
        await asyncio.sleep(0.02)
    return False


def kill_leftover(pid: int) -> None:
    """Last-resort cleanup so a failing test never leaves a process behind."""
    with contextlib.suppress(OSError):
        os.kill(pid, 9)
