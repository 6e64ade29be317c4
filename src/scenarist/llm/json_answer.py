"""An answer for a request that constrains the reply to a JSON schema (pure).

Gemini CLI asks its model router, before each prompt, to classify the task: a request with no
tools whose ``generationConfig`` asks for ``application/json`` with a ``responseJsonSchema``
(``{complexity_reasoning: string, complexity_score: integer}`` in 0.61.0). It parses the
answer against that schema and, when it does not fit, asks again with backoff (five tries,
tens of seconds) before routing by default. Scenarios do not script that side request, so
its answer is the turn's text when that text already is JSON (a scenario written for
structured output), else the smallest instance of the schema: strings carry the turn's text,
numbers their ``minimum`` (else 1), enums their first value, objects their required
properties (all of them when none is marked), arrays their ``minItems``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson

__all__ = ["schema_answer"]

_DEPTH = 16  # a schema nested deeper (or a recursive one) ends in null


def schema_answer(text: str, schema_json: str) -> str:
    """``text`` when it is JSON, else an instance of the schema (``schema_json``) as JSON."""
    try:
        orjson.loads(text)
    except orjson.JSONDecodeError:
        schema = orjson.loads(schema_json)
        return orjson.dumps(_instance(schema, text, 0)).decode()
    return text


def _instance(schema: Any, text: str, depth: int) -> Any:
    if not isinstance(schema, Mapping) or depth > _DEPTH:
        return None
    for key in ("anyOf", "oneOf", "allOf"):
        options = schema.get(key)
        if isinstance(options, list) and options:
            return _instance(options[0], text, depth + 1)
    if "const" in schema:
        return schema["const"]
    enum = schema.get("enum")
    if isinstance(enum, list) and enum:
        return enum[0]
    kind = schema.get("type")
    if isinstance(kind, list):  # ["string", "null"]: the first that is not null
        kind = next((k for k in kind if k != "null"), "null")
    kind = str(kind).lower() if kind is not None else (
        "object" if "properties" in schema else "string")
    if kind == "object":
        props = schema.get("properties")
        props = props if isinstance(props, Mapping) else {}
        required = schema.get("required")
        names = [n for n in required if n in props] if isinstance(required, list) else list(props)
        return {name: _instance(props[name], text, depth + 1) for name in names}
    if kind == "array":
        count = schema.get("minItems")
        count = count if isinstance(count, int) and 0 < count <= _DEPTH else 0
        return [_instance(schema.get("items"), text, depth + 1) for _ in range(count)]
    if kind in ("integer", "number"):
        low = schema.get("minimum")
        return low if isinstance(low, int | float) and not isinstance(low, bool) else 1
    if kind == "boolean":
        return False
    if kind == "null":
        return None
    return text
