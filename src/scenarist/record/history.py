"""What a recorded request already holds: the conversation so far, read from any of the three wires.

A model request carries the whole conversation: the user's prompts, the model's earlier
answers (reasoning, text, tool calls) and the tool results the agent got. The recorder reads
each request into the same neutral :class:`History` whichever API it speaks, so that chaining
requests into one conversation (:mod:`scenarist.record.chain`) and writing the scenario never
look at a wire format. Prompts are read *as the user typed them*, the agents' wrappers peeled
off by the same rule the model API uses to match them (:func:`scenarist.llm.conversation.strip_wrappers`),
so that a recorded prompt is the one a replay selects by.

Reading is lenient: a recorder must not lose a conversation over a field it does not know.
Items of unknown kinds are skipped; only a body that is not a JSON object is refused.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

import orjson

from scenarist.errors import ScenaristError
from scenarist.llm.conversation import find_cwd, strip_wrappers
from scenarist.llm.gemini_request import gemini_field

Api = Literal["chat", "responses", "messages", "gemini"]


@dataclass(frozen=True, slots=True)
class Prompt:
    """A user turn: the text the user typed (wrappers removed)."""

    text: str


@dataclass(frozen=True, slots=True)
class Thought:
    """Reasoning the model showed (Anthropic thinking, a Responses reasoning summary)."""

    text: str


@dataclass(frozen=True, slots=True)
class Said:
    """Assistant text."""

    text: str


@dataclass(frozen=True, slots=True)
class Call:
    """A tool call in the agent's own vocabulary: ``input`` is the decoded JSON arguments of a
    function tool, or the raw text of a freeform (custom) tool such as Codex's ``apply_patch``."""

    id: str
    name: str
    input: Any


@dataclass(frozen=True, slots=True)
class Outcome:
    """A tool's result as the agent sent it back, matched to its call by ``id``."""

    id: str
    output: str
    is_error: bool = False


Item = Prompt | Thought | Said | Call | Outcome


@dataclass(frozen=True, slots=True)
class History:
    """One request, read: its system text, declared tool names, and the items in order."""

    api: Api
    system: str
    tools: tuple[str, ...]
    items: tuple[Item, ...]
    stream: bool = False
    cwd: str | None = None  # the working directory the agent reports (Codex, Claude Code)

    @property
    def prompts(self) -> tuple[str, ...]:
        return tuple(i.text for i in self.items if isinstance(i, Prompt))

    def slim(self) -> History:
        """This history with its prompts alone: what a chain keeps of a request once a later
        one (which carries everything again) has come, so a long session's memory grows with
        its length, not with its square."""
        return replace(self, items=tuple(i for i in self.items if isinstance(i, Prompt)))

    def key(self) -> tuple[tuple[str, str], ...]:
        """What identifies this history as a prefix of a later one: prompts and call ids (the
        model's texts are left out: agents re-send them reformatted or not at all)."""
        return tuple(_key(i) for i in self.items if isinstance(i, Prompt | Call | Outcome))


def _key(item: Prompt | Call | Outcome) -> tuple[str, str]:
    if isinstance(item, Prompt):
        return ("prompt", item.text)
    return ("call", item.id) if isinstance(item, Call) else ("outcome", item.id)


class UnreadableRequest(ScenaristError, ValueError):
    """A request body the recorder cannot read as a model request (not a JSON object)."""


def read_history(api: Api, raw: bytes) -> History:
    """The conversation a request body carries, in the neutral form."""
    try:
        body = orjson.loads(raw)
    except ValueError as exc:
        raise UnreadableRequest(f"request body is not JSON: {exc}") from None
    if not isinstance(body, dict):
        raise UnreadableRequest("request body is not a JSON object")
    reader = {"chat": _chat, "responses": _responses, "messages": _messages,
              "gemini": _gemini}[api]
    typed: list[str] = []  # the user messages' texts as sent (where agents report their cwd)
    system, items = reader(body, typed)
    return History(api, "\n".join(system), _tool_names(body.get("tools")), tuple(items),
                   stream=body.get("stream") is True, cwd=find_cwd([*system, *typed]))


def decode_arguments(text: str) -> Any:
    """A function call's JSON arguments as a value (the raw text when it is not JSON)."""
    try:
        return orjson.loads(text) if text.strip() else {}
    except ValueError:
        return text


def _tool_names(tools: Any) -> tuple[str, ...]:
    names: list[str] = []
    for tool in tools if isinstance(tools, list) else ():
        if not isinstance(tool, dict):
            continue
        declarations = gemini_field(tool, "functionDeclarations")  # Gemini: a group of functions
        if isinstance(declarations, list):
            names.extend(d["name"] for d in declarations
                         if isinstance(d, dict) and isinstance(d.get("name"), str))
            continue
        fn = tool.get("function")
        name = fn.get("name") if isinstance(fn, dict) else tool.get("name", tool.get("type"))
        if isinstance(name, str):
            names.append(name)
    return tuple(names)


def _texts(content: Any, kinds: Sequence[str] = ("text", "input_text", "output_text")) -> list[str]:
    if isinstance(content, str):
        return [content]
    return [p["text"] for p in content if isinstance(p, dict) and p.get("type") in kinds
            and isinstance(p.get("text"), str)] if isinstance(content, list) else []


def _prompt(texts: Sequence[str], sent: list[str]) -> Iterator[Prompt]:
    sent.extend(texts)
    typed = [s for s in (strip_wrappers(t) for t in texts) if s]
    if typed:
        yield Prompt("\n".join(typed))


def _output_text(output: Any) -> str:
    """A tool result's text: a string, or the text parts of a list of blocks."""
    if isinstance(output, str):
        return output
    if isinstance(output, list):
        return "".join(_texts(output))
    return "" if output is None else orjson.dumps(output).decode()


# --------------------------------------------------------------------------- Chat


def _chat(body: Mapping[str, Any], sent: list[str]) -> tuple[list[str], list[Item]]:
    system: list[str] = []
    items: list[Item] = []
    for msg in body.get("messages") or ():
        if not isinstance(msg, dict):
            continue
        role, content = msg.get("role"), msg.get("content")
        if role in ("system", "developer"):
            system.extend(_texts(content))
        elif role == "user":
            items.extend(_prompt(_texts(content), sent))
        elif role == "assistant":
            items.extend(Said(t) for t in _texts(content) if t)
            for tc in msg.get("tool_calls") or ():
                fn = tc.get("function") if isinstance(tc, dict) else None
                if isinstance(fn, dict):
                    items.append(Call(str(tc.get("id", "")), str(fn.get("name", "")),
                                      decode_arguments(str(fn.get("arguments") or ""))))
        elif role == "tool":
            items.append(Outcome(str(msg.get("tool_call_id", "")), _output_text(content)))
    return system, items


# --------------------------------------------------------------------------- Responses

_CALLS = {"function_call": "arguments", "custom_tool_call": "input"}
_OUTPUTS = frozenset({"function_call_output", "custom_tool_call_output"})


def _responses(body: Mapping[str, Any], sent: list[str]) -> tuple[list[str], list[Item]]:
    instructions = body.get("instructions")
    system = [instructions] if isinstance(instructions, str) else []
    raw = body.get("input")
    entries = [{"type": "message", "role": "user", "content": raw}] if isinstance(raw, str) else raw
    items: list[Item] = []
    for entry in entries if isinstance(entries, list) else ():
        if not isinstance(entry, dict):
            continue
        kind = entry.get("type", "message")
        if kind == "message":
            role, texts = entry.get("role"), _texts(entry.get("content"))
            if role == "user":
                items.extend(_prompt(texts, sent))
            elif role == "assistant":
                items.extend(Said(t) for t in texts if t)
            else:
                system.extend(texts)
        elif kind == "reasoning":
            items.extend(Thought(t) for t in _texts(entry.get("summary"), ("summary_text",)) if t)
        elif kind in _CALLS:
            field = str(entry.get(_CALLS[kind]) or "")
            value = decode_arguments(field) if kind == "function_call" else field
            items.append(Call(str(entry.get("call_id", "")), str(entry.get("name", "")), value))
        elif kind in _OUTPUTS:
            items.append(Outcome(str(entry.get("call_id", "")), _output_text(entry.get("output"))))
    return system, items


# --------------------------------------------------------------------------- Messages


def _messages(body: Mapping[str, Any], sent: list[str]) -> tuple[list[str], list[Item]]:
    system = _texts(body.get("system"))
    items: list[Item] = []
    for msg in body.get("messages") or ():
        if not isinstance(msg, dict):
            continue
        role, content = msg.get("role"), msg.get("content")
        if role == "system":
            system.extend(_texts(content))
        elif role == "user":
            blocks = content if isinstance(content, list) else []
            results = [b for b in blocks if isinstance(b, dict) and b.get("type") == "tool_result"]
            items.extend(Outcome(str(b.get("tool_use_id", "")), _output_text(b.get("content")),
                                 b.get("is_error") is True) for b in results)
            if not results:
                items.extend(_prompt(_texts(content), sent))
        elif role == "assistant":
            items.extend(_assistant_blocks(content))
    return system, items


def _assistant_blocks(content: Any) -> Iterator[Item]:
    if isinstance(content, str):
        if content:
            yield Said(content)
        return
    for block in content if isinstance(content, list) else ():
        kind = block.get("type") if isinstance(block, dict) else None
        if kind == "text" and block.get("text"):
            yield Said(str(block["text"]))
        elif kind == "thinking" and block.get("thinking"):
            yield Thought(str(block["thinking"]))
        elif kind == "tool_use":
            yield Call(str(block.get("id", "")), str(block.get("name", "")), block.get("input"))


# --------------------------------------------------------------------------- Gemini


def _gemini(body: Mapping[str, Any], sent: list[str]) -> tuple[list[str], list[Item]]:
    """``contents`` of a ``generateContent`` request. A call may come without an ``id`` (the
    API makes it optional): it is then named after its function and its place among that
    function's calls, and its ``functionResponse`` by the same rule, so a call and its result
    pair up and stay the same in every later request."""
    instruction = gemini_field(body, "systemInstruction")
    system = _gemini_texts(instruction.get("parts") if isinstance(instruction, dict)
                           else instruction)
    items: list[Item] = []
    calls: dict[str, int] = {}
    results: dict[str, int] = {}
    for content in body.get("contents") or ():
        if not isinstance(content, dict):
            continue
        parts = [p for p in content.get("parts") or () if isinstance(p, dict)]
        if content.get("role", "user") == "model":
            items.extend(_gemini_model_parts(parts, calls))
            continue
        for part in parts:
            answer = gemini_field(part, "functionResponse")
            if isinstance(answer, dict):
                name = str(answer.get("name", ""))
                items.append(Outcome(_gemini_id(answer, name, results),
                                     _gemini_output(answer.get("response"))))
        items.extend(_prompt([t for p in parts if not p.get("thought")
                              for t in _gemini_texts([p])], sent))
    return system, items


def _gemini_model_parts(parts: Sequence[Mapping[str, Any]], calls: dict[str, int]
                        ) -> Iterator[Item]:
    for part in parts:
        call = gemini_field(part, "functionCall")
        if isinstance(call, dict):
            name = str(call.get("name", ""))
            yield Call(_gemini_id(call, name, calls), name, call.get("args") or {})
        elif isinstance(part.get("text"), str) and part["text"]:
            yield Thought(part["text"]) if part.get("thought") else Said(part["text"])


def _gemini_id(call: Mapping[str, Any], name: str, seen: dict[str, int]) -> str:
    seen[name] = seen.get(name, 0) + 1
    given = call.get("id")
    return given if isinstance(given, str) and given else f"{name}#{seen[name]}"


def _gemini_texts(parts: Any) -> list[str]:
    if isinstance(parts, str):
        return [parts]
    return [p["text"] for p in parts if isinstance(p, dict) and isinstance(p.get("text"), str)
            ] if isinstance(parts, list) else []


def _gemini_output(response: Any) -> str:
    """A ``functionResponse.response``: its ``output`` (or ``result``) text when it has one,
    as Gemini CLI and the SDKs' automatic calling send it, else the object as JSON."""
    if isinstance(response, dict):
        for key in ("output", "result", "content"):
            if isinstance(response.get(key), str):
                return str(response[key])
    return _output_text(response)

