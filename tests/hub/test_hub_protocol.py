"""Protocol frames: parsing client messages and building hub messages (pure functions)."""

from __future__ import annotations

import json

import pytest

from scenarist.hub import protocol
from scenarist.hub.protocol import (
    Command,
    Kill,
    ProtocolError,
    Restart,
    Subscribe,
    parse_client_message,
)


def test_parses_the_four_client_messages() -> None:
    assert parse_client_message('{"type":"command","agent":"a","text":"hi"}') == Command("a", "hi")
    assert parse_client_message('{"type":"kill","agent":"a"}') == Kill("a")
    assert parse_client_message('{"type":"restart","agent":"a"}') == Restart("a")
    assert parse_client_message('{"type":"subscribe","agent":"a"}') == Subscribe("a")


@pytest.mark.parametrize(("raw", "fragment"), [
    ("not json", "not JSON"),
    ("[1]", "JSON object"),
    ('{"type":"exec","agent":"a"}', "unknown message type 'exec'"),
    ('{"type":"kill"}', '"agent" must be a non-empty string'),
    ('{"type":"restart","agent":""}', '"agent" must be a non-empty string'),
    ('{"type":"command","agent":"a"}', '"text" must be a string'),
    ('{"type":"command","agent":"a","text":["rm","-rf"]}', '"text" must be a string'),
    (b'{"type":"kill","agent":"a"}', "binary frames are not accepted"),
])
def test_malformed_frames_are_refused_with_a_hint(raw: str | bytes, fragment: str) -> None:
    with pytest.raises(ProtocolError, match=None) as err:
        parse_client_message(raw)
    assert fragment in str(err.value)


def test_hub_frames_match_the_documented_shapes() -> None:
    assert json.loads(protocol.output("stderr", "a", "x\u00e9")) == {
        "type": "stderr", "agent": "a", "data": "x\u00e9"}
    assert json.loads(protocol.status("a", "running")) == {"type": "status", "agent": "a",
                                                           "state": "running"}
    assert json.loads(protocol.exit_("a", None, "SIGTERM")) == {
        "type": "exit", "agent": "a", "code": None, "signal": "SIGTERM"}
    assert json.loads(protocol.timeout("a", 300.0)) == {"type": "timeout", "agent": "a",
                                                        "after_s": 300}
    assert json.loads(protocol.timeout("a", 0.25))["after_s"] == 0.25
    assert json.loads(protocol.killed("a")) == {"type": "killed", "agent": "a"}
    assert json.loads(protocol.skipped("a", 10)) == {"type": "skipped", "agent": "a", "bytes": 10}
    assert json.loads(protocol.error("bad")) == {"type": "error", "message": "bad"}
    assert json.loads(protocol.error("bad", "a"))["agent"] == "a"
    assert json.loads(protocol.hello(["a", "b"])) == {"type": "hello", "agents": ["a", "b"]}
