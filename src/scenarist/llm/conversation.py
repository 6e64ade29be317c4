"""What a model request says: prompt as typed, working directory, tools, position.

Every client resends the whole conversation on every request, so everything the server needs
to pick the next turn is in the body. These pure functions read the three wire formats
(OpenAI Chat, OpenAI Responses, Anthropic Messages) into one neutral :class:`Conversation`,
peeling off the wrappers real agents add around what the user typed (Claude Code's
``<system-reminder>`` blocks, Codex's developer messages and ``<environment_context>``).

They validate as they read: a body that the real API would refuse raises
:class:`RequestError` naming the field, so the server can answer in that API's own format.

:class:`Conversation`, :class:`ToolDecl` and :class:`Mark` are built afresh for every request
(a ``ToolDecl`` per declared tool, a ``Mark`` per call in the history), so they are
``NamedTuple``s, immutable like the frozen dataclasses they were and cheaper to build on
CPython 3.11: a ``Conversation`` took 3.2 µs as a frozen dataclass, 0.6 µs as a NamedTuple
(see :mod:`scenarist.llm.answer` for the same choice).
"""

# Annotations are not postponed here: see "Records" in docs/architecture.md.
import functools
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from types import MappingProxyType
from typing import Any, Literal, NamedTuple, NoReturn, TypeVar, cast

import orjson

from scenarist.json_kind import json_kind
from scenarist.llm.aider import edit_format
from scenarist.llm.code_mode import EXEC, WAIT, cell_state, is_code_mode, nested_tools
from scenarist.llm.request_body import SeenTools
from scenarist.llm.request_errors import RequestError as RequestError  # re-exported
from scenarist.llm.request_fields import check_optional_fields
from scenarist.llm.tool_choice import AUTO, ToolChoice
from scenarist.vocabulary import gemini_cli

Api = Literal["chat", "responses", "messages", "gemini"]
Profile = Literal["claude", "codex", "gemini", "openai", "opencode", "aider"]
ToolKind = Literal["function", "custom", "builtin"]


class ToolDecl(NamedTuple):
    """A tool the client declared. ``custom`` is a freeform-input tool (Codex ``apply_patch``).
    ``nested``: the tools that Codex's code-mode ``exec`` declares in its description, which
    its JavaScript calls (:mod:`scenarist.llm.code_mode`)."""

    name: str
    kind: ToolKind = "function"
    params: tuple[tuple[str, str], ...] = ()  # top-level (name, JSON type) of its schema
    required: tuple[str, ...] = ()  # the schema's required properties
    nested: tuple["ToolDecl", ...] = ()


class Mark(NamedTuple):
    """One assistant-side thing already in the history: a text/reasoning part or a tool call."""

    kind: Literal["text", "call"]
    name: str = ""


_T = TypeVar("_T")
_TEXT = Mark("text")  # immutable: one for every text part of a history
_TEXT_TYPES = ("text",)


class Conversation(NamedTuple):
    """The neutral reading of one model request."""

    api: Api
    model: str
    stream: bool
    prompts: tuple[str, ...]  # every user turn, as the user typed it
    cwd: str | None  # the working directory the agent reports, if any
    tools: tuple[ToolDecl, ...]
    marks: tuple[Mark, ...]  # assistant-side history since the last user turn
    assistant_turns: int
    tool_calls: int
    tool_results: int
    include_usage: bool = False  # Chat: stream_options.include_usage
    max_tokens: int | None = None
    extra: Mapping[str, Any] = MappingProxyType({})  # read-only: one shared empty mapping
    one_call: bool = False  # parallel tool calls refused: one call per answer
    previous: str | None = None  # the answer this request continues (server-side state)
    client: str | None = None  # a client recognised by its instructions (client_hint)
    choice: ToolChoice = AUTO  # tool_choice (set by the answer step that reads the request)
    running_cell: str | None = None  # code mode: the cell the last output says still runs
    cell_error: str | None = None  # code mode: the script error of the last cell, if it failed
    waits: int = 0  # code mode: ``wait`` calls in the history (not the scenario's calls)

    @property
    def first_prompt(self) -> str | None:
        return self.prompts[0] if self.prompts else None

    @property
    def user_turns(self) -> int:
        return len(self.prompts)

    @property
    def tool_names(self) -> frozenset[str]:
        return _names(self.tools)

    @property
    def code_cell(self) -> ToolDecl | None:
        """Codex's code-mode ``exec`` when the request declares it (with its nested tools)."""
        return code_cell(self.tools)


_CHOICE = Conversation._fields.index("choice")

_conversation = cast(Callable[[tuple[Any, ...]], Conversation],
                     functools.partial(tuple.__new__, Conversation))
"""A :class:`Conversation` from its twenty fields in order, as the readers build it on every
request: a call by keyword walks the twenty names (~11,700 instructions), ``_make`` adds a
Python frame (~4,800), this ~3,800. No length check: the differential test in
tests/llm/test_llm_request_side.py compares every field with the keyword-built records."""


def with_choice(conv: Conversation, choice: ToolChoice) -> Conversation:
    """``conv._replace(choice=choice)``, without its keyword walk over the twenty fields
    (~1 µs, on every request that sends a ``tool_choice``, as Codex does)."""
    return _conversation((*conv[:_CHOICE], choice, *conv[_CHOICE + 1:]))


_NAMES: dict[int, tuple[tuple[ToolDecl, ...], frozenset[str]]] = {}
_NAMES_LIMIT = 16


def _names(tools: tuple[ToolDecl, ...]) -> frozenset[str]:
    """The names of ``tools``, kept for the last few lists (by the list itself: its id, and
    the list held so that the id stays its own): an answer asks for them three times (tool
    choice, profile, rendering), ~1.5 µs each for an agent's tools, and an agent's declared
    tools are one tuple on all its requests (:func:`_declared`). A few, not the last one only:
    two agents served at once took turns and each found the other's names."""
    kept = _NAMES.get(id(tools))
    if kept is not None and kept[0] is tools:
        return kept[1]
    names = frozenset(t.name for t in tools)
    if len(_NAMES) >= _NAMES_LIMIT:
        _NAMES.clear()
    _NAMES[id(tools)] = (tools, names)  # one assignment: safe beside the worker thread
    return names


def code_cell(tools: Iterable[ToolDecl]) -> ToolDecl | None:
    """The declared code-mode ``exec`` tool, if any."""
    return next((t for t in tools if t.nested and t.name == EXEC), None)


# --------------------------------------------------------------------------- wrappers

_WRAPPER_TAGS = (
    "system-reminder",
    "environment_context",
    "user_instructions",
    "permissions instructions",
    "skills_instructions",
    "turn_aborted",
    "user_shell_command",
    "INSTRUCTIONS",
    "local-command-stdout",
    "local-command-caveat",
)


@functools.cache
def _opener(tags: tuple[str, ...]) -> re.Pattern[str]:
    """An opening tag of one of ``tags``; attributes are bounded so that a '<' with no '>'
    after it costs O(1)."""
    return re.compile("<(" + "|".join(re.escape(t) for t in tags) + r")(?:\s[^>]{0,4096})?>")


# Codex's AGENTS.md preamble: "# AGENTS.md instructions for /path" then an <INSTRUCTIONS> block.
# A wrapper opened but never closed (a truncated capture) swallows the rest of its part.
_UNCLOSED_RE = re.compile("^<(?:" + "|".join(re.escape(t) for t in _WRAPPER_TAGS) + r")[\s>]")
_AGENTS_MD_RE = re.compile(r"^# AGENTS\.md instructions for [^\n]*\n?", re.MULTILINE)
_CLAUDE_CWD_RE = re.compile(r"(?:Primary working directory|Working directory):\s*(\S[^\n]*)")
_CODEX_CWD_RE = re.compile(r"<cwd>([^<]*)</cwd>")
#: Gemini CLI's ``<session_context>``: its workspace directories, the project's first
_GEMINI_CWD_RE = re.compile(r"Workspace Directories:\**\n\s*- (\S[^\n]*)")


def remove_wrapper_blocks(text: str) -> str:
    """``text`` without its ``<tag ...>...</tag>`` blocks of the agents' wrapper tags.

    Linear in the text, whatever it holds: each block is found with one forward search for its
    closing tag, and a tag found never to close is not searched for again (a regular expression
    with ``.*?</tag>`` rescans to the end for every unclosed opener, quadratic in hostile input:
    136 KB of unclosed ``<system-reminder>`` held the event loop for 9.7 s)."""
    kept: list[str] = []
    tags: tuple[str, ...] = _WRAPPER_TAGS
    start = pos = 0
    while tags and (opener := _opener(tags).search(text, pos)) is not None:
        closing = f"</{opener.group(1)}>"
        end = text.find(closing, opener.end())
        if end == -1:  # never closes from here on: stop looking for this tag
            tags = tuple(t for t in tags if t != opener.group(1))
            pos = opener.start()
            continue
        kept.append(text[start:opener.start()])
        start = pos = end + len(closing)
    kept.append(text[start:])
    return "".join(kept)


def strip_wrappers(text: str) -> str:
    """The part of a user message that the user typed: agent wrapper blocks removed."""
    if "<" not in text and "# AGENTS.md" not in text:
        return text.strip()
    return _by_text(_TYPED, text, _typed_part)


def _typed_part(text: str) -> str:
    rest = _AGENTS_MD_RE.sub("", remove_wrapper_blocks(text)).strip()
    return "" if _UNCLOSED_RE.match(rest) else rest


def _by_text(kept: dict[str, _T], text: str, make: Callable[[str], _T]) -> _T:
    """``make(text)``, kept by the text in ``kept`` (:data:`_TYPED`, :data:`_CWD_FOUND`):
    agents resend the same system prompt and wrapped messages on every request. Bounded:
    texts up to :data:`_TYPED_TEXT_LIMIT`, :data:`_TYPED_LIMIT` of them, then it starts
    afresh."""
    value = kept.get(text)
    if value is None:
        value = make(text)
        if len(text) <= _TYPED_TEXT_LIMIT:
            if len(kept) >= _TYPED_LIMIT:
                kept.clear()
            kept[text] = value
    return value


_TYPED: dict[str, str] = {}
"""What :func:`strip_wrappers` made of a wrapped text, by the text: every request resends the
whole history, so the same wrapped user messages (Claude Code's ``<system-reminder>``, Codex's
``<environment_context>`` and AGENTS.md) are stripped again on each. A 350-500 character text
took 5-6 µs to strip, a look-up takes ~0.2 µs: ~6 µs of a Claude Code request, ~11 µs of a
Codex one (bench/bench_llm_agent_cpu.py). Bounded: texts up to 32 KiB, 256 of them (at most
16 MiB with what they became), then it starts afresh."""
_TYPED_LIMIT = 256
_TYPED_TEXT_LIMIT = 32 * 1024


def client_hint(texts: Iterable[str]) -> str | None:
    """A client that declares no tools but says in its instructions how it takes edits:
    aider, ``"aider"`` for its *SEARCH/REPLACE block* format, ``"aider-whole"`` for its
    *file listing* format (:mod:`scenarist.llm.aider`)."""
    form = edit_format(texts)
    return None if form is None else "aider" if form == "diff" else "aider-whole"


def find_cwd(texts: Iterable[str]) -> str | None:
    """The working directory an agent reports: Codex ``<cwd>`` (latest wins), else Claude Code's
    environment section, else Gemini CLI's first workspace directory (first wins)."""
    claude: str | None = None
    codex: str | None = None
    gemini: str | None = None
    for text in texts:
        found = _CWD_FOUND.get(text)  # most texts are kept (a call less each)
        if found is None:
            found = _by_text(_CWD_FOUND, text, _cwd_in)
        if found is _NO_CWD:
            continue
        is_codex, in_codex, is_claude, in_claude, is_gemini, in_gemini = found
        if is_codex:
            codex = in_codex or codex
        elif claude is None and is_claude:
            claude = in_claude
        elif gemini is None and is_gemini:
            gemini = in_gemini
    return codex or claude or gemini


#: per marker (Codex's ``<cwd>``, Claude Code's, Gemini CLI's): whether the text has it, and
#: the directory it names there (see :func:`_cwd_in`)
_CwdFound = tuple[bool, str | None, bool, str | None, bool, str | None]
_NO_CWD: _CwdFound = (False, None, False, None, False, None)
_CWD_FOUND: dict[str, _CwdFound] = {}
"""What :func:`_cwd_in` found in a text, by the text: an agent resends its system prompt,
environment section and wrapped messages on every request, and searching a 500 character
text for the three agents' markers took ~0.4 µs, a look-up ~0.1 µs (a request sends 5-7 such
texts; bench/bench_llm_agent_cpu.py). Bounded like :data:`_TYPED`."""


def _cwd_in(text: str) -> _CwdFound:
    """What one text says of the working directory, for :func:`find_cwd`: a text with a
    ``<cwd>`` is Codex's (its last non-empty one counts; nothing else is looked for in it);
    another may name Claude Code's working directory and list Gemini CLI's workspace."""
    if "<cwd>" in text:
        codex: str | None = None
        for m in _CODEX_CWD_RE.finditer(text):
            codex = m.group(1).strip() or codex
        return (True, codex, False, None, False, None)
    is_claude = "orking directory" in text
    is_gemini = "Workspace Directories:" in text
    if not (is_claude or is_gemini):
        return _NO_CWD
    claude = _CLAUDE_CWD_RE.search(text) if is_claude else None
    gemini = _GEMINI_CWD_RE.search(text) if is_gemini else None
    return (False, None, is_claude, claude.group(1).strip() if claude else None,
            is_gemini, gemini.group(1).strip() if gemini else None)


# --------------------------------------------------------------------------- helpers


def _obj(value: Any, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise RequestError(f"{where}: expected an object, got {json_kind(value)}", param=where)
    return value


def _list(value: Any, where: str) -> list[Any]:
    if not isinstance(value, list):
        raise RequestError(f"{where}: expected an array, got {json_kind(value)}", param=where)
    return value


def _str(value: Any, where: str) -> str:
    if not isinstance(value, str):
        raise RequestError(f"{where}: expected a string, got {json_kind(value)}", param=where)
    return value


def _required(body: Mapping[str, Any], key: str) -> Any:
    if key not in body:
        raise RequestError(f"{key}: Field required", param=key)
    return body[key]


def _stream_flag(body: Mapping[str, Any]) -> bool:
    stream = body.get("stream", False)
    if stream is None:
        return False
    if not isinstance(stream, bool):
        raise RequestError(f"stream: expected a boolean, got {json_kind(stream)}", param="stream")
    return stream


def _max_tokens(body: Mapping[str, Any], key: str, *, required: bool) -> int | None:
    if key not in body or body[key] is None:
        if required:
            raise RequestError(f"{key}: Field required", param=key)
        return None
    value = body[key]
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise RequestError(f"{key}: expected a positive integer, got {value!r}", param=key)
    return value


def _text_parts(content: Any, text_types: Sequence[str], at: str, i: int = -1) -> list[str]:
    """Text of a message content: a plain string or a list of typed parts. ``at`` and ``i``
    name the content (``at[i].content``, or ``at`` itself when ``i`` is -1), its path made
    only for an error: a request's history is read in full on every request.

    ``type(x) is dict`` first, ``isinstance`` only for what it misses (a subclass): the
    same verdict, ~10 % fewer instructions than ``isinstance`` alone on a short content."""
    if type(content) is not list:
        if content is None:
            return []
        if isinstance(content, str):
            return [content]
        _list(content, _content_path(at, i))  # raises, but for a list's subclass
    out: list[str] = []
    for part in content:
        if type(part) is not dict and not isinstance(part, dict):
            _obj(part, f"{_content_path(at, i)}[{_index(content, part)}]")
        if part.get("type") in text_types:
            text = part.get("text")
            if type(text) is str or isinstance(text, str):
                out.append(text)
    return out


def _index(items: list[Any], item: Any) -> int:
    """Where ``item`` itself sits in ``items`` (for an error's path: the walks do not count)."""
    return next(k for k, x in enumerate(items) if x is item)


def _content_path(at: str, i: int) -> str:
    return at if i < 0 else f"{at}[{i}].content"


def _item(value: Any, at: str, i: int) -> dict[str, Any]:
    """History item ``at[i]``, an object (its path made only for an error; the readers test
    ``isinstance(item, dict)`` themselves first, a call less on each item)."""
    if isinstance(value, dict):
        return value
    return _obj(value, f"{at}[{i}]")


def _role(item: Mapping[str, Any], at: str, i: int) -> str:
    """History item ``at[i]``'s ``role``, a string (its path made only for an error; the
    readers call it only for a role that is no string)."""
    role = item.get("role")
    if isinstance(role, str):
        return role
    where = f"{at}[{i}]"
    return _str(_required_in(item, "role", where), f"{where}.role")


def _prompt_of(texts: Sequence[str]) -> str | None:
    """What the user typed in a user turn's texts (``None``: nothing, only wrappers)."""
    kept: list[str] = []
    for text in texts:
        typed = _TYPED.get(text)  # a wrapped text kept (a call less)
        if typed is None:
            typed = strip_wrappers(text)
        if typed:
            kept.append(typed)
    if len(kept) < 2:  # the usual turn: one text
        return kept[0] if kept else None
    return "\n".join(kept)


def schema_params(schema: Any) -> tuple[tuple[tuple[str, str], ...], tuple[str, ...]]:
    """A tool's top-level parameters as (name, JSON type) and its required ones: what tool
    fitting (:mod:`scenarist.llm.tool_fit`) needs to spell a call the way the tool declares."""
    if not isinstance(schema, dict) or not isinstance(schema.get("properties"), dict):
        return (), ()
    params = tuple((str(k), _json_type(v)) for k, v in schema["properties"].items())
    required = schema.get("required")
    names = tuple(r for r in required if isinstance(r, str)) if isinstance(required, list) else ()
    return params, names


def _json_type(prop: Any) -> str:
    kind = prop.get("type") if isinstance(prop, dict) else None
    if isinstance(kind, list):  # ["string", "null"]
        kind = next((k for k in kind if k != "null"), None)
    return kind if isinstance(kind, str) else ""


#: tool lists read before, by their JSON bytes (bounded: the memo starts afresh when full)
_DECLARED: dict[tuple[str, bytes], tuple[ToolDecl, ...]] = {}
_DECLARED_LIMIT = 64


def _declared(raw: Any, where: str) -> tuple[ToolDecl, ...]:
    """:func:`_tools`, remembered. An agent declares the same tools on every request (Claude
    Code's dozen schemas, ~16 KB): reading them was a fifth of an answer's CPU. A list the
    body reader has seen before (:class:`SeenTools`) keeps its reading; another is looked up
    by its JSON bytes (dumping it with orjson costs a tenth of reading it). A list that fails
    to validate is never kept, so it raises every time."""
    if isinstance(raw, SeenTools):  # the same list as on the agent's requests before
        found: tuple[ToolDecl, ...] | None = raw.known.get(where)  # its path: the key
        return found if found is not None else raw.derived(where, _read_tools, raw, where)
    if not isinstance(raw, list) or not raw:
        return tuple(_tools(raw, where))
    try:
        key = (where, orjson.dumps(raw))
    except TypeError:  # not JSON (a caller passing Python objects): read it as it is
        return tuple(_tools(raw, where))
    found = _DECLARED.get(key)
    if found is None:
        found = tuple(_tools(raw, where))
        if len(_DECLARED) >= _DECLARED_LIMIT:
            _DECLARED.clear()
        _DECLARED[key] = found
    return found


def _read_tools(raw: Any, where: str) -> tuple[ToolDecl, ...]:
    return tuple(_tools(raw, where))


def _tools(raw: Any, where: str) -> list[ToolDecl]:
    if raw is None:
        return []
    out: list[ToolDecl] = []
    for i, tool in enumerate(_list(raw, where)):
        t = _obj(tool, f"{where}[{i}]")
        kind = t.get("type")
        fn = t.get("function")
        if isinstance(fn, dict) and isinstance(fn.get("name"), str):  # Chat
            out.append(ToolDecl(fn["name"], "function", *schema_params(fn.get("parameters"))))
        elif kind == "namespace" and isinstance(t.get("tools"), list):  # Codex namespaces
            # deferred namespaces list bare names; loaded ones list full tool objects
            inner = t["tools"]
            out.extend(ToolDecl(n) for n in inner if isinstance(n, str))
            out.extend(_tools([x for x in inner if isinstance(x, dict)], f"{where}[{i}].tools"))
        elif isinstance(t.get("name"), str):
            if kind == "custom" and "input_schema" not in t:  # OpenAI freeform (no schema)
                description = t.get("description")
                nested = (_nested(description) if t["name"] == EXEC and
                          is_code_mode(description) else ())
                out.append(ToolDecl(t["name"], "custom", nested=nested))
            elif kind in (None, "function", "custom_tool") or "input_schema" in t:
                # Anthropic's client tools may say ``type: custom``: they have a schema
                schema = t.get("input_schema", t.get("parameters"))
                out.append(ToolDecl(t["name"], "function", *schema_params(schema)))
            else:  # Anthropic server tools such as web_search_20250305
                out.append(ToolDecl(t["name"], "builtin"))
        elif isinstance(kind, str):  # Responses built-ins: web_search, tool_search, ...
            out.append(ToolDecl(kind, "builtin"))
    return out


def _nested(description: str) -> tuple[ToolDecl, ...]:
    return tuple(ToolDecl(n.name, "custom" if n.freeform else "function", n.params, n.required)
                 for n in nested_tools(description))


# --------------------------------------------------------------------------- Chat


def read_chat(body: Mapping[str, Any]) -> Conversation:
    """Read an OpenAI Chat Completions request (``POST /v1/chat/completions``)."""
    model = _str(_required(body, "model"), "model")
    messages = _list(_required(body, "messages"), "messages")
    if not messages:
        raise RequestError("messages: must contain at least one message", param="messages")
    prompts: list[str] = []
    marks: list[Mark] = []
    texts: list[str] = []
    turns = calls = results = 0
    for i, raw in enumerate(messages):
        msg = raw if isinstance(raw, dict) else _item(raw, "messages", i)
        role = msg.get("role")
        if not isinstance(role, str):
            role = _role(msg, "messages", i)
        if role in ("system", "developer"):
            texts.extend(_text_parts(msg.get("content"), ("text",), "messages", i))
        elif role == "user":
            parts = _text_parts(msg.get("content"), ("text",), "messages", i)
            texts.extend(parts)
            prompt = _prompt_of(parts)
            if prompt is not None:
                prompts.append(prompt)
                marks = []
        elif role == "assistant":
            turns += 1
            if _text_parts(msg.get("content"), ("text", "refusal"), "messages", i):
                marks.append(_TEXT)
            for j, tc in enumerate(_list(msg.get("tool_calls") or [],
                                         f"messages[{i}].tool_calls")):
                call = _obj(tc, f"messages[{i}].tool_calls[{j}]")
                fn = call.get("function")
                name = fn.get("name") if isinstance(fn, dict) else None
                calls += 1
                marks.append(Mark("call", name if isinstance(name, str) else ""))
        elif role in ("tool", "function"):
            results += 1
        else:
            raise RequestError(
                f"messages[{i}].role: unknown role {role!r} (expected system, developer, user, "
                "assistant or tool)",
                param=f"messages[{i}].role",
            )
    stream = _stream_flag(body)
    opts = body.get("stream_options")
    include_usage = isinstance(opts, dict) and bool(opts.get("include_usage"))
    max_tokens = _max_tokens(body, "max_completion_tokens", required=False) or _max_tokens(
        body, "max_tokens", required=False
    )
    return Conversation(
        api="chat",
        model=model,
        stream=stream,
        prompts=tuple(prompts),
        cwd=find_cwd(texts),
        tools=_declared(body.get("tools"), "tools"),
        marks=tuple(marks),
        assistant_turns=turns,
        tool_calls=calls,
        tool_results=results,
        include_usage=include_usage,
        max_tokens=max_tokens,
        one_call=body.get("parallel_tool_calls") is False,
        client=client_hint(texts),
    )


def _required_in(obj: Mapping[str, Any], key: str, where: str) -> Any:
    if key not in obj:
        raise RequestError(f"{where}.{key}: Field required", param=f"{where}.{key}")
    return obj[key]


# --------------------------------------------------------------------------- Responses

_RESPONSES_CALLS = frozenset(
    {
        "function_call",
        "custom_tool_call",
        "local_shell_call",
        "web_search_call",
        "file_search_call",
        "computer_call",
        "code_interpreter_call",
        "mcp_call",
        "tool_search_call",
        "image_generation_call",
    }
)
_RESPONSES_OUTPUTS = frozenset(
    {
        "function_call_output",
        "custom_tool_call_output",
        "local_shell_call_output",
        "computer_call_output",
        "mcp_call_output",
        "tool_search_output",
    }
)


_MOVES_ON = _RESPONSES_CALLS | _RESPONSES_OUTPUTS | {"message", "reasoning"}
_RESPONSES_TEXTS = ("input_text", "output_text", "text")
_ABSENT: Any = object()  # a key a body leaves out (``null`` is a value)
_NONE_WAITED: frozenset[Any] = frozenset()  # a history without code-mode waits (most)


def read_responses(body: Mapping[str, Any]) -> Conversation:
    """Read an OpenAI Responses request (``POST /v1/responses``), Codex's included (each
    field read once and tested inline, as :func:`read_messages` does)."""
    model = body.get("model")
    if not isinstance(model, str):
        model = _str(_required(body, "model"), "model")
    raw_input = body.get("input", _ABSENT)
    if raw_input is _ABSENT:
        raw_input = _required(body, "input")
    # the declared tuple itself unless the input adds tools: the same object on every request
    # of an agent, so its names are made once (``_names``: 1.3 µs for Codex's 13 tools)
    tools = _declared(body.get("tools"), "tools")
    prompts: list[str] = []
    marks: list[Mark] = []
    texts: list[str] = []
    calls = results = turns = waits = 0
    in_turn = False
    waited: frozenset[Any] | set[Any] = _NONE_WAITED  # call ids of code-mode ``wait`` calls
    running: str | None = None
    failed: str | None = None
    instructions = body.get("instructions")
    if isinstance(instructions, str):
        texts.append(instructions)
    if isinstance(raw_input, list):
        items: list[Any] = raw_input
    elif isinstance(raw_input, str):
        items = [{"type": "message", "role": "user", "content": raw_input}]
    else:
        items = _list(raw_input, "input")
    for i, item in enumerate(items):
        if type(item) is not dict:
            _item(item, "input", i)
        kind = item.get("type", _ABSENT)
        if kind is _ABSENT:
            kind = "message" if "role" in item else None
        # the usual kinds first; what each does to a code-mode cell: an exec cell's or a
        # wait's output says whether the cell still runs (read from the output alone: a
        # continued conversation carries no call before it), any other step of _MOVES_ON
        # means the conversation went on after it
        if kind == "message":
            running = failed = None
            role = item.get("role")
            if not isinstance(role, str):
                role = _role(item, "input", i)
            parts = _text_parts(item.get("content"), _RESPONSES_TEXTS, "input", i)
            if role == "user":
                texts += parts
                prompt = _prompt_of(parts)
                if prompt is not None:
                    prompts.append(prompt)
                    marks = []
                in_turn = False
            elif role == "assistant":
                if not in_turn:
                    turns += 1
                in_turn = True
                marks.append(_TEXT)
            elif role == "developer" or role == "system":
                texts += parts
            else:
                raise RequestError(
                    f"input[{i}].role: unknown role {role!r} (expected user, assistant, system "
                    "or developer)",
                    param=f"input[{i}].role",
                )
        elif kind == "function_call_output" or kind == "custom_tool_call_output":
            running, failed = cell_state(item.get("output"))
            if _call_id(item, i) in waited and kind == "function_call_output":
                continue  # the output of a ``wait``
            results += 1
            in_turn = False
        elif kind == "reasoning":
            running = failed = None
            if not in_turn:
                turns += 1
            in_turn = True
            marks.append(_TEXT)
        elif not isinstance(kind, str):  # before the sets: a list or an object is no key
            if kind is None:
                raise RequestError(f"input[{i}].type: Field required", param=f"input[{i}].type")
            raise RequestError(f"input[{i}].type: expected a string, got {json_kind(kind)}",
                               param=f"input[{i}].type")
        elif kind in _RESPONSES_CALLS:
            running = failed = None
            name = item.get("name")
            call = _call_id(item, i)
            if kind == "function_call" and name == WAIT:  # resumes a cell: no call of the scenario
                if type(waited) is not set:
                    waited = set()
                waited.add(call)
                waits += 1
                continue
            if not in_turn:
                turns += 1
            in_turn = True
            calls += 1
            marks.append(Mark("call", name if isinstance(name, str) else str(kind)))
        elif kind in _RESPONSES_OUTPUTS:
            _call_id(item, i)
            running = failed = None
            results += 1
            in_turn = False
        elif kind == "additional_tools":  # Codex "code mode": tools travel in the input
            tools += _declared(item.get("tools"), f"input[{i}].tools")
        # other item kinds (configuration_update, item_reference, compaction...) carry no turn
    stream = body.get("stream", False)
    if stream is not False and stream is not True:
        stream = _stream_flag(body)
    max_tokens = body.get("max_output_tokens")
    if max_tokens is not None and (type(max_tokens) is not int or max_tokens < 1):
        max_tokens = _max_tokens(body, "max_output_tokens", required=False)
    return _conversation((
        "responses", model, stream, tuple(prompts), find_cwd(texts), tools, tuple(marks),
        turns, calls, results, False, max_tokens,
        {"store": body.get("store"), "reasoning": body.get("reasoning"),
         "include": body.get("include")},
        body.get("parallel_tool_calls") is False, body.get("previous_response_id") or None,
        None, AUTO, running, failed, waits,
    ))


def _call_id(item: Mapping[str, Any], i: int) -> str | None:
    """A Responses item's ``call_id``: a string (or absent), as the API itself requires; the
    code-mode bookkeeping keeps call ids in a set, so a list or object must be refused here."""
    value = item.get("call_id")
    if value is None or isinstance(value, str):
        return value
    raise RequestError(f"input[{i}].call_id: expected a string, got {json_kind(value)}",
                       param=f"input[{i}].call_id")


# --------------------------------------------------------------------------- Messages


def read_messages(body: Mapping[str, Any], *, count_tokens: bool = False) -> Conversation:
    """Read an Anthropic Messages request (``POST /v1/messages``), Claude Code's included.

    Claude Code puts a ``role: "system"`` message inside ``messages``: it is accepted.
    ``count_tokens`` bodies need no ``max_tokens``.

    Each field is read once and tested inline; a value that fails the usual case's test is
    handed to the general check, which raises the API's error (or accepts it as before).
    """
    model = body.get("model")
    if not isinstance(model, str):
        model = _str(_required(body, "model"), "model")
    messages = body.get("messages")
    if not isinstance(messages, list):
        messages = _list(_required(body, "messages"), "messages")
    max_tokens = body.get("max_tokens")
    if type(max_tokens) is not int or max_tokens < 1:
        max_tokens = _max_tokens(body, "max_tokens", required=not count_tokens)
    texts: list[str] = []
    system = body.get("system")
    if isinstance(system, str):
        texts.append(system)
    elif system is not None:
        if not isinstance(system, list):
            raise RequestError(
                f"system: expected a string or an array of text blocks, got {json_kind(system)}",
                param="system",
            )
        texts += _text_parts(system, _TEXT_TYPES, "system")
    prompts: list[str] = []
    marks: list[Mark] = []
    turns = calls = results = 0
    for i, msg in enumerate(messages):
        if type(msg) is not dict:
            _item(msg, "messages", i)
        role = msg.get("role")
        content = msg.get("content")
        is_text = type(content) is str or isinstance(content, str)
        if not is_text and not isinstance(content, list):  # a union would be made on each test
            if not isinstance(role, str):
                _role(msg, "messages", i)
            _message_content(msg, i)
        if role == "user":
            if is_text:
                parts, n_results = [content], 0
            else:
                parts, n_results = _user_content(content, i)
            texts += parts
            if n_results:
                results += n_results
            else:
                prompt = _prompt_of(parts)
                if prompt is not None:
                    prompts.append(prompt)
                    marks = []
        elif role == "assistant":
            turns += 1
            if is_text:
                if content:
                    marks.append(_TEXT)
                continue
            for block in content:
                if type(block) is not dict and not isinstance(block, dict):
                    _obj(block, f"messages[{i}].content[{_index(content, block)}]")
                btype = block.get("type")
                if btype == "text" or btype == "thinking" or btype == "redacted_thinking":
                    marks.append(_TEXT)
                elif btype == "tool_use" or btype == "server_tool_use":
                    calls += 1
                    marks.append(Mark("call", str(block.get("name", ""))))
        elif role == "system":
            texts += [content] if is_text else _text_parts(content, _TEXT_TYPES, "messages", i)
        elif not isinstance(role, str):
            _role(msg, "messages", i)
        else:
            raise RequestError(
                f"messages[{i}].role: unknown role {role!r} (expected user or assistant)",
                param=f"messages[{i}].role",
            )
    stream = body.get("stream", False)
    if stream is not False and stream is not True:
        stream = _stream_flag(body)
    tool_choice = body.get("tool_choice")
    return _conversation((
        "messages", model, stream, tuple(prompts), find_cwd(texts),
        _declared(body.get("tools"), "tools"), tuple(marks), turns, calls, results,
        False, max_tokens, {"thinking": body.get("thinking")},
        tool_choice is not None and _disables_parallel(tool_choice),
        None if body.get("thread") is None else continued_thread(body),
        None, AUTO, None, None, 0,
    ))


def _message_content(msg: Mapping[str, Any], i: int) -> NoReturn:
    """Raise the error for a Messages history item whose ``content`` is missing or neither
    a string nor a list (its path made only here)."""
    where = f"messages[{i}]"
    content = _required_in(msg, "content", where)
    raise RequestError(
        f"{where}.content: expected a string or an array of content blocks, "
        f"got {json_kind(content)}",
        param=f"{where}.content",
    )


def _user_content(content: list[Any], i: int) -> tuple[list[str], int]:
    """A Messages user turn's texts and its count of tool results, in one walk."""
    texts: list[str] = []
    results = 0
    for part in content:
        if type(part) is not dict and not isinstance(part, dict):
            _obj(part, f"messages[{i}].content[{_index(content, part)}]")
        kind = part.get("type")
        if kind == "text":
            text = part.get("text")
            if type(text) is str or isinstance(text, str):
                texts.append(text)
        elif kind == "tool_result":
            results += 1
    return texts, results


def _disables_parallel(tool_choice: Any) -> bool:
    return isinstance(tool_choice, dict) and tool_choice.get("disable_parallel_tool_use") is True


def continued_thread(body: Mapping[str, Any]) -> str | None:
    """The ``previous_message_id`` of a message-thread ``continue`` request, else ``None``."""
    thread = body.get("thread")
    if thread is None:
        return None
    where = "thread"
    t = _obj(thread, where)
    kind = t.get("type")
    if kind == "create":
        return None
    if kind != "continue":
        raise RequestError(f"{where}.type: expected 'create' or 'continue', got {kind!r}",
                           param=f"{where}.type")
    return _str(_required_in(t, "previous_message_id", where), f"{where}.previous_message_id")


READERS = {"chat": read_chat, "responses": read_responses, "messages": read_messages}


def read_request(api: Api, body: Any) -> Conversation:
    """Read a request body of ``api``; raises :class:`RequestError` on a body the API refuses."""
    if not isinstance(body, dict):
        _obj(body, "body")
    check_optional_fields(api, body)
    return READERS[api](body)


# --------------------------------------------------------------------------- profile

_CLAUDE_MARKERS = frozenset({"Bash", "Write", "Edit", "Read"})
_CODEX_MARKERS = frozenset({"exec_command", "apply_patch", "shell", "write_stdin"})
_OPENCODE_MARKERS = frozenset({"bash", "write", "edit", "read"})


def detect_profile(conv: Conversation) -> Profile:
    """``--agent-type auto``: aider by its instructions, Claude Code, Gemini CLI, Codex and
    opencode by their tool names (Codex's code mode by its ``exec`` tool), else generic
    function calling. Kept for the last few tool lists, like their names (:func:`_names`):
    it depends on the list and the client alone, and an agent sends one list throughout."""
    tools = conv.tools
    kept = _PROFILES.get(id(tools))
    if kept is not None and kept[0] is tools and kept[1] == conv.client:
        return kept[2]
    profile = _detect_profile(conv)
    if len(_PROFILES) >= _NAMES_LIMIT:
        _PROFILES.clear()
    _PROFILES[id(tools)] = (tools, conv.client, profile)
    return profile


_PROFILES: dict[int, tuple[tuple[ToolDecl, ...], str | None, Profile]] = {}


def _detect_profile(conv: Conversation) -> Profile:
    if conv.client in ("aider", "aider-whole") and not conv.tools:
        return "aider"
    names = conv.tool_names
    if len(names & _CLAUDE_MARKERS) >= 2:
        return "claude"
    if len(names & gemini_cli.MARKERS) >= gemini_cli.MARKED:
        return "gemini"
    if names & _CODEX_MARKERS or conv.code_cell is not None:
        return "codex"
    if len(names & _OPENCODE_MARKERS) >= 3:
        return "opencode"
    return "openai"
