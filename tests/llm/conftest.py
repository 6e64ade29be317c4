"""Shared helpers for the mock model API server tests."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
SHARED = REPO / ".." / "shared"
CAPTURED = SHARED / "reference" / "real-agent-requests"


def captured(name: str) -> dict[str, Any]:
    """A captured real-agent request: ``{"path", "headers", "body"}`` with tools put back in."""
    data: dict[str, Any] = json.loads((CAPTURED / name).read_text())
    body = dict(data["body"])
    if data.get("tools"):
        body["tools"] = data["tools"]
    return {"path": data["path"], "headers": data["headers"], "body": body}


@pytest.fixture(name="captured")
def captured_fixture() -> Any:
    """The :func:`captured` loader, for tests."""
    return captured
