"""A scenario whose first model turn makes two tool calls, for the conversation-state tests."""

from __future__ import annotations

from scenarist.llm.script import ModelTurn, Script, Segment, TimedText, ToolAction

PROMPT = "compare the weather in Paris and London"
WEATHER = Script(
    name="two-cities",
    prompt=PROMPT,
    segments=(
        Segment(
            PROMPT,
            (
                ModelTurn(
                    0,
                    text=(TimedText(1, "Let me check both cities."),),
                    actions=(ToolAction("get_weather", {"city": "Paris"}),
                             ToolAction("get_weather", {"city": "London"})),
                    duration_ms=1,
                ),
                ModelTurn(1, text=(TimedText(1, "Paris is sunnier than London today."),),
                          duration_ms=1),
            ),
        ),
    ),
)
