"""The tool calls in a request's history with the results the client sent back, in order.

:mod:`scenarist.llm.conversation` (every request's path) only counts calls and results; this
reads their text, for the requests whose scenario states a result or status, or that lack a
result (:mod:`scenarist.llm.divergence`). Pure, over a body :func:`~scenarist.llm.conversation.
read_request` has already validated; anything it does not recognise is skipped.
"""

# Annotations are not postponed here: see "Records" in docs/architecture.md.
from collections.abc import Iterable, Mapping
from typing import Any

from scenarist.json_out import as_text
from scenarist.llm.code_mode import WAIT
from scenarist.llm.conversation import Api
from scenarist.llm.divergence import ToolCall, failed

__all__ = ["tool_calls"]

#: Responses items that are calls answered by a separate output item (by ``call_id``)
_ANSWERED = frozenset({"function_call", "custom_tool_call", "local_shell_call"})
#: Responses calls that carry their own outcome (the provider ran them)
_BUILT_IN = frozenset({"web_search_call", "file_search_call", "computer_call",
                       "code_interpreter_call", "mcp_call", "tool_search_call",
                       "image_generation_call"})
_OUTPUTS = frozenset({"function_call_output", "custom_tool_call_output",
                      "local_shell_call_output", "computer_call_output", "mcp_call_output",
                      "tool_search_output"})


def tool_calls(api: Api, body: Mapping[str, Any]) -> list[ToolCall]:
    """Every tool call of the history, oldest first, each with its result (None: missing)."""
    if api == "chat":
        return _chat(body.get("messages"))
    if api == "responses":
        return _responses(body.get("input"))
    return _messages(body.get("messages"))


def _text(content: Any) -> str:
    """A result's text: a string, or the text of its parts (other parts as JSON)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(p["text"] if isinstance(p, dict) and isinstance(p.get("text"), str)
                       else "" for p in content)
    return "" if content is None else as_text(content)


def _dicts(items: Any) -> Iterable[dict[str, Any]]:
    return (i for i in items if isinstance(i, dict)) if isinstance(items, list) else ()


def _settle(order: list[tuple[str, Any]], results: dict[Any, tuple[str, bool | None]]
            ) -> list[ToolCall]:
    out = []
    for name, call_id in order:
        found = results.get(call_id)
        out.append(ToolCall(name, None, None) if found is None
                   else ToolCall(name, found[0], failed(*found)))
    return out


def _chat(messages: Any) -> list[ToolCall]:
    order: list[tuple[str, Any]] = []
    results: dict[Any, tuple[str, bool | None]] = {}
    for msg in _dicts(messages):
        if msg.get("role") == "assistant":
            for call in _dicts(msg.get("tool_calls")):
                fn = call.get("function")
                name = fn.get("name") if isinstance(fn, dict) else None
                order.append((name if isinstance(name, str) else "", call.get("id")))
        elif msg.get("role") == "tool":
            results[msg.get("tool_call_id")] = (_text(msg.get("content")), None)
    return _settle(order, results)


def _responses(items: Any) -> list[ToolCall]:
    order: list[tuple[str, Any]] = []
    results: dict[Any, tuple[str, bool | None]] = {}
    own: dict[Any, tuple[str, bool | None]] = {}
    waited: set[Any] = set()
    for item in _dicts(items):
        kind, name = item.get("type"), item.get("name")
        if kind == "function_call" and name == WAIT:  # code mode: no call of the scenario
            waited.add(item.get("call_id"))
        elif kind in _ANSWERED:
            order.append((name if isinstance(name, str) else str(kind), item.get("call_id")))
        elif kind in _BUILT_IN:
            key = ("built-in", len(order))
            order.append((name if isinstance(name, str) else str(kind), key))
            own[key] = (_text(item.get("output")), None)
        elif kind in _OUTPUTS and item.get("call_id") not in waited:
            results[item.get("call_id")] = (_text(item.get("output")), None)
    return _settle(order, {**results, **own})


def _messages(messages: Any) -> list[ToolCall]:
    order: list[tuple[str, Any]] = []
    results: dict[Any, tuple[str, bool | None]] = {}
    for msg in _dicts(messages):
        for block in _dicts(msg.get("content")):
            kind = block.get("type")
            if msg.get("role") == "assistant" and kind == "tool_use":
                order.append((str(block.get("name", "")), block.get("id")))
            elif msg.get("role") == "assistant" and kind == "server_tool_use":
                key = ("server", len(order))  # the provider ran it: its result is its own
                order.append((str(block.get("name", "")), key))
                results[key] = ("", False)
            elif msg.get("role") == "user" and kind == "tool_result":
                flag = block.get("is_error")
                results[block.get("tool_use_id")] = (_text(block.get("content")),
                                                     bool(flag) if flag is not None else False)
    return _settle(order, results)
