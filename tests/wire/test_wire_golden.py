"""Golden files: the exact bytes each encoder produces for each shared turn.

Regenerate after a deliberate format change with ``SCENARIST_REGOLD=1 pytest tests/wire``
and review the diff.
"""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest
from wire_turns import TURNS

from scenarist.wire import APIS, WireApi, encode_body, encode_stream


@pytest.mark.parametrize("api", APIS)
@pytest.mark.parametrize("turn", sorted(TURNS))
def test_stream_golden(api: WireApi, turn: str, golden: Callable[[str, str], None]) -> None:
    frames = encode_stream(api, TURNS[turn], include_usage=True)
    golden(f"{api}.{turn}.sse", b"".join(f.encode() for f in frames).decode())


@pytest.mark.parametrize("api", APIS)
@pytest.mark.parametrize("turn", sorted(TURNS))
def test_body_golden(api: WireApi, turn: str, golden: Callable[[str, str], None]) -> None:
    status, body = encode_body(api, TURNS[turn])
    golden(f"{api}.{turn}.json", json.dumps({"status": status, "body": body}, indent=1,
                                            ensure_ascii=False) + "\n")
