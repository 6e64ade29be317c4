"""A model turn → the neutral wire events (with times) that the encoders of :mod:`scenarist.wire`
turn into each API's format.

Pure: the file contents that edits depend on come in through the profile context. Thinking is
exposed or dropped here according to the API and the scenario's ``server`` settings:

- the endpoint decides whether thinking can be carried at all: reasoning items (Responses),
  thinking blocks (Messages), nothing (Chat, which has no field for it);
- ``server.llmApiStyle`` picks the coalescing rules. ``openai`` (the default): a turn's
  reasoning, text and tool calls always travel in one response. ``anthropic``: the same,
  unless ``coalesceThinkingWithToolUse: false`` (only read for this style), which keeps
  thinking out of responses that make tool calls (thinking shows only on answers without
  tool use).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

from scenarist.llm.conversation import Api
from scenarist.llm.profiles import Call, Context, render_action
from scenarist.llm.script import ModelTurn, Script, TimedText
from scenarist.wire import (
    Finish,
    MessageStart,
    ReasoningDelta,
    ReasoningEnd,
    TextDelta,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallStart,
    Usage,
    WireEvent,
    chunk_text,
)

CHUNK_CHARS = 16


@dataclass(frozen=True, slots=True)
class Rendered:
    """A turn ready to encode: its events and the calls it makes (for strict checks, journal)."""

    events: tuple[WireEvent, ...]
    calls: tuple[Call, ...]


def estimate_tokens(chars: int) -> int:
    """A deterministic token count (about four characters a token, at least one)."""
    return max(1, (chars + 3) // 4)


def show_thinking(api: Api, script: Script, makes_calls: bool) -> bool:
    """Whether this API response carries the turn's thinking (see the module doc)."""
    if api == "chat":
        return False
    split = script.api_style == "anthropic" and not script.coalesce_thinking_with_tool_use
    return not (split and makes_calls)


def call_id(api: Api, scenario: str, turn: int, index: int) -> str:
    """A stable tool-call id: the same scenario position always gets the same id."""
    digest = hashlib.sha1(f"{scenario}\0{turn}\0{index}".encode()).hexdigest()[:20]
    return f"toolu_{digest}" if api == "messages" else f"call_{digest}"


def signature(text: str) -> str:
    """A deterministic stand-in for the provider's thinking signature / encrypted content."""
    return "sig_" + hashlib.sha1(text.encode()).hexdigest()


def render_turn(
    turn: ModelTurn,
    *,
    script: Script,
    api: Api,
    ctx: Context,
    model: str,
    input_tokens: int,
) -> Rendered:
    """The events of ``turn`` for ``api``, at the scenario's own times (``at_ms`` since the
    turn began; speed is applied by whoever paces them, see :mod:`scenarist.play`)."""
    rendered = () if ctx.side else tuple(render_action(a, ctx) for a in turn.actions)
    calls = tuple(c for c in rendered if c.kind != "text")
    texts = answer_text(turn, script, ctx.side, [c for c in rendered if c.kind == "text"])

    rid = hashlib.sha1(f"{script.name}\0{turn.index}".encode()).hexdigest()[:24]
    events: list[WireEvent] = [MessageStart(id=rid, model=model, input_tokens=input_tokens)]
    out_chars = 0
    reasoning_chars = 0
    if turn.thinking and show_thinking(api, script, bool(calls)):
        for step in turn.thinking:
            for piece in chunk_text(step.text, CHUNK_CHARS):
                events.append(ReasoningDelta(piece, at_ms=step.at_ms))
            reasoning_chars += len(step.text)
        joined = "".join(s.text for s in turn.thinking)
        events.append(ReasoningEnd(signature(joined), at_ms=turn.thinking[-1].at_ms))
    for step in texts:
        for piece in chunk_text(step.text, CHUNK_CHARS):
            events.append(TextDelta(piece, at_ms=step.at_ms))
        out_chars += len(step.text)
    end = turn.duration_ms
    for k, call in enumerate(calls):
        cid = call_id(api, script.name, turn.index, k)
        events.append(ToolCallStart(cid, call.name, "custom" if call.kind == "custom" else "function",
                                    at_ms=end))
        for piece in _split(call.arguments):
            events.append(ToolCallDelta(cid, piece, at_ms=end))
        events.append(ToolCallEnd(cid, at_ms=end))
        out_chars += len(call.arguments) + len(call.name)
    usage = Usage(
        input_tokens=input_tokens,
        output_tokens=estimate_tokens(out_chars + reasoning_chars),
        reasoning_tokens=estimate_tokens(reasoning_chars) if reasoning_chars else 0,
    )
    events.append(Finish(usage=usage, at_ms=end))
    return Rendered(tuple(events), calls)


def answer_text(turn: ModelTurn, script: Script, side: bool,
                text_calls: Sequence[Call]) -> tuple[TimedText, ...]:
    """The turn's text steps, then the actions that travel as text (aider's edit blocks) at
    the turn's end; a side request (no tools declared, see :mod:`scenarist.llm.answer`) gets
    the turn's text, or the scenario's name when the turn has none."""
    if side and not turn.text:
        return (TimedText(0, script.name),)
    if not text_calls:
        return turn.text
    blocks = "\n".join(c.arguments for c in text_calls)
    lead = "\n\n" if turn.text else ""
    return (*turn.text, TimedText(turn.duration_ms, lead + blocks))


def _split(text: str, size: int = 64) -> Sequence[str]:
    """Argument text in fixed slices (several deltas, as real APIs stream them)."""
    if not text:
        return ()
    return [text[i : i + size] for i in range(0, len(text), size)]
