"""The official anthropic SDK against each fault of the model API (Messages, streamed and
not): what it does, recorded in docs/faults.md; and a mid-stream disconnect that the caller
retries goes on at the right position."""

from __future__ import annotations

from typing import Any

import anthropic
import httpx2
import pytest
from faultkit import (
    FAULTS,
    NEXT,
    NEXT_PROMPT,
    PROMPT,
    WHOLE,
    Seen,
    deliveries,
    observe,
    one_answer,
    script,
)
from faultkit import verdict as sentence

TIMEOUT_S = 5.0  # a client that hangs is seen as its timeout error, never as a hung test


def client(url: str) -> anthropic.Anthropic:
    return anthropic.Anthropic(base_url=url, api_key="sk-ant-test", timeout=TIMEOUT_S)


def stream(c: anthropic.Anthropic, messages: list[dict[str, str]], seen: Seen) -> None:
    events = c.messages.create(model="mock-model", max_tokens=256, messages=messages,  # type: ignore[arg-type]
                               stream=True)
    for event in events:
        if event.type == "content_block_delta" and event.delta.type == "text_delta":
            seen.parts.append(event.delta.text)


def whole(c: anthropic.Anthropic, seen: Seen) -> None:
    message = c.messages.create(model="mock-model", max_tokens=256,
                                messages=[{"role": "user", "content": PROMPT}])
    seen.parts.extend(b.text for b in message.content if b.type == "text")


@pytest.mark.parametrize("kind", list(FAULTS))
def test_anthropic_messages_stream(kind: str, serve: Any, fault_verdict: Any) -> None:
    srv = serve([script(kind, "anthropic")])
    seen = observe(lambda s: stream(client(srv.url), [{"role": "user", "content": PROMPT}], s))
    fault_verdict("llm", "anthropic (Python SDK), Messages stream", kind,
                  sentence(seen, deliveries(srv.journal)))


@pytest.mark.parametrize("kind", list(FAULTS))
def test_anthropic_messages_json(kind: str, serve: Any, fault_verdict: Any) -> None:
    srv = serve([script(kind, "anthropic")])
    seen = observe(lambda s: whole(client(srv.url), s))
    fault_verdict("llm", "anthropic (Python SDK), Messages JSON", kind,
                  sentence(seen, deliveries(srv.journal)))


def test_a_mid_stream_disconnect_retried_by_the_caller_goes_on(serve: Any) -> None:
    srv = serve([script("disconnect", "anthropic")])
    c = client(srv.url)
    first = [{"role": "user", "content": PROMPT}]
    cut = observe(lambda s: stream(c, first, s))
    # not the SDK's own APIConnectionError: its stream lets httpx2's error through (no hang)
    assert isinstance(cut.error, httpx2.RemoteProtocolError)
    assert cut.text == "Retries back off exponentially, "
    again = observe(lambda s: stream(c, first, s))
    assert again.error is None and again.text == WHOLE
    later = [*first, {"role": "assistant", "content": WHOLE},
             {"role": "user", "content": NEXT_PROMPT}]
    assert observe(lambda s: stream(c, later, s)).text == NEXT
    assert [(e["turn"], e.get("delivery"), e.get("cut")) for e in srv.journal] == [
        (0, 1, True), (0, 2, None), (1, None, None)]


def test_an_in_stream_error_event_is_the_sdks_api_error(serve: Any) -> None:
    srv = serve([one_answer("{kind: httpStatus, statusCode: 529}", style="anthropic")])
    seen = observe(lambda s: stream(client(srv.url), [{"role": "user", "content": PROMPT}], s))
    assert isinstance(seen.error, anthropic.APIStatusError) and "Overloaded" in str(seen.error)
    assert seen.text == "Retries back off exponentially, "
