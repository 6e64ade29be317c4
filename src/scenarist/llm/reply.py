"""What the model API sends back, once answered: :class:`Ready` (all due now) or an ASGI
callable that paces it (:class:`PacedStream`, :class:`LateBody`).

``llm.server`` decides which; ASGI sends either.
"""

from __future__ import annotations

import asyncio
from contextlib import aclosing
from dataclasses import dataclass
from typing import Any, NamedTuple

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from scenarist.llm.answer import Batch
from scenarist.llm.journal import Journal
from scenarist.play import Schedule, pace
from scenarist.wire import SSE_HEADERS

#: the headers of a JSON answer and of an SSE stream, as the wire carries them
JSON_HEADERS: tuple[tuple[bytes, bytes], ...] = ((b"content-type", b"application/json"),)
SSE_RAW_HEADERS: tuple[tuple[bytes, bytes], ...] = tuple(
    (k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in SSE_HEADERS.items())


@dataclass(slots=True)
class Streams:
    """How many answers are being paced out now (``GET /health``'s ``active_streams``)."""

    active: int = 0


class Ready(NamedTuple):
    """An answer all due now: status, headers and the whole body, sent as one ASGI
    response (``stream``: an SSE body, sent chunked like any stream). A ``NamedTuple``, one
    per answer: a frozen dataclass sets each field through ``object.__setattr__`` (see
    :mod:`scenarist.llm.answer`)."""

    status: int
    headers: tuple[tuple[bytes, bytes], ...]
    body: bytes
    stream: bool = False

    def response(self) -> ASGIApp:
        return self._send

    async def _send(self, scope: Scope, receive: Receive, send: Send) -> None:
        body = self.body
        # the headers as a tuple: ASGI takes any iterable of pairs (a list copied and
        # appended to cost a few hundred instructions an answer)
        headers = self.headers if self.stream else (
            *self.headers, (b"content-length", b"%d" % len(body)))
        await send({"type": "http.response.start", "status": self.status, "headers": headers})
        await send({"type": "http.response.body", "body": body, "more_body": False})


class LateBody:
    """A non-streamed answer sent when its stream would have ended (an ASGI callable)."""

    def __init__(self, body: bytes, end_ms: int, schedule: Schedule, entry: dict[str, Any],
                 journal: Journal) -> None:
        self.body, self.end_ms, self.schedule = body, end_ms, schedule
        self.entry, self.journal = entry, journal

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await self.schedule.wait(self.end_ms)
        finally:
            self.journal.settle(self.entry)
        await Ready(200, JSON_HEADERS, self.body).response()(scope, receive, send)


class PacedStream:
    """A streamed answer (SSE, or Gemini's JSON array) as an ASGI callable: each batch of
    frames sent when due, stopping the moment the client goes away (a watcher task waits for
    ``http.disconnect``)."""

    def __init__(
        self, batches: tuple[Batch, ...], schedule: Schedule, entry: dict[str, Any],
        journal: Journal, streams: Streams,
        headers: tuple[tuple[bytes, bytes], ...] = SSE_RAW_HEADERS,
    ) -> None:
        self.batches = batches
        self.headers = headers
        self.schedule = schedule
        self.entry = entry
        self.journal = journal
        self.streams = streams

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        pump = asyncio.current_task()
        disconnected = False

        async def watch() -> None:
            nonlocal disconnected
            while True:
                message: Message = await receive()
                if message["type"] == "http.disconnect":
                    disconnected = True
                    if pump is not None:
                        pump.cancel()
                    return

        watcher = asyncio.create_task(watch())
        self.streams.active += 1
        try:
            await send({"type": "http.response.start", "status": 200,
                        "headers": list(self.headers)})
            # The schedule starts now, and what is due now goes out now (``pace`` does not
            # yield for a batch already due, so the first one is not a loop cycle late).
            self.schedule.start()
            async with aclosing(pace(self.batches, self.schedule)) as due:
                async for batch in due:
                    await send(
                        {"type": "http.response.body", "body": batch.data, "more_body": True}
                    )
            await send({"type": "http.response.body", "body": b"", "more_body": False})
            self.entry["completed"] = True
        except asyncio.CancelledError:
            if not disconnected or pump is None:
                raise
            pump.uncancel()
            self.entry["disconnected"] = True
        except OSError:
            self.entry["disconnected"] = True
        finally:
            self.streams.active -= 1
            self.journal.settle(self.entry)
            watcher.cancel()
