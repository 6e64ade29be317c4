"""The Gemini API's routes on the model server: ``/v1beta/models/{model}:{method}`` and the
model list, every error in Google's envelope.

``:generateContent`` and ``:streamGenerateContent`` (also under ``/v1/``) go down the one
answer path of every API (:meth:`MockModelServer.answer_request
<scenarist.llm.server.MockModelServer.answer_request>`) with the model and streaming form the
URL names (:class:`~scenarist.llm.gemini_request.Route`); ``:countTokens`` counts as the other
APIs' token counts do; ``GET /v1beta/models[/{model}]`` lists the model. The API key
(``x-goog-api-key`` or ``?key=``) is taken and not checked, as for the other APIs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from starlette.responses import JSONResponse, Response
from starlette.types import Receive, Scope, Send

from scenarist.llm.answer import Rejection
from scenarist.llm.gemini_request import METHODS, Route, read_count, route_of, sse_asked
from scenarist.wire.events import DEFAULT_MODEL

if TYPE_CHECKING:
    from scenarist.llm.server import MockModelServer

__all__ = ["model_entry", "serve_gemini"]

COUNT_TOKENS = "countTokens"
_SERVED = ("this server answers POST /v1beta/models/{model}:generateContent, "
           ":streamGenerateContent (?alt=sse) and :countTokens, also under /v1/; "
           "GET /v1beta/models and /v1beta/models/{model}")
_LIST_PATHS = ("/v1beta/models", "/v1/models", "/v1alpha/models")


async def serve_gemini(server: MockModelServer, scope: Scope, receive: Receive,
                       send: Send) -> None:
    """Answer one HTTP request on a Gemini path."""
    response = await _respond(server, scope, receive)
    await response(scope, receive, send)


async def _respond(server: MockModelServer, scope: Scope, receive: Receive) -> Any:
    path, method = scope["path"].rstrip("/") or "/", scope["method"]
    query = scope.get("query_string", b"").decode("latin-1")
    target = route_of(path, query)
    if target is not None:
        model, name = target
        if name not in (*METHODS, COUNT_TOKENS):
            return _refuse(server, 404, f"Method not found: models/{model}:{name}; {_SERVED}")
        if method != "POST":
            return _refuse(server, 405, f"{method} {path} is not allowed; use POST",
                           allow="POST")
        if name == COUNT_TOKENS:
            return await _count_tokens(server, scope, receive)
        route = Route(model, name == "streamGenerateContent", sse_asked(query))
        return await server._direct("gemini", scope, receive, route.key())
    if path in _LIST_PATHS or path.startswith(tuple(f"{p}/" for p in _LIST_PATHS)):
        if method not in ("GET", "HEAD"):
            return _refuse(server, 405, f"{method} {path} is not allowed; use GET", allow="GET")
        if path in _LIST_PATHS:
            return JSONResponse({"models": [model_entry(DEFAULT_MODEL)]})
        return JSONResponse(model_entry(path.split("/models/", 1)[1]))
    return _refuse(server, 404, f"no endpoint {method} {path}; {_SERVED}")


def _refuse(server: MockModelServer, status: int, message: str,
            allow: str | None = None) -> Response:
    return server._error("gemini", Rejection(status, message,
                                             headers={"allow": allow} if allow else {}))


async def _count_tokens(server: MockModelServer, scope: Scope, receive: Receive) -> Response:
    headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope["headers"]}
    return await server._count_tokens(headers, receive, "gemini", read_count, "totalTokens")


def model_entry(model: str) -> dict[str, Any]:
    """A model as ``GET /v1beta/models`` describes it (``name`` is ``models/{id}``)."""
    bare = model.removeprefix("models/")
    return {"name": f"models/{bare}", "baseModelId": bare, "version": "001",
            "displayName": bare, "description": "a scenarist mock model",
            "inputTokenLimit": 1_048_576, "outputTokenLimit": 65_536,
            "supportedGenerationMethods": ["generateContent", "countTokens"],
            "temperature": 1.0, "maxTemperature": 2.0, "topP": 0.95, "topK": 64,
            "thinking": True}
