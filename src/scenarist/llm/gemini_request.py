"""Reading a Gemini ``generateContent`` request into the neutral :class:`Conversation` (pure).

The Gemini API names the model and the streaming form in the URL, not the body:
``POST /v1beta/models/{model}:generateContent`` answers once, ``:streamGenerateContent``
streams (SSE with ``?alt=sse``, else one JSON array). :func:`route_of` reads the path into a
:class:`Route`; :func:`read_gemini` reads the body with it.

The body: ``contents`` (required; each ``{role: user|model, parts}``), ``systemInstruction``,
``tools[].functionDeclarations``, ``toolConfig.functionCallingConfig`` (mode ``ANY`` with
``allowedFunctionNames`` forces calls as ``tool_choice`` does) and ``generationConfig``
(``thinkingConfig.includeThoughts`` asks for thought parts). A user content made of
``functionResponse`` parts is the tools' results, not a prompt; a model content's
``functionCall`` parts are the calls already made, as the other APIs' readers count them.

Types are checked as Google checks them (a 400 naming the field); fields the tables do not
name pass untouched, as for the other APIs (:mod:`scenarist.llm.request_fields`).
"""

# Annotations are not postponed here: see "Records" in docs/architecture.md.
import functools
import math
import re
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

import orjson

from scenarist.json_kind import json_kind
from scenarist.llm.conversation import (
    Conversation,
    Mark,
    ToolDecl,
    client_hint,
    find_cwd,
    schema_params,
    strip_wrappers,
)
from scenarist.llm.request_errors import RequestError
from scenarist.llm.tool_choice import AUTO, ToolChoice

__all__ = ["METHODS", "Route", "gemini_field", "read_count", "read_gemini", "route_of"]

METHODS = ("generateContent", "streamGenerateContent")
#: ``/v1beta/models/{model}:{method}`` (and ``/v1/``), and Vertex AI's
#: ``/v1beta1/[projects/P/locations/L/]publishers/google/models/{model}:{method}``
_PATH = re.compile(r"^/(?:v1beta|v1|v1alpha|v1beta1)/"
                   r"(?:(?:projects/[^/:]+/locations/[^/:]+/)?publishers/google/)?"
                   r"models/([^:]+):([A-Za-z]+)$")


class Route(NamedTuple):
    """What a Gemini model path says: the model, and how the answer goes out."""

    model: str
    stream: bool
    sse: bool  # ``?alt=sse``: SSE frames (else a stream is one JSON array)

    def key(self) -> str:
        """The route as one string (:class:`scenarist.llm.answer.ModelRequest` carries it)."""
        return f"{self.model}\0{int(self.stream)}{int(self.sse)}"

    @classmethod
    def of_key(cls, key: str) -> "Route":
        model, _, flags = key.rpartition("\0")
        return cls(model, flags[:1] == "1", flags[1:2] == "1")


def route_of(path: str, query: str) -> tuple[str, str] | None:
    """``(model, method)`` of a Gemini model path, else ``None``."""
    m = _PATH.match(path)
    return (m.group(1), m.group(2)) if m else None


def sse_asked(query: str) -> bool:
    """Whether the query string asks for SSE (``alt=sse``)."""
    return any(p == "alt=sse" for p in query.split("&"))


# --------------------------------------------------------------------------- names


@functools.cache
def _snake(camel: str) -> str:
    return re.sub(r"(?<!^)([A-Z])", r"_\1", camel).lower()


@functools.cache
def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(w[:1].upper() + w[1:] for w in rest)


def gemini_field(obj: Mapping[str, Any], camel: str) -> Any:
    """A field by its JSON name (``functionCall``) or its proto name (``function_call``):
    Google's JSON parser takes both, and the SDKs send both (google-genai sends
    ``thinkingConfig: {include_thoughts: true}``)."""
    value = obj.get(camel)
    return obj.get(_snake(camel)) if value is None else value


# --------------------------------------------------------------------------- checks


def _fail(where: str, expected: str, value: Any) -> RequestError:
    return RequestError(f"Invalid value at '{where}': expected {expected}, got "
                        f"{json_kind(value)}", param=where)


def _obj(value: Any, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise _fail(where, "an object", value)
    return value


def _list(value: Any, where: str) -> list[Any]:
    if not isinstance(value, list):
        raise _fail(where, "an array", value)
    return value


def _str(value: Any, where: str) -> str:
    if not isinstance(value, str):
        raise _fail(where, "a string", value)
    return value


def _bool(value: Any, where: str) -> None:
    if not isinstance(value, bool):
        raise _fail(where, "a boolean", value)


def _number(lo: float, hi: float) -> Callable[[Any, str], object]:
    def check(value: Any, where: str) -> None:
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
            raise _fail(where, "a number", value)
        if not lo <= value <= hi:
            raise RequestError(f"Invalid value at '{where}': must be between {lo:g} and "
                               f"{hi:g}, got {value!r}", param=where)
    return check


def _integer(lo: int, hi: int | None = None) -> Callable[[Any, str], object]:
    def check(value: Any, where: str) -> None:
        if isinstance(value, bool) or not isinstance(value, int):
            raise _fail(where, "an integer", value)
        if value < lo or (hi is not None and value > hi):
            bounds = f"at least {lo}" if hi is None else f"between {lo} and {hi}"
            raise RequestError(f"Invalid value at '{where}': must be {bounds}, got {value}",
                               param=where)
    return check


def _strings(most: int | None) -> Callable[[Any, str], object]:
    def check(value: Any, where: str) -> None:
        for i, item in enumerate(_list(value, where)):
            _str(item, f"{where}[{i}]")
        if most is not None and len(value) > most:
            raise RequestError(f"Invalid value at '{where}': at most {most} items, got "
                               f"{len(value)}", param=where)
    return check


def _thinking_config(value: Any, where: str) -> None:
    _checked(value, where, _THINKING)


_THINKING: dict[str, Callable[[Any, str], object]] = {
    "includeThoughts": _bool, "thinkingBudget": _integer(-1), "thinkingLevel": _str}
_GENERATION: dict[str, Callable[[Any, str], object]] = {
    "temperature": _number(0, 2), "topP": _number(0, 1), "topK": _number(0, math.inf),
    "candidateCount": _integer(1, 8), "maxOutputTokens": _integer(1),
    "stopSequences": _strings(5), "presencePenalty": _number(-2, 2),
    "frequencyPenalty": _number(-2, 2), "seed": _integer(-(2**31), 2**31 - 1),
    "responseMimeType": _str, "responseSchema": _obj, "responseJsonSchema": _obj,
    "responseModalities": _strings(None), "thinkingConfig": _thinking_config,
}


def _checked(value: Any, where: str, checks: Mapping[str, Callable[[Any, str], object]]) -> None:
    for key, item in _obj(value, where).items():
        check = checks.get(_camel(key))
        if check is not None and item is not None:
            check(item, f"{where}.{key}")


# --------------------------------------------------------------------------- reading


class _Parts(NamedTuple):
    texts: list[str]
    calls: list[str]  # names of functionCall parts
    results: int  # functionResponse parts
    thought: bool  # a thought part (with text)


def _parts(content: dict[str, Any], where: str) -> _Parts:
    texts: list[str] = []
    calls: list[str] = []
    results = 0
    thought = False
    raw = gemini_field(content, "parts")
    if raw is None:
        return _Parts(texts, calls, results, thought)
    for i, item in enumerate(_list(raw, f"{where}.parts")):
        at = f"{where}.parts[{i}]"
        part = _obj(item, at)
        if part.get("thought") is not None:
            _bool(part["thought"], f"{at}.thought")
        if "text" in part and part["text"] is not None:
            text = _str(part["text"], f"{at}.text")
            if part.get("thought") is True:
                thought = thought or bool(text)
            else:
                texts.append(text)
        if gemini_field(part, "functionCall") is not None:
            call = _obj(gemini_field(part, "functionCall"), f"{at}.functionCall")
            calls.append(_str(call.get("name"), f"{at}.functionCall.name"))
            if call.get("args") is not None:
                _obj(call["args"], f"{at}.functionCall.args")
        if gemini_field(part, "functionResponse") is not None:
            response = _obj(gemini_field(part, "functionResponse"), f"{at}.functionResponse")
            _str(response.get("name"), f"{at}.functionResponse.name")
            results += 1
    return _Parts(texts, calls, results, thought)


def _system(value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):  # not in the REST reference, but some clients send it so
        return [value]
    return _parts(_obj(value, "systemInstruction"), "systemInstruction").texts


def _declarations(raw: Any) -> tuple[ToolDecl, ...]:
    if raw is None:
        return ()
    out: list[ToolDecl] = []
    for i, item in enumerate(_list(raw, "tools")):
        where = f"tools[{i}]"
        tool = _obj(item, where)
        for key, value in tool.items():
            if _camel(key) != "functionDeclarations":  # googleSearch, codeExecution, urlContext...
                out.append(ToolDecl(key, "builtin"))
                continue
            for j, decl in enumerate(_list(value, f"{where}.functionDeclarations")):
                at = f"{where}.functionDeclarations[{j}]"
                d = _obj(decl, at)
                if "name" not in d:
                    raise RequestError(f"* GenerateContentRequest.{at}.name: name is not "
                                       "specified", param=f"{at}.name")
                name = _str(d["name"], f"{at}.name")
                schema = gemini_field(d, "parametersJsonSchema") or d.get("parameters")
                if schema is not None:
                    _obj(schema, f"{at}.parameters")
                params, required = schema_params(schema)
                # Gemini's own schema spells types in capitals (``STRING``)
                out.append(ToolDecl(name, "function",
                                    tuple((p, t.lower()) for p, t in params), required))
    return tuple(out)


_MODES = ("MODE_UNSPECIFIED", "AUTO", "ANY", "NONE", "VALIDATED")


def _choice(raw: Any, declared: frozenset[str]) -> ToolChoice:
    """``toolConfig.functionCallingConfig`` as a :class:`ToolChoice`: ``NONE`` → none,
    ``ANY`` → a call is required (to the one allowed function, when it names one)."""
    if raw is None:
        return AUTO
    config = gemini_field(_obj(raw, "toolConfig"), "functionCallingConfig")
    if config is None:
        return AUTO
    where = "toolConfig.functionCallingConfig"
    _obj(config, where)
    mode = config.get("mode") or "AUTO"
    if mode not in _MODES:
        raise RequestError(f"Invalid value at '{where}.mode' ({mode!r}): expected one of "
                           f"{', '.join(_MODES)}"[:300], param=f"{where}.mode")
    allowed = gemini_field(config, "allowedFunctionNames")
    names: list[str] = []
    if allowed is not None:
        _strings(None)(allowed, f"{where}.allowedFunctionNames")
        names = allowed
        if names and mode not in ("ANY", "VALIDATED"):
            raise RequestError(f"{where}.allowedFunctionNames: only allowed when mode is ANY "
                               f"or VALIDATED, got mode {mode}",
                               param=f"{where}.allowedFunctionNames")
        unknown = sorted(set(names) - declared)
        if unknown:
            raise RequestError(f"{where}.allowedFunctionNames: {', '.join(unknown)} not among "
                               f"the request's function declarations (declared: "
                               f"{', '.join(sorted(declared)) or 'none'})"[:400],
                               param=f"{where}.allowedFunctionNames")
    if mode == "NONE":
        return ToolChoice("none")
    if mode == "ANY":
        return ToolChoice("required", names[0] if len(names) == 1 else None)
    return AUTO


def read_gemini(body: Any, route: Route) -> Conversation:
    """Read a ``generateContent`` body; raises :class:`RequestError` where Google answers 400."""
    body = _obj(body, "body")
    if body.get("contents") in (None, []):
        raise RequestError("* GenerateContentRequest.contents: contents is not specified",
                           param="contents")
    contents = _list(body["contents"], "contents")
    config = gemini_field(body, "generationConfig")
    if config is not None:
        _checked(config, "generationConfig", _GENERATION)
    thinking = gemini_field(config, "thinkingConfig") if config else None
    texts = _system(gemini_field(body, "systemInstruction"))
    prompts: list[str] = []
    marks: list[Mark] = []
    turns = calls = results = 0
    for i, raw in enumerate(contents):
        where = f"contents[{i}]"
        content = _obj(raw, where)
        role = content.get("role")
        if role is not None:
            _str(role, f"{where}.role")
        parts = _parts(content, where)
        if role in (None, "", "user", "function"):
            texts.extend(parts.texts)
            results += parts.results
            typed = [s for s in (strip_wrappers(t) for t in parts.texts) if s]
            if typed and not parts.results:
                prompts.append("\n".join(typed))
                marks = []
        elif role == "model":
            turns += 1
            if parts.thought or any(parts.texts):
                marks.append(Mark("text"))
            calls += len(parts.calls)
            marks.extend(Mark("call", name) for name in parts.calls)
        else:
            raise RequestError(f"Please use a valid role: user, model. (got {role!r} at "
                               f"{where}.role)"[:300], param=f"{where}.role")
    tools = _declarations(body.get("tools"))
    declared = frozenset(t.name for t in tools if t.kind == "function")
    choice = _choice(gemini_field(body, "toolConfig"), declared)
    max_tokens = gemini_field(config, "maxOutputTokens") if config else None
    return Conversation(
        api="gemini",
        model=route.model,
        stream=route.stream,
        prompts=tuple(prompts),
        cwd=find_cwd(texts),
        tools=tools,
        marks=tuple(marks),
        assistant_turns=turns,
        tool_calls=calls,
        tool_results=results,
        max_tokens=max_tokens,
        extra={"sse": route.sse,
               "thoughts": isinstance(thinking, dict)
               and gemini_field(thinking, "includeThoughts") is True,
               "json_schema": _json_schema(config)},
        client=client_hint(texts),
        choice=choice,
    )


def _json_schema(config: Any) -> str | None:
    """The JSON schema the answer must follow (``responseMimeType: application/json`` with
    ``responseJsonSchema`` or ``responseSchema``), as JSON text; None when the answer is free
    (:mod:`scenarist.llm.json_answer`)."""
    if not config or gemini_field(config, "responseMimeType") != "application/json":
        return None
    schema = gemini_field(config, "responseJsonSchema") or gemini_field(config, "responseSchema")
    return orjson.dumps(schema).decode() if isinstance(schema, dict) else None


def read_count(raw: bytes) -> Conversation:
    """Validate a ``:countTokens`` body: ``contents``, or a whole ``generateContentRequest``."""
    try:
        body = orjson.loads(raw)
    except ValueError as exc:
        raise RequestError(f"Invalid JSON payload received: {exc}") from None
    inner = gemini_field(_obj(body, "body"), "generateContentRequest")
    if inner is not None:
        return read_gemini(inner, Route("", False, False))
    return read_gemini(body, Route("", False, False))
