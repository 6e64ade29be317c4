"""The Responses API over WebSocket (OpenAI's "WebSocket mode" on ``/v1/responses``).

Codex's built-in provider opens a WebSocket first and falls back to HTTP only after five
failed attempts (about 7 s). On the socket the client sends ``response.create`` messages —
the body of ``POST /v1/responses`` plus ``type`` (and ``generate``: false for a warm-up);
``stream`` is implied — and gets the same events the SSE stream carries, one JSON text frame
each. Responses go one at a time; an error is an ``error`` event carrying the HTTP status
(``{"type": "error", "status", "error": {type, code, message, param}, "headers"}``, which Codex
maps back to the HTTP error it stands for) and the socket stays open.

The socket remembers its latest response (its input and output items), as the real service
does: a ``response.create`` that names it in ``previous_response_id`` and sends only the new
items (Codex does, with ``store: false``) is expanded here to the whole history, so the
answer path is the HTTP one (:meth:`MockModelServer.answer_request`: journal, memo, pure
answer) and nothing about position is decided twice. Any other ``previous_response_id`` goes
to that path as it is (a stored id continues; an unknown one gets the API's 400).

Frames are paced by the scenario on a :class:`scenarist.play.Schedule`, as SSE is. Hostile
input gets an ``error`` event (text that is not a JSON object, an unknown event type) or a
close code (1003 for a binary frame, 1009 for a message over ``--body-limit``); a client
that goes away mid-answer stops its answer at once (a reader task watches the socket).
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from contextlib import aclosing, suppress
from typing import TYPE_CHECKING, Any, NamedTuple

import orjson
from starlette.types import Message, Receive, Scope, Send

from scenarist.faults import CHAOS_HEADER, ChaosError, Close, End, Pause, Reject, Write
from scenarist.llm.answer import WIRE, Answer, Batch, Rejection
from scenarist.play import Schedule, pace

if TYPE_CHECKING:
    from scenarist.llm.server import MockModelServer

PATH = "/v1/responses"
#: the fields a ``response.create`` carries that a ``POST /v1/responses`` body does not
SOCKET_ONLY = ("type", "generate", "stream_id")
#: client events that ask for no answer (Codex acknowledges each response it processed)
SILENT = frozenset({"response.processed"})
INBOX = 8  # client messages read ahead while an answer streams (then the socket waits)
FRAMES_MEMO = 256  # streams kept split and framed (as answers are memoised; not with --no-memo)
CLOSE_UNSUPPORTED = 1003  # a binary frame: this API speaks JSON text
CLOSE_TOO_BIG = 1009


class Due(NamedTuple):
    """The event payloads of one stream batch, when they are due, and the same as the
    WebSocket frames a server sends (framed once: repeated answers are memoised)."""

    at_ms: int
    payloads: tuple[bytes, ...]
    framed: bytes


def text_frame(payload: bytes) -> bytes:
    """One unfragmented, unmasked server text frame (RFC 6455 §5.2)."""
    size = len(payload)
    if size < 126:
        head = bytes((0x81, size))
    elif size < 1 << 16:
        head = b"\x81\x7e" + size.to_bytes(2, "big")
    else:
        head = b"\x81\x7f" + size.to_bytes(8, "big")
    return head + payload


class Frames(NamedTuple):
    """An encoded stream as WebSocket messages: each batch's events, and the output items
    of its ``response.completed`` (what a continuation on this socket builds on)."""

    batches: tuple[Due, ...]
    response_id: str | None
    output: tuple[Any, ...]


class _FrameMemo:
    """Split SSE batches into event payloads once per encoded stream (the answer memo hands
    out the same batches again, so a repeated answer costs no parsing)."""

    def __init__(self, limit: int = FRAMES_MEMO) -> None:
        self.limit = limit
        self._frames: OrderedDict[tuple[Batch, ...], Frames] = OrderedDict()

    def __call__(self, batches: tuple[Batch, ...]) -> Frames:
        hit = self._frames.get(batches)
        if hit is None:
            hit = sse_to_messages(batches)
            self._frames[batches] = hit
            while len(self._frames) > self.limit:
                self._frames.popitem(last=False)
        return hit


def sse_to_messages(batches: Sequence[Batch]) -> Frames:
    """Each batch's SSE frames as the JSON payloads a WebSocket sends (pure). A Responses
    event carries its ``type`` in the payload, so the ``event:`` line is dropped."""
    out: list[Due] = []
    last = b""
    for batch in batches:
        payloads = tuple(
            line[6:]
            for frame in batch.data.split(b"\n\n")
            for line in frame.split(b"\n")
            if line.startswith(b"data: ")
        )
        if payloads:
            last = payloads[-1]
        out.append(Due(batch.at_ms, payloads, b"".join(map(text_frame, payloads))))
    response_id, output = _completed(last)
    return Frames(tuple(out), response_id, output)


def _completed(payload: bytes) -> tuple[str | None, tuple[Any, ...]]:
    """The id and output items of a ``response.completed`` event (else nothing)."""
    if b'"response.completed"' not in payload[:64]:
        return None, ()
    response = orjson.loads(payload).get("response") or {}
    return response.get("id"), tuple(response.get("output") or ())


class Held(NamedTuple):
    """The socket's latest response: the history it answered and what it added."""

    response_id: str
    input: tuple[Any, ...]
    output: tuple[Any, ...]


def as_items(value: Any) -> list[Any]:
    """A Responses ``input`` as a list of items (a string is one user message)."""
    if isinstance(value, str):
        return [{"type": "message", "role": "user", "content": value}]
    return list(value) if isinstance(value, list) else []


def http_body(event: Mapping[str, Any], held: Held | None) -> dict[str, Any]:
    """The ``POST /v1/responses`` body a ``response.create`` stands for (pure): the socket's
    own fields dropped, ``stream`` on, and a continuation of the held response expanded to
    the whole history."""
    body = {k: v for k, v in event.items() if k not in SOCKET_ONLY}
    body["stream"] = True
    if held is not None and body.get("previous_response_id") == held.response_id:
        del body["previous_response_id"]
        body["input"] = [*held.input, *held.output, *as_items(body.get("input"))]
    return body


def error_event(reply: Rejection) -> bytes:
    """A rejection as the WebSocket ``error`` event (status and headers beside the body)."""
    body = reply.body(WIRE["responses"])
    event: dict[str, Any] = {"type": "error", "status": reply.status, **body}
    if reply.headers:  # Codex reads them beside the error, the OpenAI SDKs inside it
        event["headers"] = body["error"]["headers"] = dict(reply.headers)
    return orjson.dumps(event)


Writer = Callable[[Due], None]


def batch_writer(send: Send) -> Writer | None:
    """A writer of a whole batch of events at once, when the server's WebSocket protocol
    allows it, else None (then each event is its own ASGI message).

    Each ASGI ``websocket.send`` is one write, one system call: a 1,000-event answer due at
    one moment cost 20 µs an event, where SSE writes the same batch at once. uvicorn's
    ``websockets-sansio`` protocol (the one ``scenarist llm`` runs) hands out its
    ``websockets`` sans-I/O connection (``conn``) and ``transport``: the batch is framed by
    websockets itself and written in one call — framed here beforehand when no extension
    (compression) was negotiated, which the CLI turns off. tests/llm/test_llm_websocket.py
    holds that the CLI's configuration takes this path."""
    from websockets.protocol import Protocol, State

    protocol = getattr(send, "__self__", None)
    conn = getattr(protocol, "conn", None)
    transport = getattr(protocol, "transport", None)
    if not isinstance(conn, Protocol) or transport is None:
        return None

    def write(batch: Due) -> None:
        if (transport.is_closing() or conn.state is not State.OPEN
                or getattr(protocol, "close_sent", False)):
            raise OSError("the client went away")
        if conn.extensions:  # frames go through the extension (per-message deflate)
            for payload in batch.payloads:
                conn.send_text(payload)
            transport.write(b"".join(conn.data_to_send()))
        else:
            transport.write(batch.framed)

    return write


class _Socket:
    """One client's socket: its read-ahead, its held response, and the answer streaming."""

    def __init__(self, owner: MockModelServer, scope: Scope, receive: Receive,
                 send: Send) -> None:
        self.owner, self.receive, self.send = owner, receive, send
        self.headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope["headers"]}
        self.query = scope.get("query_string", b"").decode("latin-1")
        self.inbox: asyncio.Queue[Message] = asyncio.Queue(INBOX)
        self.held: Held | None = None
        self.gone = False
        self.pump: asyncio.Task[Any] | None = None  # set while an answer streams
        self.write = batch_writer(send)
        self.warmups = 0

    async def read(self) -> None:
        """Read the socket ahead; on a disconnect, stop the answer being streamed."""
        while True:
            message = await self.receive()
            if message["type"] == "websocket.disconnect":
                self.gone = True
                if self.pump is not None:
                    self.pump.cancel()
                await self.inbox.put(message)
                return
            await self.inbox.put(message)

    async def run(self) -> None:
        reader = asyncio.create_task(self.read())
        try:
            while not self.gone:
                message = await self.inbox.get()
                if message["type"] == "websocket.disconnect":
                    return
                if not await self.take(message):
                    return
        except OSError:  # the client went away while we sent
            self.gone = True
        finally:
            reader.cancel()
            with suppress(asyncio.CancelledError):
                await reader

    async def take(self, message: Message) -> bool:
        """Handle one client message; False when the socket was closed."""
        text = message.get("text")
        if text is None:
            await self.refuse(400, "binary frames are not supported; send each event as a "
                                   "JSON text frame", close=CLOSE_UNSUPPORTED)
            return False
        limit = self.owner.options.body_limit
        size = len(text)
        if size <= limit < size * 4:  # UTF-8 takes 1 to 4 bytes a character: count them
            size = len(text.encode())
        if size > limit:
            await self.refuse(413, f"message of over {limit} bytes is over the limit "
                                   "(--body-limit)", close=CLOSE_TOO_BIG)
            return False
        try:
            event = orjson.loads(text)
        except ValueError as exc:
            await self.refuse(400, f"message is not valid JSON: {exc}; send a "
                                   '{"type": "response.create", ...} object')
            return True
        if not isinstance(event, dict):
            await self.refuse(400, 'expected a JSON object like {"type": "response.create", '
                                   "...}", param="type")
            return True
        kind = event.get("type")
        if kind in SILENT:
            return True
        if kind != "response.create":
            await self.refuse(400, f"unsupported event type {kind!r}; this server takes "
                                   "'response.create'", param="type")
            return True
        if event.get("generate") is False:
            await self.warm_up(event)
        else:
            await self.create(event)
        return True

    async def refuse(self, status: int, message: str, *, param: str | None = None,
                     close: int | None = None) -> None:
        """An error event for a message the socket cannot take (journalled), and a close
        code when the socket cannot go on."""
        reply = Rejection(status, message, param=param)
        self.owner.note(api="responses", path=PATH, query=self.query, websocket=True,
                        status=status, error=message)
        await self.send({"type": "websocket.send", "text": error_event(reply).decode()})
        if close is not None:
            await self.send({"type": "websocket.close", "code": close,
                             "reason": message[:120]})

    async def create(self, event: Mapping[str, Any]) -> None:
        """Answer a ``response.create`` through the server's one answer path."""
        held, self.held = self.held, None  # a failed request drops the held state
        body = http_body(event, held)
        raw = orjson.dumps(body)
        noted: dict[str, Any] = {"websocket": True}
        if held is not None and event.get("previous_response_id") == held.response_id:
            noted["continued_on_socket"] = held.response_id
        entry, result = await self.owner.answer_request(
            "responses", self.headers, PATH, self.query, raw, **noted)
        if isinstance(result, Rejection):
            self.owner.settle_rejected(entry, result)
            await self.send({"type": "websocket.send", "text": error_event(result).decode()})
            return
        if result.turn is not None and (
                result.turn.fault is not None or self.owner.faults.chaos is not None
                or CHAOS_HEADER in self.headers) and await self.faulted(entry, result):
            self.held = held  # a faulted delivery moves nothing on: the retry builds on it
            return
        batches = result.encoded.batches
        frames = _frames(batches) if self.owner.options.memoize else sse_to_messages(batches)
        schedule = Schedule(self.owner.options.clock, speed=self.owner.options.speed)
        await self.stream(frames, schedule, entry)
        if entry.get("completed") and frames.response_id is not None:
            self.held = Held(frames.response_id, tuple(as_items(body.get("input"))),
                             frames.output)

    async def stream(self, frames: Frames, schedule: Schedule, entry: dict[str, Any]) -> None:
        """Send each batch's events when due; stop the moment the client goes away."""
        self.pump = asyncio.current_task()
        self.owner.streams.active += 1
        try:
            if self.gone:  # went away while the answer was made (on a worker thread)
                raise OSError("the client went away")
            schedule.start()
            async with aclosing(pace(frames.batches, schedule)) as due:
                async for batch in due:
                    if self.write is not None:
                        self.write(batch)
                        continue
                    for payload in batch.payloads:
                        await self.send({"type": "websocket.send", "text": payload.decode()})
            entry["completed"] = True
        except asyncio.CancelledError:
            if not self.gone or self.pump is None:
                raise
            self.pump.uncancel()
            entry["disconnected"] = True
        except OSError:
            self.gone = True
            entry["disconnected"] = True
        finally:
            self.pump = None
            self.owner.streams.active -= 1
            self.owner.journal.settle(entry)

    async def faulted(self, entry: dict[str, Any], answer: Answer) -> bool:
        """Send this delivery of ``answer`` with its fault (docs/faults.md); False when it
        has none. A cut closes the connection without a close frame."""
        try:
            struck = self.owner.faults.pick("responses", self.headers, entry, answer,
                                            socket=True)
        except ChaosError as exc:
            reply = Rejection(400, f"{CHAOS_HEADER}: {exc}", param=CHAOS_HEADER)
            self.owner.settle_rejected(entry, reply)
            await self.send({"type": "websocket.send", "text": error_event(reply).decode()})
            return True
        if struck is None:
            return False
        schedule = Schedule(self.owner.options.clock, speed=self.owner.options.speed)
        self.owner.streams.active += 1
        shift = due = 0
        try:
            schedule.start()
            for action in struck.actions:
                if isinstance(action, Write):
                    due = struck.frames[action.frame].at_ms + shift
                    await schedule.wait(due)
                    await self.send({"type": "websocket.send",
                                     "text": action.data.decode(errors="replace")})
                elif isinstance(action, Pause):
                    shift += action.ms
                    due = max(due, shift)
                    await schedule.wait(due)
                elif isinstance(action, Reject):
                    headers = ({} if action.retry_after_seconds is None
                               else {"retry-after": f"{action.retry_after_seconds:g}"})
                    reply = Rejection(action.status, action.message, headers=headers)
                    entry.update(status=action.status, error=action.message)
                    await self.send({"type": "websocket.send",
                                     "text": error_event(reply).decode()})
                elif isinstance(action, Close):
                    entry["cut"] = True
                    self.gone = True
                    transport = getattr(getattr(self.send, "__self__", None), "transport", None)
                    if transport is not None:
                        transport.close()  # no close frame: the connection just drops
                elif isinstance(action, End):
                    entry["completed"] = True
        except OSError:
            self.gone = True
            entry["disconnected"] = True
        finally:
            self.owner.streams.active -= 1
            self.owner.journal.settle(entry)
        return True

    async def warm_up(self, event: Mapping[str, Any]) -> None:
        """``generate: false``: no model output, but a response id that the next request
        can continue from (it then carries only what is new, or nothing)."""
        self.warmups += 1
        body = http_body(event, self.held)
        response_id = f"resp_warmup_{id(self):x}_{self.warmups}"
        created = int(self.owner.note(api="responses", path=PATH, query=self.query,
                                      websocket=True, warmup=True, status=200)["time"])
        response: dict[str, Any] = {
            "id": response_id, "object": "response", "created_at": created,
            "status": "completed", "model": body.get("model"), "output": [], "usage": None,
            "error": None, "incomplete_details": None, "previous_response_id": None,
            "store": body.get("store")}
        for n, kind in enumerate(("response.created", "response.completed")):
            state = {**response, "status": "in_progress"} if n == 0 else response
            text = orjson.dumps({"type": kind, "response": state, "sequence_number": n})
            await self.send({"type": "websocket.send", "text": text.decode()})
        self.held = Held(response_id, tuple(as_items(body.get("input"))), ())


_frames = _FrameMemo()


async def serve_socket(owner: MockModelServer, scope: Scope, receive: Receive,
                       send: Send) -> None:
    """ASGI handler of one WebSocket on ``/v1/responses``: accept, answer each
    ``response.create`` in turn, and return when the client closes or goes away."""
    message = await receive()
    if message["type"] != "websocket.connect":
        return
    await send({"type": "websocket.accept"})
    await _Socket(owner, scope, receive, send).run()
