"""The HTTP layer: Starlette routes under ``/api/v1``, SSE session streams, problem+json for
every failure. Each endpoint reads the request, asks :class:`Sessions` or the store, and
renders with :mod:`scenarist.rest.render`; what can fail raises :class:`Problem`.

SSE (``GET /sessions/{id}/events`` with ``Accept: text/event-stream``): every event carries
``id: <seq>``; ``Last-Event-ID`` or ``?since=N`` resumes after N. Events are read from the
store by seq (see :mod:`scenarist.rest.store`), so nothing is sent twice or lost; the stream
ends after the session's final status; a client that already has everything gets ``204``
(which tells an ``EventSource`` to stop reconnecting).

Faults (the scenario's, and ``--chaos``) strike a stream's delivery, never the store: a
session with none streams by the plain path; one with faults goes through
:class:`scenarist.rest.delivery.Delivery` frame by frame. Heartbeats are this module's own
(a ``stall`` means no bytes at all, so sse-starlette's independent ping is off).
"""

from __future__ import annotations

import asyncio
import hmac
import math
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from sse_starlette import EventSourceResponse, ServerSentEvent
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from scenarist.faults import (
    CHANNELS,
    CHAOS_HEADER,
    Chaos,
    ChaosError,
    Close,
    Pause,
    Write,
    chaos_fault,
    parse_chaos,
)
from scenarist.json_out import dump_bytes
from scenarist.play import Schedule
from scenarist.ratelimit import TokenBucket
from scenarist.rest.cli import MAX_SESSIONS
from scenarist.rest.delivery import (
    CONNECT_KINDS,
    Action,
    Delivery,
    FaultPoint,
    Outgoing,
    fault_points,
)
from scenarist.rest.events import FINAL_STATUSES, Dialect, is_final, webui_event
from scenarist.rest.guard import CUT, Guard, ProblemCORS, log_internal
from scenarist.rest.problems import Problem, problem_response
from scenarist.rest.render import (
    API,
    diff_json,
    file_changes,
    links,
    page_json,
    public,
    session_json,
)
from scenarist.rest.requests import (
    event_query,
    parse_json,
    prompt_request,
    prompt_text,
    query_int,
    session_query,
    task_request,
)
from scenarist.rest.session import Control, Sessions, iso
from scenarist.rest.store import SessionRow, StoredEvent
from scenarist.scenario.model import Fault
from scenarist.scenario.select import ScenarioIndex, SelectionError

__all__ = ["Options", "RestServer"]

PROMPT_LIMIT = 16 * 1024
_BATCH = 500
#: On shutdown sse-starlette cancels a stream after this; ours end before (``closing``),
#: so each stream finishes its response instead of being cut.
_STREAM_GRACE_S = 0.5
_PING = b": ping\n\n"
#: A chaos fault strikes within this many frames of its stream's start.
_CHAOS_FRAMES = 16
#: How far back a resumed stream looks for the planned event it resumes after.
_LOOK_BACK = 64

Handler = Callable[[Request], Awaitable[Response]]


@dataclass(frozen=True, slots=True)
class Options:
    api_key: str | None = None
    cors: tuple[str, ...] = ()
    heartbeat_s: float = 15.0
    dialect: Dialect = "typed"
    body_limit: int = 1024 * 1024
    rate_per_minute: int = 0  # 0: no limit
    max_sessions: int = MAX_SESSIONS  # sessions this replica plays at once (docs/limits.md)
    version: str = "0"
    chaos: Chaos | None = None  # --chaos (a request's x-scenarist-chaos header overrides it)
    seed: int = 0


@dataclass(frozen=True, slots=True)
class _StreamFaults:
    """What may strike one stream: the scenario's fault points, where the stream starts
    among them (the planned position it resumes after), and a ``--chaos`` fault, which
    strikes after ``chaos_after`` frames of this stream (at least one: a resumed stream
    always gets further)."""

    points: tuple[FaultPoint, ...]
    last_pos: int
    chaos: Fault | None
    chaos_after: int = 1


@dataclass
class RestServer:
    """The app for one replica. ``app`` is the ASGI application."""

    sessions: Sessions
    index: ScenarioIndex[Any]
    options: Options = field(default_factory=Options)
    buckets: dict[str, TokenBucket] = field(default_factory=dict)
    closing: asyncio.Event = field(default_factory=asyncio.Event)
    _closed: asyncio.Future[None] | None = None  # done at close: what streams wait on

    def __post_init__(self) -> None:
        self.fault_points = {name: points for name, plan in self.sessions.plans.items()
                             if (points := fault_points([p.faults for p in plan]))}
        middleware = []
        if self.options.cors:
            middleware.append(Middleware(
                ProblemCORS, allow_origins=list(self.options.cors),
                allow_methods=["GET", "POST", "DELETE", "OPTIONS"],
                allow_headers=["authorization", "content-type", "last-event-id",
                               "idempotency-key", "x-scenario-name", CHAOS_HEADER],
                expose_headers=["retry-after"]))
        self.app = Guard(Starlette(routes=self.routes(), middleware=middleware,
                                   exception_handlers={HTTPException: _http_problem,
                                                       Exception: _internal_problem}))

    async def close(self) -> None:
        """Shutting down: open SSE streams end now (an endless stream must not hold the
        process) and every session stops playing at once."""
        self.closing.set()
        if self._closed is not None and not self._closed.done():
            self._closed.set_result(None)
        await self.sessions.halt()

    @property
    def store(self) -> Any:
        return self.sessions.store

    # -- routing ----------------------------------------------------------------------

    def table(self) -> list[tuple[str, str, Handler, str]]:
        """Every route: (method, path under /api/v1, handler, summary). ``openapi.json`` is
        generated from this same table."""
        s = "/sessions/{id}"
        return [
            ("POST", "/tasks", self.create_task, "create a task: one session per agent × count"),
            ("GET", "/sessions", self.list_sessions, "list sessions (filters, pages)"),
            ("GET", s, self.get_session, "one session"),
            ("DELETE", s, self.delete_session, "terminate and remove a session"),
            ("POST", s + "/stop", self.control("stop"), "stop a session"),
            ("POST", s + "/pause", self.control("pause"), "pause a session's clock"),
            ("POST", s + "/resume", self.control("resume"), "resume a paused session"),
            ("POST", s + "/prompt", self.prompt, "send the session a prompt"),
            ("GET", s + "/events", self.events, "SSE event stream, or JSON history by Accept"),
            ("GET", s + "/logs", self.logs, "the session's log lines"),
            ("GET", s + "/info", self.info, "fleet and endpoints of a session"),
            ("GET", s + "/files", self.files, "files the session modified"),
            ("GET", s + "/files/{path:path}", self.file, "one modified file"),
            ("GET", s + "/diff", self.diff, "unified diffs of modified files"),
            ("GET", s + "/diff/{path:path}", self.file_diff, "unified diff of one file"),
            ("GET", "/agents", self.catalogue("agents"), "agent types"),
            ("GET", "/runtimes", self.catalogue("runtimes"), "runtimes"),
            ("GET", "/executors", self.catalogue("executors"), "execution hosts"),
            ("GET", "/projects", self.catalogue("projects"), "projects"),
            ("GET", "/repos", self.catalogue("repos"), "repositories"),
            ("GET", "/workspaces", self.catalogue("workspaces"), "workspaces"),
            ("GET", "/healthz", self.healthz, "liveness"),
            ("GET", "/readyz", self.readyz, "readiness (the store answers)"),
            ("GET", "/version", self.version, "server version"),
            ("GET", "/openapi.json", self.openapi, "this document"),
        ]

    def routes(self) -> list[Route]:
        grouped: dict[str, dict[str, Handler]] = {}
        for method, path, handler, _ in self.table():
            grouped.setdefault(API + path, {})[method] = handler
        return [Route(path, self._dispatch(by_method), methods=list(by_method))
                for path, by_method in grouped.items()]

    def _dispatch(self, by_method: dict[str, Handler]) -> Handler:
        async def endpoint(request: Request) -> Response:
            try:
                self._check_key(request)
                if request.method == "POST":
                    self._check_rate(request)
                if request.method == "HEAD":  # Starlette routes HEAD wherever GET goes
                    return _headers_only(await by_method["GET"](request))
                return await by_method[request.method](request)
            except Problem as problem:
                return problem_response(problem)
            except SelectionError as exc:
                return problem_response(Problem(404, str(exc), title="No Such Scenario"))
            except ClientDisconnect:  # the client left mid-body: nobody reads an answer
                return problem_response(Problem(400, "the client closed the connection "
                                                "before the body was complete"))
            except Exception as exc:  # a bug of ours: a 500 problem and one log line
                log_internal(request.method, request.url.path, exc)
                return problem_response(_internal(exc))
        return endpoint

    def _check_key(self, request: Request) -> None:
        key = self.options.api_key
        if key is None or request.url.path in (f"{API}/healthz", f"{API}/readyz"):
            return
        scheme, _, token = request.headers.get("authorization", "").partition(" ")
        if scheme.lower() not in ("apikey", "bearer") or not hmac.compare_digest(
                token.strip().encode(), key.encode()):
            raise Problem(401, "send 'Authorization: ApiKey KEY' or 'Authorization: Bearer "
                          "KEY' with the server's --api-key",
                          headers={"www-authenticate": 'ApiKey realm="scenarist"'})

    def _check_rate(self, request: Request) -> None:
        """A token bucket per client address for POSTs (``--rate-limit`` per minute)."""
        rate = self.options.rate_per_minute
        if rate <= 0:
            return
        who = request.client.host if request.client else "unknown"
        bucket = self.buckets.get(who)
        if bucket is None:
            bucket = self.buckets[who] = TokenBucket(rate / 60, rate, self._clock_s)
        wait = bucket.take()
        if wait > 0:
            wait_s = max(1, math.ceil(wait))
            raise Problem(429, f"more than {rate} POST requests per minute from {who}; "
                          f"retry after {wait_s} s", headers={"retry-after": str(wait_s)})

    def _clock_s(self) -> float:
        return self.sessions.clock.now_ms() / 1000

    # -- helpers ----------------------------------------------------------------------

    async def _body(self, request: Request, limit: int) -> Any:
        declared = request.headers.get("content-length")
        if declared is not None and declared.isascii() and declared.isdigit() \
                and int(declared) > limit:
            raise Problem(413, f"the body is {declared} bytes; the limit is {limit}")
        chunks, size = [], 0
        async for chunk in request.stream():
            size += len(chunk)
            if size > limit:
                raise Problem(413, f"the body is over the limit of {limit} bytes")
            chunks.append(chunk)
        kind = request.headers.get("content-type", "application/json").split(";")[0].strip()
        if kind not in ("application/json", "") and not kind.endswith("+json"):
            raise Problem(415, f"send the body as application/json, not {kind}")
        return parse_json(b"".join(chunks))

    async def _row(self, request: Request) -> SessionRow:
        sid = request.path_params["id"]
        row: SessionRow | None = await self.store.get(sid)
        if row is None:
            raise Problem(404, f"no session {sid!r}; list them with GET {API}/sessions",
                          title="Session Not Found")
        return row

    async def _history(self, sid: str) -> list[StoredEvent]:
        found: list[StoredEvent] = []
        while batch := await self.store.events(sid, found[-1].seq if found else 0, 5000):
            found += batch
        return found

    async def _changes(self, sid: str) -> list[dict[str, Any]]:
        return file_changes(e.body for e in await self._history(sid))

    async def _session_json(self, row: SessionRow) -> dict[str, Any]:
        last = await self.store.last_seq(row.id)
        recent = await self.store.events(row.id, max(0, last - 3), 3)
        changes = await self._changes(row.id) if row.status in FINAL_STATUSES else []
        return session_json(row, [e.body for e in recent], changes)

    # -- tasks and sessions ----------------------------------------------------------------

    async def create_task(self, request: Request) -> Response:
        task = task_request(await self._body(request, self.options.body_limit))
        name = request.headers.get("x-scenario-name")
        by_prompt = None if name or len(self.index) == 1 else (task.text or None)
        chosen = self.index.select(name=name, prompt=by_prompt)  # a lone scenario always plays
        self._check_capacity(len(task.agents))
        rows = [await self.sessions.create(chosen.name, {**task.fields, "prompt": task.prompt,
                                                          "agent": agent})
                for agent in task.agents]
        ids = [row.id for row in rows]
        first = links(ids[0])
        return JSONResponse({"session_ids": ids, "status": "queued", "scenario": chosen.name,
                             "links": first}, 201, headers={"location": first["self"]})

    def _check_capacity(self, wanted: int) -> None:
        """At most ``max_sessions`` sessions play here at once: a task that would pass it
        is refused whole (429), before any of its sessions starts."""
        limit, playing = self.options.max_sessions, len(self.sessions.runners)
        if playing + wanted > limit:
            raise Problem(429, f"this server plays {playing} sessions and the task asks for "
                          f"{wanted} more; the limit is {limit} (--max-sessions); retry when "
                          "some have finished, or stop or delete some",
                          headers={"retry-after": "5"}, title="Too Many Sessions")

    async def list_sessions(self, request: Request) -> Response:
        q = session_query(request.query_params)
        rows = [r for r in await self.store.rows()
                if (r.status not in FINAL_STATUSES or r.merged)
                and (not q.statuses or r.status in q.statuses)
                and (q.agent is None or (r.task.get("agent") or {}).get("type") == q.agent)
                and (q.project is None or r.task.get("projectId") == q.project)]
        start = (q.page - 1) * q.per_page
        items = [await self._session_json(r) for r in rows[start:start + q.per_page]]
        return JSONResponse(page_json(items, len(rows), q.page, q.per_page))

    async def get_session(self, request: Request) -> Response:
        return JSONResponse(await self._session_json(await self._row(request)))

    async def delete_session(self, request: Request) -> Response:
        row = await self._row(request)
        await self.sessions.delete(row.id)
        return Response(status_code=204)

    def control(self, action: Control) -> Handler:
        async def handler(request: Request) -> Response:
            row = await self._row(request)
            _check_live(row, action)
            if action == "pause" and row.paused_ms is not None:
                raise Problem(409, f"session {row.id} is already paused")
            if action == "resume" and row.paused_ms is None:
                raise Problem(409, f"session {row.id} is not paused; pause it first")
            await self.sessions.control(row, action)
            row = await self._row(request)
            return JSONResponse({"id": row.id, "status": row.status, "accepted": True}, 202)
        return handler

    async def prompt(self, request: Request) -> Response:
        row = await self._row(request)
        blocks = prompt_request(await self._body(request, PROMPT_LIMIT))
        _check_live(row, "prompt")
        if row.paused_ms is not None:
            raise Problem(409, f"session {row.id} is paused; resume it before prompting")
        await self.sessions.prompt(row, prompt_text(blocks))
        return JSONResponse({"sessionId": row.id, "accepted": True,
                             "ts": iso(self.sessions.wall.now())}, 202)

    # -- events -----------------------------------------------------------------------

    async def events(self, request: Request) -> Response:
        row = await self._row(request)
        q = event_query(request.query_params, request.headers.get("last-event-id"),
                        self.options.dialect)
        if "text/event-stream" not in request.headers.get("accept", ""):
            return await self._event_page(row, q.types, q.since, q.until, q.page, q.per_page,
                                          q.descending, q.dialect)
        last = await self.store.last_seq(row.id)
        if row.status in FINAL_STATUSES and q.since >= last:
            return Response(status_code=204)  # nothing more will come: EventSource stops
        if q.since > last:
            raise Problem(400, f"Last-Event-ID {q.since} is past the session's last event "
                          f"({last}); reconnect without it to read from the start",
                          errors={"Last-Event-ID": [f"must be at most {last}"]})
        faults = await self._faults(row, q.since, self._chaos(request))
        if faults is None:
            body = self._stream(row.id, q.since, q.dialect)
        else:
            await self._connect_faults(row.id, faults)
            cut = request.scope.get("extensions", {}).get(CUT)
            body = self._stream(row.id, q.since, q.dialect, faults, cut)
        return EventSourceResponse(body, ping=0, sep="\n",
                                   shutdown_grace_period=_STREAM_GRACE_S,
                                   headers={"cache-control": "no-store",
                                            "x-accel-buffering": "no"})

    def _chaos(self, request: Request) -> Chaos | None:
        header = request.headers.get(CHAOS_HEADER)
        if header is None:
            return self.options.chaos
        try:
            return parse_chaos(header, self.options.seed, CHANNELS["rest"].timeline)
        except ChaosError as exc:
            raise Problem(400, f"{CHAOS_HEADER}: {exc}",
                          errors={CHAOS_HEADER: ["must be RATE[:kind,kind]"]}) from None

    async def _faults(self, row: SessionRow, after: int,
                      chaos_of: Chaos | None) -> _StreamFaults | None:
        """What may strike a stream of ``row`` after ``after`` (None: nothing, the plain
        path). A chaos decision depends on the scenario, the position and how many
        requests resumed there before (a retry decides anew), so the same seed cuts the
        same streams whatever the session's random id."""
        points = self.fault_points.get(row.scenario, ())
        chaos = None
        if chaos_of is not None:
            tries = await self.store.strike(row.id, f"chaos after {after}")
            chaos = chaos_fault(chaos_of, f"rest {row.scenario} after {after} try {tries}"
                                .encode(), _CHAOS_FRAMES)
        if not points and chaos is None:
            return None
        last_pos = await self._pos_at(row.id, after) if points else -1
        after_frames = max(1, chaos.after_events or 1) if chaos is not None else 1
        return _StreamFaults(points, last_pos, chaos, after_frames)

    async def _pos_at(self, sid: str, seq: int) -> int:
        """The planned position of the last planned event at or before ``seq`` (-1: none):
        a stream resuming after ``seq`` has passed the fault points up to it."""
        while seq > 0:
            start = max(0, seq - _LOOK_BACK)
            found: list[int] = [e.pos for e in await self.store.events(sid, start, seq - start)]
            if any(pos >= 0 for pos in found):
                return max(found)
            seq = start
        return -1

    async def _connect_faults(self, sid: str, faults: _StreamFaults) -> None:
        """``slowFirstByte`` and ``httpStatus``: they strike a stream request that starts
        before their place (a ``--chaos`` one: this request)."""
        due = [f for f in faults.points if f.fault.kind in CONNECT_KINDS
               and faults.last_pos < f.pos and await self._strikes(sid, f)]
        chosen = [p.fault for p in due]
        if faults.chaos is not None and faults.chaos.kind in CONNECT_KINDS:
            chosen.append(faults.chaos)
        for fault in chosen:
            if fault.kind == "slowFirstByte":
                await self._pause(fault.ms)
            else:
                retry = fault.retry_after_seconds
                raise Problem(fault.status_code, fault.message or "the scenario's fault: "
                              f"this stream request is answered {fault.status_code}; "
                              "retry it", title="Scenario Fault",
                              headers={} if retry is None else
                              {"retry-after": str(max(0, math.ceil(retry)))})

    async def _strikes(self, sid: str, point: FaultPoint) -> bool:
        """Whether ``point`` strikes this stream: its first ``times`` strikes, counted by
        the store across streams and replicas (``fragment`` always: it is a mode)."""
        if point.fault.kind == "fragment":
            return True
        strikes: int = await self.store.strike(sid, point.key)
        return strikes <= point.fault.times

    async def _pause(self, ms: int) -> None:
        """A fault's silence of ``ms`` scenario milliseconds, at the server's speed."""
        await Schedule(self.sessions.clock, speed=self.sessions.speed).wait(ms)

    async def _stream(self, sid: str, after: int, dialect: Dialect,
                      faults: _StreamFaults | None = None,
                      cut: Callable[[], None] | None = None) -> AsyncIterator[bytes]:
        """The frames after ``after``, read from the store; each batch read is written at
        once (one send for a catch-up of 500 events, not 500). A failure ends the stream
        with a log line (the client reconnects with ``Last-Event-ID``)."""
        try:
            frames = self._frames(sid, after, dialect) if faults is None else \
                self._faulted(sid, after, dialect, faults, cut)
            async for chunk in frames:
                yield chunk
        except Exception as exc:  # a store failure mid-stream: no traceback, the stream ends
            log_internal("GET", f"{API}/sessions/{sid}/events (stream)", exc)

    async def _batches(self, sid: str, after: int) -> AsyncIterator[list[StoredEvent]]:
        """The stored events after ``after`` as they come, up to the session's final
        status; an empty batch when a heartbeat is due (``--heartbeat`` s of silence)."""
        clock, beat_ms = self.sessions.clock, self.options.heartbeat_s * 1000
        last, quiet, spoke = after, False, clock.now_ms()
        while not self.closing.is_set():
            batch = await self.store.events(sid, last, _BATCH)
            if batch:
                end = next((n + 1 for n, e in enumerate(batch)
                            if '"status"' in e.data and is_final(e.body)), None)
                yield batch[:end]
                if end is not None:
                    return
                last, quiet, spoke = batch[-1].seq, False, clock.now_ms()
                continue
            if quiet and await self.store.get(sid) is None:  # woken, yet nothing: deleted?
                return
            await self._wait(sid, last, max(0.001, (spoke + beat_ms - clock.now_ms()) / 1000))
            quiet = True
            if clock.now_ms() - spoke >= beat_ms:
                yield []
                spoke = clock.now_ms()

    async def _frames(self, sid: str, after: int, dialect: Dialect) -> AsyncIterator[bytes]:
        async for batch in self._batches(sid, after):
            frames = [f.encode() for e in batch if (f := _frame(e, sid, dialect)) is not None]
            if frames or not batch:
                yield b"".join(frames) or _PING

    async def _faulted(self, sid: str, after: int, dialect: Dialect, faults: _StreamFaults,
                       cut: Callable[[], None] | None) -> AsyncIterator[bytes]:
        """:meth:`_frames` through a :class:`Delivery`: the fault points this stream reaches
        are armed as it reaches them (a ``fragment`` it resumed past, at once), and the
        actions it returns are carried out by :meth:`_carry_out`."""
        delivery, last_pos, sent = Delivery(), faults.last_pos, 0
        for point in faults.points:
            if point.fault.kind == "fragment" and point.pos <= last_pos:
                delivery.arm(point.fault)
        async for batch in self._batches(sid, after):
            if not batch:
                yield _PING
            actions: list[Action] = []
            for event in batch:
                if delivery.done:  # cut or ended: the stream reaches nothing further
                    break
                for point in faults.points:
                    if last_pos < point.pos <= event.pos and point.fault.kind not in \
                            CONNECT_KINDS and await self._strikes(sid, point):
                        delivery.arm(point.fault, point.fault.after_bytes)
                last_pos = max(last_pos, event.pos)
                frame = _frame(event, sid, dialect)
                chaos = faults.chaos
                if frame is not None and chaos is not None and sent == faults.chaos_after \
                        and chaos.kind not in CONNECT_KINDS:
                    delivery.arm(chaos, chaos.after_bytes)
                sent += frame is not None
                actions += delivery.feed(Outgoing(
                    event.seq, None if frame is None else frame.encode(), is_final(event.body)))
            async for chunk in self._carry_out(actions, delivery.piece is not None, cut):
                yield chunk
            if delivery.done:
                return

    async def _carry_out(self, actions: list[Action], pieces: bool,
                         cut: Callable[[], None] | None) -> AsyncIterator[bytes]:
        """Write, pause, cut or end as ``actions`` say; consecutive writes go out as one
        send unless the stream is fragmenting. A cut without the protocol's extension (not
        under uvicorn) ends the response instead."""
        out: list[bytes] = []
        for action in actions:
            if isinstance(action, Write):
                out.append(action.data)
                if pieces:
                    yield b"".join(out)
                    out.clear()
                continue
            if out:
                yield b"".join(out)
                out.clear()
            if isinstance(action, Pause):
                await self._pause(action.ms)
            elif isinstance(action, Close) and cut is not None:
                cut()
        if out:
            yield b"".join(out)

    async def _wait(self, sid: str, last: int, timeout_s: float) -> None:
        """Wait for the store to report news of ``sid``, for ``timeout_s``, or for the
        server to close."""
        if self._closed is None:
            self._closed = asyncio.get_running_loop().create_future()
        news = asyncio.ensure_future(self.store.wait(sid, last, timeout_s))
        try:
            await asyncio.wait((news, self._closed), return_when=asyncio.FIRST_COMPLETED)
        finally:
            news.cancel()

    async def _event_page(self, row: SessionRow, types: Sequence[str], since: int,
                          until: int | None, page: int, per_page: int, descending: bool,
                          dialect: Dialect) -> Response:
        items = []
        for event in await self._history(row.id):
            body = event.body
            if event.seq <= since or (until is not None and event.seq > until) or (
                    types and body.get("type") not in types):
                continue
            if dialect == "webui":
                named = webui_event(body, row.id)
                if named is None:
                    continue
                body = {"event": named[0], **named[1]}
            items.append({"id": event.seq, **body})
        if descending:
            items.reverse()
        start = (page - 1) * per_page
        return JSONResponse(page_json(items[start:start + per_page], len(items), page,
                                      per_page))

    async def logs(self, request: Request) -> Response:
        row = await self._row(request)
        tail = query_int(request.query_params, "tail", -1, 0, 1_000_000)
        items = [{"level": b["level"], "message": b["message"], "ts": b["ts"],
                  "tool_execution_id": b.get("tool_execution_id")}
                 for b in (e.body for e in await self._history(row.id)) if b["type"] == "log"]
        if tail >= 0:
            items = items[-tail:] if tail else []
        return JSONResponse({"items": items, "total": len(items)})

    async def info(self, request: Request) -> Response:
        row = await self._row(request)
        holder = "this replica" if row.id in self.sessions.runners else None
        return JSONResponse({
            "id": row.id, "status": row.status, "scenario": row.scenario,
            "fleet": {"leader": self.sessions.replica if holder else None, "followers": []},
            "endpoints": {"events": links(row.id)["events"]}})

    async def files(self, request: Request) -> Response:
        changes = await self._changes((await self._row(request)).id)
        return JSONResponse({"items": [public(c) for c in changes], "total": len(changes)})

    async def _change(self, request: Request) -> dict[str, Any]:
        path = request.path_params["path"]
        for change in await self._changes((await self._row(request)).id):
            if change["path"] == path:
                return change
        raise Problem(404, f"the session has not modified {path!r}; see its /files")

    async def file(self, request: Request) -> Response:
        return JSONResponse(public(await self._change(request)))

    async def file_diff(self, request: Request) -> Response:
        return JSONResponse(diff_json(await self._change(request), _context(request)))

    async def diff(self, request: Request) -> Response:
        changes = await self._changes((await self._row(request)).id)
        context = _context(request)  # checked even when there is nothing to diff yet
        wanted = [p for p in request.query_params.get("files", "").split(",") if p]
        if wanted:
            changes = [c for c in changes if c["path"] in wanted]
        items = [diff_json(c, context) for c in changes]
        return JSONResponse({"items": items, "total": len(items)})

    # -- catalogues and service ---------------------------------------------------------

    def catalogue(self, name: str) -> Handler:
        async def handler(request: Request) -> Response:
            items = _CATALOGUES[name]
            return JSONResponse({"items": items, "total": len(items)})
        return handler

    async def healthz(self, request: Request) -> Response:
        return JSONResponse({"status": "ok", "timestamp": iso(self.sessions.wall.now())})

    async def readyz(self, request: Request) -> Response:
        try:
            await self.store.last_seq("readyz")
        except Exception as exc:  # any store failure means not ready
            raise Problem(503, f"the store ({self.store.url}) does not answer: {exc}",
                          title="Not Ready") from None
        return JSONResponse({"status": "ready", "store": self.store.url.split("@")[-1],
                             "scenarios": len(self.index)})

    async def version(self, request: Request) -> Response:
        return JSONResponse({"version": self.options.version,
                             "build_info": {"git_commit": None, "build_date": None},
                             "server": "scenarist rest"})

    async def openapi(self, request: Request) -> Response:
        from scenarist.rest.openapi import openapi_document

        doc = openapi_document([(m, API + p, s) for m, p, _, s in self.table()],
                               self.options.version, api_key=self.options.api_key is not None)
        return Response(dump_bytes(doc), media_type="application/json")


def _context(request: Request) -> int:
    return query_int(request.query_params, "context", 3, 0, 10_000)


def _headers_only(response: Response) -> Response:
    """A GET's answer without its body, for HEAD: a stream is not started at all."""
    if not isinstance(response, StreamingResponse):
        return response  # uvicorn sends no body for HEAD
    headers = {k: v for k, v in response.headers.items() if k != "content-length"}
    return Response(status_code=response.status_code, headers=headers)


def _check_live(row: SessionRow, action: str) -> None:
    if row.status in FINAL_STATUSES:
        raise Problem(410, f"session {row.id} is {row.status}; it cannot {action} any more")


def _frame(event: StoredEvent, sid: str, dialect: Dialect) -> ServerSentEvent | None:
    if dialect == "typed":
        return ServerSentEvent(data=event.data, id=str(event.seq), sep="\n")
    named = webui_event(event.body, sid)
    if named is None:
        return None
    return ServerSentEvent(data=dump_bytes(named[1]).decode(), event=named[0],
                           id=str(event.seq), sep="\n")


async def _http_problem(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    if exc.status_code == 404:
        detail = f"no route {request.url.path}; the API lives under {API} (see {API}/openapi.json)"
    elif exc.status_code == 405:
        detail = f"{request.method} is not allowed on {request.url.path}"
    else:
        detail = str(exc.detail)
    return problem_response(Problem(exc.status_code, detail, headers=exc.headers))


async def _internal_problem(request: Request, exc: Exception) -> Response:
    return problem_response(_internal(exc))


def _internal(exc: Exception) -> Problem:
    return Problem(500, f"internal error: {type(exc).__name__}: {exc}")


_CATALOGUES: dict[str, list[dict[str, Any]]] = {
    "agents": [{"type": "mock", "versions": ["scenario"], "settingsSchemaRef": None},
               {"type": "claude-code", "versions": ["latest"], "settingsSchemaRef": None},
               {"type": "codex", "versions": ["latest"], "settingsSchemaRef": None}],
    "runtimes": [{"type": "local", "images": [], "paths": [], "sandboxProfiles": ["default"]},
                 {"type": "devcontainer", "images": ["mcr.microsoft.com/devcontainers/base"],
                  "paths": [".devcontainer/devcontainer.json"], "sandboxProfiles": []},
                 {"type": "disabled", "images": [], "paths": [], "sandboxProfiles": []}],
    "executors": [{"id": "local", "os": "linux", "arch": "x86_64",
                   "snapshotCapabilities": ["git"], "health": "ok"}],
    "projects": [{"id": "default", "displayName": "Default project"}],
    "repos": [{"id": "example", "displayName": "example", "scmProvider": "git",
               "remoteUrl": "https://example.invalid/example.git", "defaultBranch": "main",
               "lastUsedAt": None}],
    "workspaces": [],
}
