"""How error messages name the type of a JSON value ("expected a string, got an array")."""

from __future__ import annotations

from typing import Any

__all__ = ["json_kind"]


def json_kind(value: Any) -> str:
    """``null``, ``a boolean``, ``a number``, ``a string``, ``an array`` or ``an object``."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__
