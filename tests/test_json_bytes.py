"""The one compact JSON writer of the servers (SSE frames, hub frames, REST bodies)."""

from __future__ import annotations

import json

from scenarist.json_bytes import dump_bytes


def test_compact_utf8_with_non_ascii_kept() -> None:
    assert dump_bytes({"a": [1, "é\n"]}) == '{"a":[1,"é\\n"]}'.encode()


def test_what_orjson_refuses_is_written_by_the_stdlib_as_the_same_json() -> None:
    assert dump_bytes({1: "é"}) == '{"1":"é"}'.encode()
    lone = dump_bytes({"data": "a\ud800b"})  # a lone surrogate, as json.loads can give
    assert lone == b'{"data":"a\\ud800b"}' and json.loads(lone) == {"data": "a\ud800b"}
