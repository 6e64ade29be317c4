"""The mock model API server: OpenAI Chat, OpenAI Responses, Anthropic Messages and Gemini
over HTTP (Gemini's paths in :mod:`scenarist.llm.gemini_server`).

The answer to a model request is decided by :class:`~scenarist.llm.answer.Answerer` (a pure
chain: read, select, locate, check, scripted error, render, encode). This module is the thin
layer around it: the ASGI entry point, reading the body within limits, the journal
(``GET /_scenarist/journal``), the record of scripted errors already answered (a retry
carries the same history, see :mod:`~scenarist.llm.position`), and pacing: a streamed answer
goes out batch by batch on a :class:`scenarist.play.Schedule` (``--scenario-speed`` is
applied there), a non-streamed one when its stream would have ended.
"""

from __future__ import annotations

import asyncio
import functools
import os
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import orjson
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from scenarist.faults import CHAOS_HEADER, Chaos, ChaosError
from scenarist.json_kind import json_kind
from scenarist.llm.answer import (
    ANSWER_HEADERS,
    WIRE,
    AgentType,
    Answer,
    Answerer,
    ErrorKey,
    Memo,
    ModelRequest,
    Rejection,
    RequestMemo,
    encode_turn,
)
from scenarist.llm.continuation import ThreadFields
from scenarist.llm.conversation import Api, Conversation
from scenarist.llm.faults import ModelFaults
from scenarist.llm.journal import Journal, clip
from scenarist.llm.render import estimate_tokens
from scenarist.llm.reply import JSON_HEADERS, SSE_RAW_HEADERS, LateBody, PacedStream, Ready, Streams
from scenarist.llm.request_errors import RequestError
from scenarist.llm.script import Script
from scenarist.llm.selection import RequestSelectionError, Selector
from scenarist.llm.workspace import OutsideWorkspace
from scenarist.play import Clock, RealClock, Schedule
from scenarist.wire.events import CREATED, CREATED_AT

DEFAULT_BODY_LIMIT = 32 * 1024 * 1024
CHECK_BODY_LIMIT = 64 * 1024  # POST /_scenarist/check takes two short strings
# Bodies larger than this are answered on a worker thread: reading a 32 MiB conversation takes
# tens of milliseconds of CPU that the event loop (every other stream's pacing) must not wait on.
OFF_LOOP_BYTES = 256 * 1024
# On the server's own refusals (a body the API refuses, no scenario, a request out of step
# with the scenario): the answer is a pure function of the request, so a retry gets it again.
# The OpenAI and Anthropic SDKs (and those built like them) read this header before their
# status rules, which retry a 409 twice (three requests and about 1.8 s for one mismatch).
# Scripted errors keep the SDKs' own rules: a scripted 429 or 5xx is retried, as for real.
NO_RETRY = {"x-should-retry": "false"}


class MissHandler(Protocol):
    """Answers a request no scenario answers (``llm --record-on-miss``: the recording proxy)."""

    async def forward(self, scope: Scope, receive: Receive, send: Send,
                      body: bytes | None = None) -> None: ...


@dataclass(slots=True)
class Options:
    """How the server plays its scenarios (the ``scenarist llm`` flags)."""

    speed: float = 1.0
    agent_type: AgentType = "auto"
    workspace: Path | None = None
    strict: bool = False
    body_limit: int = DEFAULT_BODY_LIMIT
    clock: Clock = field(default_factory=RealClock)
    memoize: bool = True  # answer repeated requests and reuse encoded turns (the two memos)
    wall: Callable[[], float] = time.time  # the wall clock: journal times, ``created``
    on_miss: MissHandler | None = None  # ``--record-on-miss``: who answers what no scenario does
    chaos: Chaos | None = None  # ``--chaos``: faults at random (docs/faults.md)
    seed: int = 0  # ``--seed``: of ``--chaos`` and of the ``x-scenarist-chaos`` header


class MockModelServer:
    """The ASGI application and its journal. ``server.app`` is what uvicorn serves."""

    def __init__(self, scripts: Sequence[Script], options: Options | None = None) -> None:
        if not scripts:
            raise ValueError("MockModelServer needs at least one scenario to play")
        self.scripts = tuple(scripts)
        self.selector = Selector(self.scripts)
        self.options = options or Options()
        self.journal = Journal()
        self._served_errors: set[ErrorKey] = set()
        self._seq = 0
        self.streams = Streams()  # answers being paced out now (HTTP and WebSocket)
        self.memo = Memo() if self.options.memoize else None  # rendered turns
        self.faults = ModelFaults(self.options.chaos, self.options.seed)
        self.answerer = Answerer(
            self.selector,
            agent_type=self.options.agent_type,
            workspace=self.options.workspace,
            strict=self.options.strict,
            encode=self.memo if self.memo is not None else encode_turn,
            threads=ThreadFields(),
        )
        # requests seen before: answered again without being read (repeatable answers only)
        self.request_memo = RequestMemo(self.answerer.answer) if self.options.memoize else None
        self.answer = self.request_memo if self.request_memo is not None else self.answerer.answer
        self._routes = Starlette(
            routes=[
                Route("/v1/models", self._models, methods=["GET"]),
                Route("/v1/models/{model:path}", self._model_info, methods=["GET"]),
                Route("/v1/responses/{response_id}", self._response, methods=["GET"]),
                Route("/health", self._health, methods=["GET", "HEAD"]),
                Route("/_scenarist/journal", self._journal, methods=["GET", "DELETE"]),
                Route("/_scenarist/check", self._check, methods=["POST"]),
                Route("/_scenarist/reset", self._reset, methods=["POST"]),
            ],
            exception_handlers={404: self._unrouted, 405: self._unrouted},
        )

    @property
    def app(self) -> MockModelServer:
        """The ASGI application to serve (the server object itself)."""
        return self

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """ASGI entry point. Model endpoints take a direct path (no router, no request
        object: they are the hot path); everything else goes through Starlette's router."""
        if scope["type"] == "http" and scope["method"] == "POST":
            api = MODEL_PATHS.get(scope["path"])
            if api is not None:
                response = await self._direct(api, scope, receive)
                await response(scope, receive, send)
                return
            if scope["path"] == "/v1/messages/count_tokens":
                headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope["headers"]}
                response = await self._count_tokens(headers, receive)
                await response(scope, receive, send)
                return
        if scope["type"] == "websocket" and scope["path"] in _SOCKET_PATHS:
            from scenarist.llm.websocket import serve_socket  # only when a client upgrades

            await serve_socket(self, scope, receive, send)
            return
        if scope["type"] == "http" and (":" in scope["path"]
                                        or scope["path"].startswith(GEMINI_PREFIXES)
                                        or (scope["path"].startswith("/v1/models")
                                            and google_client(scope))):
            # Gemini: /v1beta/models/{model}:{method} (its methods also under /v1/, and its
            # model list there when a Google client asks)
            from scenarist.llm.gemini_server import serve_gemini

            await serve_gemini(self, scope, receive, send)
            return
        await self._routes(scope, receive, send)

    async def _unrouted(self, request: Request, exc: Exception) -> Response:
        """404/405 in the error format of the API the path belongs to, so that an SDK aimed
        at a wrong path or method reports our message instead of failing to parse text."""
        path, method = request.url.path, request.method
        api: Api = "messages" if path.startswith("/v1/messages") else "chat"
        if path.startswith(GEMINI_PREFIXES) or ":" in path:
            api = "gemini"
        allow = "POST" if path in MODEL_PATHS or path == "/v1/messages/count_tokens" else None
        if allow is None and isinstance(exc, HTTPException) and exc.status_code == 405:
            allow = (exc.headers or {}).get("Allow")
        if allow is not None:
            message = f"{method} {path} is not allowed; use {allow}"
            return self._error(api, Rejection(405, message, headers={"allow": allow}))
        return self._error(api, Rejection(404, f"no endpoint {method} {path}; {_SERVED}"))

    async def _direct(self, api: Api, scope: Scope, receive: Receive, route: str = "") -> ASGIApp:
        headers = answer_headers(scope["headers"])
        query = journal_query(scope.get("query_string", b"").decode("latin-1"))
        raw = await self._read(api, headers, receive)
        if isinstance(raw, Response):
            self.journal.record(
                {
                    "seq": self._next_seq(),
                    "time": self.options.wall(),
                    "api": api,
                    "path": scope["path"],
                    "query": query,
                    "status": raw.status_code,
                    "error": "bad request body",
                }
            )
            return raw
        return await self._serve(api, headers, scope["path"], query, raw, route)

    # ------------------------------------------------------------------ small endpoints

    async def _health(self, request: Request) -> Response:
        return JSONResponse(
            {
                "status": "ok",
                "scenarios": [s.name for s in self.scripts],
                "active_streams": self.streams.active,
                "tasks": len(asyncio.all_tasks()),
            }
        )

    async def _models(self, request: Request) -> Response:
        data = [_model_entry("mock-model")]
        return JSONResponse(
            {
                "object": "list",
                "data": data,
                "has_more": False,
                "first_id": data[0]["id"],
                "last_id": data[-1]["id"],
            }
        )

    async def _model_info(self, request: Request) -> Response:
        return JSONResponse(_model_entry(request.path_params["model"]))

    async def _response(self, request: Request) -> Response:
        """``GET /v1/responses/{id}``: re-rendered from the id (see continuation)."""
        result = self.answerer.retrieve(request.path_params["response_id"],
                                        int(self.options.wall()))
        if isinstance(result, Rejection):
            return self._error("responses", result)
        return Response(result.encoded.body, media_type="application/json")

    async def _journal(self, request: Request) -> Response:
        if request.method == "DELETE":
            self.journal.clear()
            return JSONResponse({"cleared": True})
        return JSONResponse({"requests": list(self.journal), "dropped": self.journal.dropped})

    async def _reset(self, request: Request) -> Response:
        return JSONResponse(self.reset())

    def reset(self) -> dict[str, Any]:
        """``POST /_scenarist/reset``: start afresh for the next test, as if just started.

        A scripted error is answered once per conversation (a retry carries the same history
        and must get past it), and conversations without a session id are told apart by the
        shape of their history alone, so the next test that plays the same scenario would
        meet no scripted 429. Reset forgets the scripted errors answered so far and clears the
        journal; loaded scenarios and their memoised answers stay."""
        forgotten, cleared = len(self._served_errors), len(self.journal)
        self._served_errors.clear()
        self.faults.deliveries.clear()
        self.journal.clear()
        return {"reset": True, "scripted_errors_forgotten": forgotten, "journal_cleared": cleared}

    async def _check(self, request: Request) -> Response:
        """``POST /_scenarist/check?scenario=NAME&workspace=DIR`` (or the same as a JSON
        body): the scenario's asserts after its last model turn, evaluated now. 200 when all
        hold, 422 when one fails (same body), 400/404 for a missing or unknown scenario, 403
        for a workspace outside ``--workspace``, 413 for a body over 64 KiB."""
        params: dict[str, Any] = dict(request.query_params)
        raw = b""
        async for chunk in request.stream():
            raw += chunk
            if len(raw) > CHECK_BODY_LIMIT:
                return _plain_error(413, f"request body is over {CHECK_BODY_LIMIT} bytes; send "
                                         '{"scenario": NAME, "workspace": DIR}')
        if raw.strip():
            try:
                body = orjson.loads(raw)
            except ValueError as exc:
                return _plain_error(400, f"request body is not valid JSON: {exc}")
            if not isinstance(body, dict):
                return _plain_error(400, 'body: expected an object like {"scenario": "NAME"}')
            params.update(body)
        for key in ("scenario", "workspace"):
            if params.get(key) is not None and not isinstance(params[key], str):
                return _plain_error(400, f"{key}: expected a string, got {json_kind(params[key])}")
        try:
            report = self.final_check(params.get("scenario"), params.get("workspace"))
        except RequestSelectionError as exc:
            return _plain_error(exc.status, exc.message)
        except OutsideWorkspace as exc:
            return _plain_error(403, str(exc))
        return JSONResponse(report, status_code=200 if report["ok"] else 422)

    def final_check(
        self, scenario: str | None = None, workspace: str | os.PathLike[str] | None = None
    ) -> dict[str, Any]:
        """``scenario``'s asserts after its last model turn, evaluated now and journalled
        (:meth:`Answerer.final_check <scenarist.llm.answer.Answerer.final_check>` says where
        it looks); the agent's last reported working directory comes from the journal."""
        report = self.answerer.final_check(scenario, workspace, self._agent_cwd)
        self.journal.record(
            {
                "seq": self._next_seq(),
                "time": self.options.wall(),
                "path": "/_scenarist/check",
                "scenario": report["scenario"],
                "cwd": report["workspace"],
                "status": 200 if report["ok"] else 422,
                "assertions": report["results"],
            }
        )
        return report

    def _agent_cwd(self, scenario: str) -> str | None:
        return next(
            (e["cwd"] for e in reversed(self.journal)
             if e.get("scenario") == scenario and e.get("cwd")),
            None,
        )

    async def _count_tokens(self, headers: Mapping[str, str], receive: Receive,
                            api: Api = "messages",
                            validate: Callable[[bytes], object] | None = None,
                            field: str = "input_tokens") -> Response:
        """A token count (``POST /v1/messages/count_tokens``, Gemini's ``:countTokens``):
        the body validated as ``api`` reads it, its estimated tokens in ``field``."""
        raw = await self._read(api, headers, receive)
        if isinstance(raw, Response):
            return raw
        check = validate or read_request_count
        try:
            if len(raw) > OFF_LOOP_BYTES:
                await asyncio.to_thread(check, raw)
            else:
                check(raw)
        except RequestError as exc:
            return self._error(api, Rejection(exc.status, exc.message, param=exc.param))
        return JSONResponse({field: estimate_tokens(len(raw))})

    async def _read(
        self, api: Api, headers: Mapping[str, str], receive: Receive
    ) -> bytes | Response:
        """The request body, or the error response for a wrong content type or size."""
        refused = self._refuse(api, headers)
        if refused is not None:
            return refused
        limit = self.options.body_limit
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                return self._error(api, Rejection(400, "the client went away before sending the body"))
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > limit:
                return self._error(api, _too_large(limit))
            chunks.append(chunk)
            if not message.get("more_body", False):
                return chunks[0] if len(chunks) == 1 else b"".join(chunks)

    def _refuse(self, api: Api, headers: Mapping[str, str]) -> Response | None:
        ctype = headers.get("content-type", "")
        if not json_body(ctype):
            return self._error(
                api,
                Rejection(
                    415,
                    f"content-type must be application/json, got {ctype!r}; send the body as JSON",
                ),
            )
        declared = headers.get("content-length")
        limit = self.options.body_limit
        if declared and declared.isdigit() and int(declared) > limit:
            return self._error(api, _too_large(limit, declared))
        return None

    async def _serve(
        self, api: Api, headers: Mapping[str, str], path: str, query: str, raw: bytes,
        route: str = "",
    ) -> ASGIApp:
        """Journal the request, answer it, and what sends the answer on its schedule."""
        if len(raw) <= OFF_LOOP_BYTES:  # the usual request: answered here, no coroutine more
            reply = self.respond(api, headers, path, query, raw, route)
        else:
            entry, result = await self.answer_request(api, headers, path, query, raw, route=route)
            reply = self._reply_to(api, headers, raw, entry, result)
        return reply.response() if isinstance(reply, Ready) else reply

    def respond(self, api: Api, headers: Mapping[str, str], path: str, query: str, raw: bytes,
                route: str = "") -> Ready | ASGIApp:
        """Journal and answer a model request whose body is small enough for the loop's
        thread (``len(raw) <= OFF_LOOP_BYTES``): :class:`Ready` bytes when all of the answer
        is due now, else the ASGI callable that sends it (paced, faulted, proxied). The
        HTTP protocol (:mod:`scenarist.llm.model_http`) writes a :class:`Ready` itself."""
        entry, result = self.answer_now(api, headers, path, query, raw, route)
        return self._reply_to(api, headers, raw, entry, result)

    def _reply_to(self, api: Api, headers: Mapping[str, str], raw: bytes,
                  entry: dict[str, Any], result: Rejection | Answer) -> Ready | ASGIApp:
        if self.options.on_miss is not None and isinstance(result, Rejection) and missed(result):
            entry.update(status=result.status, error=result.message, proxied=True)
            self.journal.settle(entry)
            return functools.partial(self.options.on_miss.forward, body=raw)
        if isinstance(result, Answer) and result.turn is not None and (
                result.turn.fault is not None or self.faults.chaos is not None
                or CHAOS_HEADER in headers):
            faulted = self.faulted(api, headers, entry, result)
            if faulted is not None:
                return faulted
        return self.reply(api, entry, result)

    def faulted(self, api: Api, headers: Mapping[str, str], entry: dict[str, Any],
                result: Answer) -> ASGIApp | None:
        """What sends this delivery of an answer with a fault (docs/faults.md), or None when
        it goes out whole."""
        from scenarist.llm.fault_reply import FaultedReply

        try:
            struck = self.faults.pick(api, headers, entry, result)
        except ChaosError as exc:
            rejection = Rejection(400, f"{CHAOS_HEADER}: {exc}", param=CHAOS_HEADER)
            self.settle_rejected(entry, rejection)
            return self._error_reply(api, rejection).response()
        if struck is None:
            return None
        schedule = Schedule(self.options.clock, speed=self.options.speed)

        def reject(status: int, message: str, retry_after: float | None) -> Ready:
            headers = {} if retry_after is None else {"retry-after": f"{retry_after:g}"}
            # the API's own error, retried by clients as they retry the real one
            return self._error_reply(api, Rejection(status, message, headers=headers,
                                                    served_error=(0, "fault", 0)))

        return FaultedReply(struck, schedule, entry, self.journal, self.streams, reject)

    def reply(self, api: Api, entry: dict[str, Any], result: Rejection | Answer) -> Ready | ASGIApp:
        """What goes back for an answered request: :class:`Ready` bytes when all of it is
        due now (an error, an unpaced answer: settled in the journal here), else the ASGI
        callable that paces it (it settles the entry once sent)."""
        if isinstance(result, Rejection):
            self.settle_rejected(entry, result)
            return self._error_reply(api, result)
        encoded = result.encoded
        if encoded.body is not None:
            if encoded.end_ms > 0:  # a non-streamed answer arrives when the stream would end
                return LateBody(encoded.body, encoded.end_ms, self._schedule(), entry,
                                self.journal)
            self.journal.settle(entry)
            return Ready(200, JSON_HEADERS, encoded.body)
        headers = SSE_RAW_HEADERS if encoded.sse else JSON_HEADERS
        if all(batch.at_ms <= 0 for batch in encoded.batches):
            # A stream all due at its start (zero delays: agents' usual scenarios) goes out at
            # once: nothing waits, so no schedule to keep and no watcher task to stop a wait.
            entry["completed"] = True
            self.journal.settle(entry)
            return Ready(200, headers, b"".join(b.data for b in encoded.batches), stream=True)
        return PacedStream(encoded.batches, self._schedule(), entry, self.journal, self.streams,
                           headers)

    def _schedule(self) -> Schedule:
        """A paced answer's schedule (made only for one: ~1.5 µs that an answer all due at
        once, the usual agent's, does not need)."""
        return Schedule(self.options.clock, speed=self.options.speed)

    async def answer_request(
        self, api: Api, headers: Mapping[str, str], path: str, query: str, raw: bytes,
        route: str = "", **noted: Any,
    ) -> tuple[dict[str, Any], Rejection | Answer]:
        """The one answer path of every transport (HTTP and WebSocket): journal the request
        (``noted`` goes into its entry), answer it (memoised, large bodies on a worker
        thread), and remember a scripted error once answered. A successful answer's entry
        is left open (status 200) for the caller to settle once it is sent."""
        if len(raw) <= OFF_LOOP_BYTES:
            return self.answer_now(api, headers, path, query, raw, route, noted)
        entry = self._open_entry(api, path, query, noted)
        # parsing it would hold every other client up: a worker thread, without the memo
        request = ModelRequest.of(api, headers, raw, created=int(entry["time"]), route=route)
        result, notes = await asyncio.to_thread(
            self._answer_apart, request, self._served_errors.__contains__)
        entry.update(notes)  # here, on the loop's thread, not in the worker
        return entry, self._remember(entry, result)

    def answer_now(self, api: Api, headers: Mapping[str, str], path: str, query: str,
                   raw: bytes, route: str = "", noted: Mapping[str, Any] | None = None
                   ) -> tuple[dict[str, Any], Rejection | Answer]:
        """:meth:`answer_request` for a body small enough to answer on the loop's thread (the
        HTTP path calls it directly: a coroutine less a request). The entry collects the
        notes itself (a copy less)."""
        entry = self._open_entry(api, path, query, noted)
        request = ModelRequest.of(api, headers, raw, int(entry["time"]), route)
        return entry, self._remember(entry, self.answer(request, self._served_errors.__contains__,
                                                        entry))

    def _open_entry(self, api: Api, path: str, query: str, noted: Mapping[str, Any] | None
                    ) -> dict[str, Any]:
        entry: dict[str, Any] = {"seq": self._next_seq(), "time": self.options.wall(),
                                 "api": api, "path": path, "query": query}
        if noted:
            entry.update(noted)
        self.journal.add(entry)
        return entry

    def _remember(self, entry: dict[str, Any], result: Rejection | Answer) -> Rejection | Answer:
        if isinstance(result, Rejection):
            if result.served_error is not None:
                self._served_errors.add(result.served_error)
        else:
            entry["status"] = 200
        return result

    def _answer_apart(
        self, request: ModelRequest, served: Callable[[ErrorKey], bool]
    ) -> tuple[Rejection | Answer, dict[str, Any]]:
        """Answer a large request (on a worker thread), its notes clipped there too: the
        journal then settles it on the loop without cutting a long prompt."""
        result = self.answerer.answer(request, served)
        return result, clip(result.notes)

    # ------------------------------------------------------------------ errors

    def _error(self, api: Api, reply: Rejection) -> Response:
        ready = self._error_reply(api, reply)
        headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in ready.headers}
        return Response(ready.body, status_code=ready.status, headers=headers)

    def _error_reply(self, api: Api, reply: Rejection) -> Ready:
        headers = reply.headers if reply.scripted else {**reply.headers, **NO_RETRY}
        raw = [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in headers.items()]
        return Ready(reply.status, (*JSON_HEADERS, *raw), orjson.dumps(reply.body(WIRE[api])))

    def settle_rejected(self, entry: dict[str, Any], reply: Rejection) -> None:
        """Close a journal entry answered with an error."""
        entry.update(status=reply.status, error=reply.message)
        self.journal.settle(entry)

    def note(self, **fields: Any) -> dict[str, Any]:
        """Journal a finished exchange that is no model answer (a WebSocket warm-up, a
        message the socket refused): numbered and timed like the rest."""
        entry = {"seq": self._next_seq(), "time": self.options.wall(), **fields}
        self.journal.record(entry)
        return entry

    def _next_seq(self) -> int:
        self._seq += 1
        return self._seq


_SERVED = (
    "this server answers POST /v1/chat/completions, /v1/responses, /v1/messages, "
    "/v1/messages/count_tokens, /v1beta/models/{model}:generateContent, "
    ":streamGenerateContent and :countTokens (also under /v1/), /_scenarist/check, "
    "/_scenarist/reset; GET /v1/responses/{id}, /v1/models, /v1beta/models, /health, "
    "/_scenarist/journal; WebSocket /v1/responses"
)
#: the Gemini API's own path prefixes (its model methods also live under /v1/, by their ``:``)
GEMINI_PREFIXES = ("/v1beta/", "/v1alpha/", "/v1beta1/")
#: where Codex (and the OpenAI SDKs' ``responses.connect()``) open the Responses WebSocket
_SOCKET_PATHS = frozenset({"/v1/responses"})
#: the request headers the model endpoints read: the body's type and size, what an answer
#: depends on (:data:`~scenarist.llm.answer.ANSWER_HEADERS`) and the chaos header
_ANSWER_READS = frozenset(
    name.encode("latin-1")
    for name in ("content-type", "content-length", CHAOS_HEADER, *ANSWER_HEADERS))
MODEL_PATHS: dict[str, Api] = {
    "/v1/chat/completions": "chat",
    "/v1/responses": "responses",
    "/v1/messages": "messages",
}


def answer_headers(raw: Iterable[tuple[bytes, bytes]]) -> dict[str, str]:
    """The request headers a model answer reads, decoded (agents send 13-21 headers; the
    rest are not decoded)."""
    return {k.decode("latin-1"): v.decode("latin-1") for k, v in raw if k in _ANSWER_READS}


def missed(result: Rejection) -> bool:
    """A request that no scenario answers: none selected (404) or out of step with the one
    selected (409); not a scripted error, not a body the API itself would refuse."""
    return result.status in (404, 409) and not result.scripted


def google_client(scope: Scope) -> bool:
    """A request sent with a Google API key (``x-goog-api-key`` or ``?key=``): ``GET
    /v1/models`` is then Gemini's list (google-genai 3 defaults to ``/v1/``)."""
    return (any(k == b"x-goog-api-key" for k, _v in scope["headers"])
            or b"key=" in scope.get("query_string", b""))


def journal_query(query: str) -> str:
    """A query string as the journal keeps it: without an API key (Gemini's ``?key=``)."""
    if "key=" not in query:
        return query
    return "&".join(p for p in query.split("&") if not p.startswith("key="))


def json_body(content_type: str) -> bool:
    """Whether a model request's ``Content-Type`` is one this server reads (JSON, or none)."""
    if content_type == "application/json":  # what agents and SDKs send: no split, no copies
        return True
    return content_type.split(";")[0].strip().lower() in ("application/json", "")


def _too_large(limit: int, declared: str | None = None) -> Rejection:
    size = f"of {declared} bytes " if declared else ""
    return Rejection(413, f"request body {size}is over the limit of {limit} bytes (--body-limit)")


def read_request_count(raw: bytes) -> Conversation:
    """Validate a ``count_tokens`` body (a Messages body without ``max_tokens``)."""
    from scenarist.llm.conversation import read_messages

    try:
        body = orjson.loads(raw)
    except ValueError as exc:
        raise RequestError(f"request body is not valid JSON: {exc}") from None
    if not isinstance(body, dict):
        raise RequestError("body: expected an object", param="body")
    return read_messages(body, count_tokens=True)


def _plain_error(status: int, message: str) -> Response:
    """An error of the server's own endpoints (not a model API): ``{"error": {...}}``."""
    return JSONResponse({"error": {"status": status, "message": message}}, status_code=status)


def _model_entry(model: str) -> dict[str, Any]:
    """A model as both ``/v1/models`` dialects list it (OpenAI's ``created``, Anthropic's
    ``created_at``/``display_name``), at the fixed time of every answer."""
    return {"id": model, "object": "model", "created": CREATED, "owned_by": "scenarist",
            "type": "model", "display_name": model, "created_at": CREATED_AT}
