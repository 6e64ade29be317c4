"""The client's confined workspace: files and terminals an agent may use during acp-test.

Every path an agent names is mapped into the workspace folder: a path inside it stays, any
other absolute path is re-rooted beneath it (``/tmp/x`` → ``WORKSPACE/tmp/x``), so a
scenario written for ``/workspace/...`` runs anywhere and nothing outside is touched.
Terminals run ``command args`` in a :class:`scenarist.processes.ProcessTree` of their own
inside the workspace, their output kept up to the agent's byte limit; what a command leaves
running is stopped when it exits.
"""

from __future__ import annotations

import asyncio
import os
import signal
from dataclasses import dataclass, field
from pathlib import Path

from scenarist.confine import Escape, reroot, resolve_inside
from scenarist.processes import ProcessTree

__all__ = ["Terminal", "Workspace"]


@dataclass(slots=True)
class Terminal:
    process: asyncio.subprocess.Process
    tree: ProcessTree
    limit: int | None
    output: bytearray = field(default_factory=bytearray)
    truncated: bool = False
    reader: asyncio.Task[None] | None = None

    def append(self, chunk: bytes) -> None:
        self.output += chunk
        if self.limit is not None and len(self.output) > self.limit:
            cut = len(self.output) - self.limit
            del self.output[:cut]
            while self.output and (self.output[0] & 0xC0) == 0x80:  # keep characters whole
                del self.output[:1]
            self.truncated = True

    def text(self) -> str:
        return self.output.decode("utf-8", errors="replace")


class Workspace:
    """A folder that stands for the agent's whole filesystem, and its terminals."""

    def __init__(self, root: Path) -> None:
        self.root = root.resolve()
        self.terminals: dict[str, Terminal] = {}
        self._count = 0

    def path(self, agent_path: str) -> Path:
        """Where ``agent_path`` lives inside the workspace (the *stand-in* rule of
        :mod:`scenarist.confine`): re-rooted, then resolved; a link out is a ``PermissionError``."""
        try:
            return resolve_inside(self.root, reroot(str(self.root), agent_path))
        except Escape:
            raise PermissionError(f"{agent_path} leads outside the workspace {self.root}") from None

    def read(self, agent_path: str, line: int | None = None, limit: int | None = None) -> str:
        text = self.path(agent_path).read_text(encoding="utf-8")
        if line is None and limit is None:
            return text
        lines = text.splitlines(keepends=True)
        start = max((line or 1) - 1, 0)
        return "".join(lines[start:start + limit if limit is not None else None])

    def write(self, agent_path: str, content: str) -> Path:
        target = self.path(agent_path)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(content, encoding="utf-8")
        return target

    async def start(self, command: str, args: list[str], cwd: str | None,
                    env: dict[str, str], limit: int | None) -> str:
        where = self.path(cwd) if cwd else self.root
        where.mkdir(parents=True, exist_ok=True)
        tree = ProcessTree()
        process = await tree.create_subprocess_exec(
            command, *args, cwd=where, env={**os.environ, **env},
            stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT)
        self._count += 1
        terminal_id = f"term-{self._count}"
        terminal = Terminal(process, tree, limit)
        terminal.reader = asyncio.create_task(self._pump(terminal))
        self.terminals[terminal_id] = terminal
        return terminal_id

    @staticmethod
    async def _pump(terminal: Terminal) -> None:
        stream = terminal.process.stdout
        assert stream is not None
        while chunk := await stream.read(65536):
            terminal.append(chunk)

    def get(self, terminal_id: str) -> Terminal:
        terminal = self.terminals.get(terminal_id)
        if terminal is None:
            raise KeyError(terminal_id)
        return terminal

    async def wait(self, terminal_id: str) -> int:
        terminal = self.get(terminal_id)
        code = await terminal.process.wait()
        await asyncio.to_thread(terminal.tree.stop)  # what it left, also holding its output
        if terminal.reader is not None:
            await terminal.reader
        return code

    def kill(self, terminal_id: str) -> None:
        self.get(terminal_id).tree.send(signal.SIGKILL)

    async def release(self, terminal_id: str) -> None:
        self.kill(terminal_id)
        await self.wait(terminal_id)
        del self.terminals[terminal_id]

    async def close(self) -> None:
        for terminal_id in list(self.terminals):
            await self.release(terminal_id)
