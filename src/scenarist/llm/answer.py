"""The model API's answer to one request: request in, a rejection or an encoded answer out.

:meth:`Answerer.answer` is a chain of small named steps — read the body, select the scenario,
locate the position, check the asserts due before it, answer a scripted error, render and
encode, check ``--strict`` — each of which either moves on or rejects. It keeps no state:
which scripted errors a conversation was already answered with comes in as a predicate, and
a scripted error's key goes out on the :class:`Rejection` for the caller to remember.

It does no I/O but what the asserts and edits read through the workspace boundary
(:mod:`scenarist.llm.workspace`), and it never waits: the answer carries the unscaled
``at_ms`` of each stream batch (or when a non-streamed answer is due) for the server to pace.
The server (:mod:`scenarist.llm.server`) keeps the socket, the journal and the clock.

Encoded answers of turns that read no files are memoised (:class:`Memo`) around the pure
render step, once per answer *shape* (everything that reaches it but the conversation's ids,
``created`` and the input size) as a template filled with each request's values
(:mod:`scenarist.llm.template`); :class:`RequestMemo` gives a request seen before its answer
again when that answer depended on the request alone.

The records made afresh for every request (:class:`ModelRequest`, :class:`Rendering`,
:class:`Answer`, :class:`Rejection`, :class:`Encoded`, and the same in the modules this one
calls) are ``NamedTuple``s rather than frozen dataclasses: on CPython 3.11 a frozen
dataclass sets each field through ``object.__setattr__``, which made them cost about a quarter
of a memoised answer (measured: 7 fields, 6.0 µs frozen vs 2.1 µs as a NamedTuple on the
shared test machine); they stay immutable. Measured again under agent-shaped traffic (issue
28: the 800 requests of bench/bench_llm_agent_traffic.py answered in-process): with every
llm record a frozen dataclass an answer took 247-263 µs streamed and 167-174 µs not, against
228-235 and 144-162 µs as NamedTuples, so they stay.
"""

# Annotations are not postponed here: see "Records" in docs/architecture.md.
import hashlib
import json
import os
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any, Literal, NamedTuple

import orjson

from scenarist.errors import WireError
from scenarist.llm.checks import Result, failures, run_check
from scenarist.llm.code_mode import WAIT
from scenarist.llm.continuation import (
    ContinuationError,
    ThreadFields,
    previous_ref,
    response_not_found,
    thread_not_found,
)
from scenarist.llm.conversation import (
    Api,
    Conversation,
    Profile,
    RequestError,
    ToolDecl,
    detect_profile,
    read_request,
    with_choice,
)
from scenarist.llm.gemini_request import Route, read_gemini
from scenarist.llm.ids import SESSION_HEADERS, TurnRef, conversation_key, encode_ref, ref_of_id
from scenarist.llm.position import (
    Position,
    PositionError,
    check_results,
    continue_from,
    find_turn,
    first_prompt_index,
    from_prompt,
    locate,
)
from scenarist.llm.profiles import Context, EditError
from scenarist.llm.render import Rendered, call_ids, estimate_tokens, render_turn, render_wait
from scenarist.llm.request_body import BodyReader
from scenarist.llm.script import EditAction, ModelTurn, Script, ToolAction
from scenarist.llm.selection import Choice, RequestSelectionError, Selector
from scenarist.llm.template import SENTINEL_A, SENTINEL_B, Fill, Sentinels, fill, make, table
from scenarist.llm.thinking import ThinkingShown, asked
from scenarist.llm.tool_calls import tool_calls
from scenarist.llm.tool_choice import AUTO, read_tool_choice
from scenarist.llm.tool_fit import FitError
from scenarist.llm.workspace import OutsideWorkspace, Workspace, confine, read_file
from scenarist.wire import (
    WireApi,
    WireEvent,
    encode_body,
    encode_moments,
    encode_stream,
    error_body,
    scripted_error_fields,
    stream_tuples,
)
from scenarist.wire.gemini import STATUSES as GEMINI_STATUSES
from scenarist.wire.gemini import array_pieces, gemini_error

WIRE: dict[Api, WireApi] = {
    "chat": "openai_chat",
    "responses": "openai_responses",
    "messages": "anthropic",
    "gemini": "gemini",
}
MEMO_LIMIT = 1024
MAX_CONTEXT_PROMPTS = 16  # user prompts tried for selection when the first selects nothing
AgentType = Literal["auto", "claude", "codex", "gemini", "openai", "opencode", "aider"]
ErrorKey = tuple[int, str, int]  # (id of the script, conversation key, turn index)
#: the request headers an answer may depend on: scenario selection and session ids
ANSWER_HEADERS = ("x-scenario-name", "x-scenario-prompt", *SESSION_HEADERS)
Notes = dict[str, Any]  # what was learned about the request, for the journal


class ModelRequest(NamedTuple):
    """One request to a model endpoint, as read off the wire."""

    api: Api
    headers: Mapping[str, str]  # those of :data:`ANSWER_HEADERS` it carries
    raw: bytes
    created: int  # the wall clock in seconds: the answer's ``created``
    route: str = ""  # Gemini: the model and streaming form its URL names (Route.key)

    @classmethod
    def of(cls, api: Api, headers: Mapping[str, str], raw: bytes, created: int,
           route: str = "") -> "ModelRequest":
        """The request with only the headers an answer may depend on (so that
        :class:`RequestMemo`'s key holds every input)."""
        return cls(api, {h: headers[h] for h in ANSWER_HEADERS if h in headers}, raw, created,
                   route)


class Rejection(NamedTuple):
    """An error to answer with: HTTP status, message, and what the API's error body needs."""

    status: int
    message: str
    type: str | None = None
    param: str | None = None
    headers: Mapping[str, str] = MappingProxyType({})
    notes: Mapping[str, Any] = MappingProxyType({})  # what was learned (read-only here)
    served_error: ErrorKey | None = None  # a scripted error: remember it was answered
    code: str | None = None  # OpenAI's ``error.code``
    details: Any = None  # ``error.details`` (JSON): a scripted error's, or the server's own

    @property
    def scripted(self) -> bool:
        """A scripted error (the scenario's), not the server's own refusal."""
        return self.served_error is not None

    def body(self, api: WireApi) -> dict[str, Any]:
        """The API's own error body; ``details`` go in its error object (both APIs' error
        objects take extra fields, which the official SDKs keep). Gemini's carries them in
        its ``details`` list, after a ``RetryInfo`` for a ``retry-after``."""
        if api == "gemini":  # the other APIs' error types are no google.rpc.Code names
            delay = self.headers.get("retry-after")
            return gemini_error(self.status, self.message,
                                self.type if self.type in GEMINI_STATUSES else None,
                                self.details, f"{delay}s" if delay is not None else None)
        body = error_body(api, self.status, self.message, type=self.type, code=self.code,
                          param=self.param)
        if self.details is not None:
            body["error"]["details"] = self.details
        return body


class Batch(NamedTuple):
    """Stream bytes due at one moment (all frames with that ``at_ms``, joined)."""

    at_ms: int
    data: bytes


class Encoded(NamedTuple):
    """A rendered, encoded turn: the tool names it calls, and its body or stream batches."""

    calls: tuple[str, ...]
    body: bytes | None  # a non-streamed answer
    batches: tuple[Batch, ...]  # a streamed one
    end_ms: int  # when the turn ends (unscaled): a non-streamed answer is due then
    sse: bool = True  # a stream's frames are SSE (Gemini without ?alt=sse: a JSON array)
    # a turn with a fault (docs/faults.md): its stream frame by frame, and how many frames
    # come before the fault where the scenario placed it
    frames: tuple[Batch, ...] = ()
    strike: int = 0


class Answer(NamedTuple):
    """A successful answer and what was learned on the way. ``repeatable``: the answer
    depended on the request alone (no scripted error's state, no assert, no message thread,
    no file read), so the same request gets it again (:class:`RequestMemo`)."""

    encoded: Encoded
    notes: Notes
    repeatable: bool = False
    turn: ModelTurn | None = None  # the turn answered, and its ids (faults are keyed by them)
    ref: TurnRef | None = None


class Rendering(NamedTuple):
    """Everything the encoded answer of one turn depends on (besides files it may read)."""

    script: Script
    turn: ModelTurn
    api: Api
    profile: Profile
    cwd: str | None  # the agent's working directory (reported, else --workspace)
    tools: frozenset[str]  # tool names the request declares
    workspace: Path | None  # --workspace: with the reported cwd, where edits are fenced in
    conv: Conversation
    input_tokens: int
    created: int
    ref: TurnRef  # the answer's ids: scenario, conversation, turn, part

    def context(self) -> Context:
        """What rendering needs from the request (files are read through ``read_file`` only,
        and only inside the agent's workspace)."""
        # a reported cwd outside --workspace is refused here, whatever the turn; without
        # --workspace the agent's cwd only fences the turn's paths, so it is made when a path
        # needs it (building the Path cost a tenth of an unmemoised text answer)
        fixed = Workspace.of_agent(self.workspace, self.conv.cwd).root if self.workspace else None
        cwd = self.conv.cwd

        def fence(path: str) -> Path:
            return confine(fixed if fixed is not None else Workspace.of_agent(None, cwd).root, path)

        return Context(profile=self.profile, cwd=self.cwd, tools=self.tools, read_text=read_file,
                       confine=fence, decls=self.conv.tools,
                       side=is_side_request(self.conv, self.profile, self.turn),
                       whole_files=self.conv.client == "aider-whole", choice=self.conv.choice,
                       schema=self.conv.extra.get("json_schema"))

    @property
    def thinking(self) -> ThinkingShown:
        """What the request asks of the turn's thinking (:mod:`scenarist.llm.thinking`)."""
        return asked(self.api, self.conv)

    def shape(self) -> tuple[Any, ...]:
        """The template memo's key: every input that reaches :func:`encode_turn` but the
        conversation (of the ref), ``created`` and ``input_tokens``, which an answer made from
        a template is filled with (:mod:`scenarist.llm.template`). The declared tools go in
        as their token (:func:`_tools_token`: one per distinct list)."""
        c, ref = self.conv, self.ref
        extra = c.extra
        return (id(self.script), ref.scenario, ref.turn, ref.part, ref.one_call, ref.stored,
                ref.model, self.api, self.profile, self.cwd, _tools_token(c.tools), c.model,
                c.stream, c.include_usage, asked(self.api, c), c.previous, c.client, c.choice,
                extra.get("sse"), extra.get("json_schema"))

    def fill(self, output_tokens: int, calls: int) -> Fill:
        """The values this answer fills a template of its shape with."""
        return Fill(encode_ref(self.ref), call_ids(self.api, self.ref, calls), self.created,
                    self.input_tokens, output_tokens)

    def with_sentinels(self, sentinels: Sentinels) -> "Rendering":
        """This rendering with stand-in values for what fills a template."""
        return self._replace(ref=self.ref._replace(conversation=sentinels.conversation),
                             created=sentinels.created, input_tokens=sentinels.input_tokens)


class _Rejected(WireError):
    """A step refused the request (internal to :class:`Answerer`: it becomes a Rejection)."""

    def __init__(self, status: int, message: str, *, type: str | None = None,
                 param: str | None = None, headers: Mapping[str, str] | None = None,
                 served_error: ErrorKey | None = None, code: str | None = None,
                 details: Any = None) -> None:
        super().__init__(message)
        self.status, self.message, self.type, self.param = status, message, type, param
        self.headers = dict(headers or {})
        self.served_error = served_error
        self.code = code
        self.details = details

    def rejection(self, notes: Notes) -> Rejection:
        return Rejection(self.status, self.message, self.type, self.param, self.headers, notes,
                         self.served_error, self.code, self.details)


def encode_turn(r: Rendering) -> Encoded:
    """Render ``r.turn`` in the agent's vocabulary and encode it for the API (pure)."""
    return encode_rendered(r)[1]


def encode_rendered(r: Rendering) -> tuple[Rendered, Encoded]:
    """:func:`encode_turn`, with the rendered turn it encoded."""
    rendered = render_turn(r.turn, script=r.script, api=r.api, ctx=r.context(),
                           model=r.conv.model, input_tokens=r.input_tokens, ref=r.ref,
                           one_call=r.ref.one_call, thinking=r.thinking)
    encoded = encode_events(r.api, r.conv, rendered, r.created)
    if r.turn.fault is not None and r.conv.stream:  # only then: faults cost nothing unused
        from scenarist.llm.faults import strike_event

        return rendered, with_frames(encoded, r.api, r.conv, rendered, r.created,
                                     strike_event(rendered.events, r.turn))
    return rendered, encoded


def with_frames(encoded: Encoded, api: Api, conv: Conversation, rendered: Rendered,
                created: int, event: int) -> Encoded:
    """``encoded`` with its stream frame by frame and the number of frames the encoder made
    before it read neutral event number ``event`` (where a fault strikes: docs/faults.md)."""
    made: list[Batch] = []
    before: list[int] = []

    def feed() -> Iterator[WireEvent]:
        for i, item in enumerate(rendered.events):
            if i == event:
                before.append(len(made))
            yield item

    frames = encode_stream(WIRE[api], feed(), include_usage=conv.include_usage,
                           created=created, echo=_echo(conv) if api == "responses" else None)
    pieces = (array_pieces(frames) if not encoded.sse
              else ((f.at_ms, f.encode()) for f in frames))
    made.extend(Batch(at, data) for at, data in pieces)
    return encoded._replace(frames=tuple(made), strike=before[0] if before else len(made))


def encode_events(api: Api, conv: Conversation, rendered: Rendered, created: int) -> Encoded:
    """A rendered answer encoded for ``api``, streamed when the request asks (pure)."""
    calls = tuple(c.name for c in rendered.calls)
    end_ms = rendered.end_ms
    echo = _echo(conv) if api == "responses" else None
    if conv.stream:
        # the frames as tuples (no Frame each: see RawFrame), all made before any is encoded
        # (the encoder's loop and the bytes' loop each run whole: made and encoded in turn,
        # the frames of the 800 agent answers took ~5 % longer, timed in one process)
        frames = list(stream_tuples(WIRE[api], rendered.events,
                                    include_usage=conv.include_usage, created=created, echo=echo))
        if api == "gemini" and not conv.extra["sse"]:  # Gemini without ?alt=sse: a JSON array
            return Encoded(calls, None, _batched(array_pieces(frames)), end_ms, sse=False)
        return Encoded(calls, None, tuple(Batch(at, data) for at, data in encode_moments(frames)),
                       end_ms)
    _status, out = encode_body(WIRE[api], rendered.events, created=created, echo=echo)
    return Encoded(calls, orjson.dumps(out), (), end_ms)


def _echo(conv: Conversation) -> dict[str, Any]:
    """What a Responses ``response`` object repeats of its request (the memo key holds it:
    ``previous`` directly, ``store`` and ``one_call`` through the ref)."""
    return {"previous_response_id": conv.previous, "store": conv.extra.get("store"),
            "parallel_tool_calls": False if conv.one_call else None}


def _batched(frames: Iterable[tuple[int, bytes]]) -> tuple[Batch, ...]:
    """Frames due at the same moment joined into one write."""
    batches: list[Batch] = []
    parts: list[bytes] = []
    at = 0
    for frame_at, data in frames:
        if parts and frame_at != at:
            batches.append(Batch(at, b"".join(parts)))
            parts = []
        at = frame_at
        parts.append(data)
    if parts:
        batches.append(Batch(at, b"".join(parts)))
    return tuple(batches)


class SeenOnce:
    """Which memo keys came once: a memo keeps an answer only when its key comes again.

    Agents never repeat a request (each carries a new history), so a memo that kept every
    answer filled up, started afresh and filled up again without a hit: under agent-shaped
    load (bench/bench_llm_agent_traffic.py) that made the default slower than ``--no-memo``
    and 25 MB larger. Remembering a key's hash costs a set insertion; repeated requests (SDK
    suites, load tests) are answered from the memo from their third time on."""

    def __init__(self, limit: int = 4 * MEMO_LIMIT) -> None:
        self.limit = limit
        self._hashes: set[int] = set()

    def again(self, key: tuple[Any, ...]) -> bool:
        """Whether ``key`` was seen before (it is remembered now if not)."""
        h = hash(key)
        if h in self._hashes:
            return True
        if len(self._hashes) >= self.limit:
            self._hashes.clear()
        self._hashes.add(h)
        return False


class Memo:
    """:func:`encode_turn` with memory, made once per answer *shape* and filled per request.

    A turn whose rendering reads no files is a pure function of its :class:`Rendering`; all of
    it but the conversation's ids, ``created`` and ``input_tokens`` is the shape
    (:meth:`Rendering.shape`), and those three reach the bytes only as the text of a
    :class:`~scenarist.llm.template.Fill`. So the memo keeps each shape's answer as a template
    (:mod:`scenarist.llm.template`, checked by construction when it is made: a shape that fails
    the check is remembered as such and answered afresh every time) and fills it with each
    request's values: agents' conversations, which never repeat a request, share it. The
    template is made when a shape comes a second time (:class:`SeenOnce`: a shape seen once
    costs a set insertion); up to ``limit`` shapes and ``byte_limit`` bytes, then the memo
    starts afresh. The last answer filled from a template is kept with its values, so a
    repeated request gets the same answer again without a fill. Tests hold memoised and fresh
    answers equal byte for byte across every input (tests/llm/test_llm_memo.py,
    test_llm_template.py)."""

    def __init__(self, limit: int = MEMO_LIMIT, *, byte_limit: int = 16 * 1024 * 1024) -> None:
        self.limit, self.byte_limit = limit, byte_limit
        self._shapes: dict[tuple[Any, ...], _Shaped | None] = {}
        self._bytes = 0
        self._seen = SeenOnce()

    def __len__(self) -> int:
        return len(self._shapes)

    @property
    def templates(self) -> int:
        """How many shapes are answered from a template (the others failed the check)."""
        return sum(1 for shaped in self._shapes.values() if shaped is not None)

    def __call__(self, r: Rendering) -> Encoded:
        key = r.shape()
        shaped = self._shapes.get(key)  # a hit hashes the key once (a turn that reads files
        if shaped is not None:  # is never kept, so a hit needs no look at its actions)
            return shaped.filled(r)
        if key in self._shapes or reads_files(r.turn) or not self._seen.again(key):
            return encode_turn(r)  # a shape that failed the check, or seen once so far
        shaped = _Shaped.of(r)
        size = shaped.size if shaped is not None else 0
        if len(self._shapes) >= self.limit or self._bytes + size > self.byte_limit:
            self._shapes.clear()
            self._bytes = 0
        self._shapes[key] = shaped
        self._bytes += size
        return shaped.filled(r) if shaped is not None else encode_turn(r)


class _Shaped:
    """One shape's template: the encoded answer's structure (times, calls, fault index), its
    bytes as format strings, and the last answer filled from it."""

    __slots__ = ("calls", "encoded", "formats", "frame_times", "last", "output_tokens", "size",
                 "times")

    def __init__(self, encoded: Encoded, formats: tuple[bytes, ...], output_tokens: int,
                 calls: int) -> None:
        self.encoded, self.formats = encoded, formats
        self.output_tokens, self.calls = output_tokens, calls
        # held: the template, the answer it was cut from, the last answer filled from it
        self.size = 3 * sum(map(len, formats))
        self.times = [b.at_ms for b in encoded.batches]
        self.frame_times = [f.at_ms for f in encoded.frames]
        # the values and the answer in one attribute, set at once: a large body is answered
        # on a worker thread, and a reader between two stores could pair one request's
        # values with another's answer
        self.last: tuple[tuple[TurnRef, int, int] | None, Encoded] = (None, encoded)

    @classmethod
    def of(cls, r: Rendering) -> "_Shaped | None":
        """``r``'s shape as a template, or ``None`` when it fails the check (see
        :func:`scenarist.llm.template.make`)."""
        a = r.with_sentinels(SENTINEL_A)
        rendered_a, encoded_a = encode_rendered(a)
        b = r.with_sentinels(SENTINEL_B)
        rendered_b, encoded_b = encode_rendered(b)
        out, calls = rendered_a.output_tokens, len(rendered_a.calls)
        if _structure(encoded_a) != _structure(encoded_b) or len(rendered_b.calls) != calls:
            return None
        formats = make(_parts(encoded_a), a.fill(out, calls), _parts(encoded_b),
                       b.fill(out, calls))
        return cls(encoded_a, formats, out, calls) if formats is not None else None

    def filled(self, r: Rendering) -> Encoded:
        """The answer to ``r``: the template filled with its values."""
        ref = r.ref
        values = (ref, r.created, r.input_tokens)
        last_values, last = self.last
        if values == last_values:
            return last
        slots = table(encode_ref(ref), call_ids(r.api, ref, self.calls) if self.calls else (),
                      r.created, r.input_tokens, self.output_tokens)
        e = self.encoded
        if e.body is not None:  # one part: no list of parts to make
            filled = Encoded(e.calls, self.formats[0] % slots, (), e.end_ms, e.sse)
        else:
            parts = fill(self.formats, slots)
            n = len(self.times)
            filled = Encoded(e.calls, None, tuple(map(Batch, self.times, parts[:n])), e.end_ms,
                             e.sse, tuple(map(Batch, self.frame_times, parts[n:])), e.strike)
        self.last = (values, filled)
        return filled


class _Tools:
    """One token per distinct list of tool declarations, for the shape key: hashed and
    compared by identity, in C. A tuple does not keep its hash, and hashing an agent's dozen
    declarations (names, parameters, required lists) took ~9,000 instructions of every
    answer, most of its key's; a token is looked up by the tuple's id instead."""

    __slots__ = ()


_TOOLS_BY_ID: dict[int, tuple[tuple[ToolDecl, ...], _Tools]] = {}  # each tuple held
_TOOLS_BY_VALUE: dict[tuple[ToolDecl, ...], _Tools] = {}  # equal lists share a token
_TOOLS_LIMIT = 64


def _tools_token(tools: tuple[ToolDecl, ...]) -> _Tools:
    """The token of ``tools``: by the tuple's id when it was seen before (an agent's
    declarations are one tuple on all its requests when its body ends with the tool list it
    sent before, :mod:`scenarist.llm.request_body`; the table holds the tuple, so the id
    stays its own), else by its value, so that equal lists read afresh (bodies that are not
    compact JSON) share a token. Bounded: the tables start afresh when full; a list given a
    new token only has its shapes' templates made once more."""
    kept = _TOOLS_BY_ID.get(id(tools))
    if kept is not None and kept[0] is tools:
        return kept[1]
    token = _TOOLS_BY_VALUE.get(tools)
    if token is None:
        if len(_TOOLS_BY_VALUE) >= _TOOLS_LIMIT:
            _TOOLS_BY_VALUE.clear()
        token = _TOOLS_BY_VALUE[tools] = _Tools()
    if len(_TOOLS_BY_ID) >= _TOOLS_LIMIT:
        _TOOLS_BY_ID.clear()
    _TOOLS_BY_ID[id(tools)] = (tools, token)  # one assignment: safe beside the worker thread
    return token


def _parts(encoded: Encoded) -> tuple[bytes, ...]:
    """An encoded answer's bytes: its body, or its batches then its frames."""
    if encoded.body is not None:
        return (encoded.body,)
    return (*(b.data for b in encoded.batches), *(f.data for f in encoded.frames))


def _structure(encoded: Encoded) -> tuple[Any, ...]:
    """What of an encoded answer is no bytes (the same for every answer of a shape)."""
    return (encoded.calls, encoded.body is None, tuple(b.at_ms for b in encoded.batches),
            encoded.end_ms, encoded.sse, tuple(f.at_ms for f in encoded.frames), encoded.strike)


class RequestMemo:
    """:meth:`Answerer.answer` with memory, for a request the server has seen before.

    A :class:`repeatable <Answer>` answer is a pure function of the request: its API, body
    bytes, the headers in :data:`ANSWER_HEADERS` (the only ones a request carries into the
    answer, see :meth:`ModelRequest.of`) and its ``created`` second. The same request then
    gets the same answer and journal notes without being read again: SDK test suites and
    load tests send the same request many times. The server answered a repeated short chat
    request in 15 µs of CPU with it, 49 µs with :class:`Memo` alone (ASGI called directly).
    Bodies over ``body_limit`` bytes are not kept: agents' requests (15-50 KB of system prompt,
    tools and history) never repeat, and keeping them made streamed answers slower than
    without the memo under agent-shaped load; SDK suites and load tests send small bodies. An
    answer is kept when its request comes a second time (:class:`SeenOnce`); the memo starts
    afresh beyond ``limit`` answers or ``byte_limit`` bytes of bodies and answers."""

    def __init__(self, answer: Callable[[ModelRequest, Callable[[ErrorKey], bool], Notes],
                                         Rejection | Answer],
                 *, limit: int = MEMO_LIMIT, body_limit: int = 8 * 1024,
                 byte_limit: int = 16 * 1024 * 1024) -> None:
        self.answer = answer
        self.limit, self.body_limit, self.byte_limit = limit, body_limit, byte_limit
        self._answers: dict[tuple[Any, ...], Answer] = {}
        self._bytes = 0
        self._seen = SeenOnce()

    def __len__(self) -> int:
        return len(self._answers)

    def __call__(self, request: ModelRequest, served: Callable[[ErrorKey], bool],
                 notes: Notes) -> Rejection | Answer:
        """Like :meth:`Answerer.answer`: the notes go to ``notes`` (the journal entry)."""
        if len(request.raw) > self.body_limit:
            return self.answer(request, served, notes)
        key = (request.api, request.raw, request.created, request.route,
               *request.headers.items())
        hit = self._answers.get(key)
        if hit is not None:
            notes.update(hit.notes)
            return Answer(hit.encoded, notes, True, hit.turn, hit.ref)
        learned: Notes = {}
        result = self.answer(request, served, learned)
        notes.update(learned)
        if isinstance(result, Answer) and result.repeatable and self._seen.again(key):
            size = len(request.raw) + _size(result.encoded)
            if len(self._answers) >= self.limit or self._bytes + size > self.byte_limit:
                self._answers.clear()
                self._bytes = 0
            self._answers[key] = result
            self._bytes += size
            return Answer(result.encoded, notes, True, result.turn, result.ref)
        return result


def _size(encoded: Encoded) -> int:
    """The bytes an encoded answer holds (its body, or its stream batches)."""
    if encoded.body is not None:
        return len(encoded.body)
    return sum(len(b.data) for b in encoded.batches)


@dataclass(frozen=True, slots=True)
class Answerer:
    """How the server answers: its scenarios and the options that shape an answer."""

    selector: Selector
    agent_type: AgentType = "auto"
    workspace: Path | None = None  # --workspace: where asserts look, the cwd edits assume
    strict: bool = False
    encode: Callable[[Rendering], Encoded] = encode_turn  # or a Memo around it
    threads: ThreadFields | None = None  # message threads' system and tools (continuation)
    bodies: BodyReader = field(default_factory=BodyReader)  # with the tool lists seen before

    def answer(self, request: ModelRequest, served: Callable[[ErrorKey], bool],
               notes: Notes | None = None) -> Rejection | Answer:
        """The answer to ``request`` (see the module doc); ``served`` tells which scripted
        errors were already answered. What is learned on the way is written to ``notes``
        (the server passes its journal entry, saving a copy per request) and returned on the
        answer or rejection."""
        if notes is None:
            notes = {}
        try:
            body = parse(request, self.bodies)
            if self.threads is not None and request.api == "messages":
                body = self.threads.expand(body)
            conv = read(request, notes, body)
            previous = previous_ref(request.api, conv)
            if previous is not None:
                notes["continues"] = conv.previous
                script = self.continued(previous, request.api, conv.previous or "")
            else:  # a whole history: counted from where the scenario's first prompt sits
                script = self.select(request, conv, notes).script
                conv = anchored(conv, script, notes)
            profile = self.profile(conv, notes)
            ckey = previous.conversation if previous else conversation_key(
                script.name, request.headers, conv.first_prompt)
            key = ckey if previous else (
                _conversation_key(request.headers, conv) if script.has_errors else "")
            position = place(script, conv, key, served, notes, previous)
            if ((script.has_results or conv.tool_results < conv.tool_calls)
                    and previous is None and conv.code_cell is None):
                verify(script, position, conv, body, notes)  # code mode: see the docs
            turn = position.turn
            ref = TurnRef(script.name, ckey, turn.index, position.part, conv.one_call,
                          conv.extra.get("store") is not False, conv.model)
            # a cell still running is waited on (a continued request may not declare again
            # the code-mode tools its conversation declared)
            if conv.running_cell is not None and (WAIT in conv.tool_names or previous):
                return self.wait(request, conv, previous or cell_ref(script, position, ref),
                                 notes)
            side = is_side_request(conv, profile, turn)
            if side:
                notes["side_request"] = True
            elif turn.checks or script.final_checks:
                self.check(script, turn, conv, notes)
            if turn.error is not None:
                scripted_error(script, turn, key, WIRE[request.api], notes)
            tools = conv.tool_names
            cwd = str(self.workspace) if conv.cwd is None and self.workspace else conv.cwd
            encoded = self.render(Rendering(script, turn, request.api, profile, cwd, tools,
                                            self.workspace, conv,
                                            estimate_tokens(len(request.raw)), request.created,
                                            ref))
            notes["calls"] = list(encoded.calls)
            threads = self.threads if request.api == "messages" and "thread" in body else None
            if threads is not None:
                threads.remember(body, f"msg_{encode_ref(ref)}")
            renamed = renamed_calls(turn, encoded.calls)
            if renamed:
                notes["renamed"] = renamed
            if self.strict:
                strict(script, turn, tools, encoded)
            repeatable = not (script.has_errors or threads is not None or (turn.checks and not side)
                              or reads_files(turn))
            return Answer(encoded, notes, repeatable, turn, ref)
        except _Rejected as exc:
            return exc.rejection(notes)
        except ContinuationError as exc:
            return _refused_continuation(exc, notes)
        except OutsideWorkspace as exc:  # a scenario path or reported cwd leaves the workspace
            return Rejection(403, f"scenarist: {exc}", notes=notes)

    def wait(self, request: ModelRequest, conv: Conversation, ref: TurnRef,
             notes: Notes) -> Answer:
        """Codex's code mode: a cell that yielded while still running is waited on before
        the scenario goes on (its asserts are due once the cell is done)."""
        assert conv.running_cell is not None
        notes["waits_on_cell"] = conv.running_cell
        rendered = render_wait(conv.running_cell, conv.waits, model=conv.model,
                               input_tokens=estimate_tokens(len(request.raw)), ref=ref)
        encoded = encode_events(request.api, conv, rendered, request.created)
        notes["calls"] = list(encoded.calls)
        return Answer(encoded, notes, True)

    def select(self, request: ModelRequest, conv: Conversation, notes: Notes) -> Choice:
        """The scenario: ``x-scenario-name``, else ``x-scenario-prompt``, else the prompt."""
        name = request.headers.get("x-scenario-name")
        prompt = request.headers.get("x-scenario-prompt")
        try:
            choice = self.selector.choose(name=name, prompt=prompt,
                                          conversation_prompt=conv.first_prompt)
        except RequestSelectionError as exc:
            # context before the user's prompt (aider's few-shot pairs) is no scenario's
            # prompt: the first user prompt that selects one is where the conversation starts
            later = () if name or prompt else conv.prompts[1:MAX_CONTEXT_PROMPTS]
            found = next(filter(None, (self._by_prompt(p) for p in later)), None)
            if found is None:
                if exc.divergence is not None:
                    notes["divergence"] = exc.divergence.as_json()
                raise _Rejected(exc.status, exc.message) from None
            choice = found
        # item by item, not update(**...): no keyword dict built on every request
        notes["scenario"] = choice.script.name
        notes["selected_by"] = choice.by
        notes["distance"] = choice.distance
        notes["runners_up"] = [list(r) for r in choice.runners_up]
        return choice

    def continued(self, previous: TurnRef, api: Api, value: str) -> Script:
        """The scenario an id names (the request carries no prompt to select by)."""
        if previous.stored:
            try:
                return self.selector.choose(name=previous.scenario).script
            except RequestSelectionError:
                pass
        raise (response_not_found(value, param="previous_response_id") if api == "responses"
               else thread_not_found(value))

    def retrieve(self, response_id: str, created: int) -> Rejection | Answer:
        """``GET /v1/responses/{id}``: the response re-rendered from what its id carries (the
        request's tools are not in it: tool calls take the scenario's own tool names)."""
        notes: Notes = {"retrieve": response_id}
        try:
            ref = ref_of_id(response_id, "resp_")
            script = self.continued(ref, "responses", response_id) if ref else None
            found = find_turn(script, ref.turn) if script and ref else None
            if ref is None or script is None or found is None:
                raise response_not_found(response_id, param=None)
            turn = script.segments[found[0]].turns[found[1]]
            # the request's tool declarations are not in the id: the calls take the
            # scenario's own tool names (declared here by name, without a schema)
            names = {a.tool if isinstance(a, ToolAction) else "editFile" for a in turn.actions}
            named = tuple(ToolDecl(name) for name in sorted(names))
            conv = Conversation("responses", ref.model, False, (), None, named, (), 0, 0, 0,
                                one_call=ref.one_call)
            profile: Profile = "openai" if self.agent_type == "auto" else self.agent_type
            cwd = str(self.workspace) if self.workspace else None
            return Answer(self.render(Rendering(script, turn, "responses", profile, cwd,
                                                frozenset(names), self.workspace, conv, 1,
                                                created, ref)), notes)
        except _Rejected as exc:
            return exc.rejection(notes)
        except ContinuationError:  # GET answers 404 where a continuation answers 400
            return _refused_continuation(response_not_found(response_id, param=None), notes)

    def _by_prompt(self, prompt: str) -> Choice | None:
        try:
            return self.selector.choose(conversation_prompt=prompt)
        except RequestSelectionError:
            return None

    def check(self, script: Script, turn: ModelTurn, conv: Conversation, notes: Notes) -> None:
        """The asserts due before ``turn``, against the agent's workspace."""
        if script.final_checks and turn is script.segments[-1].turns[-1]:
            # nothing follows the last turn to check these before: POST /_scenarist/check
            notes["final_checks"] = [c.label for c in script.final_checks]
        if not turn.checks:
            return
        workspace = Workspace.of_agent(self.workspace, conv.cwd)
        results: list[Result] = [r for c in turn.checks for r in run_check(c, workspace)]
        if results:
            notes["assertions"] = [r.as_json() for r in results]
        failed = failures(results)
        if failed:
            names = "; ".join(f"{r.label}: {r.message}" for r in failed)
            raise _Rejected(400, f"scenarist: assertion failed before {turn.describe()} of "
                                f"scenario {script.name!r}: {names}")

    def final_check(self, scenario: str | None, workspace: str | os.PathLike[str] | None,
                    agent_cwd: Callable[[str], str | None]) -> dict[str, Any]:
        """``scenario``'s asserts after its last model turn (no request follows the last
        turn, so they cannot be checked on the way; a test asks once the agent is done).
        The workspace is ``workspace`` (inside ``--workspace`` when one is set), else
        ``--workspace``, else the working directory the agent last reported for this
        scenario (``agent_cwd``), else the server's. The report: scenario, workspace, where
        it came from, ok, counts, results."""
        script = self.selector.named(scenario)
        if workspace and self.workspace is not None:
            root = confine(self.workspace, workspace, what="workspace")
            source = "request"
        elif workspace:
            root, source = Path(workspace), "request"
        elif self.workspace is not None:
            root, source = self.workspace, "--workspace"
        else:
            cwd = agent_cwd(script.name)
            root, source = (Path(cwd), "agent cwd") if cwd else (Path(os.getcwd()), "server cwd")
        checked = Workspace(root)
        results = [r for check in script.final_checks for r in run_check(check, checked)]
        failed = failures(results)
        return {
            "scenario": script.name,
            "workspace": str(root),
            "workspace_from": source,
            "ok": not failed,
            "checked": len(results),
            "failed": len(failed),
            "results": [r.as_json() for r in results],
        }

    def profile(self, conv: Conversation, notes: Notes) -> Profile:
        """The agent's tool vocabulary: ``--agent-type``, else detected from the request."""
        profile: Profile = (detect_profile(conv) if self.agent_type == "auto"
                            else self.agent_type)
        notes["profile"] = profile
        if conv.client is not None:  # a client known by its instructions (aider's format)
            notes["client"] = conv.client
        return profile

    def render(self, rendering: Rendering) -> Encoded:
        """The turn rendered and encoded (through the memo when there is one)."""
        try:
            return self.encode(rendering)
        except EditError as exc:
            raise _Rejected(409, f"scenarist: {exc}") from None
        except FitError as exc:
            raise _Rejected(400, f"scenarist: {rendering.turn.describe()} of scenario "
                                 f"{rendering.script.name!r}: {exc}",
                            type="invalid_request_error") from None
        except OSError as exc:  # a target that is no regular file, or too large to read
            raise _Rejected(409, f"scenarist: cannot render an edit: {exc}") from None


def _refused_continuation(exc: ContinuationError, notes: Notes) -> Rejection:
    return Rejection(exc.status, exc.message, param=exc.param, notes=notes, code=exc.code,
                     details=exc.details)


def parse(request: ModelRequest, bodies: BodyReader) -> Any:
    """The request body as JSON."""
    try:
        return bodies.parse(request.raw)
    except ValueError as exc:
        raise _Rejected(400, f"request body is not valid JSON: {exc}") from None


def read(request: ModelRequest, notes: Notes, body: Any) -> Conversation:
    """The request body as a conversation, validated in the API's own terms."""
    try:
        if request.api == "gemini":
            conv = read_gemini(body, Route.of_key(request.route))
            choice = conv.choice
        else:
            conv = read_request(request.api, body)
            value = body.get("tool_choice")  # the names made only for a choice to check
            choice = AUTO if value is None else read_tool_choice(request.api, value,
                                                                 conv.tool_names)
    except RequestError as exc:
        raise _Rejected(exc.status, exc.message, param=exc.param) from None
    if choice is not AUTO:
        conv = with_choice(conv, choice)
        notes["tool_choice"] = choice.name or choice.mode
    notes.update(stream=conv.stream, model=conv.model, prompt=conv.first_prompt,
                 user_turns=conv.user_turns, assistant_turns=conv.assistant_turns,
                 tool_calls=conv.tool_calls, tool_results=conv.tool_results, cwd=conv.cwd)
    if conv.cell_error is not None:  # Codex code mode: the last cell's script failed
        notes["cell_error"] = conv.cell_error
    return conv


def is_side_request(conv: Conversation, profile: Profile, turn: ModelTurn) -> bool:
    """A request that declares no tools where the scenario calls some (opencode's title
    request, Claude Code's quota check) is not the agent's conversation: it gets the turn's
    text and no tool calls, runs no asserts, and moves nothing (position is derived from each
    request alone). aider declares no tools either, but takes its edits as text. A request
    with ``tool_choice: none`` is answered the same way: the turn's text, no calls."""
    return bool(turn.actions) and ((not conv.tools and profile != "aider")
                                   or conv.choice.mode == "none")


def anchored(conv: Conversation, script: Script, notes: Notes) -> Conversation:
    """``conv`` counted from the user prompt where ``script``'s first prompt sits (see
    :func:`scenarist.llm.position.from_first_prompt`)."""
    start = first_prompt_index(conv, script)
    if start:
        notes.update(context_prompts=start, prompt=conv.prompts[start],
                     user_turns=conv.user_turns - start)
    return from_prompt(conv, start)


def place(script: Script, conv: Conversation, key: str, served: Callable[[ErrorKey], bool],
          notes: Notes, previous: TurnRef | None = None) -> Position:
    """The next model turn, derived from the history alone (or from the answer it continues)."""
    try:
        if previous is not None:
            position = continue_from(script, previous, conv, lambda i: served((id(script), key, i)))
        else:
            position = locate(script, conv, lambda i: served((id(script), key, i)))
    except PositionError as exc:
        raise diverged(exc, notes) from None
    notes["segment"] = position.segment  # item by item: no keyword dict (see select)
    notes["turn"] = position.turn.index
    notes["step"] = position.step
    if position.part:
        notes["part"] = position.part
    return position


def diverged(exc: PositionError, notes: Notes) -> "_Rejected":
    """The 409 for a request that left its scenario, naming the first divergent step
    (:mod:`scenarist.llm.divergence`) in the message and the journal."""
    message = f"scenarist: {exc.message}"
    if exc.expected is not None:
        notes["expected"] = exc.expected
        message += f"; expected next: {exc.expected}"
    if exc.divergence is not None:
        notes["divergence"] = exc.divergence.as_json()
        message += f"; {exc.divergence.describe()}"
    return _Rejected(409, message)


def verify(script: Script, position: Position, conv: Conversation, body: Any,
           notes: Notes) -> None:
    """The tool results the request sends back against the scenario (the slow path: only
    for a scenario that states results, or a history with a call left unanswered)."""
    try:
        made = sum(1 for mark in conv.marks if mark.kind == "call")
        check_results(script, position, tool_calls(conv.api, body, made))
    except PositionError as exc:
        raise diverged(exc, notes) from None


def cell_ref(script: Script, position: Position, ref: TurnRef) -> TurnRef:
    """The answer whose ``exec`` cell is still running: the call made just before
    ``position`` (so that an answer continuing from a ``wait`` on it moves on to
    ``position``, see :func:`scenarist.llm.position.continue_from`)."""
    if position.part:
        return ref._replace(part=position.part - 1)
    for turn in reversed(script.segments[position.segment].turns[:position.step]):
        if turn.actions:
            return ref._replace(turn=turn.index,
                                part=len(turn.actions) - 1 if ref.one_call else 0)
    return ref


def scripted_error(script: Script, turn: ModelTurn, key: str, api: WireApi,
                   notes: Notes) -> None:
    """A turn that is an ``error`` element answers with it (once per conversation), its
    ``errorType`` mapped to the API's real error type (:func:`scripted_error_fields`)."""
    err = turn.error
    assert err is not None
    notes["scripted_error"] = err.status
    if err.error_type:
        notes["error_type"] = err.error_type
    if err.details is not None:
        notes["details"] = err.details
    headers = {}
    if err.retry_after_seconds is not None:
        headers["retry-after"] = _seconds(err.retry_after_seconds)
    kind, code, param = scripted_error_fields(api, err.status, err.error_type, err.details)
    raise _Rejected(err.status, err.message, type=kind, code=code, param=param,
                    headers=headers, served_error=(id(script), key, turn.index),
                    details=err.details)


def strict(script: Script, turn: ModelTurn, tools: frozenset[str], encoded: Encoded) -> None:
    """``--strict``: every tool the turn calls must be declared by the request."""
    missing = sorted(set(encoded.calls) - tools)
    if missing:
        raise _Rejected(
            400,
            f"scenarist --strict: the request does not declare the tool(s) "
            f"{', '.join(missing)} that {turn.describe()} of scenario {script.name!r} "
            f"calls; declared: {', '.join(sorted(tools)) or 'none'}")


def renamed_calls(turn: ModelTurn, calls: tuple[str, ...]) -> dict[str, str]:
    """The scenario's tool names that went out under another (declared) name, for the
    journal (only when every action became one call; aider's text blocks are no calls)."""
    if not calls or len(calls) != len(turn.actions):
        return {}
    return {a.tool: c for a, c in zip(turn.actions, calls, strict=True)
            if isinstance(a, ToolAction) and a.tool != c}


def reads_files(turn: ModelTurn) -> bool:
    """Whether rendering ``turn`` depends on files on disk (so it cannot be memoised): an
    edit or a write is rendered against the file as it is."""
    for action in turn.actions:  # a loop, not any(...): no generator on every answer
        if isinstance(action, EditAction) or action.tool in ("writeFile", "editFile"):
            return True
    return False


def _seconds(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)


def _conversation_key(headers: Mapping[str, str], conv: Conversation) -> str:
    """Tells conversations apart: the agent's session id, else the shape of the history.
    Only scenarios with scripted errors need to."""
    for name in SESSION_HEADERS:
        value = headers.get(name)
        if value:
            return f"{name}:{value}"
    shape = json.dumps([conv.api, conv.prompts, [(m.kind, m.name) for m in conv.marks]])
    return hashlib.sha1(shape.encode()).hexdigest()
