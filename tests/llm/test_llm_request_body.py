"""A body whose tool list was sent before is read without parsing the list again: the same
value as ``orjson.loads`` of the body, the same errors, the same answers (issue 28)."""

from __future__ import annotations

import json
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scenarist.llm.conversation import RequestError, read_request
from scenarist.llm.request_body import BodyReader, SeenTools

TOOLS = [{"name": "Bash", "description": "Run a command", "input_schema": {
    "type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"]}},
    {"name": "Read", "description": "Read a file [with \"quotes\"] ]}", "input_schema": {
        "type": "object", "properties": {"path": {"type": "string"}}}}]


def messages_body(prompt: str, tools: Any = TOOLS, **extra: Any) -> bytes:
    body = {"model": "m", "max_tokens": 10, **extra,
            "messages": [{"role": "user", "content": prompt}], "tools": tools}
    return orjson.dumps(body)


def test_a_tool_list_sent_again_is_shared_and_read_once() -> None:
    reader = BodyReader()
    first = reader.parse(messages_body("one"))
    second = reader.parse(messages_body("two"))
    assert first == orjson.loads(messages_body("one"))
    assert second == orjson.loads(messages_body("two"))
    assert isinstance(second["tools"], SeenTools) and second["tools"] is first["tools"]
    assert list(second) == ["model", "max_tokens", "messages", "tools"]  # order kept
    convs = [read_request("messages", b) for b in (first, second)]
    assert convs[0].tools is convs[1].tools  # read once
    assert [t.name for t in convs[1].tools] == ["Bash", "Read"]
    assert convs[1].prompts == ("two",)


def test_other_tools_and_other_spellings_are_parsed_whole() -> None:
    reader = BodyReader()
    reader.parse(messages_body("one"))
    other = [{**TOOLS[0], "name": "Shell"}]
    assert reader.parse(messages_body("x", other))["tools"] == other
    spaced = json.dumps(orjson.loads(messages_body("y"))).encode()  # ", " and ": "
    body = reader.parse(spaced)
    assert body == orjson.loads(spaced) and not isinstance(body["tools"], SeenTools)
    not_last = orjson.dumps({"tools": TOOLS, "model": "m", "max_tokens": 1, "messages": []})
    assert not isinstance(reader.parse(not_last)["tools"], SeenTools)
    assert len(reader) == 2


def test_a_known_tail_after_no_member_or_broken_json_is_parsed_whole() -> None:
    """``{,"tools":[...]}`` and a broken head are refused with orjson's own message for the
    body as sent, not for the part before the tools."""
    reader = BodyReader()
    tail = messages_body("one")[messages_body("one").rindex(b',"tools":'):]
    reader.parse(messages_body("one"))
    for broken in (b"{" + tail, b'{"model":"m"' + b"," + tail, b'{"model":' + tail, b"[1" + tail):
        with pytest.raises(ValueError) as ours:
            reader.parse(broken)
        with pytest.raises(ValueError) as plain:
            orjson.loads(broken)
        assert str(ours.value) == str(plain.value)


def test_a_repeated_tools_key_keeps_the_last_value_in_the_first_place() -> None:
    reader = BodyReader()
    reader.parse(messages_body("one"))
    raw = b'{"tools":[1],' + messages_body("two")[1:]
    assert reader.parse(raw) == orjson.loads(raw)
    assert list(reader.parse(raw)) == list(orjson.loads(raw))


def test_a_bad_tool_list_is_refused_every_time() -> None:
    """What fails a check is not kept as checked: the same list fails again."""
    reader = BodyReader()
    bad = [TOOLS[0], {"name": "NoSchema"}]
    for prompt in ("one", "two", "three"):
        body = reader.parse(messages_body(prompt, bad))
        with pytest.raises(RequestError, match=r"tools\[1\]\.input_schema: Field required"):
            read_request("messages", body)
    assert isinstance(body["tools"], SeenTools)


def test_the_reader_holds_a_bounded_number_of_lists() -> None:
    reader = BodyReader(limit=3)
    for i in range(10):
        reader.parse(messages_body("p", [{**TOOLS[0], "name": f"T{i}"}]))
    assert len(reader) == 3


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1) | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner,
                                                                max_size=3),
    max_leaves=8)


@settings(max_examples=200, deadline=None)
@given(head=st.dictionaries(st.text(max_size=5), json_values, max_size=4),
       tools=st.lists(json_values, min_size=1, max_size=3),
       seen=st.lists(st.lists(json_values, min_size=1, max_size=3), max_size=3),
       cut=st.integers(min_value=0, max_value=12))
def test_any_body_reads_as_orjson_reads_it(head: dict[str, Any], tools: list[Any],
                                            seen: list[list[Any]], cut: int) -> None:
    """Whatever the reader has seen, a body reads as ``orjson.loads`` reads it (and a body
    cut short fails as it does)."""
    reader = BodyReader()
    for known in (*seen, tools):
        reader.parse(orjson.dumps({"x": 1, "tools": known}))
    raw = orjson.dumps({**head, "tools": tools})
    assert reader.parse(raw) == orjson.loads(raw)
    broken = raw[cut:] if cut else raw[:-1] + b",}"
    with pytest.raises(ValueError):
        orjson.loads(broken)
    with pytest.raises(ValueError):
        reader.parse(broken)
