"""The Responses WebSocket relayed and recorded (Codex's built-in provider speaks it).

The client's socket on ``/v1/responses`` is joined to one opened upstream with the client's
headers; messages go both ways as they come. Each ``response.create`` is the body of a
``POST /v1/responses`` (a continuation of the socket's previous response expanded to the whole
history, by the rule the mock server uses: :func:`scenarist.llm.websocket.http_body`), and the
events until its end are its answer, timed from when the ``response.create`` went upstream:
together one exchange for the :class:`~scenarist.record.recorder.Recorder`, as over HTTP.
A warm-up (``generate: false``) asks for no answer and is not recorded.

An upstream that cannot be reached gets the client an ``error`` event with status 502 (the
socket's form of an HTTP error) and a normal close; stderr names the socket.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING, Any

import orjson

from scenarist.llm.websocket import Held, as_items, http_body
from scenarist.record.answers import Failure, Reading, UnreadableAnswer, WireEvent, fold_events
from scenarist.record.chain import Exchange
from scenarist.record.history import UnreadableRequest, read_history
from scenarist.record.proxy import TEST_HEADER
from scenarist.wire.errors import openai_error

if TYPE_CHECKING:
    from starlette.types import Receive, Scope, Send
    from websockets.asyncio.client import ClientConnection

    from scenarist.record.proxy import RecordingProxy

#: handshake headers the upstream connection makes itself
_HANDSHAKE = frozenset({"host", "connection", "upgrade", "sec-websocket-key",
                        "sec-websocket-version", "sec-websocket-extensions",
                        "sec-websocket-protocol", "content-length", "accept-encoding"})
_ENDS = frozenset({"response.completed", "response.failed", "response.incomplete", "error"})


@dataclass(slots=True)
class _Pending:
    """A ``response.create`` sent upstream whose answer is still coming."""

    body: dict[str, Any]
    started: float
    events: list[WireEvent] = field(default_factory=list)


@dataclass(slots=True)
class _Relay:
    proxy: RecordingProxy
    label: str
    test_id: str | None
    held: Held | None = None
    pending: list[_Pending] = field(default_factory=list)

    def sent(self, text: str) -> None:
        """Note a client message on its way upstream."""
        try:
            event = orjson.loads(text)
        except ValueError:
            return
        if not isinstance(event, dict) or event.get("type") != "response.create":
            return
        if event.get("generate") is False:
            return
        self.pending.append(_Pending(http_body(event, self.held), time.monotonic()))

    def received(self, text: str) -> None:
        """Note an upstream message on its way to the client; keep a finished answer."""
        if not self.pending:
            return
        current = self.pending[0]
        try:
            data = orjson.loads(text)
        except ValueError:
            self.proxy.say(f"{self.label}: not recorded: upstream sent a message that is not "
                           f"JSON: {text[:80]!r}")
            self.pending.pop(0)
            return
        at_ms = round((time.monotonic() - current.started) * 1000)
        current.events.append(WireEvent(at_ms, None, data))
        kind = data.get("type") if isinstance(data, dict) else None
        if kind in _ENDS:
            self.pending.pop(0)
            if kind == "response.completed":  # the next response.create may continue it
                response = data.get("response") or {}
                self.held = Held(str(response.get("id")),
                                 tuple(as_items(current.body.get("input"))),
                                 tuple(response.get("output") or ()))
            self.proxy.keep_later(partial(self._keep, current, data, at_ms))

    def _keep(self, done: _Pending, last: dict[str, Any], at_ms: int) -> None:
        try:
            history = read_history("responses", orjson.dumps(done.body))
            if last.get("type") == "error" and isinstance(last.get("status"), int):
                reading = Reading(failure=_socket_error(last, at_ms), end_ms=at_ms)
            else:
                reading = fold_events("responses", done.events, at_ms)
        except (UnreadableRequest, UnreadableAnswer) as exc:
            self.proxy.say(f"{self.label}: not recorded: {exc}")
            return
        self.proxy.recorder.add(Exchange(history, reading, self.test_id), self.label)


def _socket_error(event: dict[str, Any], at_ms: int) -> Failure:
    """The socket's ``error`` event: an HTTP error with its status and headers beside it."""
    err = event.get("error")
    err = err if isinstance(err, dict) else {}
    headers = event.get("headers")
    retry = headers.get("retry-after") if isinstance(headers, dict) else None
    return Failure(int(event["status"]), str(err.get("message") or ""),
                   str(err.get("code") or err.get("type") or ""),
                   float(retry) if isinstance(retry, str | int | float) else None, at_ms)


async def relay_socket(proxy: RecordingProxy, scope: Scope, receive: Receive, send: Send,
                       label: str) -> None:
    """Join the client's socket to the upstream's, recording each answer."""
    from websockets.asyncio.client import connect
    from websockets.exceptions import InvalidHandshake, InvalidURI

    if (await receive())["type"] != "websocket.connect":
        return
    headers = [(k.decode("latin-1"), v.decode("latin-1")) for k, v in scope["headers"]]
    proxy.recorder.learn(headers)
    query = scope.get("query_string", b"").decode("latin-1")
    url = "ws" + proxy.upstream.target(scope["path"], query).removeprefix("http")
    try:
        upstream = await connect(url, max_size=None, compression=None, additional_headers=[
            (k, v) for k, v in headers if k.lower() not in _HANDSHAKE])
    except (TimeoutError, OSError, ValueError) as exc:
        await _refuse(proxy, send, label, f"upstream {proxy.upstream.url} unreachable: "
                      f"{type(exc).__name__}: {exc}")
        return
    except (InvalidHandshake, InvalidURI) as exc:  # an HTTP answer, a bad status
        await _refuse(proxy, send, label, f"upstream refused the WebSocket: {exc}")
        return
    await send({"type": "websocket.accept"})
    test_id = next((v for k, v in headers if k.lower() == TEST_HEADER), None)
    relay = _Relay(proxy, label, test_id)
    async with upstream:
        tasks = [asyncio.ensure_future(_to_upstream(receive, upstream, relay)),
                 asyncio.ensure_future(_to_client(upstream, send, relay))]
        await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    await _close(send)


async def _to_upstream(receive: Receive, upstream: ClientConnection, relay: _Relay) -> None:
    while True:
        message = await receive()
        if message["type"] != "websocket.receive":
            return
        text = message.get("text")
        if text is None:
            await upstream.send(message.get("bytes") or b"")
            continue
        relay.sent(text)
        await upstream.send(text)


async def _to_client(upstream: ClientConnection, send: Send, relay: _Relay) -> None:
    from websockets.exceptions import ConnectionClosed

    try:
        async for message in upstream:
            if isinstance(message, bytes):
                await send({"type": "websocket.send", "bytes": message})
                continue
            await send({"type": "websocket.send", "text": message})
            relay.received(message)
    except ConnectionClosed:
        pass
    if relay.pending:
        relay.proxy.say(f"{relay.label}: not recorded: the upstream closed the socket "
                        "before the answer ended")


async def _refuse(proxy: RecordingProxy, send: Send, label: str, message: str) -> None:
    proxy.say(f"{label}: {message}")
    await send({"type": "websocket.accept"})
    event = {"type": "error", "status": 502, **openai_error(502, message)}
    await send({"type": "websocket.send", "text": orjson.dumps(event).decode()})
    await _close(send)


async def _close(send: Send) -> None:
    try:
        await send({"type": "websocket.close", "code": 1000})
    except (OSError, RuntimeError):  # the client has gone already
        return
