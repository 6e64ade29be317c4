"""Each API's own error body, for scripted failures and for bad input alike."""

from __future__ import annotations

from typing import Any, Literal

WireApi = Literal["openai_chat", "openai_responses", "anthropic"]
APIS: tuple[WireApi, ...] = ("openai_chat", "openai_responses", "anthropic")

_OPENAI_TYPES = {400: "invalid_request_error", 401: "invalid_request_error",
                 403: "invalid_request_error", 404: "invalid_request_error",
                 409: "invalid_request_error", 413: "invalid_request_error",
                 422: "invalid_request_error", 429: "requests"}
_OPENAI_CODES = {401: "invalid_api_key", 429: "rate_limit_exceeded"}
_ANTHROPIC_TYPES = {400: "invalid_request_error", 401: "authentication_error", 402: "billing_error",
                    403: "permission_error", 404: "not_found_error", 413: "request_too_large",
                    429: "rate_limit_error", 504: "timeout_error", 529: "overloaded_error"}


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


def error_body(api: WireApi, status: int, message: str, type: str | None = None,
               code: str | None = None, param: str | None = None) -> dict[str, Any]:
    """The body ``api`` answers an error with. ``type`` defaults from the HTTP status."""
    if api == "anthropic":
        return anthropic_error(status, message, type)
    if api in ("openai_chat", "openai_responses"):
        return openai_error(status, message, type, code, param)
    raise ValueError(f"unknown api {api!r}; choose one of {', '.join(APIS)}")
