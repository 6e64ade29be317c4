"""HTTP for the model endpoints: uvicorn's httptools protocol, answering a model request in
the parser's own callback.

Every real agent sends model requests (``POST /v1/messages``, ``/v1/responses``,
``/v1/chat/completions``), nearly always with an answer that is all due at once. Through
ASGI, each one costs a request-response cycle, a task, a chain of coroutines, message dicts
and two socket writes (the head, then the body). :class:`ModelHttpProtocol` instead reads
such a request's body itself and, when :meth:`MockModelServer.respond
<scenarist.llm.server.MockModelServer.respond>` gives :class:`~scenarist.llm.reply.Ready`
bytes, writes head and body in one piece, together with the other answers of the same turn
of the loop (:class:`Writes`). On the agent-shaped benchmark
(``bench/bench_llm_agent_traffic.py``, non-streamed, c=32) that took an answer from ~145 to
80–115 µs of server CPU (three runs): ~45 µs the cycle and the second write, ~15 µs the
writes together.

Everything else goes to uvicorn as before, and its answer is the same bytes but the
``date``: another method or path, a body without ``content-length`` or over
:data:`~scenarist.llm.server.OFF_LOOP_BYTES`, ``Expect: 100-continue``, HTTP/1.0,
``Connection: close``, a pipelined request behind one still answered, a client not reading
(writing paused). An answer that is paced, faulted, proxied or an error with headers of its
own is sent through the ASGI callable ``respond`` returned, on the cycle uvicorn makes for
the request (its body already read).

It relies on uvicorn's ``HttpToolsProtocol`` (pinned in ``requirements/``): its parser
callbacks, ``cycle``, ``app`` and ``on_response_complete``; ``tests/llm/test_llm_model_http.py``
holds it to the bytes the ASGI path sends. Under a uvicorn without those hooks
(:func:`fits_uvicorn`), ``scenarist llm`` serves with plain httptools.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any, ClassVar

import httptools
from uvicorn.protocols.http.httptools_impl import STATUS_LINE, HttpToolsProtocol

from scenarist.llm.reply import JSON_HEADERS, SSE_RAW_HEADERS, Ready
from scenarist.llm.server import (
    MODEL_PATHS,
    OFF_LOOP_BYTES,
    answer_headers,
    journal_query,
    json_body,
)

if TYPE_CHECKING:
    from scenarist.llm.conversation import Api
    from scenarist.llm.server import MockModelServer

#: the model endpoints by their raw path (a path with ``%`` escapes takes uvicorn's way)
_RAW_MODEL_PATHS: dict[bytes, Api] = {path.encode(): api for path, api in MODEL_PATHS.items()}
#: the answers written here, by their headers' identity: ours, constant and valid, as lines
#: (an error's own headers, from a scenario, go through uvicorn, which checks them)
_OWN_HEADER_LINES = {id(headers): b"".join(b"%s: %s\r\n" % pair for pair in headers)
                     for headers in (JSON_HEADERS, SSE_RAW_HEADERS)}


class Writes:
    """The answers of one turn of the loop, written together at its end.

    Written at once, each answer wakes its client, whose next request then arrives alone:
    the loop polls once a request. Written after the loop has read every request that was
    ready, the answers go out together and the next requests come back together. On the
    agent-shaped benchmark that took a non-streamed answer from ~100 to ~85 µs of server CPU
    (its system time from ~21 to ~10 µs) at c=32; an answer waits at most for the other
    requests read in the same turn, which were answered before the loop polled again
    anyway. One per server (its loop); answers to one connection keep their order, and go
    out before any that uvicorn's cycle sends after them (that cycle's task is scheduled
    after the flush)."""

    def __init__(self) -> None:
        self.loop: asyncio.AbstractEventLoop | None = None
        self._pending: list[tuple[asyncio.Transport, bytes, bool]] = []

    def add(self, transport: asyncio.Transport, data: bytes, close: bool = False) -> None:
        """Write ``data`` at the end of this turn of the loop (then close, if ``close``)."""
        self._pending.append((transport, data, close))
        if len(self._pending) == 1:
            assert self.loop is not None
            self.loop.call_soon(self.flush)

    def flush(self) -> None:
        pending, self._pending = self._pending, []
        for transport, data, close in pending:
            if not transport.is_closing():
                transport.write(data)
                if close:
                    transport.close()


class _Pending:
    """A model request whose body is being read."""

    __slots__ = ("api", "chunks", "headers", "path", "query")

    def __init__(self, api: Api, path: str, query: str, headers: dict[str, str]) -> None:
        self.api, self.path, self.query, self.headers = api, path, query, headers
        self.chunks: list[bytes] = []


class ModelHttpProtocol(HttpToolsProtocol):  # type: ignore[misc]  # uvicorn is untyped here
    """uvicorn's httptools protocol with model requests answered in place (see the module)."""

    model_server: ClassVar[MockModelServer]
    writes: ClassVar[Writes]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.writes.loop = self.loop
        self._pending: _Pending | None = None
        self._max_body = min(OFF_LOOP_BYTES, self.model_server.options.body_limit)
        self._defaults: list[tuple[bytes, bytes]] | None = None
        self._default_lines = b""

    def shutdown(self) -> None:
        self.writes.flush()  # what was answered goes out before uvicorn closes idle connections
        super().shutdown()

    def on_headers_complete(self) -> None:
        self._pending = self._model_request()
        if self._pending is None:
            super().on_headers_complete()

    def _model_request(self) -> _Pending | None:
        """The request, when it is one answered here (read on: the module's list)."""
        parser = self.parser
        if (parser.get_method() != b"POST" or parser.get_http_version() != "1.1"
                or not parser.should_keep_alive() or parser.should_upgrade()
                or self.expect_100_continue or self.limit_concurrency is not None
                or self.flow.write_paused
                or not (self.cycle is None or self.cycle.response_complete)):
            return None
        url = httptools.parse_url(self.url)
        api = _RAW_MODEL_PATHS.get(url.path)
        if api is None:
            return None
        headers = answer_headers(self.headers)
        length = headers.get("content-length", "")
        if not (length.isdigit() and int(length) <= self._max_body
                and json_body(headers.get("content-type", ""))):
            return None
        query = journal_query(url.query.decode("latin-1")) if url.query else ""
        return _Pending(api, url.path.decode("latin-1"), query, headers)

    def on_body(self, body: bytes) -> None:
        if self._pending is None:
            super().on_body(body)
        else:
            self._pending.chunks.append(body)

    def on_message_complete(self) -> None:
        pending, self._pending = self._pending, None
        if pending is None:
            super().on_message_complete()
            return
        chunks = pending.chunks
        raw = chunks[0] if len(chunks) == 1 else b"".join(chunks)
        try:
            reply = self.model_server.respond(pending.api, pending.headers, pending.path,
                                              pending.query, raw)
        except Exception as exc:  # as uvicorn answers an ASGI app that raised
            self.logger.error("Exception in ASGI application\n", exc_info=exc)
            self.writes.add(self.transport, b"".join((
                STATUS_LINE[500], b"content-type: text/plain; charset=utf-8\r\n",
                b"content-length: 21\r\nconnection: close\r\n\r\nInternal Server Error")),
                close=True)  # after the answers before it
            self.flow.pause_reading()
            return
        if isinstance(reply, Ready) and id(reply.headers) in _OWN_HEADER_LINES:
            if not self.transport.is_closing():
                self.writes.add(self.transport, self._response(reply))
            self.on_response_complete()
            return
        # uvicorn's cycle, running the callable that sends this answer
        if isinstance(reply, Ready):
            reply = reply.response()
        app, self.app = self.app, reply
        try:
            super().on_headers_complete()
        finally:
            self.app = app
        self.cycle.more_body = False  # the body is read: the cycle has nothing more to wait for
        self.cycle.message_event.set()

    def _response(self, reply: Ready) -> bytes:
        """Head and body in one piece, as uvicorn writes them in two: status line, its
        default headers (``date``, ``server``), the answer's, then a length or chunked."""
        defaults = self.server_state.default_headers
        if defaults is not self._defaults:  # uvicorn makes a new list every second
            self._defaults = defaults
            self._default_lines = b"".join(b"%s: %s\r\n" % pair for pair in defaults)
        head = STATUS_LINE[reply.status] + self._default_lines
        own = _OWN_HEADER_LINES[id(reply.headers)]
        body = reply.body
        if not reply.stream:
            return b"%s%scontent-length: %d\r\n\r\n%s" % (head, own, len(body), body)
        if not body:
            return b"%s%stransfer-encoding: chunked\r\n\r\n0\r\n\r\n" % (head, own)
        return b"%s%stransfer-encoding: chunked\r\n\r\n%x\r\n%s\r\n0\r\n\r\n" % (
            head, own, len(body), body)


#: what of uvicorn's protocol this class builds on (besides ``cycle``, ``app``, ``flow``)
_UVICORN_HOOKS = ("on_headers_complete", "on_body", "on_message_complete",
                  "on_response_complete", "shutdown")


def fits_uvicorn() -> bool:
    """Whether the installed uvicorn's protocol has the hooks this builds on (the pinned
    one does; another falls back to plain httptools, see :mod:`scenarist.llm.cli`)."""
    return all(callable(getattr(HttpToolsProtocol, name, None)) for name in _UVICORN_HOOKS)


def model_protocol(server: MockModelServer) -> type[ModelHttpProtocol]:
    """The protocol class for uvicorn's ``http`` setting, answering for ``server``."""
    return type("ModelHttpProtocol", (ModelHttpProtocol,),
                {"model_server": server, "writes": Writes()})
