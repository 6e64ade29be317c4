"""Neutral turns shared by the wire tests (each one exercises a shape of every API)."""

from __future__ import annotations

from scenarist.wire import (
    Error,
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
)

TURNS: dict[str, list[WireEvent]] = {
    "text": [MessageStart("t1", "mock-model", input_tokens=9), TextDelta("Hello "),
             TextDelta("wörld", at_ms=20), Finish(usage=Usage(9, 3), at_ms=40)],
    "tools": [MessageStart("t2", "mock-model", input_tokens=12), TextDelta("Let me look."),
              ToolCallStart("call_a", "get_weather"), ToolCallDelta("call_a", '{"city":'),
              ToolCallDelta("call_a", '"Paris"}'), ToolCallEnd("call_a"),
              ToolCallStart("call_b", "exec_command"), ToolCallDelta("call_b", '{"cmd":"ls"}'),
              ToolCallEnd("call_b"), Finish(usage=Usage(12, 20, cached_input_tokens=4))],
    "custom": [MessageStart("t3", "gpt-5.5"),
               ToolCallStart("call_p", "apply_patch", kind="custom"),
               ToolCallDelta("call_p", "*** Begin Patch\n*** Add File: hi.txt\n"),
               ToolCallDelta("call_p", '+say "hi"\n*** End Patch\n'), ToolCallEnd("call_p"),
               Finish(usage=Usage(5, 6))],
    "reasoning": [MessageStart("t4", "mock-model"), ReasoningDelta("Think "),
                  ReasoningDelta("hard."), ReasoningEnd("c2ln"), TextDelta("42"),
                  Finish(usage=Usage(3, 8, reasoning_tokens=5))],
    "length": [MessageStart("t5", "mock-model"), TextDelta("cut"), Finish("length")],
    "error": [MessageStart("t6", "mock-model"), TextDelta("partial"),
              Error("the model is overloaded", status=529, code="overloaded")],
}
