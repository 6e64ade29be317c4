"""A loaded scenario read as a transcript: the inverse of the writer, for what it writes.

Used to check the writer (a scenario → transcript → YAML → scenario keeps its prompts,
answers, tool calls, results and timing) and by anything that compares a recorded session
with the scenario it came from. Events a transcript has no place for (``assert``,
``agentEdits``, ``sessionStart``, ...) are left out; a ``baseTimeDelta`` becomes the delay
of the step after it.
"""

from __future__ import annotations

from scenarist.record.transcript import Failure, Step, Text, Thinking, ToolCall, Transcript, Turn
from scenarist.scenario.model import (
    AgentToolUse,
    BaseTimeDelta,
    LlmError,
    LlmResponse,
    Scenario,
    UserInputs,
    content_text,
)
from scenarist.scenario.tools import GenericTool, tool_args

__all__ = ["transcript_of"]


def transcript_of(scenario: Scenario) -> Transcript:
    """The turns of ``scenario`` in the format's own vocabulary."""
    turns: list[Turn] = []
    prompt: str | None = None
    prompt_delay = 0
    steps: list[Step] = []
    cursor = pending = 0
    for event in scenario.timeline:
        if isinstance(event, UserInputs):
            for entry in event.inputs:
                if prompt is not None:
                    turns.append(Turn(prompt, tuple(steps), prompt_delay))
                prompt, prompt_delay, steps = content_text(entry.content), \
                    max(entry.at_ms - cursor, 0), []
                cursor, pending = max(cursor, entry.at_ms), 0
        elif isinstance(event, BaseTimeDelta):
            pending += event.ms
        elif isinstance(event, LlmResponse):
            for step in event.steps:
                delay, pending = step.delay_ms + pending, 0
                cursor += delay
                if isinstance(step, LlmError):
                    steps.append(Failure(step.message, step.status_code, step.error_type,
                                         step.retry_after_seconds, delay))
                else:
                    kind = Thinking if step.kind == "think" else Text
                    steps.append(kind(content_text(step.content), delay))
        elif isinstance(event, AgentToolUse):
            tool = event.tool
            args = dict(tool.args) if isinstance(tool, GenericTool) else tool_args(tool)
            steps.append(ToolCall(tool.name, args, event.result, event.status, None, pending))
            cursor, pending = cursor + pending, 0
    if prompt is not None:
        turns.append(Turn(prompt, tuple(steps), prompt_delay))
    return Transcript(scenario.name, tuple(turns), "format", None, scenario.description,
                      tuple(scenario.tags))
