"""The official openai SDK against each fault of the model API (Chat Completions and
Responses, streamed): what it does, recorded in docs/faults.md; and a mid-stream disconnect
that the caller retries goes on at the right position."""

from __future__ import annotations

from typing import Any

import openai
import pytest
from faultkit import FAULTS, NEXT, NEXT_PROMPT, PROMPT, WHOLE, Seen, deliveries, observe, script
from faultkit import verdict as sentence

TIMEOUT_S = 5.0  # a client that hangs is seen as its timeout error, never as a hung test


def client(url: str) -> openai.OpenAI:
    return openai.OpenAI(base_url=f"{url}/v1", api_key="sk-test", timeout=TIMEOUT_S)


def chat(c: openai.OpenAI, messages: list[dict[str, str]], seen: Seen) -> None:
    stream = c.chat.completions.create(model="mock-model", messages=messages,  # type: ignore[arg-type]
                                       stream=True)
    for chunk in stream:
        if chunk.choices and chunk.choices[0].delta.content:
            seen.parts.append(chunk.choices[0].delta.content)


def responses(c: openai.OpenAI, seen: Seen) -> None:
    stream = c.responses.create(model="mock-model", input=PROMPT, stream=True)
    for event in stream:
        if event.type == "response.output_text.delta":
            seen.parts.append(event.delta)


@pytest.mark.parametrize("kind", list(FAULTS))
def test_openai_chat_stream(kind: str, serve: Any, fault_verdict: Any) -> None:
    srv = serve([script(kind)])
    seen = observe(lambda s: chat(client(srv.url), [{"role": "user", "content": PROMPT}], s))
    fault_verdict("llm", "openai (Python SDK), Chat Completions stream", kind,
                  sentence(seen, deliveries(srv.journal)))


def chat_json(c: openai.OpenAI, seen: Seen) -> None:
    answer = c.chat.completions.create(model="mock-model",
                                       messages=[{"role": "user", "content": PROMPT}])
    seen.parts.append(answer.choices[0].message.content or "")


@pytest.mark.parametrize("kind", list(FAULTS))
def test_openai_chat_json(kind: str, serve: Any, fault_verdict: Any) -> None:
    srv = serve([script(kind)])
    seen = observe(lambda s: chat_json(client(srv.url), s))
    fault_verdict("llm", "openai (Python SDK), Chat Completions JSON", kind,
                  sentence(seen, deliveries(srv.journal)))


@pytest.mark.parametrize("kind", list(FAULTS))
def test_openai_responses_stream(kind: str, serve: Any, fault_verdict: Any) -> None:
    srv = serve([script(kind)])
    seen = observe(lambda s: responses(client(srv.url), s))
    fault_verdict("llm", "openai (Python SDK), Responses stream", kind,
                  sentence(seen, deliveries(srv.journal)))


def test_a_mid_stream_disconnect_retried_by_the_caller_goes_on(serve: Any) -> None:
    srv = serve([script("disconnect")])
    c = client(srv.url)
    first = [{"role": "user", "content": PROMPT}]
    cut = observe(lambda s: chat(c, first, s))
    assert isinstance(cut.error, openai.APIConnectionError)  # the SDK's own error, no hang
    assert cut.text == "Retries back off exponentially, "
    again = observe(lambda s: chat(c, first, s))  # the caller retries the same request
    assert again.error is None and again.text == WHOLE
    later = [*first, {"role": "assistant", "content": WHOLE},
             {"role": "user", "content": NEXT_PROMPT}]
    assert observe(lambda s: chat(c, later, s)).text == NEXT
    journal = srv.journal
    assert [(e["turn"], e.get("delivery"), e.get("fault"), e.get("cut")) for e in journal] == [
        (0, 1, {"kind": "disconnect"}, True), (0, 2, None, None), (1, None, None, None)]
