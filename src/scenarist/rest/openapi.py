"""``/api/v1/openapi.json``: an OpenAPI 3.1 document generated from the app's own route table,
so it lists exactly the routes that are served. Pure."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

__all__ = ["openapi_document"]

_PARAM = re.compile(r"\{(\w+)(?::\w+)?\}")
_PROBLEM = {"description": "problem+json error",
            "content": {"application/problem+json": {"schema": {"$ref": "#/components/schemas/Problem"}}}}
_SUCCESS = {("POST", "/tasks"): "201", ("DELETE", "/sessions/{id}"): "204"}
_QUERY = {
    "/sessions": ("status", "agent", "projectId", "page", "perPage"),
    "/events": ("type", "since", "until", "page", "perPage", "sort", "dialect"),
    "/logs": ("tail",),
    "/diff": ("files", "context"),
}


def openapi_document(routes: Sequence[tuple[str, str, str]], version: str, *,
                     api_key: bool = False) -> dict[str, Any]:
    """The document for ``routes`` = (method, path, summary)."""
    paths: dict[str, dict[str, Any]] = {}
    for method, path, summary in routes:
        spec_path = _PARAM.sub(r"{\1}", path)
        params = [{"name": name, "in": "path", "required": True, "schema": {"type": "string"}}
                  for name in _PARAM.findall(path)]
        for suffix, names in _QUERY.items():
            if method == "GET" and spec_path.endswith(suffix):
                params += [{"name": n, "in": "query", "required": False,
                            "schema": {"type": "string"}} for n in names]
        short = spec_path.removeprefix("/api/v1")
        code = _SUCCESS.get((method, short), "202" if method == "POST" else "200")
        operation: dict[str, Any] = {
            "summary": summary, "operationId": _operation_id(method, short),
            "parameters": params,
            "responses": {code: {"description": "success"}, "default": _PROBLEM},
        }
        if short.endswith("/events"):
            operation["responses"][code]["content"] = {
                "text/event-stream": {"schema": {"type": "string"}},
                "application/json": {"schema": {"type": "object"}}}
        if method == "POST":
            operation["requestBody"] = {"required": short == "/tasks", "content": {
                "application/json": {"schema": {"type": "object"}}}}
        paths.setdefault(spec_path, {})[method.lower()] = operation
    doc: dict[str, Any] = {
        "openapi": "3.1.0",
        "info": {"title": "scenarist rest: Agent Harbor REST API simulation", "version": version},
        "paths": paths,
        "components": {"schemas": {"Problem": {"type": "object", "properties": {
            "type": {"type": "string"}, "title": {"type": "string"},
            "status": {"type": "integer"}, "detail": {"type": "string"},
            "errors": {"type": "object", "additionalProperties": {
                "type": "array", "items": {"type": "string"}}}},
            "required": ["type", "title", "status", "detail"]}}},
    }
    if api_key:
        doc["components"]["securitySchemes"] = {
            "apiKey": {"type": "apiKey", "in": "header", "name": "Authorization"}}
        doc["security"] = [{"apiKey": []}]
    return doc


def _operation_id(method: str, path: str) -> str:
    words = [w for w in re.split(r"[/{}.]+", path) if w]
    return method.lower() + "".join(w[:1].upper() + w[1:] for w in words)
