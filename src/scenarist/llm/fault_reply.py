"""Send a faulted answer: the actions of :func:`scenarist.faults.plan` over HTTP (ASGI).

Each write goes out when its frame is due (on the answer's :class:`~scenarist.play.Schedule`,
so ``--scenario-speed`` applies to the fault's pauses too) and is its own ASGI message (a
``fragment`` is then written piece by piece). Headers wait for the first byte, so a
``slowFirstByte`` pause holds them back and a ``disconnect`` before any byte closes the
connection with no response at all. A ``Close`` cuts the connection where it is: the
transport is closed (what was written is flushed first) without the final empty chunk, as a
dropped connection looks to the client.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import Any

from starlette.types import Message, Receive, Scope, Send

from scenarist.faults import Close, End, Exit, Pause, Reject, Stderr, Write
from scenarist.llm.faults import Struck
from scenarist.llm.journal import Journal
from scenarist.llm.reply import JSON_HEADERS, SSE_RAW_HEADERS, Ready, Streams
from scenarist.play import Schedule

__all__ = ["FaultedReply"]

CUT_WAIT_S = 5.0  # how long a cut waits for the server to see the connection go


class FaultedReply:
    """An ASGI callable that sends ``struck``'s actions (and settles the journal entry)."""

    def __init__(self, struck: Struck, schedule: Schedule, entry: dict[str, Any],
                 journal: Journal, streams: Streams,
                 reject: Callable[[int, str, float | None], Ready]) -> None:
        self.struck, self.schedule, self.entry = struck, schedule, entry
        self.journal, self.streams, self.reject = journal, streams, reject

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        struck = self.struck
        headers = SSE_RAW_HEADERS if struck.stream and struck.sse else JSON_HEADERS
        started = False
        gone = asyncio.Event()

        async def watch() -> None:
            while True:
                message: Message = await receive()
                if message["type"] == "http.disconnect":
                    gone.set()
                    return

        watcher = asyncio.create_task(watch())
        self.streams.active += 1
        shift = 0  # the pauses so far (unscaled ms)
        due = 0
        try:
            self.schedule.start()
            for action in struck.actions:
                if gone.is_set():
                    self.entry["disconnected"] = True
                    return
                if isinstance(action, Write):
                    due = struck.frames[action.frame].at_ms + shift
                    await self._wait(due, gone)
                    if not started:
                        await send({"type": "http.response.start", "status": 200,
                                    "headers": list(headers)})
                        started = True
                    await send({"type": "http.response.body", "body": action.data,
                                "more_body": True})
                elif isinstance(action, Pause):
                    shift += action.ms
                    due = max(due, shift)
                    await self._wait(due, gone)
                elif isinstance(action, End):
                    if not started:
                        await send({"type": "http.response.start", "status": 200,
                                    "headers": list(headers)})
                    await send({"type": "http.response.body", "body": b"", "more_body": False})
                    self.entry["completed"] = True
                elif isinstance(action, Reject):
                    ready = self.reject(action.status, action.message,
                                        action.retry_after_seconds)
                    self.entry.update(status=action.status, error=action.message)
                    await ready.response()(scope, receive, send)
                elif isinstance(action, Close):
                    self.entry["cut"] = True
                    await _cut(send, gone)
                else:  # Exit / Stderr are no model API's: plan() makes none for its kinds
                    assert not isinstance(action, Exit | Stderr), action
        except OSError:
            self.entry["disconnected"] = True
        finally:
            self.streams.active -= 1
            self.journal.settle(self.entry)
            watcher.cancel()

    async def _wait(self, at_ms: float, gone: asyncio.Event) -> None:
        """Until ``at_ms`` is due, or the client goes away."""
        if self.schedule.passed(at_ms):
            return
        waiting = asyncio.ensure_future(self.schedule.wait(at_ms))
        went = asyncio.ensure_future(gone.wait())
        try:
            await asyncio.wait((waiting, went), return_when=asyncio.FIRST_COMPLETED)
        finally:
            waiting.cancel()
            went.cancel()


async def _cut(send: Send, gone: asyncio.Event) -> None:
    """Close the connection under the response: what was written goes out, nothing more
    (no final chunk). Waits until the server has seen the connection go, so it does not
    report an unfinished response. Without a transport (an in-process client), the response
    is simply left unfinished."""
    protocol = getattr(send, "__self__", None)
    transport = getattr(protocol, "transport", None)
    if transport is None or not hasattr(transport, "close"):
        return
    transport.close()
    # past that, the server reports the unfinished response; the connection is closed anyway
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(gone.wait(), CUT_WAIT_S)
