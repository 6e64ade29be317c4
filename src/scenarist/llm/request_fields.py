"""The optional fields of a model request, checked as the real APIs check them (pure).

A mock that answers 200 to ``temperature: "hot"`` or ``tools: [{}]`` lets a client bug through
that the real API would have stopped with a 400 naming the field. Each API gets a table of the
optional fields it knows, field → check; a check raises :class:`RequestError` with the field's
path. Fields that the table does not name pass untouched: agents send newer fields (Codex's
``prompt_cache_key``, Claude Code's ``context_management``) that a mock has no reason to refuse.
The required fields and the conversation itself are read in :mod:`scenarist.llm.conversation`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from scenarist.json_kind import json_kind
from scenarist.llm.request_body import SeenTools
from scenarist.llm.request_errors import RequestError

if TYPE_CHECKING:
    from scenarist.llm.conversation import Api

__all__ = ["check_optional_fields"]

Check = Callable[[Any, str], None]


def _fail(where: str, expected: str, value: Any) -> RequestError:
    return RequestError(f"{where}: expected {expected}, got {json_kind(value)}", param=where)


def _number(lo: float, hi: float) -> Check:
    def check(value: Any, where: str) -> None:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise _fail(where, "a number", value)
        if not lo <= value <= hi:
            raise RequestError(f"{where}: must be between {lo:g} and {hi:g}, got {value!r}",
                               param=where)
    return check


def _integer(lo: int, hi: int | None = None) -> Check:
    def check(value: Any, where: str) -> None:
        if isinstance(value, bool) or not isinstance(value, int):
            raise _fail(where, "an integer", value)
        if value < lo or (hi is not None and value > hi):
            bounds = f"at least {lo}" if hi is None else f"between {lo} and {hi}"
            raise RequestError(f"{where}: must be {bounds}, got {value}", param=where)
    return check


def _boolean(value: Any, where: str) -> None:
    if value is not True and value is not False:
        raise _fail(where, "a boolean", value)


def _string(value: Any, where: str) -> None:
    if type(value) is not str and not isinstance(value, str):
        raise _fail(where, "a string", value)


def _object(value: Any, where: str) -> None:
    if type(value) is not dict and not isinstance(value, dict):
        raise _fail(where, "an object", value)


def _string_list(most: int | None = None) -> Check:
    def check(value: Any, where: str) -> None:
        if type(value) is not list and not isinstance(value, list):
            raise _fail(where, "an array of strings", value)
        for i, item in enumerate(value):
            if type(item) is not str:  # the item's path made only for an error
                _string(item, f"{where}[{i}]")
        if most is not None and len(value) > most:
            raise RequestError(f"{where}: at most {most} items, got {len(value)}", param=where)
    return check


def _one_of(*choices: str) -> Check:
    def check(value: Any, where: str) -> None:
        if value not in choices or not isinstance(value, str):
            raise RequestError(f"{where}: expected one of {', '.join(map(repr, choices))}, "
                               f"got {value!r}"[:300], param=where)
    return check


def _fields(**checks: Check) -> Check:
    """An object whose listed keys, when present and not null, pass their checks."""
    def check(value: Any, where: str) -> None:
        if type(value) is not dict:
            _object(value, where)
        for key, sub in checks.items():
            if value.get(key) is not None:
                sub(value[key], f"{where}.{key}")
    return check


def _string_map(value: Any, where: str) -> None:
    """OpenAI ``metadata``: up to 16 string values."""
    _object(value, where)
    for key, item in value.items():
        _string(item, f"{where}.{key}")
    if len(value) > 16:
        raise RequestError(f"{where}: at most 16 keys, got {len(value)}", param=where)


def _stop(value: Any, where: str) -> None:
    if not isinstance(value, str):
        _string_list(4)(value, where)


def _required_string(obj: Mapping[str, Any], key: str, where: str) -> None:
    if type(obj.get(key)) is str:  # the usual case, without making the field's path
        return
    if key not in obj:
        raise RequestError(f"{where}.{key}: Field required", param=f"{where}.{key}")
    _string(obj[key], f"{where}.{key}")


_OPENAI_MODES = ("none", "auto", "required")
_OPENAI_TOOL_CHOICE_MODES = _one_of(*_OPENAI_MODES)


def _openai_tool_choice(value: Any, where: str) -> None:
    if type(value) is str and value in _OPENAI_MODES:  # the usual case: one test
        return
    if isinstance(value, str):
        _OPENAI_TOOL_CHOICE_MODES(value, where)
        return
    _object(value, where)
    _required_string(value, "type", where)


def _chat_tool(value: Any, where: str) -> None:
    _object(value, where)
    kind = value.get("type", "function")
    if kind == "function":
        if "function" not in value:
            raise RequestError(f"{where}.function: Field required", param=f"{where}.function")
        _object(value["function"], f"{where}.function")
        _required_string(value["function"], "name", f"{where}.function")
        if value["function"].get("parameters") is not None:
            _object(value["function"]["parameters"], f"{where}.function.parameters")
    elif kind == "custom":
        custom = value.get("custom")
        _object(custom, f"{where}.custom")
        _required_string(custom, "name", f"{where}.custom")
    else:
        _one_of("function", "custom")(kind, f"{where}.type")


def _responses_tool(value: Any, where: str) -> None:
    _object(value, where)
    _required_string(value, "type", where)
    if value["type"] in ("function", "custom"):
        _required_string(value, "name", where)
    params = value.get("parameters") if value["type"] == "function" else None
    if params is not None and not isinstance(params, dict):
        _object(params, f"{where}.parameters")


def _anthropic_tool(value: Any, where: str) -> None:
    _object(value, where)
    if value.get("type") not in (None, "custom"):  # a server tool: web_search_20250305, ...
        _string(value["type"], f"{where}.type")
        return
    _required_string(value, "name", where)
    if "input_schema" not in value:
        raise RequestError(f"{where}.input_schema: Field required", param=f"{where}.input_schema")
    if not isinstance(value["input_schema"], dict):
        _object(value["input_schema"], f"{where}.input_schema")


def _list_of(item: Check) -> Check:
    def check(value: Any, where: str) -> None:
        if not isinstance(value, list):
            raise _fail(where, "an array", value)
        for i, element in enumerate(value):
            item(element, f"{where}[{i}]")
    return check


def _tool_list(item: Check) -> Check:
    """:func:`_list_of` ``item``, checked once for a tool list sent before (a
    :class:`SeenTools`: an agent's dozen schemas took ~7 µs to check on each request)."""
    whole = _list_of(item)

    def check(value: Any, where: str) -> None:
        if isinstance(value, SeenTools):
            key = (whole, where)
            if key not in value.known:
                value.derived(key, _passed, whole, value, where)
        else:
            whole(value, where)
    return check


def _passed(check: Check, value: Any, where: str) -> bool:
    """``check(value, where)``, then ``True`` (what a :class:`SeenTools` keeps: it passed)."""
    check(value, where)
    return True


_ANTHROPIC_TOOL_CHOICE_TYPES = _one_of("auto", "any", "tool", "none")


def _anthropic_tool_choice(value: Any, where: str) -> None:
    _object(value, where)
    _required_string(value, "type", where)
    _ANTHROPIC_TOOL_CHOICE_TYPES(value["type"], f"{where}.type")
    if value["type"] == "tool":
        _required_string(value, "name", where)
    if value.get("disable_parallel_tool_use") is not None:
        _boolean(value["disable_parallel_tool_use"], f"{where}.disable_parallel_tool_use")


def _thinking(value: Any, where: str) -> None:
    if type(value) is not dict:
        _object(value, where)
    if type(value.get("type")) is not str:
        _required_string(value, "type", where)
    if value["type"] == "enabled":
        if "budget_tokens" not in value:
            raise RequestError(f"{where}.budget_tokens: Field required",
                               param=f"{where}.budget_tokens")
        _integer(1024)(value["budget_tokens"], f"{where}.budget_tokens")


def _anthropic_system(value: Any, where: str) -> None:
    if isinstance(value, str):
        return
    if not isinstance(value, list):
        raise _fail(where, "a string or an array of text blocks", value)
    for i, block in enumerate(value):
        if type(block) is not dict or type(block.get("text")) is not str:
            _object(block, f"{where}[{i}]")  # the block's path made only for an error
            _required_string(block, "text", f"{where}[{i}]")


_COMMON_OPENAI: dict[str, Check] = {
    "temperature": _number(0, 2),
    "top_p": _number(0, 1),
    "parallel_tool_calls": _boolean,
    "tool_choice": _openai_tool_choice,
    "metadata": _string_map,
    "store": _boolean,
    "user": _string,
    "service_tier": _string,
}

OPTIONAL_FIELDS: dict[str, dict[str, Check]] = {
    "chat": {
        **_COMMON_OPENAI,
        "n": _integer(1, 128),
        "stop": _stop,
        "presence_penalty": _number(-2, 2),
        "frequency_penalty": _number(-2, 2),
        "logit_bias": _object,
        "logprobs": _boolean,
        "top_logprobs": _integer(0, 20),
        "seed": _integer(-(2**63)),
        "response_format": _fields(type=_string),
        "stream_options": _fields(include_usage=_boolean, include_obfuscation=_boolean),
        "reasoning_effort": _string,
        "tools": _tool_list(_chat_tool),
    },
    "responses": {
        **_COMMON_OPENAI,
        "instructions": _string,
        "max_output_tokens": _integer(1),
        "reasoning": _fields(effort=_string, summary=_string, generate_summary=_string),
        "include": _string_list(),
        "previous_response_id": _string,
        "text": _fields(format=_object, verbosity=_string),
        "truncation": _one_of("auto", "disabled"),
        "stream_options": _fields(include_obfuscation=_boolean),
        "tools": _tool_list(_responses_tool),
    },
    "messages": {
        "temperature": _number(0, 1),
        "top_p": _number(0, 1),
        "top_k": _integer(0),
        "stop_sequences": _string_list(),
        "metadata": _fields(user_id=_string),
        "thinking": _thinking,
        "tool_choice": _anthropic_tool_choice,
        "system": _anthropic_system,
        "tools": _tool_list(_anthropic_tool),
    },
}


def check_optional_fields(api: Api, body: Mapping[str, Any]) -> None:
    """Raise :class:`RequestError` naming the first optional field of ``body`` that the real
    ``api`` would refuse (wrong type, out of range, malformed tool). ``null`` means absent."""
    checks = OPTIONAL_FIELDS[api]
    # the body's keys that the table names, in the body's order, picked in one C-level pass
    # (an agent's body sends ten or so keys, a few of them checked)
    for key in filter(checks.__contains__, body):
        value = body[key]
        if value is not None:
            checks[key](value, key)
