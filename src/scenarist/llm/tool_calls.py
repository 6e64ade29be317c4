"""The last tool calls of a request's history with the results the client sent back.

:mod:`scenarist.llm.conversation` (every request's path) only counts calls and results; this
reads their text, for the requests whose scenario states a result or status, or that lack a
result (:mod:`scenarist.llm.divergence`). Only the calls of the current user turn are
compared, so the history is read from its end and reading stops once they are found: a long
agent session costs what its last turn holds. Pure, over a body
:func:`~scenarist.llm.conversation.read_request` has already validated; anything it does not
recognise is skipped.
"""

# Annotations are not postponed here: see "Records" in docs/architecture.md.
from collections.abc import Iterator, Mapping
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
_OWN = object()  # the id of a call that carries its own result

# what the history holds, newest first: ("call", name, id) or ("result", id, (text, flag))
Item = tuple[str, Any, Any]


def tool_calls(api: Api, body: Mapping[str, Any], last: int) -> list[ToolCall]:
    """The ``last`` tool calls of the history (fewer if it holds fewer), oldest first, each
    with its result (None: the request carries none)."""
    items = (_chat(body.get("messages")) if api == "chat" else
             _responses(body.get("input")) if api == "responses" else
             _messages(body.get("messages")))
    results: dict[Any, tuple[str, bool | None]] = {}
    calls: list[ToolCall] = []
    for kind, first, second in items:
        if len(calls) >= last:
            break
        if kind == "result":
            results.setdefault(first, second)
            continue
        found = ("", None) if second is _OWN else results.get(second)
        calls.append(ToolCall(first, None, None) if found is None
                     else ToolCall(first, found[0], failed(*found)))
    calls.reverse()
    return calls


def _text(content: Any) -> str:
    """A result's text: a string, or the text of its parts (other parts as JSON)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(p["text"] if isinstance(p, dict) and isinstance(p.get("text"), str)
                       else "" for p in content)
    return "" if content is None else as_text(content)


def _newest_first(items: Any) -> Iterator[dict[str, Any]]:
    return (i for i in reversed(items) if isinstance(i, dict)) if isinstance(items, list) \
        else iter(())


def _chat(messages: Any) -> Iterator[Item]:
    for msg in _newest_first(messages):
        role = msg.get("role")
        if role == "tool":
            yield "result", msg.get("tool_call_id"), (_text(msg.get("content")), None)
        elif role == "assistant":
            for call in _newest_first(msg.get("tool_calls")):
                fn = call.get("function")
                name = fn.get("name") if isinstance(fn, dict) else None
                yield "call", name if isinstance(name, str) else "", call.get("id")


def _responses(items: Any) -> Iterator[Item]:
    waited: set[Any] = set()  # code mode: a wait and its output are no call of the scenario
    pending: list[Item] = []  # outputs seen before knowing whether a wait answers them
    for item in _newest_first(items):
        kind, name = item.get("type"), item.get("name")
        if kind in _OUTPUTS:
            pending.append(("result", item.get("call_id"), (_text(item.get("output")), None)))
        elif kind == "function_call" and name == WAIT:
            waited.add(item.get("call_id"))
        elif kind in _ANSWERED or kind in _BUILT_IN:
            yield from (p for p in pending if p[1] not in waited)
            pending = []
            label = name if isinstance(name, str) else str(kind)
            yield "call", label, _OWN if kind in _BUILT_IN else item.get("call_id")


def _messages(messages: Any) -> Iterator[Item]:
    for msg in _newest_first(messages):
        role = msg.get("role")
        for block in _newest_first(msg.get("content")):
            kind = block.get("type")
            if role == "user" and kind == "tool_result":
                flag = block.get("is_error")
                yield "result", block.get("tool_use_id"), (_text(block.get("content")),
                                                           bool(flag) if flag is not None
                                                           else False)
            elif role == "assistant" and kind in ("tool_use", "server_tool_use"):
                # a server tool's outcome is in the assistant message: the provider ran it
                yield ("call", str(block.get("name", "")),
                       _OWN if kind == "server_tool_use" else block.get("id"))
