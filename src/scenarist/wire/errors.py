"""Each API's own error body, for scripted failures and for bad input alike.

A scenario's ``errorType`` is free text (the spec's examples: ``rate_limit_exceeded``,
``invalid_request``, ``tool_not_found``). The real APIs only send types from a fixed set, and
SDKs branch on them (``anthropic.RateLimitError``, litellm's exception mapping), so
:func:`scripted_error_fields` maps a scenario's error onto each API's real vocabulary: its
``type`` from the real set (named by the scenario, an alias of it, else from the status) and,
for OpenAI, the scenario's own name in ``code``, where the API carries such names.
"""

from __future__ import annotations

from typing import Any, Literal

from scenarist.wire.gemini import gemini_error, scripted_status

WireApi = Literal["openai_chat", "openai_responses", "anthropic", "gemini"]
APIS: tuple[WireApi, ...] = ("openai_chat", "openai_responses", "anthropic", "gemini")

_OPENAI_TYPES = {400: "invalid_request_error", 401: "invalid_request_error",
                 403: "invalid_request_error", 404: "invalid_request_error",
                 409: "invalid_request_error", 413: "invalid_request_error",
                 422: "invalid_request_error", 429: "requests"}
_OPENAI_CODES = {401: "invalid_api_key", 429: "rate_limit_exceeded"}
_ANTHROPIC_TYPES = {400: "invalid_request_error", 401: "authentication_error", 402: "billing_error",
                    403: "permission_error", 404: "not_found_error", 413: "request_too_large",
                    429: "rate_limit_error", 504: "timeout_error", 529: "overloaded_error"}


ANTHROPIC_TYPES = frozenset({
    "invalid_request_error", "authentication_error", "billing_error", "permission_error",
    "not_found_error", "request_too_large", "rate_limit_error", "api_error", "timeout_error",
    "overloaded_error"})
"""The ``error.type`` values of the Messages API (docs.claude.com/en/api/errors)."""
OPENAI_TYPES = frozenset({"invalid_request_error", "server_error", "requests", "tokens",
                          "insufficient_quota"})
"""The ``error.type`` values the OpenAI API sends (``requests``/``tokens``: a 429's limit)."""
_ANTHROPIC_ALIASES = {
    "rate_limit": "rate_limit_error", "rate_limit_exceeded": "rate_limit_error",
    "rate_limited": "rate_limit_error", "too_many_requests": "rate_limit_error",
    "requests": "rate_limit_error", "tokens": "rate_limit_error",
    "overloaded": "overloaded_error", "invalid_request": "invalid_request_error",
    "bad_request": "invalid_request_error", "authentication": "authentication_error",
    "invalid_api_key": "authentication_error", "unauthorized": "authentication_error",
    "permission": "permission_error", "permission_denied": "permission_error",
    "forbidden": "permission_error", "not_found": "not_found_error",
    "model_not_found": "not_found_error", "server_error": "api_error",
    "internal_error": "api_error", "internal_server_error": "api_error",
    "billing": "billing_error", "insufficient_quota": "billing_error",
    "timeout": "timeout_error", "too_large": "request_too_large",
    "context_length_exceeded": "invalid_request_error"}


def openai_error_type(status: int) -> str:
    return _OPENAI_TYPES.get(status, "server_error" if status >= 500 else "invalid_request_error")


def anthropic_error_type(status: int) -> str:
    return _ANTHROPIC_TYPES.get(status, "api_error" if status >= 500 else "invalid_request_error")


def openai_error(status: int, message: str, type: str | None = None, code: str | None = None,
                 param: str | None = None) -> dict[str, Any]:
    """``{"error": {"message", "type", "param", "code"}}`` (Chat Completions and Responses)."""
    return {"error": {"message": message, "type": type or openai_error_type(status),
                      "param": param, "code": code if code is not None else _OPENAI_CODES.get(status)}}


def anthropic_error(status: int, message: str, type: str | None = None) -> dict[str, Any]:
    """``{"type": "error", "error": {"type", "message"}}`` (Messages)."""
    return {"type": "error", "error": {"type": type or anthropic_error_type(status), "message": message}}


def scripted_error_fields(api: WireApi, status: int, error_type: str | None,
                          details: Any = None) -> tuple[str, str | None, str | None]:
    """``(type, code, param)`` of a scenario's error for ``api``, in the API's real terms.

    Anthropic: a real type as named, else its alias (``rate_limit_exceeded`` →
    ``rate_limit_error``), else the status's (no ``code``/``param``: the body has no place for
    them). OpenAI: a real type as named, else the status's; ``code`` is the scenario's
    ``errorType`` (``rate_limit_exceeded``, ``tool_not_found``), else the status's; ``param``
    and ``code`` may come from ``details`` (``{"param": ..., "code": ...}``). Gemini: the
    ``google.rpc.Code`` name in ``type`` (:func:`scenarist.wire.gemini.scripted_status`)."""
    name = error_type.strip() if error_type else None
    if api == "gemini":
        return scripted_status(status, name), None, None
    if api == "anthropic":
        key = (name or "").lower().replace("-", "_").replace(" ", "_")
        if key in ANTHROPIC_TYPES:
            return key, None, None
        return _ANTHROPIC_ALIASES.get(key) or anthropic_error_type(status), None, None
    extra = details if isinstance(details, dict) else {}
    param = extra.get("param") if isinstance(extra.get("param"), str) else None
    code = extra.get("code") if isinstance(extra.get("code"), str) else name
    kind = name if name in OPENAI_TYPES else openai_error_type(status)
    return kind, code if code is not None else _OPENAI_CODES.get(status), param


def error_body(api: WireApi, status: int, message: str, type: str | None = None,
               code: str | None = None, param: str | None = None) -> dict[str, Any]:
    """The body ``api`` answers an error with. ``type`` defaults from the HTTP status."""
    if api == "anthropic":
        return anthropic_error(status, message, type)
    if api == "gemini":
        return gemini_error(status, message, type)
    if api in ("openai_chat", "openai_responses"):
        return openai_error(status, message, type, code, param)
    raise ValueError(f"unknown api {api!r}; choose one of {', '.join(APIS)}")
