"""Faults on the Responses WebSocket: a cut drops the connection without a close frame, a
malformed message is not JSON, an error status is an ``error`` event; the retry on a new
socket gets the whole answer."""

from __future__ import annotations

import json
from typing import Any

import pytest
from faultkit import FIRST, PROMPT, WHOLE, one_answer, script
from websockets.exceptions import ConnectionClosedError
from websockets.sync.client import ClientConnection, connect

from scenarist.llm.plan import build_script
from scenarist.scenario import load_scenario_text


def ask(ws: ClientConnection) -> list[str]:
    """Send the prompt; the messages until the response ends (or the connection drops)."""
    ws.send(json.dumps({"type": "response.create", "model": "m", "input": PROMPT}))
    got: list[str] = []
    while True:
        message = ws.recv(timeout=5)
        assert isinstance(message, str)
        got.append(message)
        if any(f'"type":"{end}"' in message for end in ("response.completed", "error",
                                                       "response.failed")):
            return got


def text(messages: list[str]) -> str:
    out = []
    for m in messages:
        try:
            event = json.loads(m)
        except ValueError:
            continue
        if event.get("type") == "response.output_text.delta":
            out.append(event["delta"])
    return "".join(out)


def url(srv: Any) -> str:
    return srv.url.replace("http://", "ws://") + "/v1/responses"


def test_a_cut_drops_the_socket_without_a_close_frame_and_a_retry_gets_all(serve: Any) -> None:
    srv = serve([script("disconnect")])
    got: list[str] = []
    with connect(url(srv)) as ws, pytest.raises(ConnectionClosedError) as info:
        ws.send(json.dumps({"type": "response.create", "model": "m", "input": PROMPT}))
        while True:
            message = ws.recv(timeout=5)
            assert isinstance(message, str)
            got.append(message)
    assert info.value.rcvd is None  # no close frame came
    assert text(got) == FIRST[0]
    with connect(url(srv)) as ws:
        assert text(ask(ws)) == WHOLE
    assert [(e.get("delivery"), e.get("cut")) for e in srv.journal] == [(1, True), (2, None)]


def test_malformed_message_and_error_status_on_the_socket(serve: Any) -> None:
    srv = serve([one_answer("{kind: malformed, text: 'not json'}")])
    with connect(url(srv)) as ws:
        got = ask(ws)
    assert "not json" in got and text(got) == WHOLE
    srv = serve([one_answer("{kind: httpStatus, statusCode: 529}", first=True)])
    with connect(url(srv)) as ws:
        error = json.loads(ask(ws)[-1])
        assert (error["type"], error["status"]) == ("error", 529)
        assert text(ask(ws)) == WHOLE  # the same request again, on the same socket


def test_a_faulted_delivery_keeps_what_the_socket_holds(serve: Any) -> None:
    """A continuation on the socket (only the new input, after the held response) that is
    faulted can be sent again as it was: the held response is still there."""
    text_ = (f'name: two\ntimeline:\n  - userInputs: [[0, "{PROMPT}"]]\n  - llmResponse:\n'
             '      - assistant: [[0, "first"]]\n  - userInputs: [[0, "more"]]\n'
             '  - llmResponse:\n      - fault: {kind: httpStatus, statusCode: 503}\n'
             '      - assistant: [[0, "second"]]\n')
    srv = serve([build_script(load_scenario_text(text_))])
    with connect(url(srv)) as ws:
        first = ask(ws)
        done = json.loads(first[-1])
        assert done["type"] == "response.completed" and text(first) == "first"
        follow = {"type": "response.create", "model": "m", "store": False,
                  "previous_response_id": done["response"]["id"],
                  "input": [{"role": "user", "content": "more"}]}
        for expected in ("error", "response.completed"):
            ws.send(json.dumps(follow))
            got: list[str] = []
            while not got or not any(f'"type":"{end}"' in got[-1]
                                     for end in ("response.completed", "error")):
                message = ws.recv(timeout=5)
                assert isinstance(message, str)
                got.append(message)
            assert json.loads(got[-1])["type"] == expected
        assert text(got) == "second"
