"""Faults on the model API's wire, read with a plain HTTP client: each kind on each API's
stream and on JSON bodies, where the fault strikes, `times`, the journal, chaos by header."""

from __future__ import annotations

import json
import re
from typing import Any

import httpx
import openai
import pytest
from faultkit import FIRST, PROMPT, WHOLE, one_answer

BODIES: dict[str, tuple[str, dict[str, Any]]] = {
    "chat": ("/v1/chat/completions", {"model": "m", "messages": [
        {"role": "user", "content": PROMPT}]}),
    "responses": ("/v1/responses", {"model": "m", "input": PROMPT}),
    "messages": ("/v1/messages", {"model": "m", "max_tokens": 64, "messages": [
        {"role": "user", "content": PROMPT}]}),
    "gemini": ("/v1beta/models/m:streamGenerateContent?alt=sse", {"contents": [
        {"role": "user", "parts": [{"text": PROMPT}]}]}),
}
#: the final event a truncated stream leaves out
FINAL = {"chat": b"data: [DONE]", "responses": b"response.completed",
         "messages": b"message_stop", "gemini": b'"finishReason"'}


def fetch(url: str, api: str, *, stream: bool = True,
          headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], bytes, str | None]:
    """(status, headers, the bytes read, the error that ended the read)."""
    path, body = BODIES[api]
    body = {**body, "stream": stream} if api != "gemini" else body
    got = b""
    status, head, error = 0, {}, None
    try:
        with httpx.Client(timeout=5) as client, client.stream(
                "POST", url + path, json=body, headers=headers or {}) as response:
            status, head = response.status_code, dict(response.headers)
            for chunk in response.iter_raw():
                got += chunk
    except httpx.HTTPError as exc:
        error = type(exc).__name__
    return status, head, got, error


def text_of(api: str, data: bytes) -> str:
    """The answer text a stream carries (its text deltas, joined)."""
    out = []
    for block in data.split(b"\n\n"):
        line = next((x for x in block.split(b"\n") if x.startswith(b"data: ")), None)
        if line is None or line == b"data: [DONE]":
            continue
        try:
            event = json.loads(line[6:])
        except ValueError:
            continue
        if api == "chat":
            out += [c["delta"].get("content") or "" for c in event.get("choices", [])]
        elif api == "responses" and event.get("type") == "response.output_text.delta":
            out.append(event["delta"])
        elif api == "messages" and event.get("type") == "content_block_delta":
            out.append(event["delta"].get("text", ""))
        elif api == "gemini":
            for cand in event.get("candidates", []):
                out += [p.get("text", "") for p in cand.get("content", {}).get("parts", [])]
    return "".join(out)


@pytest.mark.parametrize("api", list(BODIES))
def test_disconnect_cuts_each_api_after_the_step_before_it(api: str, serve: Any) -> None:
    srv = serve([one_answer("{kind: disconnect, times: 2}")])
    for _ in (1, 2):  # both faulted deliveries
        status, _, data, error = fetch(srv.url, api)
        assert (status, error, text_of(api, data)) == (200, "RemoteProtocolError", FIRST[0])
        assert FINAL[api] not in data
    status, _, data, error = fetch(srv.url, api)  # after `times` deliveries: whole
    assert (error, text_of(api, data)) == (None, WHOLE) and FINAL[api] in data
    assert [(e["delivery"], e.get("fault"), e.get("cut"), e.get("completed"))
            for e in srv.journal] == [(1, {"kind": "disconnect", "times": 2}, True, None),
                                      (2, {"kind": "disconnect", "times": 2}, True, None),
                                      (3, None, None, True)]


@pytest.mark.parametrize("api", list(BODIES))
def test_truncate_ends_cleanly_without_the_final_event(api: str, serve: Any) -> None:
    srv = serve([one_answer("{kind: truncate}")])
    status, _, data, error = fetch(srv.url, api)
    assert (status, error, text_of(api, data)) == (200, None, FIRST[0])
    assert FINAL[api] not in data


@pytest.mark.parametrize("api", list(BODIES))
def test_malformed_duplicate_reorder(api: str, serve: Any) -> None:
    srv = serve([one_answer("{kind: malformed, text: '{\"cut'}")])
    _, _, data, error = fetch(srv.url, api)
    assert error is None and b'data: {"cut\n\n' in data and text_of(api, data) == WHOLE
    srv = serve([one_answer("{kind: duplicate}")])
    _, _, data, _ = fetch(srv.url, api)
    assert len(text_of(api, data)) > len(WHOLE)  # one delta twice
    srv = serve([one_answer("{kind: reorder, afterEvents: 1}")])
    _, _, data, _ = fetch(srv.url, api)
    clean = fetch(serve([one_answer(None)]).url, api)[2]
    events, clean_events = (sorted(_timeless(x).split(b"\n\n")) for x in (data, clean))
    assert events == clean_events and _timeless(data) != _timeless(clean)


def _timeless(data: bytes) -> bytes:
    """A stream without its wall-clock ``created`` (the second a request came)."""
    return re.sub(rb'"created(_at)?":\d+', b'"created":0', data)


@pytest.mark.parametrize("api", list(BODIES))
def test_http_status_first_is_the_apis_error_and_later_an_in_stream_error(
        api: str, serve: Any) -> None:
    srv = serve([one_answer("{kind: httpStatus, statusCode: 529, retryAfterSeconds: 2}", first=True)])
    status, head, data, _ = fetch(srv.url, api)
    assert status == 529 and head["retry-after"] == "2" and "x-should-retry" not in head
    error = json.loads(data)
    assert error["error"]["message"].startswith("Overloaded")
    if api == "messages":
        assert error["error"]["type"] == "overloaded_error"
    srv = serve([one_answer("{kind: httpStatus, statusCode: 500, message: boom}")])
    status, _, data, error_name = fetch(srv.url, api)
    assert status == 200 and error_name is None and b"boom" in data.split(b"\n\n")[-2]
    assert text_of(api, data) == FIRST[0] and FINAL[api] not in data


def test_an_in_stream_error_is_the_sdks_api_error(serve: Any) -> None:
    srv = serve([one_answer("{kind: httpStatus, statusCode: 500, message: boom}")])
    client = openai.OpenAI(base_url=f"{srv.url}/v1", api_key="k", timeout=5)
    with pytest.raises(openai.APIError, match="boom"):
        for _ in client.chat.completions.create(model="m", stream=True, messages=[
                {"role": "user", "content": PROMPT}]):
            pass


def test_stall_and_slow_first_byte_wait_then_go_on_or_close(serve: Any) -> None:
    srv = serve([one_answer("{kind: stall, ms: 200}")])
    assert text_of("chat", fetch(srv.url, "chat")[2]) == WHOLE
    srv = serve([one_answer("{kind: stall, ms: 50, then: close}")])
    _, _, data, error = fetch(srv.url, "chat")
    assert (error, text_of("chat", data)) == ("RemoteProtocolError", FIRST[0])
    srv = serve([one_answer("{kind: slowFirstByte, ms: 200}", first=True)])
    assert text_of("chat", fetch(srv.url, "chat")[2]) == WHOLE


def test_after_bytes_cuts_inside_an_event(serve: Any) -> None:
    srv = serve([one_answer("{kind: disconnect, afterBytes: 10}")])
    _, _, data, error = fetch(srv.url, "messages")
    assert (len(data), error) == (10, "RemoteProtocolError")


@pytest.mark.parametrize(("fault", "error", "length"), [
    ("{kind: disconnect}", "RemoteProtocolError", "half"),
    ("{kind: truncate}", None, "half"),
    ("{kind: truncate, afterBytes: 5}", None, 5),
])
def test_a_json_body_is_cut_partway(fault: str, error: str | None, length: Any,
                                    serve: Any) -> None:
    srv = serve([one_answer(fault)])
    whole = fetch(serve([one_answer(None)]).url, "chat", stream=False)[2]
    status, _, data, got_error = fetch(srv.url, "chat", stream=False)
    assert (status, got_error) == (200, error)
    assert _timeless(data) == _timeless(whole[:len(whole) // 2 if length == "half" else length])
    status, _, data, _ = fetch(srv.url, "chat", stream=False)  # the retry: whole
    assert json.loads(data)["choices"][0]["message"]["content"] == WHOLE


def test_chaos_by_header_and_a_bad_header(serve: Any) -> None:
    srv = serve([one_answer(None)], seed=3)
    head = {"x-scenarist-chaos": "1:disconnect"}
    _, _, data, error = fetch(srv.url, "chat", headers=head)
    assert error == "RemoteProtocolError" or FINAL["chat"] not in data
    entry = srv.journal[-1]
    assert entry["chaos"] is True and entry["fault"]["kind"] == "disconnect"
    status, _, data, _ = fetch(srv.url, "messages", headers={"x-scenarist-chaos": "2"})
    assert status == 400 and b"x-scenarist-chaos: chaos '2'" in data
    assert json.loads(data)["type"] == "error"  # the API's own error format


@pytest.mark.parametrize(("fault", "error"), [("{kind: disconnect}", "RemoteProtocolError"),
                                              ("{kind: truncate}", None)])
def test_gemini_json_array_stream_is_cut_after_the_first_step(fault: str, error: str | None,
                                                              serve: Any) -> None:
    srv = serve([one_answer(fault)])
    got = b""
    raised = None
    try:
        with httpx.Client(timeout=5) as client, client.stream(
                "POST", srv.url + "/v1beta/models/m:streamGenerateContent",
                json=BODIES["gemini"][1]) as response:
            for chunk in response.iter_raw():
                got += chunk
    except httpx.HTTPError as exc:
        raised = type(exc).__name__
    texts = re.findall(rb'"text":"([^"]*)"', got)  # the answer comes in 16-character deltas
    assert raised == error and got.startswith(b"[") and b"".join(texts) == FIRST[0].encode()
    with pytest.raises(ValueError):
        json.loads(got)  # the array is never closed
