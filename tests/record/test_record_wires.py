"""The recorder's readers against the project's own wire encoders (golden-tested against the
official SDKs) and the requests captured from real agents: a turn encoded in any of the three
APIs, streamed (cut into any chunks) or whole, reads back to the same steps; a captured
request reads into its prompt, calls and outcomes; garbage is refused by name."""

from __future__ import annotations

import itertools
import json
from typing import Any

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st
from recordkit import captured_body

from scenarist.record.answers import Chunk, UnreadableAnswer, read_answer
from scenarist.record.chain import Chain, Exchange, attach, beats, is_side
from scenarist.record.history import Call, Outcome, Prompt, Said, Thought, read_history
from scenarist.record.redact import MASK, Masker
from scenarist.wire import encode_body, encode_frames, encode_stream
from scenarist.wire.events import (
    Error,
    Finish,
    MessageStart,
    ReasoningDelta,
    ReasoningEnd,
    TextDelta,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallStart,
)

WIRES = {"chat": "openai_chat", "responses": "openai_responses", "messages": "anthropic"}
SSE = {"content-type": "text/event-stream"}
JSON = {"content-type": "application/json"}
texts = st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=40)


def turn(thought: str | None, said: str, args: dict[str, Any]) -> list[Any]:
    events: list[Any] = [MessageStart("m1", "mock-model")]
    if thought is not None:
        events += [ReasoningDelta(thought, at_ms=5), ReasoningEnd("sig", at_ms=5)]
    events += [TextDelta(said, at_ms=10), ToolCallStart("call_1", "Bash", at_ms=20),
               ToolCallDelta("call_1", json.dumps(args), at_ms=20),
               ToolCallEnd("call_1", at_ms=20), Finish(at_ms=20)]
    return events


def chunks_of(data: bytes, cuts: list[int]) -> list[Chunk]:
    points = sorted({c % (len(data) + 1) for c in cuts} | {0, len(data)})
    return [Chunk(i, data[a:b]) for i, (a, b) in enumerate(itertools.pairwise(points))]


@pytest.mark.parametrize("api", list(WIRES))
@given(thought=st.none() | texts, said=texts, command=texts,
       cuts=st.lists(st.integers(0, 10_000), max_size=12))
def test_an_encoded_turn_reads_back(api: str, thought: str | None, said: str, command: str,
                                    cuts: list[int]) -> None:
    events = turn(thought, said, {"command": command})
    wire: Any = WIRES[api]
    shown = [Thought(thought)] if thought and api != "chat" else []  # Chat carries no reasoning
    want = [*shown, Said(said), Call("call_1", "Bash", {"command": command})]
    streamed = b"".join(encode_frames(encode_stream(wire, events)))
    reading = read_answer(api, 200, SSE, chunks_of(streamed, cuts))  # type: ignore[arg-type]
    assert [s.item for s in reading.steps] == want
    _, body = encode_body(wire, events)
    whole = read_answer(api, 200, JSON, [Chunk(7, orjson.dumps(body))])  # type: ignore[arg-type]
    assert [s.item for s in whole.steps] == want


@pytest.mark.parametrize("api", list(WIRES))
def test_errors_read_with_status_type_and_retry_after(api: str) -> None:
    events = [MessageStart(), Error("slow down", type="rate_limit_error", status=429,
                                    code="rate_limit_exceeded")]
    status, body = encode_body(WIRES[api], events)  # type: ignore[arg-type]
    reading = read_answer(api, status, {**JSON, "retry-after": "2"},  # type: ignore[arg-type]
                          [Chunk(3, orjson.dumps(body))])
    assert reading.failure is not None
    assert (reading.failure.status, reading.failure.message) == (429, "slow down")
    assert reading.failure.error_type in ("rate_limit_exceeded", "rate_limit_error")
    assert reading.failure.retry_after_s == 2.0


@pytest.mark.parametrize("api", list(WIRES))
def test_a_cut_or_noisy_stream_is_refused(api: str) -> None:
    streamed = b"".join(encode_frames(encode_stream(WIRES[api], turn(None, "hi", {}))))  # type: ignore[arg-type]
    with pytest.raises(UnreadableAnswer, match=r"ended before its final event|inside an event"):
        read_answer(api, 200, SSE, [Chunk(0, streamed[: len(streamed) // 2])])  # type: ignore[arg-type]
    with pytest.raises(UnreadableAnswer, match=r"not a server-sent event line|not JSON"):
        read_answer(api, 200, SSE, [Chunk(0, b"hello there\n\n")])  # type: ignore[arg-type]
    with pytest.raises(UnreadableAnswer, match="not JSON"):
        read_answer(api, 200, JSON, [Chunk(0, b"<html>")])  # type: ignore[arg-type]


def test_captured_claude_code_requests_chain_into_one_conversation() -> None:
    first = captured_body("claude_turn1_request.json")
    second = captured_body("claude_turn2_followup_request.json")
    one = read_history("messages", orjson.dumps(first))
    two = read_history("messages", orjson.dumps(second))
    assert one.prompts and one.prompts == two.prompts[: len(one.prompts)]
    assert "<system-reminder>" not in one.prompts[0]
    assert one.cwd is not None and one.tools
    calls = [i for i in two.items if isinstance(i, Call)]
    outcomes = {i.id for i in two.items if isinstance(i, Outcome)}
    assert calls and {c.id for c in calls} <= outcomes
    chains: list[Chain] = []
    for history in (one, two):
        attach(chains, Exchange(history, read_answer("messages", 200, JSON, [Chunk(
            0, orjson.dumps({"content": [{"type": "text", "text": "ok"}]}))])))
    assert len(chains) == 1 and not is_side(chains[0], chains)
    said = list(beats(chains[0]))
    assert isinstance(said[0].item, Prompt) and said[0].item.text == one.prompts[0]


@pytest.mark.parametrize("name", ["codex_turn1_request.json", "codex_turn2_followup_request.json",
                                  "codex_gpt55_apply_patch_followup_request.json"])
def test_captured_codex_requests_read_their_prompt_and_calls(name: str) -> None:
    history = read_history("responses", orjson.dumps(captured_body(name)))
    assert history.prompts and all("<environment_context>" not in p for p in history.prompts)
    assert history.cwd is not None
    ids = [i.id for i in history.items if isinstance(i, Call)]
    assert ids == [i.id for i in history.items if isinstance(i, Outcome)][: len(ids)]


def test_a_side_request_without_tools_is_left_out() -> None:
    def request(tools: list[Any], system: str) -> bytes:
        return orjson.dumps({"model": "m", "system": system, "tools": tools,
                             "messages": [{"role": "user", "content": "Fix the bug"}]})

    answer = read_answer("messages", 200, JSON, [Chunk(0, orjson.dumps({"content": []}))])
    chains: list[Chain] = []
    main = attach(chains, Exchange(read_history("messages", request([{"name": "Bash"}], "a")),
                                   answer))
    title = attach(chains, Exchange(read_history("messages", request([], "title it")), answer))
    assert main is not title
    assert is_side(title, chains) and not is_side(main, chains)


def test_the_masker_masks_headers_key_shapes_and_patterns() -> None:
    masker = Masker.of([r"ticket-\d+"])
    masker.learn([("Authorization", "Bearer tok_abcdefgh"), ("x-api-key", "k-123456"),
                  ("content-type", "application/json")])
    got = masker.text("tok_abcdefgh and k-123456, sk-proj-abcdefghijklmnop; see ticket-42 "
                      "on application/json")
    assert got == f"{MASK} and {MASK}, {MASK}; see {MASK} on application/json"


def test_codex_s_report_around_a_command_s_output_is_not_expected() -> None:
    from scenarist.record.scenario_of import printed

    report = ("Chunk ID: b594dc\nWall time: 0.0217 seconds\nProcess exited with code 0\n"
              "Original token count: 2\nOutput:\nhello\n")
    assert printed(report, "codex") == "hello\n"
    assert printed("Exit code: 0\nWall time: 0 seconds\nOutput:\nSuccess.\n", "codex") == \
        "Success.\n"
    assert printed(report, "claude-code") == report  # only Codex words its results so
