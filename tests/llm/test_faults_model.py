"""The model API's fault decisions as pure functions: where a placed fault strikes among a
turn's neutral events, SSE batches split into events, the bounded delivery counts, and each
API's in-stream error event."""

from __future__ import annotations

import json

import pytest

from scenarist.llm.answer import Batch
from scenarist.llm.faults import ModelFaults, split_sse, stream_error, strike_event
from scenarist.llm.script import ModelTurn, TimedText
from scenarist.scenario import Fault
from scenarist.wire import Finish, MessageStart, ReasoningDelta, ReasoningEnd, TextDelta

EVENTS = (MessageStart(), ReasoningDelta("hm, "), ReasoningDelta("ok"), ReasoningEnd("s"),
          TextDelta("one "), TextDelta("two"), TextDelta("three"), Finish())
TURN = ModelTurn(0, thinking=(TimedText(0, "hm, ok"),), text=(
    TimedText(0, "one two"), TimedText(0, "three")), fault=Fault("disconnect"))


@pytest.mark.parametrize(("after", "event"), [
    ((0, 0), 0),  # written first: before anything, even the message start
    ((1, 0), 4),  # after all the thinking: its end too
    ((1, 1), 6),  # after the first text step's deltas
    ((1, 2), 7),  # after all the text: before the finish
])
def test_where_a_placed_fault_strikes(after: tuple[int, int], event: int) -> None:
    turn = ModelTurn(0, thinking=TURN.thinking, text=TURN.text, fault=TURN.fault,
                     fault_after=after)
    assert strike_event(EVENTS, turn) == event


def test_hidden_thinking_strikes_after_the_message_start() -> None:
    events = (MessageStart(), TextDelta("one two"), Finish())
    turn = ModelTurn(0, thinking=TURN.thinking, text=TURN.text, fault_after=(1, 0))
    assert strike_event(events, turn) == 1


def test_split_sse_keeps_each_event_and_its_time() -> None:
    batches = (Batch(0, b"event: a\ndata: 1\n\ndata: 2\n\n"), Batch(5, b"data: 3\n\n"))
    assert split_sse(batches) == (Batch(0, b"event: a\ndata: 1\n\n"), Batch(0, b"data: 2\n\n"),
                                  Batch(5, b"data: 3\n\n"))


def test_delivery_counts_are_bounded() -> None:
    faults = ModelFaults(limit=2)
    assert [faults._delivered(k) for k in ("a", "b", "a", "c", "b")] == [1, 1, 2, 1, 1]
    assert list(faults.deliveries) == ["c", "b"]


def test_each_apis_in_stream_error() -> None:
    fault = Fault("httpStatus", status_code=529)
    chat = stream_error("chat", fault, 3)
    assert json.loads(chat.removeprefix(b"data: "))["error"]["message"] == "Overloaded"
    messages = stream_error("messages", fault, 3)
    assert messages.startswith(b"event: error\ndata: ")
    assert json.loads(messages.split(b"data: ")[1])["error"]["type"] == "overloaded_error"
    created = (b'event: response.created\ndata: {"type":"response.created","sequence_number":0,'
               b'"response":{"id":"resp_1","object":"response","status":"in_progress",'
               b'"output":[]}}\n\n')
    responses = json.loads(stream_error("responses", fault, 3, created).split(b"data: ")[1])
    assert (responses["type"], responses["sequence_number"]) == ("response.failed", 3)
    assert responses["response"]["id"] == "resp_1"  # the response the stream announced
    assert responses["response"]["status"] == "failed"
    assert responses["response"]["error"]["message"] == "Overloaded"
    gemini = json.loads(stream_error("gemini", Fault("httpStatus"), 0).removeprefix(b"data: "))
    assert gemini["error"]["code"] == 503
