"""Golden files: the exact bytes each encoder produces for each shared turn.

Regenerate after a deliberate format change with ``SCENARIST_REGOLD=1 pytest tests/wire``
and review the diff.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from wire_turns import TURNS

from scenarist.wire import APIS, WireApi, encode_body, encode_stream

GOLDEN = Path(__file__).parent / "golden"


def _check(name: str, actual: str) -> None:
    path = GOLDEN / name
    if os.environ.get("SCENARIST_REGOLD"):
        path.write_text(actual, encoding="utf-8")
    assert path.exists(), f"missing golden {path}; run with SCENARIST_REGOLD=1 to create it"
    assert actual == path.read_text(encoding="utf-8")


@pytest.mark.parametrize("api", APIS)
@pytest.mark.parametrize("turn", sorted(TURNS))
def test_stream_golden(api: WireApi, turn: str) -> None:
    frames = encode_stream(api, TURNS[turn], include_usage=True)
    _check(f"{api}.{turn}.sse", b"".join(f.encode() for f in frames).decode())


@pytest.mark.parametrize("api", APIS)
@pytest.mark.parametrize("turn", sorted(TURNS))
def test_body_golden(api: WireApi, turn: str) -> None:
    status, body = encode_body(api, TURNS[turn])
    _check(f"{api}.{turn}.json", json.dumps({"status": status, "body": body}, indent=1,
                                            ensure_ascii=False) + "\n")
