"""A transcript written as scenario YAML: readable, in the format's order, loadable.

The document is built as plain data in the order ``docs/scenario-format.md`` shows (``name``,
``tags``, ``description``, ``timeline``; in the timeline ``userInputs``, then
``llmResponse`` elements ``think``/``assistant``, an API error as an ``llmResponse`` of its
own (the agent retries after it), then each tool call as the typed event it is) and dumped by PyYAML with multi-line text as block scalars (``|``) and a
one-line step as the pair form ``[ms, text]``.

Tool calls are read back by the agent's table (:mod:`scenarist.vocabulary`): a Codex patch
of two files is two events, the call's result on the last. Timing follows
``docs/timing.md``: a step's delay is its ``ms``; a delay before a tool call is a
``baseTimeDelta`` (tool events take no time of their own); a prompt's ``relativeTime`` is
absolute, taken from the cursor the scenario's own timeline will compute.

``normalise`` (:mod:`.normalise`) is applied to what the agent is told and tells (prompts,
text, thinking, results), not to tool arguments: those are what a replay makes the agent
do. Secrets are masked everywhere (``mask``: :func:`.normalise.mask_secrets`, or a
:func:`.normalise.redactor` with the user's patterns).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import yaml

from scenarist.record.normalise import mask_secrets
from scenarist.record.transcript import (
    Failure,
    Thinking,
    ToolCall,
    Transcript,
    Turn,
    Vocabulary,
)
from scenarist.scenario.tools import TOOLS, GenericTool, Tool, tool_args, tool_from_args
from scenarist.vocabulary import claude_code, codex, relative, relative_paths

__all__ = ["scenario_document", "scenario_tools", "write_scenario"]

Normalise = Callable[[str], str]
_PAIR_CHARS = 80  # a one-line step up to this long is written as [ms, text]


def scenario_tools(call: ToolCall, vocabulary: Vocabulary, cwd: str | None) -> tuple[Tool, ...]:
    """The scenario tools ``call`` stands for, read by its agent's table."""
    if vocabulary == "codex":
        return codex.scenario_tools(call.name, call.input, cwd=cwd)
    if isinstance(call.input, str):
        return (GenericTool(call.name, {"input": call.input}),)
    if vocabulary == "claude-code":
        return (claude_code.scenario_tool(call.name, call.input, cwd=cwd),)
    if call.name in TOOLS:
        try:
            tool = tool_from_args(call.name, call.input)
        except ValueError:
            return (GenericTool(call.name, dict(call.input)),)
        return (relative_paths(tool, relative(cwd)),)
    return (GenericTool(call.name, dict(call.input)),)


def write_scenario(transcript: Transcript, *, normalise: Normalise | None = None,
                   header: str | None = None, mask: Normalise = mask_secrets) -> str:
    """``transcript`` as scenario YAML text (``header``: a comment put first; ``mask``:
    what hides secrets in every string written, :func:`.normalise.redactor` for more)."""
    text = yaml.dump(scenario_document(transcript, normalise=normalise, mask=mask),
                     Dumper=_Dumper,
                     sort_keys=False, allow_unicode=True, width=100, indent=2)
    if header:
        text = "".join(f"# {line}".rstrip() + "\n" for line in header.splitlines()) + text
    return text


def scenario_document(transcript: Transcript, *, normalise: Normalise | None = None,
                      mask: Normalise = mask_secrets) -> dict[str, Any]:
    """The scenario of ``transcript`` as plain data, keys in the format's order."""
    said = mask if normalise is None else (lambda text: mask(normalise(text)))
    doc: dict[str, Any] = {"name": mask(transcript.name)}
    if transcript.tags:
        doc["tags"] = _Pair(transcript.tags)
    if transcript.description:
        doc["description"] = said(transcript.description)
    timeline: list[Any] = []
    cursor = 0
    for turn in transcript.turns:
        cursor = _turn(turn, transcript, said, mask, timeline, cursor)
    doc["timeline"] = timeline
    return doc


def _turn(turn: Turn, transcript: Transcript, said: Normalise, mask: Normalise,
          timeline: list[Any], cursor: int) -> int:
    """Append one turn's items; returns the timeline's cursor after them."""
    at = cursor + max(turn.delay_ms, 0)
    timeline.append({"userInputs": [{"relativeTime": at, "input": _text(said(turn.prompt))}]})
    cursor = at  # the answer starts after its prompt (the timeline waits for it)
    elements: list[dict[str, Any]] = []
    for step in turn.steps:
        delay = max(step.delay_ms, 0)
        if isinstance(step, ToolCall):
            if elements:
                timeline.append({"llmResponse": elements})
                elements = []
            if delay:
                timeline.append({"baseTimeDelta": delay})
            cursor += delay
            timeline.extend(_tool_events(step, transcript, said, mask))
            continue
        cursor += delay
        if isinstance(step, Failure):  # an answer of its own: the agent retries after it
            if elements:
                timeline.append({"llmResponse": elements})
            timeline.append({"llmResponse": [{"error": _error(step, delay, mask)}]})
            elements = []
            continue
        kind = "think" if isinstance(step, Thinking) else "assistant"
        entry = _step(delay, said(step.text))
        if elements and kind in elements[-1]:
            elements[-1][kind].append(entry)
        else:
            elements.append({kind: [entry]})
    if elements:
        timeline.append({"llmResponse": elements})
    return cursor


def _step(delay: int, text: str) -> Any:
    if "\n" in text or len(text) > _PAIR_CHARS:
        return {"relativeTime": delay, "content": _text(text)}
    return _Pair([delay, text])


def _error(step: Failure, delay: int, mask: Normalise) -> dict[str, Any]:
    out: dict[str, Any] = {"errorType": step.error_type, "statusCode": step.status_code,
                           "message": mask(step.message)}
    if step.retry_after_seconds is not None:
        out["retryAfterSeconds"] = step.retry_after_seconds
    if delay:
        out["relativeTime"] = delay
    return out


def _tool_events(call: ToolCall, transcript: Transcript, said: Normalise,
                 mask: Normalise) -> list[Any]:
    tools = scenario_tools(call, transcript.vocabulary, transcript.cwd)
    events: list[Any] = []
    for i, tool in enumerate(tools):
        last = i == len(tools) - 1
        outcome: dict[str, Any] = {}
        if last and call.result is not None:
            result = call.result
            outcome["result"] = _text(said(result)) if isinstance(result, str) else \
                _masked(result, mask)
        if last and call.status is not None:
            outcome["status"] = call.status
        if isinstance(tool, GenericTool):
            body: dict[str, Any] = {"toolName": tool.name, "args": _masked(dict(tool.args), mask),
                                    **outcome}
            events.append({"agentToolUse": body})
        else:
            args = {k: _text(v) if isinstance(v, str) else v
                    for k, v in _masked(tool_args(tool), mask).items()}
            events.append({tool.name: {**args, **outcome}})
    return events


def _masked(value: Any, mask: Normalise) -> Any:
    """``value`` with secrets masked in every string it holds."""
    if isinstance(value, str):
        return mask(value)
    if isinstance(value, Mapping):
        return {k: _masked(v, mask) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_masked(v, mask) for v in value]
    return value


# -- YAML -------------------------------------------------------------------------------------


class _Block(str):
    """Text written as a block scalar when it has more than one line."""

    __slots__ = ()


class _Pair(list[Any]):
    """A ``[ms, text]`` step (or the tags), written on one line."""


def _text(text: str) -> str:
    return _Block(text) if "\n" in text else text


class _Dumper(yaml.SafeDumper):
    """Block scalars for multi-line text, flow pairs for steps; never anchors."""

    def ignore_aliases(self, data: Any) -> bool:
        return True

    def increase_indent(self, flow: bool = False, indentless: bool = False) -> None:
        super().increase_indent(flow, False)  # lists indented under their key, as the docs


def _block(dumper: yaml.SafeDumper, data: _Block) -> yaml.Node:
    return dumper.represent_scalar("tag:yaml.org,2002:str", str(data), style="|")


def _pair(dumper: yaml.SafeDumper, data: _Pair) -> yaml.Node:
    return dumper.represent_sequence("tag:yaml.org,2002:seq", list(data), flow_style=True)


_Dumper.add_representer(_Block, _block)
_Dumper.add_representer(_Pair, _pair)
