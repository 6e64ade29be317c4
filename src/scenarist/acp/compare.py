"""Compare what a peer sent with what a scenario expects (pure).

Scenarios state only the fields they care about (``expectedResponse: {stopReason: ...}``),
so the expectation is a *subset*: every key it gives must be there with an equal value,
recursively; lists compare item by item. Older spellings of a stop reason (``completed``)
are read as ACP's.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["differences", "overlay"]

_STOP = {"completed": "end_turn", "complete": "end_turn", "interrupted": "cancelled",
         "canceled": "cancelled"}


def differences(expected: Any, actual: Any, path: str = "") -> list[str]:
    """Where ``actual`` differs from the ``expected`` subset, one line per difference."""
    if isinstance(expected, Mapping):
        if not isinstance(actual, Mapping):
            return [f"{path or '.'}: expected an object, got {actual!r}"]
        found: list[str] = []
        for key, want in expected.items():
            where = f"{path}.{key}" if path else str(key)
            if key not in actual:
                found.append(f"{where}: missing (expected {want!r})")
            else:
                if key == "stopReason" and isinstance(want, str):
                    want = _STOP.get(want, want)
                found += differences(want, actual[key], where)
        return found
    if isinstance(expected, list | tuple):
        if not isinstance(actual, list | tuple) or len(actual) != len(expected):
            return [f"{path}: expected {list(expected)!r}, got {actual!r}"]
        return [d for n, (w, a) in enumerate(zip(expected, actual, strict=True))
                for d in differences(w, a, f"{path}[{n}]")]
    if expected != actual or (type(expected) is bool and type(actual) is not bool):
        return [f"{path}: expected {expected!r}, got {actual!r}"]
    return []


def overlay(base: Mapping[str, Any], extra: Mapping[str, Any]) -> dict[str, Any]:
    """``base`` with ``extra``'s keys added, recursively (extra wins on conflicts)."""
    merged = dict(base)
    for key, value in extra.items():
        old = merged.get(key)
        if isinstance(old, Mapping) and isinstance(value, Mapping):
            merged[key] = overlay(old, value)
        else:
            merged[key] = value
    return merged
