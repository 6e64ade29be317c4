"""The render memo rests on traffic that never repeats, and memoises again when it does.

Agents never send a request twice (every conversation has its own ids), so on their traffic
the memo's key is made and hashed for nothing; after a run of keys seen for the first time it
makes answers without a key for a while, then looks again (issue 28). Every answer equals
the fresh one whatever the memo does.
"""

from __future__ import annotations

import json
from typing import Any

from scenarist.llm.answer import Answer, Answerer, Memo, ModelRequest
from scenarist.llm.plan import build_script
from scenarist.llm.selection import Selector
from scenarist.scenario import load_scenario_text

HELLO = build_script(load_scenario_text(
    "name: hello\n"
    "timeline:\n"
    "  - userInputs: [[0, say hello]]\n"
    "  - llmResponse: [{assistant: [[0, hello there]]}]\n"))


def answer(answerer: Answerer, model: str) -> Answer:
    body = {"model": model, "stream": True,
            "messages": [{"role": "user", "content": "say hello"}]}
    result = answerer.answer(ModelRequest("chat", {}, json.dumps(body).encode(), 1_700_000_000),
                             lambda _key: False)
    assert isinstance(result, Answer)
    return result


def test_the_memo_rests_after_a_run_of_new_keys_and_then_looks_again() -> None:
    memo = Memo(miss_run=3, rest=4)
    cached, fresh = Answerer(Selector([HELLO]), encode=memo), Answerer(Selector([HELLO]))
    sent: list[tuple[str, Answer]] = []

    def send(model: str) -> Any:
        got = answer(cached, model)
        sent.append((model, got))
        return got.encoded

    for model in ("a", "b", "c"):  # three new keys in a row: the memo rests
        send(model)
    resting = [send("r") for _ in range(4)]  # four answers made without a key
    assert len(memo) == 0 and len({id(e) for e in resting}) == 4
    once, kept, hit = send("s"), send("s"), send("s")  # looking again: a key that comes back
    assert len(memo) == 1 and hit is kept and once is not kept
    for model, got in sent:
        assert got.encoded == answer(fresh, model).encoded


def test_a_key_that_comes_again_ends_the_run() -> None:
    memo = Memo(miss_run=3, rest=100)
    cached = Answerer(Selector([HELLO]), encode=memo)
    for model in ("a", "b", "a", "c", "d", "c", "e"):  # never three new keys in a row
        answer(cached, model)
    assert len(memo) == 2  # "a" and "c", kept when they came again
    kept = answer(cached, "a").encoded
    assert answer(cached, "a").encoded is kept
