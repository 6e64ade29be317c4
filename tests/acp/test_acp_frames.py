"""The line checks on their own (pure): no line makes them raise, every reply is strict
JSON-RPC, a well-formed message passes unchanged, an id is read from a line cut short."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from scenarist.acp.frames import Refusal, check_line, encode, oversized

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner,
                                                                max_size=4),
    max_leaves=20)
IDS = st.integers() | st.text(max_size=30)
REQUEST = st.fixed_dictionaries({
    "jsonrpc": st.just("2.0"), "id": IDS, "method": st.text(min_size=1, max_size=20),
    "params": st.dictionaries(st.text(max_size=8), JSON, max_size=4)})


def _strict(data: bytes) -> Any:
    def refuse(name: str) -> Any:
        raise AssertionError(f"{name} in {data!r}")

    assert data.endswith(b"\n") and data.count(b"\n") == 1
    return json.loads(data, parse_constant=refuse)


def _replies(refusal: Refusal) -> list[dict[str, Any]]:
    if refusal.reply is None:
        return []
    replies = refusal.reply if isinstance(refusal.reply, list) else [refusal.reply]
    for reply in replies:
        back = _strict(encode(reply))
        assert back["jsonrpc"] == "2.0" and "id" in back
        assert back["error"]["code"] in (-32700, -32600, -32602)
    return replies


@given(st.binary(max_size=300))
def test_no_bytes_make_the_check_raise(data: bytes) -> None:
    checked = check_line(data)
    if isinstance(checked, Refusal):
        _replies(checked)
    else:
        assert isinstance(checked, dict)


@given(JSON)
def test_any_json_value_passes_or_is_refused_in_strict_json(value: Any) -> None:
    checked = check_line(json.dumps(value).encode())
    if isinstance(checked, Refusal):
        _replies(checked)
    else:
        assert isinstance(checked, dict) and checked.get("jsonrpc") == "2.0"


@given(REQUEST)
def test_a_well_formed_request_passes_unchanged(request: dict[str, Any]) -> None:
    assert check_line(json.dumps(request).encode()) == request


@given(REQUEST, st.integers(min_value=1, max_value=40))
def test_the_id_is_read_from_a_request_cut_short(request: dict[str, Any], cut: int) -> None:
    ordered = {key: request[key] for key in ("jsonrpc", "id", "method", "params")}
    text = json.dumps(ordered).encode()
    head = text[:max(text.index(b'"method"'), len(text) - cut)]
    refused = check_line(head)
    assert isinstance(refused, Refusal)
    assert [r["id"] for r in _replies(refused)] == [request["id"]]
    assert [r["id"] for r in _replies(oversized(head, 10))] == [request["id"]]


def test_error_data_json_cannot_hold_becomes_a_note() -> None:
    deep: Any = []
    for _ in range(100_000):
        deep = [deep]
    reply = {"jsonrpc": "2.0", "id": 1, "error": {"code": -32602, "message": "m", "data": deep}}
    assert _strict(encode(reply))["error"]["data"] == {
        "message": "not JSON-serialisable: RecursionError"}
    result = {"jsonrpc": "2.0", "id": 2, "result": {"x": float("nan")}}
    assert _strict(encode(result))["error"]["code"] == -32603


def test_unclosed_strings_are_read_in_one_pass() -> None:
    """Reading the id of a broken line once took a pass per quote: 10,000 unclosed strings
    took 4.7 s, a megabyte of them would never end."""
    for line in (b"{" + b'"\\' * 500_000, b"{" + b'"' * 1_000_000,
                 b'{"a":"' + b"\\" * 1_000_001):
        refused = check_line(line)
        assert isinstance(refused, Refusal) and _replies(refused)[0]["id"] is None
    assert _replies(check_line(b'{"x":"a\\"b","id":7,"m":"' + b"\\" * 100_000))[0]["id"] == 7


def test_a_long_batch_gets_one_error() -> None:
    refused = check_line(b"[" + b",".join([b"1"] * 100_000) + b"]")
    assert isinstance(refused, Refusal) and isinstance(refused.reply, dict)
    assert refused.reply["error"]["code"] == -32600 and refused.reply["id"] is None
    short = check_line(b"[" + b",".join([b"1"] * 100) + b"]")
    assert isinstance(short, Refusal) and len(_replies(short)) == 100
