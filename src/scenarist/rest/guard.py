"""No request ends in a traceback or in an answer that is not problem+json.

Three places answer a request before, or after, the routes do: uvicorn's HTTP parser (a
request line or header it cannot parse gets its own ``text/plain`` 400), Starlette's CORS
layer (a refused preflight is a ``text/plain`` 400) and the ASGI stack (an exception that
escapes it is logged with a traceback by both Starlette and uvicorn). :func:`http_protocol`
gives uvicorn a protocol whose refusals are problem+json; :class:`ProblemCORS` does the same
for preflights; :class:`Guard` wraps the app so that an escaped exception is one log line
(and a 500 problem when nothing was sent yet).

ASGI has no way to drop a connection mid-response (a ``disconnect`` fault on an SSE stream):
the protocol puts one in each request's scope, ``scope["extensions"]["scenarist.cut"]``
(:data:`CUT`), a callable that closes the connection after what was written so far.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from starlette.datastructures import Headers
from starlette.middleware.cors import CORSMiddleware
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from scenarist.json_out import dump_bytes
from scenarist.rest.problems import MEDIA_TYPE, Problem, problem_body, problem_response

__all__ = ["CUT", "Guard", "ProblemCORS", "http_protocol", "log_internal"]

#: The scope extension that cuts a response's connection (see the module doc).
CUT = "scenarist.cut"

_log = logging.getLogger("scenarist.rest")
MALFORMED = ("the request is not valid HTTP/1.1 (request line, header or body framing); "
             "send it with an HTTP client")
#: The most bytes a request line and its headers may take (docs/limits.md).
HEAD_LIMIT = 1024 * 1024
HEAD_TOO_LARGE = (f"the request line and headers are over {HEAD_LIMIT // 1024} KiB; "
                  "send less in the URL and the headers")


def log_internal(method: str, path: str, exc: BaseException) -> None:
    """One line for a failure of ours, instead of a traceback per request."""
    _log.warning("scenarist rest: %s %s failed: %s: %s", method, path[:200],
                 type(exc).__name__, str(exc)[:300])


class Guard:
    """The outermost ASGI layer (see the module doc)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        started = False

        async def tracked(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, receive, tracked)
        except Exception as exc:  # already answered by Starlette's handler, or not at all
            log_internal(scope.get("method", ""), scope.get("path", ""), exc)
            if not started and scope["type"] == "http":
                body = dump_bytes(problem_body(Problem(500, f"internal error: {exc}")))
                await send({"type": "http.response.start", "status": 500,
                            "headers": [(b"content-type", MEDIA_TYPE.encode()),
                                        (b"content-length", str(len(body)).encode())]})
                await send({"type": "http.response.body", "body": body})


class ProblemCORS(CORSMiddleware):
    """Starlette's CORS layer, whose refused preflight (a ``text/plain`` 400) is a problem."""

    def preflight_response(self, request_headers: Headers) -> Response:
        response = super().preflight_response(request_headers)
        if response.status_code < 400:
            return response
        reason = bytes(response.body).decode()
        headers = {k: v for k, v in response.headers.items()
                   if k not in ("content-type", "content-length")}
        return problem_response(Problem(
            response.status_code, f"{reason}: this server allows the origins given to --cors "
            "and the methods and headers listed in access-control-allow-*", headers=headers))


def refusal(problem: Problem, default_headers: list[tuple[bytes, bytes]]) -> bytes:
    """The whole HTTP answer to a request refused before the app saw it, then close."""
    body = dump_bytes(problem_body(problem))
    lines = [f"HTTP/1.1 {problem.status} {problem.title}".encode()]
    lines += [name + b": " + value for name, value in default_headers]
    lines += [b"content-type: " + MEDIA_TYPE.encode(),
              b"content-length: " + str(len(body)).encode(), b"connection: close"]
    return b"\r\n".join(lines) + b"\r\n\r\n" + body


def http_protocol() -> type[Any]:
    """uvicorn's fastest HTTP protocol (httptools, else h11), answering unparsable requests
    with a problem+json 400 (uvicorn's own answer is ``text/plain``) and a request line and
    headers over :data:`HEAD_LIMIT` with a 431 (httptools has no limit of its own; h11
    refuses past 16 KiB, a 400)."""
    import importlib

    try:
        base: Any = importlib.import_module(
            "uvicorn.protocols.http.httptools_impl").HttpToolsProtocol
    except ImportError:  # httptools is not installed
        base = importlib.import_module("uvicorn.protocols.http.h11_impl").H11Protocol

    class ProblemProtocol(base):  # type: ignore[misc]
        in_head, head_bytes, refused = True, 0, False

        def refuse(self, problem: Problem) -> None:
            """Answer, then read and drop what the client still sends for a moment before
            closing: closing with unread data resets the connection, and the client loses
            the answer with it."""
            self.refused = True
            cycle = self.cycle  # a request before it on this connection is still answering:
            if cycle is not None and not cycle.response_complete:  # it writes no more
                cycle.disconnected = True
                cycle.message_event.set()
            if hasattr(self, "pipeline"):
                self.pipeline.clear()
            self.transport.write(refusal(problem, self.server_state.default_headers))
            if self.transport.can_write_eof():
                self.transport.write_eof()
            asyncio.get_running_loop().call_later(1.0, self.transport.close)

        def send_400_response(self, msg: str) -> None:
            self.refuse(Problem(400, MALFORMED))

        def data_received(self, data: bytes) -> None:
            if self.refused:
                return
            # counted by read: a read is at most 256 KiB, so the head and body of a request
            # may share the first read, and a head over the limit takes several
            if self.in_head:
                self.head_bytes += len(data)
                if self.head_bytes > HEAD_LIMIT:
                    self.in_head = False
                    self.refuse(Problem(431, HEAD_TOO_LARGE))
                    return
            super().data_received(data)

        def on_message_begin(self) -> None:
            self.in_head, self.head_bytes = True, 0
            super().on_message_begin()

        def on_headers_complete(self) -> None:
            self.in_head = False
            super().on_headers_complete()
            cycle = self.cycle
            if cycle is not None and cycle.scope is self.scope:  # its app has not run yet
                self.scope.setdefault("extensions", {})[CUT] = lambda: self.cut(cycle)

        def cut(self, cycle: Any) -> None:
            """Close the connection of ``cycle``'s response as it stands: what was written
            is flushed, then FIN, no final chunk (the client sees an incomplete body); the
            app's later sends are dropped, and uvicorn logs nothing."""
            if cycle.response_complete or cycle.disconnected:
                return
            cycle.disconnected = True
            cycle.message_event.set()
            self.transport.close()

    return ProblemProtocol
