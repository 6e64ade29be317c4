"""``FakeModel``: answers each call from a script, in-process, with exact control of every event.

The request is never consulted for the answer, only recorded (``model.requests``). Which
script answers is decided by the model's :class:`Cursor` — its own unless one is shared on
purpose — so two models with equal scripts never interfere.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from scenarist import wire
from scenarist.fake.events import (
    TRANSIENT,
    ErrorEvent,
    FakeEvent,
    FakeModelError,
    MessageCompleted,
    MessageStarted,
    TextDelta,
    ToolCallCompleted,
    ToolCallDelta,
    ToolCallStarted,
    script_exhausted_error,
)
from scenarist.fake.interpret import Raise, Step, preflight, steps, timed_steps
from scenarist.fake.script import Entry, FinishReason, Ok, ToolKind, UsageEntry, calls_of
from scenarist.fake.stream import AsyncStream, Stream
from scenarist.play.clock import Clock, RealClock
from scenarist.play.pacing import Schedule, pace, pace_sync

if TYPE_CHECKING:
    import anthropic
    import openai
    from google import genai

    from scenarist.fake.http import ASGIApp, Target

EntryPoint = Literal["generate", "stream"]
BASE_URL = "http://fake-model.local"


class Cursor:
    """Which call of a script list comes next. Thread- and task-safe; share one on purpose."""

    def __init__(self) -> None:
        self._index = 0
        self._lock = threading.Lock()

    @property
    def index(self) -> int:
        """How many calls have been answered from a script so far."""
        return self._index

    def take(self, limit: int) -> int | None:
        """The next index below ``limit`` (and advance), or ``None`` when all are used."""
        with self._lock:
            if self._index >= limit:
                return None
            index = self._index
            self._index += 1
            return index

    def __repr__(self) -> str:
        return f"Cursor(index={self._index})"


@dataclass(frozen=True, slots=True)
class ToolCallResult:
    id: str
    name: str
    raw_arguments: str
    arguments: dict[str, Any] | None = None
    kind: ToolKind = "function"


@dataclass(frozen=True, slots=True)
class Response:
    """What ``generate`` returns: the scripted answer folded into one value."""

    output_text: str
    tool_calls: tuple[ToolCallResult, ...] = ()
    finish_reason: FinishReason = "stop"
    usage: dict[str, int] = field(default_factory=dict)
    request_id: str | None = None
    model: str = "fake-model"


class FakeModel:
    """A scripted model. ``script=`` answers one call, ``scripts=`` one inner list per call,
    ``stream_scripts=`` streaming calls only. Precedence: ``generate`` uses ``scripts`` then
    ``script``; ``stream`` uses ``stream_scripts``, then ``scripts``, then ``script``.

    ``cursor`` counts the calls answered from ``scripts``/``script``; ``stream_cursor`` those
    from ``stream_scripts`` (the same object when there are none, or when ``cursor=`` shares
    one Cursor on purpose). HTTP requests use the stream precedence when ``"stream": true``.
    """

    def __init__(self, *, script: Sequence[Entry] | None = None,
                 scripts: Sequence[Sequence[Entry]] | None = None,
                 stream_scripts: Sequence[Sequence[Entry]] | None = None,
                 cursor: Cursor | None = None, on_close: Callable[[], None] | None = None,
                 retry_until_call: int | None = None, request_id: str | None = None,
                 model: str = "fake-model", clock: Clock | None = None) -> None:
        if script is not None and scripts is not None:
            raise ValueError("FakeModel: give script= (one call) or scripts= (one list per "
                             "call), not both")
        if retry_until_call is not None and retry_until_call < 1:
            raise ValueError(f"retry_until_call must be >= 1, got {retry_until_call}")
        self._script = calls_of("script", script, False) if script is not None else None
        self._scripts = calls_of("scripts", scripts, True) if scripts is not None else None
        self._stream_scripts = (calls_of("stream_scripts", stream_scripts, True)
                                if stream_scripts is not None else None)
        self.cursor = cursor if cursor is not None else Cursor()
        # stream_scripts is its own list, so it has its own cursor unless one is shared.
        self.stream_cursor = (cursor if cursor is not None
                              else Cursor() if stream_scripts is not None else self.cursor)
        self.on_close = on_close
        self.retry_until_call = retry_until_call
        self.request_id = request_id
        self.model = model
        self.clock: Clock = clock if clock is not None else RealClock()
        self.requests: list[Any] = []
        self._attempts = 0
        self._lock = threading.Lock()

    # --- which entries answer a call ------------------------------------------------------

    def _calls_for(self, entry_point: EntryPoint) -> tuple[list[list[Entry]] | None, Cursor]:
        if entry_point == "stream" and self._stream_scripts is not None:
            return self._stream_scripts, self.stream_cursor
        return (self._scripts if self._scripts is not None else self._script), self.cursor

    def _begin(self, entry_point: EntryPoint, request: Any) -> tuple[int, list[Entry]]:
        """Record the request and pick the call's entries; raise the call's early failure."""
        with self._lock:
            self.requests.append(request)
            attempt = self._attempts
            self._attempts += 1
        if self.retry_until_call is not None and attempt < self.retry_until_call - 1:
            raise FakeModelError(TRANSIENT, f"transient failure on call {attempt + 1} "
                                 f"(retry_until_call={self.retry_until_call})")
        calls, cursor = self._calls_for(entry_point)
        index = cursor.take(len(calls)) if calls is not None else None
        if calls is None or index is None:
            raise script_exhausted_error()
        entries = calls[index]
        error = preflight(entries)
        if error is not None:
            raise error
        return attempt, entries

    def _steps(self, entries: list[Entry]) -> Iterator[Step]:
        return steps(entries, request_id=self.request_id, model=self.model)

    def _timed(self, entries: list[Entry]) -> Iterator[tuple[float, FakeEvent | Raise]]:
        return timed_steps(self._steps(entries))

    # --- entry points ---------------------------------------------------------------------

    def generate(self, request: Any = None, **kw: Any) -> Response:
        """Answer one call at once. Scripted failures and exhaustion raise FakeModelError."""
        _, entries = self._begin("generate", _recorded(request, kw))
        return self._fold(pace_sync(self._timed(entries), Schedule(self.clock), at=_at))

    async def agenerate(self, request: Any = None, **kw: Any) -> Response:
        """:meth:`generate` for async code (delays don't block the event loop)."""
        _, entries = self._begin("generate", _recorded(request, kw))
        paced = pace(self._timed(entries), Schedule(self.clock), at=_at)
        return self._fold(iter([timed async for timed in paced]))

    def stream(self, request: Any = None, **kw: Any) -> Stream[FakeEvent]:
        """A lazy iterator of events. Preflight/transient failures raise here; an exhausted
        script gives a stream whose one event is the ``no_scripted_response`` error."""
        return Stream(self._stream_steps(request, kw), self.clock, self.on_close)

    def astream(self, request: Any = None, **kw: Any) -> AsyncStream[FakeEvent]:
        """:meth:`stream` as an async iterator."""
        return AsyncStream(self._stream_steps(request, kw), self.clock, self.on_close)

    def _stream_steps(self, request: Any, kw: Mapping[str, Any]) -> Iterator[Step]:
        try:
            _, entries = self._begin("stream", _recorded(request, kw))
        except FakeModelError as exc:
            if exc.reason != "no_scripted_response":
                raise
            return iter((ErrorEvent(exc),))
        return self._steps(entries)

    def _fold(self, timed: Iterator[tuple[float, FakeEvent | Raise]]) -> Response:
        text: list[str] = []
        calls: list[ToolCallResult] = []
        finish: MessageCompleted | None = None
        for _, step in timed:
            if isinstance(step, Raise | ErrorEvent):
                raise step.error
            if isinstance(step, TextDelta):
                text.append(step.delta)
            elif isinstance(step, ToolCallCompleted):
                calls.append(ToolCallResult(step.id, step.name, step.raw_arguments,
                                            step.arguments, step.kind))
            elif isinstance(step, MessageCompleted):
                finish = step
        assert finish is not None
        return Response("".join(text), tuple(calls), finish.finish_reason, finish.usage,
                        self.request_id, self.model)

    # --- served over HTTP, in-process -----------------------------------------------------

    def serve(self, api: wire.WireApi, body: dict[str, Any], target: Target | None = None
              ) -> Stream[wire.WireEvent]:
        """The neutral wire events answering one HTTP request (the transports' source);
        ``target`` is what the path asks (Gemini names the model and streaming there)."""
        streamed = target.stream if target is not None else wire.wants_stream(body)
        entry_point: EntryPoint = "stream" if streamed else "generate"
        model = (target.model if target is not None and target.model
                 else wire.requested_model(body, self.model))
        try:
            attempt, entries = self._begin(entry_point, body)
        except FakeModelError as exc:
            return Stream(iter([_wire_error(exc)]), self.clock, self.on_close)
        message_id = self.request_id or f"fake{attempt}"
        events = _to_wire(self._steps(entries), message_id, model, _input_tokens(entries))
        return Stream(events, self.clock, self.on_close)

    def transport(self, *, asynchronous: bool = False, sdk: str = "openai") -> Any:
        """An httpx(2) transport answering from this model (for your own ``http_client``)."""
        from scenarist.fake.http import http_module, transport

        return transport(self.serve, asynchronous=asynchronous, clock=self.clock,
                         module=http_module(sdk))

    def openai_client(self, **kw: Any) -> openai.OpenAI:
        """The official ``openai.OpenAI``, answered in-process (Chat Completions + Responses)."""
        import openai

        from scenarist.fake.http import http_module

        client = http_module("openai").Client(transport=self.transport(sdk="openai"))
        kw.setdefault("api_key", "sk-fake")
        kw.setdefault("base_url", f"{BASE_URL}/v1")
        return openai.OpenAI(http_client=client, **kw)

    def async_openai_client(self, **kw: Any) -> openai.AsyncOpenAI:
        import openai

        from scenarist.fake.http import http_module

        client = http_module("openai").AsyncClient(
            transport=self.transport(asynchronous=True, sdk="openai"))
        kw.setdefault("api_key", "sk-fake")
        kw.setdefault("base_url", f"{BASE_URL}/v1")
        return openai.AsyncOpenAI(http_client=client, **kw)

    def anthropic_client(self, **kw: Any) -> anthropic.Anthropic:
        """The official ``anthropic.Anthropic``, answered in-process (Messages)."""
        import anthropic

        from scenarist.fake.http import http_module

        client = http_module("anthropic").Client(transport=self.transport(sdk="anthropic"))
        kw.setdefault("api_key", "sk-fake")
        kw.setdefault("base_url", BASE_URL)
        return anthropic.Anthropic(http_client=client, **kw)

    def async_anthropic_client(self, **kw: Any) -> anthropic.AsyncAnthropic:
        import anthropic

        from scenarist.fake.http import http_module

        client = http_module("anthropic").AsyncClient(
            transport=self.transport(asynchronous=True, sdk="anthropic"))
        kw.setdefault("api_key", "sk-fake")
        kw.setdefault("base_url", BASE_URL)
        return anthropic.AsyncAnthropic(http_client=client, **kw)

    def google_client(self, **kw: Any) -> genai.Client:
        """The official ``google.genai.Client`` (sync, and ``.aio``), answered in-process
        (the Gemini API: ``generate_content`` and ``generate_content_stream``)."""
        import httpx
        from google import genai
        from google.genai import types

        from scenarist.fake.http import transport

        def answered(asynchronous: bool) -> Any:  # google-genai takes httpx's own clients
            return transport(self.serve, asynchronous=asynchronous, clock=self.clock)

        options = kw.pop("http_options", None) or types.HttpOptions()
        options = options.model_copy(update={
            "base_url": options.base_url or BASE_URL,
            "httpx_client": httpx.Client(transport=answered(False)),
            "httpx_async_client": httpx.AsyncClient(transport=answered(True))})
        kw.setdefault("api_key", "fake-key")
        return genai.Client(http_options=options, **kw)

    def asgi_app(self) -> ASGIApp:
        """The same answers as an ASGI app (routes ``/v1/chat/completions``, ``/v1/responses``,
        ``/v1/messages``), for frameworks that want a base URL."""
        from scenarist.fake.http import asgi_app

        return asgi_app(self.serve, clock=self.clock)


def _recorded(request: Any, kw: Mapping[str, Any]) -> Any:
    """What ``model.requests`` shows for a call: the request, the keywords, or both."""
    if not kw:
        return request
    return dict(kw) if request is None else {"request": request, **kw}


def _wire_error(exc: FakeModelError) -> wire.Error:
    kind = exc.details.get("type")
    return wire.Error(exc.message, kind if isinstance(kind, str) else None, exc.status,
                      exc.reason)


def _input_tokens(entries: list[Entry]) -> int:
    total = 0
    for entry in entries:
        counts: Mapping[str, Any] = {}
        if isinstance(entry, UsageEntry):
            counts = entry.counts
        elif isinstance(entry, Ok):
            counts = entry.result.get("usage") or {}
        total += int(counts.get("input_tokens", counts.get("prompt_tokens", 0)))
    return total


def wire_usage(counts: Mapping[str, int]) -> wire.Usage:
    """Script usage counts (either vocabulary) as wire usage."""
    return wire.Usage(
        counts.get("input_tokens", counts.get("prompt_tokens", 0)),
        counts.get("output_tokens", counts.get("completion_tokens", 0)),
        counts.get("cached_input_tokens", counts.get("cache_read_input_tokens", 0)),
        counts.get("reasoning_tokens", 0))


def _at(timed: tuple[float, Any]) -> float:
    return timed[0]


def _to_wire(it: Iterator[Step], message_id: str, model: str, input_tokens: int
             ) -> Iterator[wire.WireEvent]:
    """A call's steps as neutral wire events; delays become ``at_ms`` for the transport."""
    for at, step in timed_steps(it):
        ms = int(at)
        if isinstance(step, Raise):
            raise step.error
        elif isinstance(step, MessageStarted):
            yield wire.MessageStart(message_id, model, input_tokens, ms)
        elif isinstance(step, TextDelta):
            yield wire.TextDelta(step.delta, ms)
        elif isinstance(step, ToolCallStarted):
            yield wire.ToolCallStart(step.id, step.name, step.kind, ms)
        elif isinstance(step, ToolCallDelta):
            yield wire.ToolCallDelta(step.id, step.delta, ms)
        elif isinstance(step, ToolCallCompleted):
            yield wire.ToolCallEnd(step.id, ms)
        elif isinstance(step, MessageCompleted):
            yield wire.Finish(step.finish_reason, wire_usage(step.usage), ms)
        elif isinstance(step, ErrorEvent):
            error = _wire_error(step.error)
            yield wire.Error(error.message, error.type, error.status, error.code, ms)
