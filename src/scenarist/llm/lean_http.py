"""The lean HTTP path of the model API: ``POST /v1/*`` answered from uvicorn's parser callbacks.

Agents' requests are answered without waiting (zero-delay scenarios): the whole answer is
due the moment the body is read. Through ASGI every such request still costs a task, a
receive, two sends and a response object; here the protocol (uvicorn's httptools protocol,
which keeps keep-alive, pipelining, flow control, limits and the WebSocket upgrade) reads the
body itself and writes the answer in one transport write. What it buys, measured side by
side with the commit before in one run (docs/llm-server.md, "The lean HTTP path"): a short
memoised request 81 -> 40 µs of server CPU (9,033 vs 4,551 req/s, bench_side_by_side.py); on
agent-shaped traffic, where the answer function itself takes ~200-250 µs, 0.93-1.11x the
CPU per answer, within the shared machine's noise.

Only the plain case takes this path: HTTP/1.1, ``POST`` to a model path, a
``Content-Length`` of at most :data:`~scenarist.llm.server.OFF_LOOP_BYTES`, no
``Expect: 100-continue``, nothing still answering on the connection. An answer that must wait
(a paced stream, a late non-streamed answer) goes back to uvicorn's ASGI cycle with its body
already read; everything else (other routes, large or chunked bodies, HTTP/1.0) is served
through ASGI as before.
"""

from __future__ import annotations

import importlib
from typing import Any

from scenarist.llm.reply import Ready
from scenarist.llm.server import _MODEL_PATHS, OFF_LOOP_BYTES, MockModelServer, json_body


def lean_protocol(server: MockModelServer) -> type[Any] | None:
    """uvicorn's httptools protocol with the lean path for ``server``; None without
    httptools (uvicorn then serves everything through ASGI on h11)."""
    try:
        base: Any = importlib.import_module(
            "uvicorn.protocols.http.httptools_impl").HttpToolsProtocol
    except ImportError:
        return None

    class LeanProtocol(base):  # type: ignore[misc]
        lean: list[bytes] | None = None  # the body of a request on the lean path
        lean_query: bytes = b""
        app: Any  # uvicorn's ASGI app (the server)

        def on_headers_complete(self) -> None:
            self.lean = None
            if self._lean_path() is None:
                super().on_headers_complete()
                return
            self.lean = []

        def _lean_path(self) -> str | None:
            parser = self.parser
            if parser.get_method() != b"POST" or parser.get_http_version() != "1.1":
                return None
            if self.expect_100_continue or parser.should_upgrade() or self.pipeline or (
                    self.flow.write_paused):
                return None
            if self.cycle is not None and not self.cycle.response_complete:
                return None
            url: bytes = self.url
            path, _, query = url.partition(b"?")
            if path.decode("latin-1") not in _MODEL_PATHS:
                return None
            length = None
            for name, value in self.headers:
                if name == b"content-length":
                    length = value
                elif name == b"transfer-encoding":
                    return None
                elif name == b"content-type" and not json_body(value.decode("latin-1")):
                    return None  # refused through ASGI, in the API's error format
            limit = min(OFF_LOOP_BYTES, server.options.body_limit)
            if length is None or not length.isdigit() or int(length) > limit:
                return None
            self.lean_query = query.partition(b"#")[0]
            return path.decode("latin-1")

        def on_body(self, body: bytes) -> None:
            if self.lean is None:
                super().on_body(body)
            else:
                self.lean.append(body)

        def on_message_complete(self) -> None:
            if self.lean is None:
                super().on_message_complete()
                return
            chunks, self.lean = self.lean, None
            self._answer(b"".join(chunks))

        def _answer(self, raw: bytes) -> None:
            path = self.url.partition(b"?")[0].decode("latin-1")
            headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in self.headers}
            keep_alive = self.parser.should_keep_alive()
            try:
                reply = server.answer_now(_MODEL_PATHS[path], headers, path,
                                          self.lean_query.decode("latin-1"), raw)
            except Exception:  # what uvicorn does for an ASGI app that fails: log, 500
                self.logger.exception("Exception in the model API's lean path")
                reply = Ready(500, ((b"content-type", b"text/plain; charset=utf-8"),),
                              b"Internal Server Error")
                keep_alive = False
            if not isinstance(reply, Ready):  # it waits: uvicorn's ASGI cycle paces it
                app, self.app = self.app, reply
                try:
                    super().on_headers_complete()
                finally:
                    self.app = app
                self.cycle.more_body = False
                self.cycle.message_event.set()
                return
            self.transport.write(reply.wire(self.server_state.default_headers, keep_alive))
            if not keep_alive:
                self.transport.close()
            self.on_response_complete()

    return LeanProtocol
