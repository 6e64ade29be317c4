"""How scenarist writes JSON: compact bytes on the wire (SSE, hub and REST bodies), and a
scenario value shown as text by every front end."""

from __future__ import annotations

import json

from scenarist.json_out import as_text, dump_bytes


def test_compact_utf8_with_non_ascii_kept() -> None:
    assert dump_bytes({"a": [1, "é\n"]}) == '{"a":[1,"é\\n"]}'.encode()


def test_what_orjson_refuses_is_written_by_the_stdlib_as_the_same_json() -> None:
    assert dump_bytes({1: "é"}) == '{"1":"é"}'.encode()
    lone = dump_bytes({"data": "a\ud800b"})  # a lone surrogate, as json.loads can give
    assert lone == b'{"data":"a\\ud800b"}' and json.loads(lone) == {"data": "a\ud800b"}


def test_a_scenario_value_as_text_is_a_string_as_written_else_its_json() -> None:
    assert [as_text(v) for v in ("ok\n", None, {"n": 1, "s": "é"}, [1, 2], 3)] == [
        "ok\n", "", '{"n": 1, "s": "é"}', "[1, 2]", "3"]
