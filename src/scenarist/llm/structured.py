"""Structured output: an answer's text as JSON that fits the schema a request asks for (pure).

A Gemini request may ask for JSON (``generationConfig.responseMimeType: application/json``
with ``responseJsonSchema`` or ``responseSchema``); a client then parses the text and fails
on prose. Gemini CLI does so on every prompt: its model router asks which model should take
it (``{"reasoning", "model_choice"}``), a request that declares no tools and so is a side
request of the scenario (:func:`scenarist.llm.answer.is_side_request`). Such an answer's text
becomes an instance of the schema: every string the turn's text, an ``enum`` its first
value, numbers ``0``, booleans ``false``, arrays empty, objects all their properties. A turn
that makes tool calls is left as it is.
"""

# Annotations are not postponed here: see "Records" in docs/architecture.md.
import json
from typing import Any

from scenarist.llm.render import Rendered
from scenarist.wire import TextDelta, WireEvent

__all__ = ["as_json", "instance"]

MAX_DEPTH = 16


def instance(schema: Any, text: str, depth: int = 0) -> Any:
    """A value that fits ``schema`` (JSON Schema, or Gemini's with capitalised types)."""
    if not isinstance(schema, dict) or depth > MAX_DEPTH:
        return text
    enum = schema.get("enum")
    if isinstance(enum, list) and enum:
        return enum[0]
    for key in ("anyOf", "oneOf", "allOf"):
        options = schema.get(key)
        if isinstance(options, list) and options:
            return instance(options[0], text, depth + 1)
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if str(k).lower() != "null"), "string")
    kind = str(kind).lower() if kind is not None else (
        "object" if isinstance(schema.get("properties"), dict) else "string")
    if kind == "object":
        properties = schema.get("properties")
        if not isinstance(properties, dict):
            return {}
        return {str(k): instance(v, text, depth + 1) for k, v in properties.items()}
    return {"array": [], "integer": 0, "number": 0, "boolean": False, "null": None}.get(
        kind, text)


def as_json(rendered: Rendered, schema: str) -> Rendered:
    """``rendered`` with its text replaced by one JSON instance of ``schema`` (JSON text),
    sent when its text was due; a turn with calls is returned as it is."""
    if rendered.calls:
        return rendered
    texts = [e for e in rendered.events if isinstance(e, TextDelta)]
    value = instance(json.loads(schema), "".join(e.text for e in texts))
    at = texts[0].at_ms if texts else 0
    events: list[WireEvent] = [e for e in rendered.events if not isinstance(e, TextDelta)]
    events.insert(len(events) - 1,  # before the Finish (after any reasoning)
                  TextDelta(json.dumps(value, ensure_ascii=False), at_ms=at))
    return rendered._replace(events=tuple(events))
