"""Whether an answer carries the turn's thinking, and how much of it: only what was asked.

A real model API never volunteers its reasoning. An Anthropic answer has thinking blocks only
when the request enables ``thinking`` (``{type: enabled, budget_tokens}`` or ``{type:
adaptive}``); with ``display: omitted`` the block's text is empty and only its signature
travels. A Responses answer has reasoning items only when the request asks for ``reasoning``
(an ``effort`` other than ``none``, or a ``summary``); the item's summary text only when a
summary is asked for, its ``encrypted_content`` only when ``include`` names
``reasoning.encrypted_content`` (Codex asks for both). A Gemini answer has thought parts only when
``generationConfig.thinkingConfig.includeThoughts`` is true. Chat Completions has no field for it.
Clients depend on this: LangChain's ``ChatAnthropic(...).content`` is a string only while the
answer has one text block, so an unasked thinking block puts ``content[0]`` on the thinking.

On top of what the request asks, the scenario's ``server.llmApiStyle`` decides (the spec:
"for OpenAI API style thinking is processed internally but not included in API responses"):

- ``openai`` (the default) never shows the thinking's text: Messages answers carry no thinking
  block; a Responses answer that asked for reasoning carries its reasoning item with an empty
  summary (and ``encrypted_content`` when included), as OpenAI's reasoning models do, so a
  client that round-trips reasoning items (Codex) still sees one;
- ``anthropic`` shows it as asked, unless ``coalesceThinkingWithToolUse: false`` keeps it out of
  answers that make tool calls.
"""

# Annotations are not postponed here: see "Records" in docs/architecture.md.
from itertools import product
from typing import Any, NamedTuple

from scenarist.llm.conversation import Api, Conversation
from scenarist.llm.script import Script

__all__ = ["HIDDEN", "ThinkingShown", "asked", "shown"]

_SUMMARIES = frozenset({"auto", "concise", "detailed"})
ENCRYPTED = "reasoning.encrypted_content"


class ThinkingShown(NamedTuple):
    """How much of a turn's thinking one answer carries."""

    block: bool = False  # a thinking block (Messages) or reasoning item (Responses) at all
    text: bool = False  # its text: the thinking, or the reasoning summary
    sealed: bool = False  # its signature / ``encrypted_content``


# Every value there is, made once: ``asked`` runs for each request (it is part of the memo
# key), and building a frozen dataclass per call cost more than the rest of it (~3 µs).
_ALL = {flags: ThinkingShown(*flags) for flags in product((False, True), repeat=3)}
HIDDEN = _ALL[False, False, False]


def asked(api: Api, conv: Conversation) -> ThinkingShown:
    """What the request asks for (pure: read off the request's fields)."""
    if api == "messages":
        return _anthropic(conv.extra.get("thinking"))
    if api == "responses":
        return _responses(conv.extra.get("reasoning"), conv.extra.get("include"))
    if api == "gemini":  # thought parts, and the signature on the part after them
        return _ALL[True, True, True] if conv.extra.get("thoughts") else HIDDEN
    return HIDDEN


def shown(ask: ThinkingShown, script: Script, makes_calls: bool, api: Api) -> ThinkingShown:
    """What the answer carries: what was asked, within the scenario's API style."""
    if not ask.block:
        return HIDDEN
    if script.api_style == "openai":
        return _ALL[True, False, ask.sealed] if api == "responses" else HIDDEN
    if makes_calls and not script.coalesce_thinking_with_tool_use:
        return HIDDEN
    return ask


def _anthropic(thinking: Any) -> ThinkingShown:
    if not isinstance(thinking, dict) or thinking.get("type") not in ("enabled", "adaptive"):
        return HIDDEN
    return _ALL[True, thinking.get("display") != "omitted", True]


def _responses(reasoning: Any, include: Any) -> ThinkingShown:
    if not isinstance(reasoning, dict):  # a request body is parsed JSON
        return HIDDEN
    summary = reasoning.get("summary") or reasoning.get("generate_summary")
    effort = reasoning.get("effort")
    if summary not in _SUMMARIES and (effort is None or effort == "none"):
        return HIDDEN
    sealed = isinstance(include, list) and ENCRYPTED in include
    return _ALL[True, summary in _SUMMARIES, sealed]
