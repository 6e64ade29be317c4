"""Serve the mock agent on stdio, answering ``initialize`` before the ACP SDK is imported.

Importing the ACP SDK builds several hundred pydantic models (about 1.1 s on an idle
machine), and a client waits for ``initialize`` before anything else. So the first line
is read here, with plain asyncio pipes: if it is an ``initialize`` request, it is answered
from :func:`scenarist.acp.handshake.initialize_answer` at once, and the SDK is imported
after that, while the client prepares ``session/new``; the SDK connection then reads the
rest of the same stream. Measured by ``bench/bench_acp.py`` (start-up to the
``initialize`` answer). Any other first line goes to the SDK untouched, so misuse is still
answered by the SDK with ACP's error codes.
"""

from __future__ import annotations

import asyncio
import json
import os
import stat
import sys
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["STDIO_LIMIT", "event_loop_runner", "serve_stdio", "stdio_problem"]

STDIO_LIMIT = 50 * 1024 * 1024  # the SDK's own default: media prompts are large


def _is_pipe(fd: int) -> bool:
    mode = os.fstat(fd).st_mode
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


def stdio_problem() -> str | None:
    """Why stdin/stdout cannot carry ACP here (asyncio streams need pipes, sockets or a
    terminal; a regular file cannot be watched), or None."""
    for name, stream in (("stdin", sys.stdin), ("stdout", sys.stdout)):
        try:
            mode = os.fstat(stream.fileno()).st_mode
        except (OSError, ValueError, AttributeError):
            return f"{name} is closed"
        if not (stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) or stat.S_ISCHR(mode)):
            return (f"{name} is a file: ACP runs over pipes; start scenarist acp from an ACP "
                    "client (or scenarist acp-test --agent ...)")
    return None


def event_loop_runner() -> asyncio.Runner:
    """uvloop where installed and stdin/stdout are pipes (its C pipe transports carry the
    update stream faster; figures in docs/acp.md), plain asyncio otherwise (a terminal)."""
    try:
        import uvloop
    except ImportError:
        return asyncio.Runner()
    if not (_is_pipe(sys.stdin.fileno()) and _is_pipe(sys.stdout.fileno())):
        return asyncio.Runner()
    return asyncio.Runner(loop_factory=uvloop.new_event_loop)


async def _pipes() -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=STDIO_LIMIT)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    transport, protocol = await loop.connect_write_pipe(asyncio.streams.FlowControlMixin,
                                                        sys.stdout)
    return reader, asyncio.StreamWriter(transport, protocol, None, loop)


def _initialize_request(line: bytes) -> tuple[Any, Mapping[str, Any]] | None:
    """``(id, params)`` when ``line`` is a well-formed ``initialize`` request."""
    try:
        message = json.loads(line)
    except ValueError:
        return None
    if not isinstance(message, dict) or message.get("method") != "initialize":
        return None
    params, request_id = message.get("params"), message.get("id")
    if (message.get("jsonrpc") != "2.0" or not isinstance(request_id, int | str)
            or not isinstance(params, dict) or not isinstance(params.get("protocolVersion"), int)):
        return None
    return request_id, params


def _replayed(first: bytes, rest: asyncio.StreamReader) -> asyncio.StreamReader:
    """A reader that yields ``first`` again, then everything ``rest`` reads."""
    reader = asyncio.StreamReader(limit=STDIO_LIMIT)
    reader.feed_data(first)

    async def pump() -> None:
        while chunk := await rest.read(65536):
            reader.feed_data(chunk)
        reader.feed_eof()

    task = asyncio.get_running_loop().create_task(pump())
    _PUMPS.add(task)
    task.add_done_callback(_PUMPS.discard)
    return reader


_PUMPS: set[asyncio.Task[None]] = set()


async def serve_stdio(answer: Callable[[], Mapping[str, Any]], make_agent: Callable[[], Any]
                      ) -> None:
    """Run the agent that ``make_agent`` builds (importing the SDK) on stdin/stdout;
    ``answer`` gives the ``initialize`` result without the SDK."""
    reader, writer = await _pipes()
    first = await reader.readline()
    if not first:
        return  # the client went away before saying anything
    early = _initialize_request(first)
    if early is not None:
        result = {"jsonrpc": "2.0", "id": early[0], "result": answer()}
        writer.write(json.dumps(result, separators=(",", ":")).encode() + b"\n")
        await writer.drain()
    import acp

    agent = make_agent()
    if early is not None:
        agent.initialized_early(early[1])
        source = reader
    else:
        source = _replayed(first, reader)
    await acp.run_agent(agent, writer, source)
