"""The mock model API server: OpenAI Chat, OpenAI Responses and Anthropic Messages over HTTP.

Per request: read and validate the body (:mod:`~scenarist.llm.conversation`), choose the
scenario (``x-scenario-name``, else ``x-scenario-prompt``, else the first user prompt as the
user typed it), derive the position from the history (:mod:`~scenarist.llm.position`), check
the ``assert`` events due before that turn, render the turn in the agent's tool vocabulary
(:mod:`~scenarist.llm.render`), and encode it with :mod:`scenarist.wire`, streamed on the
scenario's schedule or as one body. Every request is written to the journal
(``GET /_scenarist/journal``).

The only state: the journal, and which scripted ``error`` turns each conversation has been
answered with (a retry carries the same history, see :mod:`~scenarist.llm.position`).
Conversations are told apart by the agent's session header where it sends one.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import time
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import orjson
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from starlette.types import Message, Receive, Scope, Send

from scenarist.llm.checks import Result, failures, run_check
from scenarist.llm.conversation import (
    Api,
    Conversation,
    Profile,
    RequestError,
    detect_profile,
    read_request,
)
from scenarist.llm.position import PositionError, locate
from scenarist.llm.profiles import Context, EditError
from scenarist.llm.render import Rendered, estimate_tokens, render_turn
from scenarist.llm.script import Action, EditAction, Script
from scenarist.llm.selection import RequestSelectionError, Selector
from scenarist.play import Clock, Player, RealClock
from scenarist.wire import SSE_HEADERS, encode_body, encode_stream, error_body
from scenarist.wire import Api as WireApi

DEFAULT_BODY_LIMIT = 32 * 1024 * 1024
JOURNAL_LIMIT = 10_000
MEMO_LIMIT = 1024
WIRE: dict[Api, WireApi] = {
    "chat": "openai_chat",
    "responses": "openai_responses",
    "messages": "anthropic",
}
AgentType = Literal["auto", "claude", "codex", "openai"]


@dataclass(slots=True)
class Options:
    """How the server plays its scenarios (the ``scenarist llm`` flags)."""

    speed: float = 1.0
    agent_type: AgentType = "auto"
    workspace: Path | None = None
    strict: bool = False
    body_limit: int = DEFAULT_BODY_LIMIT
    clock: Clock = field(default_factory=RealClock)
    memoize: bool = True  # reuse encoded answers of turns that read no files
    wall: Callable[[], float] = time.time  # the wall clock: journal times, ``created``


@dataclass(slots=True)
class Reply:
    """An error to answer with: HTTP status, message, and where it came from."""

    status: int
    message: str
    type: str | None = None
    param: str | None = None
    headers: dict[str, str] = field(default_factory=dict)


class MockModelServer:
    """The ASGI application and its journal. ``server.app`` is what uvicorn serves."""

    def __init__(self, scripts: Sequence[Script], options: Options | None = None) -> None:
        if not scripts:
            raise ValueError("MockModelServer needs at least one scenario to play")
        self.scripts = tuple(scripts)
        self.selector = Selector(self.scripts)
        self.options = options or Options()
        self.journal: deque[dict[str, Any]] = deque(maxlen=JOURNAL_LIMIT)
        self._served_errors: set[tuple[int, str, int]] = set()
        self._seq = 0
        self.active_streams = 0
        self._memo: dict[tuple[Any, ...], _Memo] = {}
        self._routes = Starlette(
            routes=[
                Route("/v1/models", self._models, methods=["GET"]),
                Route("/v1/models/{model:path}", self._model_info, methods=["GET"]),
                Route("/health", self._health, methods=["GET", "HEAD"]),
                Route("/_scenarist/journal", self._journal, methods=["GET", "DELETE"]),
                Route("/_scenarist/check", self._check, methods=["POST"]),
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
            api = _MODEL_PATHS.get(scope["path"])
            if api is not None:
                response = await self._direct(api, scope, receive)
                await response(scope, receive, send)
                return
            if scope["path"] == "/v1/messages/count_tokens":
                headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope["headers"]}
                response = await self._count_tokens(headers, receive)
                await response(scope, receive, send)
                return
        await self._routes(scope, receive, send)

    async def _unrouted(self, request: Request, exc: Exception) -> Response:
        """404/405 in the error format of the API the path belongs to, so that an SDK aimed
        at a wrong path or method reports our message instead of failing to parse text."""
        path, method = request.url.path, request.method
        api: Api = "messages" if path.startswith("/v1/messages") else "chat"
        allow = "POST" if path in _MODEL_PATHS or path == "/v1/messages/count_tokens" else None
        if allow is None and isinstance(exc, HTTPException) and exc.status_code == 405:
            allow = (exc.headers or {}).get("Allow")
        if allow is not None:
            message = f"{method} {path} is not allowed; use {allow}"
            return self._error(api, Reply(405, message, headers={"allow": allow}))
        return self._error(api, Reply(404, f"no endpoint {method} {path}; {_SERVED}"))

    async def _direct(self, api: Api, scope: Scope, receive: Receive) -> Response:
        headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope["headers"]}
        query = scope.get("query_string", b"").decode("latin-1")
        raw = await self._read(api, headers, receive)
        if isinstance(raw, Response):
            self.journal.append(
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
        return await self._serve(api, headers, scope["path"], query, raw)

    # ------------------------------------------------------------------ small endpoints

    async def _health(self, request: Request) -> Response:
        return JSONResponse(
            {
                "status": "ok",
                "scenarios": [s.name for s in self.scripts],
                "active_streams": self.active_streams,
                "tasks": len(asyncio.all_tasks()),
            }
        )

    async def _models(self, request: Request) -> Response:
        data = [
            {
                "id": m,
                "object": "model",
                "created": 1_700_000_000,
                "owned_by": "scenarist",
                "type": "model",
                "display_name": m,
                "created_at": "2023-11-14T22:13:20Z",
            }
            for m in ("mock-model",)
        ]
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
        model = request.path_params["model"]
        return JSONResponse(
            {
                "id": model,
                "object": "model",
                "created": 1_700_000_000,
                "owned_by": "scenarist",
                "type": "model",
                "display_name": model,
                "created_at": "2023-11-14T22:13:20Z",
            }
        )

    async def _journal(self, request: Request) -> Response:
        if request.method == "DELETE":
            self.journal.clear()
            return JSONResponse({"cleared": True})
        return JSONResponse({"requests": list(self.journal)})

    async def _check(self, request: Request) -> Response:
        """``POST /_scenarist/check?scenario=NAME&workspace=DIR`` (or the same as a JSON
        body): the scenario's asserts after its last model turn, evaluated now. 200 when all
        hold, 422 when one fails (same body), 400/404 for a missing or unknown scenario."""
        params: dict[str, Any] = dict(request.query_params)
        raw = await request.body()
        if raw.strip():
            try:
                body = orjson.loads(raw)
            except ValueError as exc:
                return _plain_error(400, f"request body is not valid JSON: {exc}")
            if not isinstance(body, dict):
                return _plain_error(400, 'body: expected an object like {"scenario": "NAME"}')
            params.update(body)
        try:
            report = self.final_check(params.get("scenario"), params.get("workspace"))
        except RequestSelectionError as exc:
            return _plain_error(exc.status, exc.message)
        return JSONResponse(report, status_code=200 if report["ok"] else 422)

    def final_check(
        self, scenario: str | None = None, workspace: str | os.PathLike[str] | None = None
    ) -> dict[str, Any]:
        """Evaluate ``scenario``'s asserts after its last model turn (no request follows the
        last turn, so the server cannot check them on its own; a test calls this once the
        agent is done). The workspace is ``workspace``, else ``--workspace``, else the
        working directory the agent last reported for this scenario, else the server's.
        The report (also journalled): scenario, workspace, where it came from, ok, results."""
        script = self._script_named(scenario)
        if workspace:
            root, source = Path(workspace), "request"
        elif self.options.workspace is not None:
            root, source = self.options.workspace, "--workspace"
        else:
            cwd = next(
                (
                    e["cwd"]
                    for e in reversed(self.journal)
                    if e.get("scenario") == script.name and e.get("cwd")
                ),
                None,
            )
            root, source = (Path(cwd), "agent cwd") if cwd else (Path(os.getcwd()), "server cwd")
        results = [r for check in script.final_checks for r in run_check(check, root)]
        failed = failures(results)
        report: dict[str, Any] = {
            "scenario": script.name,
            "workspace": str(root),
            "workspace_from": source,
            "ok": not failed,
            "checked": len(results),
            "failed": len(failed),
            "results": [r.as_json() for r in results],
        }
        self.journal.append(
            {
                "seq": self._next_seq(),
                "time": self.options.wall(),
                "path": "/_scenarist/check",
                "scenario": script.name,
                "cwd": str(root),
                "status": 200 if not failed else 422,
                "assertions": report["results"],
            }
        )
        return report

    def _script_named(self, name: str | None) -> Script:
        names = [s.name for s in self.scripts]
        if name is None:
            if len(self.scripts) == 1:
                return self.scripts[0]
            raise RequestSelectionError(
                f"scenarist: say which scenario to check (scenario=NAME); loaded: {names}",
                status=400,
            )
        for script in self.scripts:
            if script.name == name:
                return script
        raise RequestSelectionError(f"scenarist: no scenario named {name!r}; loaded: {names}")

    async def _count_tokens(self, headers: Mapping[str, str], receive: Receive) -> Response:
        raw = await self._read("messages", headers, receive)
        if isinstance(raw, Response):
            return raw
        try:
            read_request_count(raw)
        except RequestError as exc:
            return self._error("messages", Reply(exc.status, exc.message, param=exc.param))
        return JSONResponse({"input_tokens": estimate_tokens(len(raw))})

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
                return self._error(api, Reply(400, "the client went away before sending the body"))
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > limit:
                return self._error(api, _too_large(limit))
            chunks.append(chunk)
            if not message.get("more_body", False):
                return chunks[0] if len(chunks) == 1 else b"".join(chunks)

    def _refuse(self, api: Api, headers: Mapping[str, str]) -> Response | None:
        ctype = headers.get("content-type", "")
        if ctype.split(";")[0].strip().lower() not in ("application/json", ""):
            return self._error(
                api,
                Reply(
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
        self, api: Api, headers: Mapping[str, str], path: str, query: str, raw: bytes
    ) -> Response:
        started = self.options.wall()
        entry: dict[str, Any] = {
            "seq": self._next_seq(),
            "time": started,
            "api": api,
            "path": path,
            "query": query,
        }
        self.journal.append(entry)
        try:
            body = orjson.loads(raw)
        except ValueError as exc:
            return self._fail(entry, api, Reply(400, f"request body is not valid JSON: {exc}"))
        try:
            conv = read_request(api, body)
        except RequestError as exc:
            return self._fail(entry, api, Reply(exc.status, exc.message, param=exc.param))
        entry.update(
            stream=conv.stream,
            model=conv.model,
            prompt=conv.first_prompt,
            user_turns=conv.user_turns,
            assistant_turns=conv.assistant_turns,
            tool_calls=conv.tool_calls,
            tool_results=conv.tool_results,
            cwd=conv.cwd,
        )
        try:
            choice = self.selector.choose(
                name=headers.get("x-scenario-name"),
                prompt=headers.get("x-scenario-prompt"),
                conversation_prompt=conv.first_prompt,
            )
        except RequestSelectionError as exc:
            return self._fail(entry, api, Reply(exc.status, exc.message))
        script = choice.script
        entry.update(
            scenario=script.name,
            selected_by=choice.by,
            distance=choice.distance,
            runners_up=[list(r) for r in choice.runners_up],
        )
        profile: Profile = (
            detect_profile(conv) if self.options.agent_type == "auto" else self.options.agent_type
        )
        entry["profile"] = profile
        # only scenarios with scripted errors need to tell conversations apart
        key = _conversation_key(headers, conv) if script.has_errors else ""
        try:
            pos = locate(script, conv, lambda i: (id(script), key, i) in self._served_errors)
        except PositionError as exc:
            entry["expected"] = exc.expected
            return self._fail(
                entry, api, Reply(409, f"scenarist: {exc.message}; expected next: {exc.expected}")
            )
        turn = pos.turn
        entry.update(segment=pos.segment, turn=turn.index, step=pos.step)
        if script.final_checks and turn is script.segments[-1].turns[-1]:
            # nothing follows the last turn to check these before: POST /_scenarist/check
            entry["final_checks"] = [c.label for c in script.final_checks]
        results: list[Result] = []
        if turn.checks:
            root = self.options.workspace or Path(conv.cwd or os.getcwd())
        for check in turn.checks:
            results.extend(run_check(check, root))
        if results:
            entry["assertions"] = [r.as_json() for r in results]
        failed = failures(results)
        if failed:
            names = "; ".join(f"{r.label}: {r.message}" for r in failed)
            return self._fail(
                entry,
                api,
                Reply(
                    400,
                    f"scenarist: assertion failed before "
                    f"{turn.describe()} of scenario "
                    f"{script.name!r}: {names}",
                ),
            )
        if turn.error is not None:
            self._served_errors.add((id(script), key, turn.index))
            err = turn.error
            headers = {}
            if err.retry_after_seconds is not None:
                headers["retry-after"] = _seconds(err.retry_after_seconds)
            entry["scripted_error"] = err.status
            return self._fail(
                entry, api, Reply(err.status, err.message, type=err.error_type, headers=headers)
            )
        ctx = Context(
            profile=profile,
            cwd=str(self.options.workspace)
            if conv.cwd is None and self.options.workspace
            else conv.cwd,
            tools=conv.tool_names,
            read_text=_read_text,
        )
        # A turn whose rendering reads no files is a pure function of these inputs (and of
        # the server's fixed options), so its encoded answer is memoised. Everything that
        # reaches render_turn / the encoders is in the key; a test holds memoised and fresh
        # answers equal byte for byte across every input.
        memo = self.options.memoize and not any(_reads_files(a) for a in turn.actions)
        input_tokens = estimate_tokens(len(raw))
        mkey = (
            id(script),  # not the name: two files may share one
            turn.index,
            api,
            profile,
            ctx.cwd,
            ctx.tools,
            conv.model,
            input_tokens,
            conv.stream,
            conv.include_usage,
            int(started),  # ``created``
        )
        hit = self._memo.get(mkey) if memo else None
        if hit is None:
            try:
                rendered = render_turn(
                    turn,
                    script=script,
                    api=api,
                    ctx=ctx,
                    model=conv.model,
                    input_tokens=input_tokens,
                    speed=self.options.speed,
                )
            except EditError as exc:
                return self._fail(entry, api, Reply(409, f"scenarist: {exc}"))
            calls = [c.name for c in rendered.calls]
            if conv.stream:
                payload: bytes | list[_Batch] = self._frames(api, rendered, conv, int(started))
            else:
                _status, out = encode_body(WIRE[api], rendered.events, created=int(started))
                payload = orjson.dumps(out)
            end_ms = max((e.at_ms for e in rendered.events), default=0)
            hit = _Memo(calls, payload, end_ms)
            if memo:
                if len(self._memo) >= MEMO_LIMIT:
                    self._memo.clear()
                self._memo[mkey] = hit
        entry["calls"] = hit.calls
        if self.options.strict:
            missing = sorted(set(hit.calls) - conv.tool_names)
            if missing:
                return self._fail(
                    entry,
                    api,
                    Reply(
                        400,
                        f"scenarist --strict: the request does not declare the tool(s) "
                        f"{', '.join(missing)} that {turn.describe()} of scenario {script.name!r} "
                        f"calls; declared: {', '.join(sorted(conv.tool_names)) or 'none'}",
                    ),
                )
        entry["status"] = 200
        if isinstance(hit.payload, list):
            return _PacedStream(hit.payload, self.options.clock, entry, self)
        if hit.end_ms > 0:  # a non-streamed answer arrives when the stream would have ended
            clock = self.options.clock
            await clock.sleep_until(clock.now_ms() + hit.end_ms)
        return Response(hit.payload, media_type="application/json")

    def _frames(
        self, api: Api, rendered: Rendered, conv: Conversation, created: int
    ) -> list[_Batch]:
        """The stream's bytes, frames due at the same moment joined into one write."""
        batches: list[_Batch] = []
        parts: list[bytes] = []
        at = 0
        for frame in encode_stream(
            WIRE[api], rendered.events, include_usage=conv.include_usage, created=created
        ):
            if parts and frame.at_ms != at:
                batches.append(_Batch(at, b"".join(parts)))
                parts = []
            at = frame.at_ms
            parts.append(frame.encode())
        if parts:
            batches.append(_Batch(at, b"".join(parts)))
        return batches

    # ------------------------------------------------------------------ errors

    def _error(self, api: Api, reply: Reply) -> Response:
        body = error_body(
            WIRE[api], reply.status, reply.message, type=reply.type, param=reply.param
        )
        return Response(
            orjson.dumps(body),
            status_code=reply.status,
            headers=reply.headers,
            media_type="application/json",
        )

    def _fail(self, entry: dict[str, Any], api: Api, reply: Reply) -> Response:
        entry.update(status=reply.status, error=reply.message)
        return self._error(api, reply)

    def _next_seq(self) -> int:
        self._seq += 1
        return self._seq


_SERVED = (
    "this server answers POST /v1/chat/completions, /v1/responses, /v1/messages, "
    "/v1/messages/count_tokens; GET /v1/models, /health, /_scenarist/journal"
)
_MODEL_PATHS: dict[str, Api] = {
    "/v1/chat/completions": "chat",
    "/v1/responses": "responses",
    "/v1/messages": "messages",
}


def _too_large(limit: int, declared: str | None = None) -> Reply:
    size = f"of {declared} bytes " if declared else ""
    return Reply(413, f"request body {size}is over the limit of {limit} bytes (--body-limit)")


def _reads_files(action: Action) -> bool:
    """Whether rendering ``action`` depends on files on disk (so it cannot be cached)."""
    return isinstance(action, EditAction) or action.tool in ("writeFile", "editFile")


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


def _seconds(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)


def _read_text(path: str) -> str | None:
    try:
        return Path(path).read_text()
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        return None


_SESSION_HEADERS = ("x-scenario-session", "x-claude-code-session-id", "session-id", "thread-id")


def _conversation_key(headers: Mapping[str, str], conv: Conversation) -> str:
    """Tells conversations apart: the agent's session id, else the shape of the history."""
    for name in _SESSION_HEADERS:
        value = headers.get(name)
        if value:
            return f"{name}:{value}"
    shape = json.dumps([conv.api, conv.prompts, [(m.kind, m.name) for m in conv.marks]])
    return hashlib.sha1(shape.encode()).hexdigest()


@dataclass(frozen=True, slots=True)
class _Batch:
    """Stream bytes due at one moment (all frames with that ``at_ms``, joined)."""

    at_ms: int
    data: bytes


@dataclass(frozen=True, slots=True)
class _Memo:
    """An encoded answer: the tool names it calls, and its body or its stream batches."""

    calls: list[str]
    payload: bytes | list[_Batch]
    end_ms: int


class _PacedStream(Response):
    """An SSE response that sends each batch of frames when due, and stops the moment the
    client goes away (a watcher task waits for ``http.disconnect``)."""

    def __init__(
        self, batches: list[_Batch], clock: Clock, entry: dict[str, Any], owner: MockModelServer
    ) -> None:
        self.owner = owner
        self.status_code = 200
        self.background = None
        self.raw_headers = [(k.encode(), v.encode()) for k, v in SSE_HEADERS.items()]
        self.batches = batches
        self.clock = clock
        self.entry = entry

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
        self.owner.active_streams += 1
        try:
            await send({"type": "http.response.start", "status": 200, "headers": self.raw_headers})
            # The schedule starts now, and what is due now goes out now: through the player
            # it would wait a loop cycle (behind every other ready task), making the first
            # chunk late and every later one early relative to it.
            batches = self.batches
            t0 = self.clock.now_ms()
            if batches and batches[0].at_ms <= 0:
                await send(
                    {"type": "http.response.body", "body": batches[0].data, "more_body": True}
                )
                batches = batches[1:]
            player = Player(batches, clock=self.clock, speed=1.0, start_ms=t0)
            async for batch in player:
                await send({"type": "http.response.body", "body": batch.data, "more_body": True})
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
            self.owner.active_streams -= 1
            watcher.cancel()
