"""The recording proxy: forward each model request upstream, relay the answer as it comes, keep it.

The client talks to this ASGI app as it would to the real API. Each request goes upstream with
the client's own headers (its key is used there and nowhere else: nothing of the headers is
kept but the ``x-scenario-test`` id), and the answer is relayed chunk by chunk as it arrives,
so a stream stays a stream with its timing. Every chunk is stamped with the time it arrived;
once the answer has ended the model requests (the three APIs' POST paths) are read
(:mod:`~scenarist.record.history`, :mod:`~scenarist.record.answers`) and handed to the
:class:`~scenarist.record.recorder.Recorder`. Other paths (``/v1/models``, ``count_tokens``)
are forwarded and not recorded.

When the upstream is down, answers garbage or cuts a stream, the client gets the error in its
API's own format (502 with the API's error envelope; inside a stream already begun, the API's
error event), stderr names the request, nothing is recorded for it, and the proxy serves on.
"""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any

import httpx
import orjson

from scenarist.llm.gemini_request import METHODS, route_of
from scenarist.record.answers import Chunk, UnreadableAnswer, read_answer
from scenarist.record.chain import Exchange
from scenarist.record.history import Api, UnreadableRequest, read_history
from scenarist.wire.errors import anthropic_error, openai_error
from scenarist.wire.gemini import gemini_error

if TYPE_CHECKING:
    from starlette.types import Receive, Scope, Send

    from scenarist.record.recorder import Recorder

MODEL_PATHS: dict[str, Api] = {
    "/v1/chat/completions": "chat",
    "/v1/responses": "responses",
    "/v1/messages": "messages",
}


def model_api(path: str) -> Api | None:
    """Which API a POST to ``path`` speaks, if it asks for a model's answer (Gemini's
    ``models/{model}:generateContent`` and ``:streamGenerateContent`` included)."""
    api = MODEL_PATHS.get(path)
    if api is None:
        route = route_of(path.rstrip("/"), "")
        if route is not None and route[1] in METHODS:
            return "gemini"
    return api


#: headers that belong to one hop (RFC 9110 §7.6.1) or that httpx sets itself
_HOP = frozenset({"host", "connection", "keep-alive", "proxy-connection", "te", "trailer",
                  "transfer-encoding", "upgrade", "content-length", "accept-encoding"})
_NOT_RELAYED = frozenset({"connection", "keep-alive", "transfer-encoding", "content-length",
                          "content-encoding"})
TEST_HEADER = "x-scenario-test"


@dataclass(frozen=True, slots=True)
class Upstream:
    """Where requests go: the base URL as given (``https://api.openai.com`` or with ``/v1``)."""

    url: str

    def target(self, path: str, query: str) -> str:
        base = self.url.rstrip("/")
        if base.endswith("/v1") and path.startswith("/v1/"):
            path = path[3:]
        return base + path + (f"?{query}" if query else "")


class RecordingProxy:
    """The ASGI app of ``scenarist record`` (and of ``llm --record-on-miss`` on a miss)."""

    def __init__(self, upstream: str, recorder: Recorder, *, label: str = "scenarist record",
                 now: Callable[[], float] = time.monotonic) -> None:
        self.upstream = Upstream(upstream)
        self.label = label  # what stderr lines start with
        self.recorder = recorder
        self.now = now
        self.client = httpx.AsyncClient(timeout=httpx.Timeout(None, connect=10.0))
        self.seq = 0
        # Reading a finished exchange (a long history) and rewriting its scenario file happen
        # on one worker thread: off the event loop, so other streams are not held up, and in
        # the order the exchanges ended, which chaining them into conversations needs.
        self._writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="scenarist-record")

    def keep_later(self, work: Callable[[], None]) -> asyncio.Future[None]:
        """Run ``work`` (recording a finished exchange) on the recorder's worker thread."""
        return asyncio.wrap_future(self._writer.submit(work))

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            await self.forward(scope, receive, send)
        elif scope["type"] == "websocket" and scope["path"] == "/v1/responses":
            from scenarist.record.socket import relay_socket  # only when a client upgrades

            self.seq += 1
            await relay_socket(self, scope, receive, send, f"socket {self.seq} (/v1/responses)")
        elif scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 1008,
                        "reason": f"no WebSocket on {scope['path']}; only /v1/responses"})

    async def forward(self, scope: Scope, receive: Receive, send: Send,
                      body: bytes | None = None) -> None:
        """Forward one HTTP request (``body`` when the caller has read it already)."""
        self.seq += 1
        path, method = scope["path"], scope["method"]
        api = model_api(path) if method == "POST" else None
        label = f"request {self.seq} ({method} {path})"
        headers = [(k.decode("latin-1"), v.decode("latin-1")) for k, v in scope["headers"]]
        self.recorder.learn(headers)
        if body is None:
            body = await _read_body(receive)
        query = scope.get("query_string", b"").decode("latin-1")
        request = self.client.build_request(
            method, self.upstream.target(path, query), content=body,
            headers=[(k, v) for k, v in headers if k.lower() not in _HOP]
            + [("accept-encoding", "identity")])
        started = self.now()
        try:
            response = await self.client.send(request, stream=True)
        except httpx.HTTPError as exc:
            await self._fail(send, api, label, f"upstream {self.upstream.url} unreachable: "
                             f"{type(exc).__name__}: {exc}")
            return
        try:
            chunks = await self._relay(response, send, api, label, started)
        finally:
            await response.aclose()
        if chunks is None or api is None:
            return
        test_id = next((v for k, v in headers if k.lower() == TEST_HEADER), None)
        await self.keep_later(partial(self._keep, api, body, response, chunks, test_id, label))

    async def _relay(self, response: httpx.Response, send: Send, api: Api | None, label: str,
                     started: float) -> list[Chunk] | None:
        """Relay the answer; the chunks with their times, or None when it failed (told)."""
        streamed = "text/event-stream" in response.headers.get("content-type", "")
        chunks: list[Chunk] = []
        if not streamed:  # a whole body: read it first, so garbage can still become a 502
            try:
                data = await response.aread()
            except httpx.HTTPError as exc:
                await self._fail(send, api, label, f"upstream broke off the answer: {exc}")
                return None
            chunks.append(Chunk(self._ms(started), data))
            if api is not None and response.status_code < 400 and not _is_json(data):
                await self._fail(send, api, label, "upstream answered with something that is "
                                 f"not JSON: {data[:80]!r}")
                return None
            await self._start(send, response)
            await send({"type": "http.response.body", "body": data})
            return chunks
        await self._start(send, response)
        try:
            async for data in response.aiter_raw():
                chunks.append(Chunk(self._ms(started), data))
                await send({"type": "http.response.body", "body": data, "more_body": True})
        except httpx.HTTPError as exc:
            await self._cut(send, api, label, f"upstream broke off the stream: {exc}")
            return None
        if api is not None:
            try:
                read_answer(api, response.status_code, _lower(response.headers), chunks)
            except UnreadableAnswer as exc:
                await self._cut(send, api, label, f"upstream stream unreadable: {exc}")
                return None
        await send({"type": "http.response.body", "body": b""})
        return chunks

    def _keep(self, api: Api, body: bytes, response: httpx.Response, chunks: list[Chunk],
              test_id: str | None, label: str) -> None:
        try:
            exchange = Exchange(read_history(api, body),
                                read_answer(api, response.status_code, _lower(response.headers),
                                            chunks), test_id)
        except (UnreadableRequest, UnreadableAnswer) as exc:
            self.say(f"{label}: not recorded: {exc}")
            return
        self.recorder.add(exchange, label)

    def _ms(self, started: float) -> int:
        return round((self.now() - started) * 1000)

    async def _start(self, send: Send, response: httpx.Response) -> None:
        headers = [(k.lower().encode("latin-1"), v.encode("latin-1"))
                   for k, v in response.headers.multi_items() if k.lower() not in _NOT_RELAYED]
        await send({"type": "http.response.start", "status": response.status_code,
                    "headers": headers})

    async def _fail(self, send: Send, api: Api | None, label: str, message: str) -> None:
        self.say(f"{label}: {message}")
        body = orjson.dumps(_envelope(api, 502, message))
        await send({"type": "http.response.start", "status": 502,
                    "headers": [(b"content-type", b"application/json"),
                                (b"x-should-retry", b"false")]})
        await send({"type": "http.response.body", "body": body})

    async def _cut(self, send: Send, api: Api | None, label: str, message: str) -> None:
        """End a stream already begun with the API's error event (the status is sent)."""
        self.say(f"{label}: {message}")
        await send({"type": "http.response.body", "body": _error_event(api, message)})

    def say(self, line: str) -> None:
        print(f"{self.label}: {line}", file=sys.stderr, flush=True)


async def _read_body(receive: Receive) -> bytes:
    parts: list[bytes] = []
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return b"".join(parts)
        parts.append(message.get("body", b""))
        if not message.get("more_body", False):
            return b"".join(parts)


def _is_json(data: bytes) -> bool:
    try:
        return isinstance(orjson.loads(data), dict)
    except ValueError:
        return False


def _lower(headers: httpx.Headers) -> dict[str, str]:
    return {k.lower(): v for k, v in headers.items()}


def _envelope(api: Api | None, status: int, message: str) -> dict[str, Any]:
    if api == "gemini":
        return gemini_error(status, message)
    return anthropic_error(status, message) if api == "messages" else openai_error(status, message)


def _error_event(api: Api | None, message: str) -> bytes:
    """The error event of ``api``'s stream (what the real APIs send when a stream fails)."""
    if api == "messages":
        return b"event: error\ndata: " + orjson.dumps(anthropic_error(502, message)) + b"\n\n"
    if api == "responses":
        event: Mapping[str, Any] = {"type": "error", "code": "server_error", "message": message,
                                    "param": None}
        return b"event: error\ndata: " + orjson.dumps(event) + b"\n\n"
    if api == "gemini":
        return b"data: " + orjson.dumps(gemini_error(502, message)) + b"\n\n"
    return b"data: " + orjson.dumps(openai_error(502, message)) + b"\n\n"
