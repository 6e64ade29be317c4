"""Pure helpers of scenarist.wire: chunking, folding, request fields, error bodies."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from wire_turns import TURNS

from scenarist import wire
from scenarist.wire import (
    Error,
    Finish,
    MessageStart,
    TextDelta,
    ToolCallDelta,
    ToolCallStart,
    Usage,
    chunk_text,
    encode_moments,
    encode_stream,
    error_body,
    fold,
    include_usage,
    leading_error,
    requested_model,
    scripted_error_fields,
    wants_stream,
)
from scenarist.wire.sse import Frame


@given(st.text(), st.integers(min_value=1, max_value=40))
def test_chunk_text_is_lossless_bounded_and_deterministic(text: str, size: int) -> None:
    chunks = chunk_text(text, size)
    assert "".join(chunks) == text
    assert all(0 < len(c) <= size for c in chunks)
    assert chunks == chunk_text(text, size)


def test_chunk_text_prefers_word_breaks() -> None:
    assert chunk_text("the quick brown fox", 10) == ["the quick", " brown fox"]
    with pytest.raises(ValueError, match="max_chars"):
        chunk_text("x", 0)


def test_fold_orders_parts_and_infers_finish() -> None:
    turn = fold([MessageStart("m", "x", input_tokens=4), TextDelta("a"),
                 ToolCallStart("c", "f"), ToolCallDelta("c", "{}"), TextDelta("b"), Finish()])
    assert [type(p).__name__ for p in turn.parts] == ["TextPart", "ToolCallPart", "TextPart"]
    assert turn.text == "ab" and turn.resolved_finish == "tool_calls"
    assert turn.resolved_usage == Usage(4, 0)


def test_delta_for_unknown_call_is_a_teaching_error() -> None:
    with pytest.raises(ValueError, match=r"emit ToolCallStart\(id='nope'"):
        fold([ToolCallDelta("nope", "{}")])
    with pytest.raises(ValueError, match="ToolCallStart"):
        list(encode_stream("openai_chat", [ToolCallDelta("nope", "{}")]))


def test_leading_error_only_before_output() -> None:
    err, rest = leading_error([MessageStart(), Error("x", status=503)])
    assert err is not None and err.status == 503
    err, rest = leading_error([MessageStart(), TextDelta("a"), Error("x")])
    assert err is None and [type(e).__name__ for e in rest] == ["MessageStart", "TextDelta",
                                                               "Error"]


def test_request_helpers() -> None:
    assert wants_stream({"stream": True}) and not wants_stream({"stream": "yes"})
    assert not wants_stream({})
    assert include_usage({"stream_options": {"include_usage": True}})
    assert not include_usage({"stream_options": None})
    assert requested_model({"model": "gpt-x"}, "d") == "gpt-x"
    assert requested_model({}, "d") == "d"


def test_error_bodies_default_types_by_status() -> None:
    assert error_body("openai_chat", 500, "boom")["error"]["type"] == "server_error"
    assert error_body("openai_responses", 400, "bad", param="model")["error"]["param"] == "model"
    assert error_body("anthropic", 529, "busy") == {
        "type": "error", "error": {"type": "overloaded_error", "message": "busy"}}
    assert error_body("anthropic", 404, "x", type="custom")["error"]["type"] == "custom"
    assert error_body("gemini", 429, "slow down") == {
        "error": {"code": 429, "message": "slow down", "status": "RESOURCE_EXHAUSTED"}}
    assert error_body("gemini", 503, "busy")["error"]["status"] == "UNAVAILABLE"
    with pytest.raises(ValueError, match="unknown api"):
        error_body("cohere", 400, "x")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("api", "status", "error_type", "details", "expected"),
    [
        ("anthropic", 429, "rate_limit_exceeded", None, ("rate_limit_error", None, None)),
        ("anthropic", 529, "overloaded", None, ("overloaded_error", None, None)),
        ("anthropic", 400, "tool_not_found", None, ("invalid_request_error", None, None)),
        ("anthropic", 500, None, None, ("api_error", None, None)),
        ("anthropic", 503, "Permission-Error", None, ("permission_error", None, None)),
        ("anthropic", 413, None, None, ("request_too_large", None, None)),
        ("openai_chat", 429, "rate_limit_exceeded", None,
         ("requests", "rate_limit_exceeded", None)),
        ("openai_chat", 429, "insufficient_quota", None,
         ("insufficient_quota", "insufficient_quota", None)),
        ("openai_responses", 400, "tool_not_found", {"param": "tools", "limit": 3},
         ("invalid_request_error", "tool_not_found", "tools")),
        ("openai_responses", 529, None, {"code": "engine_overloaded"},
         ("server_error", "engine_overloaded", None)),
        ("openai_chat", 401, None, None, ("invalid_request_error", "invalid_api_key", None)),
    ],
)
def test_scripted_errors_take_the_apis_real_types(
    api: Any, status: int, error_type: str | None, details: Any, expected: tuple[Any, ...]
) -> None:
    """A scenario's free-text ``errorType`` becomes the API's real ``type`` (and, for OpenAI,
    its ``code``; ``details`` fills ``param``/``code`` where the body has them)."""
    assert scripted_error_fields(api, status, error_type, details) == expected


def test_frames_carry_at_ms_for_pacing() -> None:
    frames = list(encode_stream("anthropic", [MessageStart(at_ms=0), TextDelta("a", at_ms=50),
                                              Finish(at_ms=90)]))
    assert [f.at_ms for f in frames] == [0, 0, 50, 50, 90, 90, 90]


@settings(max_examples=200, deadline=None)
@given(
    text=st.text(max_size=40),
    args=st.dictionaries(st.text(max_size=8), st.text(max_size=8) | st.integers(), max_size=3),
)
def test_frame_bytes_equal_the_stdlib_compact_encoding(text: str, args: dict[str, Any]) -> None:
    """Frames are encoded with orjson; the bytes must be what the stdlib's compact,
    non-ASCII-preserving encoder writes (what the real APIs send)."""
    events = [
        wire.MessageStart(id="r1", model="m", input_tokens=3),
        wire.ReasoningDelta(text),
        wire.ReasoningEnd("sig"),
        wire.TextDelta(text),
        wire.ToolCallStart("c1", "run"),
        wire.ToolCallDelta("c1", json.dumps(args, ensure_ascii=False)),
        wire.ToolCallEnd("c1"),
        wire.ToolCallStart("c2", "apply_patch", "custom"),
        wire.ToolCallDelta("c2", text),
        wire.ToolCallEnd("c2"),
        wire.Finish(usage=wire.Usage(3, 5)),
    ]
    for api in ("openai_chat", "openai_responses", "anthropic"):
        for frame in wire.encode_stream(api, events, include_usage=True):
            data = frame.data if isinstance(frame.data, str) else json.dumps(
                frame.data, ensure_ascii=False, separators=(",", ":"))
            head = "" if frame.event is None else f"event: {frame.event}\n"
            assert frame.encode() == f"{head}data: {data}\n\n".encode()


def test_frame_falls_back_to_the_stdlib_for_what_orjson_refuses() -> None:
    assert Frame({1: "x"}).encode() == b'data: {"1":"x"}\n\n'


@pytest.mark.parametrize("api", ["openai_chat", "openai_responses", "anthropic", "gemini"])
@pytest.mark.parametrize("turn", sorted(TURNS))
def test_moments_join_the_frames_due_together(api: wire.WireApi, turn: str) -> None:
    """What a server sends at once (``encode_moments``) is, moment by moment, the frames
    due then, each as :meth:`Frame.encode` writes it."""
    timed = [e if i == 0 else dataclasses.replace(e, at_ms=10 * (i // 3))
             for i, e in enumerate(TURNS[turn])]
    frames = list(encode_stream(api, timed, include_usage=True))
    expected: dict[int, bytes] = {}
    for frame in frames:
        expected[frame.at_ms] = expected.get(frame.at_ms, b"") + frame.encode()
    assert list(encode_moments(frames)) == list(expected.items())


def test_moments_fall_back_to_the_stdlib_for_what_orjson_refuses() -> None:
    frames = [Frame({1: "x"}), Frame("[DONE]", at_ms=5), Frame({"a": 1}, "e", at_ms=5)]
    assert list(encode_moments(frames)) == [
        (0, b'data: {"1":"x"}\n\n'), (5, b'data: [DONE]\n\nevent: e\ndata: {"a":1}\n\n')]


def test_long_moments_equal_the_frames_joined() -> None:
    """A moment of many frames (joined piecewise as it goes) and the moments around it."""
    events = [MessageStart("r", "m", 3), *[TextDelta(f"word{i} ") for i in range(300)],
              *[TextDelta(f"late{i} ", at_ms=5) for i in range(70)], Finish(at_ms=9)]
    for api in ("openai_chat", "openai_responses", "anthropic"):
        frames = list(encode_stream(api, events))
        expected: dict[int, bytes] = {}
        for frame in frames:
            expected[frame.at_ms] = expected.get(frame.at_ms, b"") + frame.encode()
        assert list(encode_moments(frames)) == list(expected.items())
