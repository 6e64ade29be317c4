"""Answer model-API HTTP requests from a source of neutral events, without a socket.

One request handler (:func:`handle`) is adapted three ways: an httpx transport for sync
clients, one for async clients (both from :func:`transport`), and a raw ASGI app
(:func:`asgi_app`). The bytes come from :mod:`scenarist.wire`; frames are paced by their
``at_ms`` through :mod:`scenarist.play` (one absolute start per response, on an injectable
clock), so delays work the same for every client.

Routes (any prefix, e.g. ``/v1``): ``POST …/chat/completions`` (OpenAI Chat),
``POST …/responses`` (OpenAI Responses), ``POST …/messages`` (Anthropic Messages),
``POST …/models/{model}:generateContent`` and ``:streamGenerateContent`` (Gemini: the
model and whether to stream are in the path, SSE with ``?alt=sse``, else a JSON array).
"""

from __future__ import annotations

import functools
import importlib
import json
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Iterator, MutableMapping
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any, NamedTuple

import httpx

from scenarist.play.clock import Clock, RealClock
from scenarist.play.pacing import Schedule, pace, pace_sync
from scenarist.wire import (
    CREATED,
    SSE_HEADERS,
    Frame,
    WireApi,
    WireEvent,
    encode_body,
    encode_stream,
    error_body,
    include_usage,
    leading_error,
    requested_model,
    wants_stream,
)
from scenarist.wire.gemini import JsonArray, array_pieces


class Target(NamedTuple):
    """What a request asks besides its body's content: a stream, which model (Gemini names
    both in the path, the other APIs in the body)."""

    stream: bool
    model: str | None


EventSource = Callable[..., Iterable[WireEvent]]
"""Gives the neutral events that answer one request (called once per request):
``source(api, body)``, and for Gemini ``source(api, body, target)`` (the body does not say
whether to stream or which model: the path does)."""
GEMINI_METHODS = (":generateContent", ":streamGenerateContent")

JSON_HEADERS = {"content-type": "application/json"}


@dataclass(slots=True)
class Reply:
    """What to answer: a status and either a JSON body or a stream of SSE frames."""

    status: int
    headers: dict[str, str]
    body: bytes = b""
    frames: Iterator[Frame] | None = None
    closers: list[Callable[[], None]] = field(default_factory=list)
    array: bool = False  # Gemini's stream without ?alt=sse: one JSON array, not SSE

    def close(self) -> None:
        """Release the event source (runs the fake's cleanup exactly when the client lets go)."""
        closers, self.closers = self.closers, []
        for closer in closers:
            closer()


def api_for(path: str) -> WireApi | None:
    path = path.rstrip("/")
    if path.endswith(GEMINI_METHODS) and "/models/" in path:
        return "gemini"
    if path.endswith("/chat/completions"):
        return "openai_chat"
    if path.endswith("/responses"):
        return "openai_responses"
    if path.endswith("/messages"):
        return "anthropic"
    return None


def _json_reply(status: int, body: dict[str, Any]) -> Reply:
    return Reply(status, dict(JSON_HEADERS), json.dumps(body).encode())


def _target(api: WireApi, path: str, body: dict[str, Any]) -> Target:
    if api == "gemini":
        model = path.rsplit("/models/", 1)[1].rsplit(":", 1)[0]
        return Target(path.endswith(":streamGenerateContent"), model)
    return Target(wants_stream(body), requested_model(body, "") or None)


def handle(method: str, path: str, raw: bytes, source: EventSource, *, created: int,
           query: str = "") -> Reply:
    """Answer one request (pure apart from calling ``source``)."""
    api = api_for(path)
    if api is None or method != "POST":
        guess: WireApi = ("anthropic" if "/messages" in path else
                          "gemini" if "/models/" in path or ":" in path else "openai_chat")
        return _json_reply(404, error_body(
            guess, 404, f"no route for {method} {path}: the fake model answers POST "
            "/v1/chat/completions, /v1/responses, /v1/messages and "
            "/v1beta/models/{model}:generateContent / :streamGenerateContent"))
    try:
        body = json.loads(raw or b"null")
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        return _json_reply(400, error_body(api, 400, f"request body is not JSON: {exc}"))
    if not isinstance(body, dict):
        return _json_reply(400, error_body(api, 400, "request body must be a JSON object"))
    target = _target(api, path, body)
    events = iter(source(api, body, target) if api == "gemini" else source(api, body))
    closers = [events.close] if hasattr(events, "close") else []
    if not target.stream:
        try:
            status, out = encode_body(api, events, created=created)
        finally:
            for closer in closers:
                closer()
        return _json_reply(status, out)
    error, rest = leading_error(events)
    if error is not None:
        for closer in closers:
            closer()
        return _json_reply(error.status, error_body(api, error.status, error.message, error.type,
                                                    error.code))
    frames = encode_stream(api, rest, include_usage=include_usage(body), created=created)
    if api == "gemini" and "alt=sse" not in query.split("&"):
        return Reply(200, dict(JSON_HEADERS), frames=frames, closers=[*closers], array=True)
    return Reply(200, dict(SSE_HEADERS), frames=frames, closers=[*closers])


REAL_CLOCK = RealClock()


def _encoded(reply: Reply, schedule: Schedule) -> Iterator[bytes]:
    """Frame bytes, each when due (the schedule starts when the first frame is asked for)."""
    assert reply.frames is not None
    paced = pace_sync(reply.frames, schedule)
    if reply.array:
        for _at, data in array_pieces(paced):
            yield data
        return
    for frame in paced:
        yield frame.encode()


async def _aencoded(reply: Reply, schedule: Schedule) -> AsyncIterator[bytes]:
    """:func:`_encoded` for async consumers (waits without blocking the event loop)."""
    assert reply.frames is not None
    array = JsonArray() if reply.array else None
    async for frame in pace(reply.frames, schedule):
        yield frame.encode() if array is None else array.piece(frame)
    if array is not None:
        yield array.close()


def http_module(sdk: str) -> ModuleType:
    """The httpx flavour an SDK is built on (``anthropic`` 2.x uses the ``httpx2`` fork).

    Each SDK rejects clients of the other flavour, so transports are built per SDK.
    """
    base = importlib.import_module(f"{sdk}._base_client")
    module = getattr(base, "httpx2", None) or getattr(base, "httpx", None)
    return module if isinstance(module, ModuleType) else httpx


def _broken(mod: ModuleType, exc: Exception) -> Exception:
    """A failure of the source while answering, as the client sees it: the peer hung up."""
    http_error: type[Exception] = mod.HTTPError
    if isinstance(exc, http_error):
        return exc
    broken: Exception = mod.RemoteProtocolError(
        f"peer closed connection without sending complete message body (fake model: {exc})")
    return broken


@functools.cache
def _body_classes(mod: ModuleType) -> tuple[type[Any], type[Any]]:
    """Byte-stream classes of ``mod`` that pace frames and release the reply on close."""

    class SyncBody(mod.SyncByteStream):  # type: ignore[name-defined,misc]
        def __init__(self, reply: Reply, clock: Clock) -> None:
            self._reply, self._clock = reply, clock

        def __iter__(self) -> Iterator[bytes]:
            assert self._reply.frames is not None
            try:
                yield from _encoded(self._reply, Schedule(self._clock))
            except Exception as exc:
                raise _broken(mod, exc) from exc
            finally:
                self._reply.close()

        def close(self) -> None:
            self._reply.close()

    class AsyncBody(mod.AsyncByteStream):  # type: ignore[name-defined,misc]
        def __init__(self, reply: Reply, clock: Clock) -> None:
            self._reply, self._clock = reply, clock

        async def __aiter__(self) -> AsyncIterator[bytes]:
            assert self._reply.frames is not None
            try:
                async for chunk in _aencoded(self._reply, Schedule(self._clock)):
                    yield chunk
            except Exception as exc:
                raise _broken(mod, exc) from exc
            finally:
                self._reply.close()

        async def aclose(self) -> None:
            self._reply.close()

    return SyncBody, AsyncBody


def transport(source: EventSource, *, asynchronous: bool = False, clock: Clock = REAL_CLOCK,
              created: int = CREATED, module: ModuleType = httpx) -> Any:
    """An httpx transport that answers model-API requests from ``source``, with no socket.

    ``module`` is ``httpx`` or ``httpx2`` (see :func:`http_module`); the result is that
    module's ``MockTransport`` whose streamed bodies are sync or async as asked.
    """
    sync_body, async_body = _body_classes(module)

    def respond(request: Any) -> Any:
        try:
            reply = handle(request.method, request.url.path, request.content, source,
                           created=created, query=request.url.query.decode("latin-1"))
        except Exception as exc:
            raise _broken(module, exc) from exc
        if reply.frames is None:
            return module.Response(reply.status, headers=reply.headers, content=reply.body)
        body = (async_body if asynchronous else sync_body)(reply, clock)
        return module.Response(reply.status, headers=reply.headers, stream=body)

    return module.MockTransport(respond)


Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


def asgi_app(source: EventSource, *, clock: Clock = REAL_CLOCK, created: int = CREATED) -> ASGIApp:
    """The same answers as a raw ASGI 3 app (for frameworks and servers that want a URL)."""

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            while True:
                message = await receive()
                if message["type"] == "lifespan.startup":
                    await send({"type": "lifespan.startup.complete"})
                elif message["type"] == "lifespan.shutdown":
                    await send({"type": "lifespan.shutdown.complete"})
                    return
        if scope["type"] != "http":
            return
        raw = b""
        while True:
            message = await receive()
            raw += message.get("body", b"")
            if not message.get("more_body"):
                break
        reply = handle(scope["method"], scope["path"], raw, source, created=created,
                       query=scope.get("query_string", b"").decode("latin-1"))
        headers = [(k.encode(), v.encode()) for k, v in reply.headers.items()]
        await send({"type": "http.response.start", "status": reply.status, "headers": headers})
        if reply.frames is None:
            await send({"type": "http.response.body", "body": reply.body})
            return
        try:
            async for chunk in _aencoded(reply, Schedule(clock)):
                await send({"type": "http.response.body", "body": chunk, "more_body": True})
            await send({"type": "http.response.body", "body": b""})
        finally:
            reply.close()

    return app
