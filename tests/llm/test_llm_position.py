"""Position from the history alone, on each API's history shapes."""

from __future__ import annotations

import pytest

from scenarist.llm.conversation import read_chat, read_messages, read_responses
from scenarist.llm.ids import TurnRef
from scenarist.llm.position import PositionError, continue_from, locate
from scenarist.llm.script import ModelTurn, Script, ScriptedError, Segment, TimedText, ToolAction

TWO_CALLS = Script(
    name="two",
    prompt="p",
    segments=(
        Segment(
            "p",
            (
                ModelTurn(
                    0, text=(TimedText(0, "a"),), actions=(ToolAction("x", {}), ToolAction("y", {}))
                ),
                ModelTurn(1, actions=(ToolAction("z", {}),)),
                ModelTurn(2, text=(TimedText(0, "done"),)),
            ),
        ),
    ),
)


def _responses(*items: dict[str, object]) -> dict[str, object]:
    return {"model": "m", "input": [{"role": "user", "content": "p"}, *items]}


def fc(call_id: str, name: str) -> dict[str, object]:
    return {"type": "function_call", "call_id": call_id, "name": name, "arguments": "{}"}


def out(call_id: str) -> dict[str, object]:
    return {"type": "function_call_output", "call_id": call_id, "output": "ok"}


def test_interleaved_codex_history_counts_calls_not_runs() -> None:
    msg = {
        "type": "message",
        "role": "assistant",
        "content": [{"type": "output_text", "text": "a"}],
    }
    interleaved = read_responses(_responses(msg, fc("1", "x"), out("1"), fc("2", "y"), out("2")))
    assert locate(TWO_CALLS, interleaved).turn.index == 1
    grouped = read_responses(_responses(msg, fc("1", "x"), fc("2", "y"), out("1"), out("2")))
    assert locate(TWO_CALLS, grouped).turn.index == 1
    later = read_responses(
        _responses(msg, fc("1", "x"), out("1"), fc("2", "y"), out("2"), fc("3", "z"), out("3"))
    )
    assert locate(TWO_CALLS, later).turn.index == 2


def test_partial_calls_stray_and_name_the_expected_turn() -> None:
    conv = read_responses(_responses(fc("1", "x"), out("1")))
    with pytest.raises(PositionError) as info:
        locate(TWO_CALLS, conv)
    assert "1 of its 2 tool call(s)" in info.value.message
    assert info.value.expected is not None and "turn 0" in info.value.expected


def test_anthropic_history() -> None:
    body = {
        "model": "m",
        "max_tokens": 5,
        "messages": [
            {"role": "user", "content": "p"},
            {
                "role": "assistant",
                "content": [
                    {"type": "thinking", "thinking": "t", "signature": "s"},
                    {"type": "text", "text": "a"},
                    {"type": "tool_use", "id": "1", "name": "x", "input": {}},
                    {"type": "tool_use", "id": "2", "name": "y", "input": {}},
                ],
            },
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": "1", "content": "ok"},
                    {"type": "tool_result", "tool_use_id": "2", "content": "ok"},
                ],
            },
        ],
    }
    assert locate(TWO_CALLS, read_messages(body)).turn.index == 1


def test_error_turns_are_stepped_over_once_served() -> None:
    script = Script(
        name="e",
        prompt="p",
        segments=(
            Segment(
                "p",
                (
                    ModelTurn(0, error=ScriptedError("busy", 529)),
                    ModelTurn(1, error=ScriptedError("busy again", 529)),
                    ModelTurn(2, text=(TimedText(0, "ok"),)),
                ),
            ),
        ),
    )
    conv = read_chat({"model": "m", "messages": [{"role": "user", "content": "p"}]})
    served: set[int] = set()
    seen = []
    for _ in range(3):
        turn = locate(script, conv, served.__contains__).turn
        seen.append(turn.index)
        served.add(turn.index)
    assert seen == [0, 1, 2]


def test_one_call_per_answer_stands_at_the_turns_next_call() -> None:
    body = {**_responses(fc("1", "x"), out("1")), "parallel_tool_calls": False}
    position = locate(TWO_CALLS, read_responses(body))
    assert (position.turn.index, position.part) == (0, 1)
    both = {**_responses(fc("1", "x"), out("1"), fc("2", "y"), out("2")),
            "parallel_tool_calls": False}
    assert (locate(TWO_CALLS, read_responses(both)).turn.index, 0) == (1, 0)
    first = {**_responses(), "parallel_tool_calls": False}
    assert locate(TWO_CALLS, read_responses(first)).part == 0


def test_continue_from_an_answer_moves_to_its_next_call_or_turn() -> None:
    tail = read_responses({"model": "m", "input": [out("1")], "previous_response_id": "resp_x"})
    one = read_responses({"model": "m", "input": [out("1")], "parallel_tool_calls": False})
    assert continue_from(TWO_CALLS, TurnRef("two", "k", 0, 0), tail).turn.index == 1
    assert continue_from(TWO_CALLS, TurnRef("two", "k", 0, 0), one).part == 1
    assert continue_from(TWO_CALLS, TurnRef("two", "k", 0, 1), one).turn.index == 1
    assert continue_from(TWO_CALLS, TurnRef("two", "k", 1, 0), tail).turn.index == 2
    with pytest.raises(PositionError, match="no model turn left"):
        continue_from(TWO_CALLS, TurnRef("two", "k", 2, 0), tail)
    with pytest.raises(PositionError, match="no model turn 9"):
        continue_from(TWO_CALLS, TurnRef("two", "k", 9, 0), tail)
    prompt = read_responses({"model": "m", "input": "another prompt"})
    with pytest.raises(PositionError, match="already answered the last one"):
        continue_from(TWO_CALLS, TurnRef("two", "k", 2, 0), prompt)
