"""The pure answer function: a request in, a rejection or an encoded answer out, no server."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from scenarist.llm.answer import (
    ANSWER_HEADERS,
    Answer,
    Answerer,
    Memo,
    ModelRequest,
    Rejection,
    RequestMemo,
)
from scenarist.llm.cli import load_scripts
from scenarist.llm.plan import build_script
from scenarist.llm.selection import Selector
from scenarist.scenario import load_scenario_text

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
PACED = build_script(load_scenario_text(
    "name: paced\n"
    "timeline:\n"
    "  - userInputs: [[0, pace me]]\n"
    "  - llmResponse: [{assistant: [[0, first], [400, second]]}]\n"
    "  - assert: {fs: {exists: [done.txt]}}\n"))
RETRY = load_scripts([str(EXAMPLES / "rate-limit-retry.yaml")], [])[0]


def request(body: dict[str, Any] | bytes, **headers: str) -> ModelRequest:
    raw = body if isinstance(body, bytes) else json.dumps(body).encode()
    return ModelRequest("chat", headers, raw, created=1_700_000_000)


def chat(prompt: str, **extra: Any) -> dict[str, Any]:
    return {"model": "m", "messages": [{"role": "user", "content": prompt}], **extra}


def never(_key: object) -> bool:
    return False


def test_a_streamed_answer_carries_its_batches_at_the_scenario_s_own_times() -> None:
    answerer = Answerer(Selector([PACED]))
    result = answerer.answer(request(chat("pace me", stream=True)), never)
    assert isinstance(result, Answer)
    encoded = result.encoded
    assert encoded.body is None and encoded.end_ms == 400
    # unscaled: speed is the pacer's business, not the answer's
    assert [b.at_ms for b in encoded.batches] == [0, 400]
    assert b"first" in encoded.batches[0].data and b"second" in encoded.batches[1].data
    assert result.notes["scenario"] == "paced" and result.notes["turn"] == 0
    # the asserts after the last turn are named for POST /_scenarist/check
    assert result.notes["final_checks"] == ["assert at timeline[2].assert (line 5)"]


def test_each_step_rejects_in_the_api_s_terms() -> None:
    answerer = Answerer(Selector([PACED, RETRY]))
    bad_json = answerer.answer(request(b"{nope"), never)
    assert isinstance(bad_json, Rejection) and bad_json.status == 400
    assert "not valid JSON" in bad_json.message
    unknown = answerer.answer(request(chat("hi"), **{"x-scenario-name": "nope"}), never)
    assert isinstance(unknown, Rejection) and unknown.status == 404
    assert unknown.notes["prompt"] == "hi"  # what was learned before the rejection is kept


def test_a_scripted_error_is_answered_once_per_conversation() -> None:
    answerer = Answerer(Selector([RETRY]))
    first = answerer.answer(request(chat("Summarise the changelog")), never)
    assert isinstance(first, Rejection) and first.status == 429
    assert first.headers == {"retry-after": "1"} and first.served_error is not None
    served = {first.served_error}
    retry = answerer.answer(request(chat("Summarise the changelog")), served.__contains__)
    assert isinstance(retry, Answer)
    assert b"retries and fixes two crashes" in (retry.encoded.body or b"")


def test_the_memo_wraps_the_pure_encoder_without_changing_a_byte() -> None:
    memo = Memo()
    cached, fresh = Answerer(Selector([PACED]), encode=memo), Answerer(Selector([PACED]))
    for stream in (False, True):
        body = chat("pace me", stream=stream)
        # kept when the key comes a second time, served from the memo the third
        one, two, three = (cached.answer(request(body), never) for _ in range(3))
        plain = fresh.answer(request(body), never)
        assert isinstance(one, Answer) and isinstance(two, Answer) and isinstance(plain, Answer)
        assert isinstance(three, Answer) and three.encoded is two.encoded
        assert one.encoded is not two.encoded and one.encoded == plain.encoded
    assert len(memo) == 2


def test_the_request_memo_answers_a_repeated_request_without_reading_it() -> None:
    answerer = Answerer(Selector([HELLO_ONCE]))
    calls: list[ModelRequest] = []

    def counted(req: ModelRequest, served: Any, notes: dict[str, Any]) -> Rejection | Answer:
        calls.append(req)
        return answerer.answer(req, served, notes)

    memo = RequestMemo(counted)
    same = request(chat("say hello"))
    once = memo(same, never, {"seq": 0})
    assert isinstance(once, Answer) and once.repeatable and len(memo) == 0  # seen once
    first_notes: dict[str, Any] = {"seq": 1}
    first = memo(same, never, first_notes)  # seen again: kept
    again_notes: dict[str, Any] = {"seq": 2}
    again = memo(same, never, again_notes)
    assert isinstance(first, Answer) and isinstance(again, Answer) and first.repeatable
    assert again.encoded is first.encoded and len(calls) == 2
    assert again_notes == {**first_notes, "seq": 2} and again_notes["scenario"] == "hello"
    # another created second, another answer header or other bytes: answered afresh
    others = [ModelRequest("chat", {}, same.raw, created=same.created + 1),
              ModelRequest.of("chat", {"x-scenario-name": "hello", "user-agent": "x"},
                              same.raw, same.created),
              request(chat("say hello", temperature=0))]
    for other in others * 2:
        memo(other, never, {})
    assert len(calls) == 8 and len(memo) == 4
    # headers no answer reads are not carried (so they cannot be missing from the key)
    assert ModelRequest.of("chat", {"user-agent": "x", "x-scenario-session": "s"}, b"",
                           0).headers == {"x-scenario-session": "s"}
    assert "x-scenario-name" in ANSWER_HEADERS and "x-claude-code-session-id" in ANSWER_HEADERS


def test_the_request_memo_keeps_only_answers_that_depend_on_the_request_alone(
        tmp_path: Path) -> None:
    # a scripted error's conversation, an assert before the turn and a file edit each depend
    # on more than the request: answered afresh every time
    (tmp_path / "done.txt").write_text("ok")
    edit = build_script(load_scenario_text(
        "name: edit\n"
        "timeline:\n"
        "  - userInputs: [[0, edit it]]\n"
        "  - llmResponse: [{assistant: [[0, editing]]}]\n"
        "  - agentEdits: {path: notes.txt, linesAdded: 1}\n"))
    cases = [(RETRY, "Summarise the changelog"), (edit, "edit it"), (CHECKED, "check it")]
    for script, prompt in cases:
        answerer = Answerer(Selector([script]), workspace=tmp_path)
        memo = RequestMemo(answerer.answer)
        served: set[Any] = set()
        for _ in range(3):
            result = memo(request(chat(prompt)), served.__contains__, {})
            if isinstance(result, Rejection) and result.served_error is not None:
                served.add(result.served_error)
            else:
                assert isinstance(result, Answer), (script.name, result)
                assert not result.repeatable, script.name
        assert len(memo) == 0, script.name
    # large bodies are not kept; the memo starts afresh at its limit
    answerer = Answerer(Selector([HELLO_ONCE]))
    small = RequestMemo(answerer.answer, limit=2, body_limit=200)
    small(request(chat("say hello", pad="p" * 300)), never, {})
    assert len(small) == 0
    for n in (0, 0, 1, 1, 2, 2):  # each kept when it comes a second time
        small(request(chat("say hello", n=n + 1)), never, {})
    assert len(small) == 1
    # and beyond its bytes of bodies and answers
    tight = RequestMemo(answerer.answer, byte_limit=600)
    for n in (0, 0, 1, 1, 2, 2):
        tight(request(chat("say hello", n=n + 1)), never, {})
    assert len(tight) == 1


HELLO_ONCE = build_script(load_scenario_text(
    "name: hello\n"
    "timeline:\n"
    "  - userInputs: [[0, say hello]]\n"
    "  - llmResponse: [{assistant: [[0, Hello]]}]\n"))
CHECKED = build_script(load_scenario_text(
    "name: checked\n"
    "timeline:\n"
    "  - userInputs: [[0, check it]]\n"
    "  - assert: {fs: {exists: [done.txt]}}\n"
    "  - llmResponse: [{assistant: [[0, checked]]}]\n"))


HELLO = build_script(load_scenario_text(
    "name: hello\n"
    "timeline:\n"
    "  - userInputs: [[0, say hello]]\n"
    "  - llmResponse: [{assistant: [[0, Hello]]}]\n"
    "  - userInputs: [[0, say more]]\n"
    "  - llmResponse: [{assistant: [[0, More]]}]\n"))


def test_context_before_the_prompt_is_not_a_user_turn(captured: Any) -> None:
    """aider sends few-shot and 'I switched to a new code base' pairs before the request:
    the scenario starts at the user prompt that selects it, by prompt or by name."""
    body = captured("aider_request.json")["body"]
    answerer = Answerer(Selector([PACED, HELLO]))
    for headers in ({}, {"x-scenario-name": "hello"}):
        result = answerer.answer(request(body, **headers), never)
        assert isinstance(result, Answer), result
        assert b"Hello" in b"".join(b.data for b in result.encoded.batches)
        assert result.notes["context_prompts"] == 3 and result.notes["user_turns"] == 1
        assert result.notes["prompt"].startswith("say hello")
    # the next user turn counts from there too
    later = {**body, "stream": False, "messages": [
        *body["messages"], {"role": "assistant", "content": "Hello"},
        {"role": "user", "content": "say more"}]}
    result = answerer.answer(request(later), never)
    assert isinstance(result, Answer), result
    assert json.loads(result.encoded.body or b"")["choices"][0]["message"]["content"] == "More"
