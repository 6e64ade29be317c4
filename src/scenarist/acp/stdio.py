"""Serve the mock agent on stdio, answering ``initialize`` before the ACP SDK is imported.

Importing the ACP SDK builds several hundred pydantic models (about 1.1 s on an idle
machine), and a client waits for ``initialize`` before anything else. So the first line
is read here, with plain asyncio pipes: if it is an ``initialize`` request, it is answered
from :func:`scenarist.acp.handshake.initialize_answer` at once, and the SDK is imported
after that, while the client prepares ``session/new``; the SDK connection then reads the
rest of the same stream. This is what keeps ``initialize`` within its start-up budget (no
later than an agent on the ACP TypeScript SDK: ``bench/bench_startup.py``, where it answers in
~0.5-0.7x the TypeScript agent's time). Any other first message goes to the SDK untouched.

Every line, the first included, passes :class:`scenarist.acp.lines.CheckedLines` first: a
line that is not a well-formed JSON-RPC message is answered there and never reaches the
SDK, so no client line ends the agent; the same transport plays the scenario's faults on
its way out (:class:`scenarist.acp.faulty.FaultyLines`, handed to the agent). Log records (the SDK logs what it catches with
tracebacks) are written as one line each.
"""

from __future__ import annotations

import asyncio
import logging
import os
import stat
import sys
from collections.abc import Callable, Mapping
from typing import Any

from scenarist.acp.faulty import FaultyLines

__all__ = ["STDIO_LIMIT", "event_loop_runner", "log", "one_line_logging", "serve_stdio",
           "stdio_problem"]

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


def _initialize_request(message: Mapping[str, Any]) -> tuple[Any, Mapping[str, Any]] | None:
    """``(id, params)`` when ``message`` is a plain ``initialize`` request; anything else
    (a protocol version as a string, ...) goes to the SDK, which has its own rules."""
    params, request_id = message.get("params"), message.get("id")
    if (message.get("method") != "initialize" or not isinstance(request_id, int | str)
            or isinstance(request_id, bool) or not isinstance(params, dict)):
        return None
    version = params.get("protocolVersion")
    if type(version) is not int or not 0 <= version <= 65535:
        return None
    return request_id, params


def log(message: str) -> None:
    """One line on stderr (stdout carries only ACP)."""
    print(f"scenarist acp: {message}", file=sys.stderr, flush=True)


class _OneLine(logging.Formatter):
    """A log record as one line: the message, then the exception's type and first line.
    The SDK logs every error it catches with ``logging.exception``; a peer's bad message
    is not a reason for a traceback on stderr."""

    def __init__(self, prefix: str) -> None:
        super().__init__()
        self.prefix = prefix

    def format(self, record: logging.LogRecord) -> str:
        text = record.getMessage()
        exc = record.exc_info[1] if record.exc_info else None
        if exc is not None:
            first = next(iter(str(exc).splitlines()), "")
            text = f"{text}: {type(exc).__name__}: {first}"
        return f"{self.prefix}: {' '.join(text.split())}"


def one_line_logging(prefix: str) -> None:
    """Route every log record (the SDK's, asyncio's) to stderr as one line each."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(_OneLine(prefix))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(logging.WARNING)


async def serve_stdio(answer: Callable[[], Mapping[str, Any]], make_agent: Callable[[], Any]
                      ) -> None:
    """Run the agent that ``make_agent`` builds (importing the SDK) on stdin/stdout;
    ``answer`` gives the ``initialize`` result without the SDK. Every line is checked
    (:class:`scenarist.acp.lines.CheckedLines`) before the SDK sees it, and the agent
    plays its faults on the same transport."""
    one_line_logging("scenarist acp")
    reader, writer = await _pipes()
    lines = FaultyLines(reader, writer, limit=STDIO_LIMIT, log=log)
    first = await lines.receive()
    if first is None:
        return  # the client went away before saying anything well formed
    early = _initialize_request(first)
    if early is not None:
        await lines.send({"jsonrpc": "2.0", "id": early[0], "result": answer()})
    else:
        lines.push_back(first)
    import acp

    agent = make_agent()
    agent.attach(lines)
    if early is not None:
        agent.initialized_early(early[1])
    await acp.run_agent(agent, lines)
