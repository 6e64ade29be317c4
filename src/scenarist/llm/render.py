"""A model turn → the neutral wire events (with times) that the encoders of :mod:`scenarist.wire`
turn into each API's format.

Pure: the file contents that edits depend on come in through the profile context. Thinking
is carried as far as :mod:`scenarist.llm.thinking` says (what the request asks for, within the
scenario's ``server.llmApiStyle``): a turn's reasoning, text and tool calls travel in one
response; reasoning that is not shown is not counted in the usage either.
"""

# Annotations are not postponed here: see "Records" in docs/architecture.md.
import functools
import hashlib
import json
from collections.abc import Sequence
from typing import NamedTuple

from scenarist.llm.code_mode import WAIT
from scenarist.llm.conversation import Api
from scenarist.llm.ids import TurnRef, call_id, encode_ref
from scenarist.llm.json_answer import schema_answer
from scenarist.llm.profiles import Call, Context, render_action
from scenarist.llm.script import ModelTurn, Script, TimedText
from scenarist.llm.thinking import HIDDEN, ThinkingShown, shown
from scenarist.llm.tool_fit import FitError
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
WAIT_CALL_IDS = 1 << 20  # call ids of ``wait`` calls: past any turn's own calls


class Rendered(NamedTuple):
    """A turn ready to encode: its events and the calls it makes (for strict checks, journal)."""

    events: tuple[WireEvent, ...]
    calls: tuple[Call, ...]
    end_ms: int  # the latest event's ``at_ms`` (known while rendering: a walk of ~40 events
    # again cost ~1.8 µs of each answer)

    @property
    def output_tokens(self) -> int:
        """The answer's own token count (its usage's, from the closing ``Finish``)."""
        last = self.events[-1] if self.events else None
        return last.usage.output_tokens if isinstance(last, Finish) else 0


@functools.lru_cache(maxsize=1024)
def _chunks(text: str) -> tuple[str, ...]:
    """A scenario text's stream deltas: the texts are the scenario's own, so each is split
    once, not on every answer (5 % of an answer's CPU under agent-shaped load)."""
    return tuple(chunk_text(text, CHUNK_CHARS))


@functools.lru_cache(maxsize=1024)
def _text_deltas(text: str, at_ms: int) -> tuple[TextDelta, ...]:
    """A scenario text's stream events, made once (they are immutable): an agent's ~100-word
    answer is ~40 deltas, and making them afresh cost ~15 µs of each answer (~5 % of a
    streamed one under agent-shaped load, bench/bench_llm_agent_cpu.py)."""
    return tuple(TextDelta(piece, at_ms=at_ms) for piece in _chunks(text))


def estimate_tokens(chars: int) -> int:
    """A deterministic token count (about four characters a token, at least one)."""
    return max(1, (chars + 3) // 4)




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
    ref: TurnRef,
    one_call: bool = False,
    thinking: ThinkingShown = HIDDEN,
) -> Rendered:
    """The events of ``turn`` for ``api``, at the scenario's own times (``at_ms`` since the
    turn began; speed is applied by whoever paces them, see :mod:`scenarist.play`).
    ``thinking`` is what the request asks of the turn's thinking.

    The answer's ids derive from ``ref`` (see :mod:`scenarist.llm.ids`). With ``one_call``
    (the request refused parallel tool calls) the answer makes only the turn's call number
    ``ref.part``; its text and thinking go with the first call."""
    actions = turn.actions[ref.part : ref.part + 1] if one_call else turn.actions
    rendered = () if ctx.side else tuple(render_action(a, ctx) for a in actions)
    calls = tuple(c for c in rendered if c.kind != "text")
    if ctx.choice.must_call and not calls and not ctx.side:
        raise FitError(f"the request's tool_choice {ctx.choice.describe()}, so the answer "
                       "must call a tool, but this turn calls none; script a tool call here "
                       "(agentToolUse) or let the client send tool_choice auto")
    first = ref.part == 0
    texts = answer_text(turn, script, ctx.side, [c for c in rendered if c.kind == "text"],
                        with_turn_text=first)
    if ctx.schema is not None and texts:  # the answer must be JSON of that schema
        joined = "".join(t.text for t in texts)
        texts = (TimedText(texts[-1].at_ms, schema_answer(joined, ctx.schema)),)
    events: list[WireEvent] = [
        MessageStart(id=encode_ref(ref), model=model, input_tokens=input_tokens)]
    out_chars = 0
    reasoning_chars = 0
    show = shown(thinking, script, bool(calls), api) if first and turn.thinking else HIDDEN
    end = turn.duration_ms
    end_ms = end  # the calls and the finish come at the turn's end
    if show.block:
        for step in turn.thinking:
            end_ms = max(end_ms, step.at_ms)
            if show.text:
                for piece in _chunks(step.text):
                    events.append(ReasoningDelta(piece, at_ms=step.at_ms))
            reasoning_chars += len(step.text)
        joined = "".join(s.text for s in turn.thinking)
        sealed = signature(joined) if show.sealed else ""
        events.append(ReasoningEnd(sealed, at_ms=turn.thinking[-1].at_ms))
    for step in texts:
        events.extend(_text_deltas(step.text, step.at_ms))
        out_chars += len(step.text)
        end_ms = max(end_ms, step.at_ms)
    prefix = call_prefix(api)
    for k, call in enumerate(calls):
        cid = call_id(prefix, ref, k)
        events.append(ToolCallStart(cid, call.name, "custom" if call.kind == "custom"
                                    else "function", at_ms=end))
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
    return Rendered(tuple(events), calls, end_ms)


def call_prefix(api: Api) -> str:
    """How ``api`` begins its tool-call ids."""
    return "toolu_" if api == "messages" else "call_"


def call_ids(api: Api, ref: TurnRef, count: int) -> tuple[str, ...]:
    """The ids of the first ``count`` tool calls of the answer ``ref``, as :func:`render_turn`
    gives them (what an answer made from a template is filled with,
    :mod:`scenarist.llm.template`)."""
    if count == 1:  # the usual tool-calling answer: no list to make
        return (call_id(call_prefix(api), ref, 0),)
    prefix = call_prefix(api)
    return tuple([call_id(prefix, ref, k) for k in range(count)])


def render_wait(cell: str, waits: int, *, model: str, input_tokens: int, ref: TurnRef) -> Rendered:
    """Codex's code mode: the answer to an ``exec`` cell that yielded while still running is
    a ``wait`` on it (a real model resumes the cell before it goes on). ``ref`` is the turn
    whose cell it is; ``waits`` (the ``wait`` calls already made) keeps each call id new."""
    cid = call_id("call_", ref, WAIT_CALL_IDS + waits)
    arguments = json.dumps({"cell_id": cell})
    events: tuple[WireEvent, ...] = (
        MessageStart(id=encode_ref(ref), model=model, input_tokens=input_tokens),
        ToolCallStart(cid, WAIT, "function", at_ms=0),
        ToolCallDelta(cid, arguments, at_ms=0),
        ToolCallEnd(cid, at_ms=0),
        Finish(usage=Usage(input_tokens=input_tokens,
                           output_tokens=estimate_tokens(len(arguments) + len(WAIT))), at_ms=0),
    )
    return Rendered(events, (Call(WAIT, arguments),), 0)


def answer_text(turn: ModelTurn, script: Script, side: bool, text_calls: Sequence[Call],
                with_turn_text: bool = True) -> tuple[TimedText, ...]:
    """The turn's text steps (unless ``with_turn_text`` is false: a later answer of a turn
    served one call at a time), then the actions that travel as text (aider's edit blocks) at
    the turn's end; a side request (no tools declared, see :mod:`scenarist.llm.answer`) gets
    the turn's text, or the scenario's name when the turn has none."""
    text = turn.text if with_turn_text else ()
    if side and not text:
        return (TimedText(0, script.name),)
    if not text_calls:
        return text
    blocks = "\n".join(c.arguments for c in text_calls)
    lead = "\n\n" if text else ""
    return (*text, TimedText(turn.duration_ms, lead + blocks))


def _split(text: str, size: int = 64) -> Sequence[str]:
    """Argument text in fixed slices (several deltas, as real APIs stream them)."""
    if not text:
        return ()
    return [text[i : i + size] for i in range(0, len(text), size)]
