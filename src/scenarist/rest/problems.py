"""Errors as the API's problem+json bodies (RFC 7807: ``type, title, status, detail,
errors{field: [messages]}``), for every failure the server answers, including malformed
bodies, unknown routes and sessions, wrong methods, oversized bodies and rate limits."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from starlette.responses import Response

from scenarist.errors import WireError
from scenarist.json_out import dump_bytes

__all__ = ["MEDIA_TYPE", "Problem", "problem_body", "problem_response"]

MEDIA_TYPE = "application/problem+json"
_TYPE = "https://scenarist.dev/problems/"

_TITLES = {400: "Bad Request", 401: "Unauthorized", 404: "Not Found",
           405: "Method Not Allowed", 406: "Not Acceptable", 409: "Conflict", 410: "Gone",
           413: "Payload Too Large", 415: "Unsupported Media Type",
           422: "Validation Failed", 429: "Too Many Requests",
           431: "Request Header Fields Too Large", 500: "Internal Server Error"}
_SLUGS = {400: "bad-request", 401: "unauthorized", 404: "not-found",
          405: "method-not-allowed", 406: "not-acceptable", 409: "conflict", 410: "gone",
          413: "payload-too-large", 415: "unsupported-media-type", 422: "validation",
          429: "rate-limited", 431: "header-too-large", 500: "internal"}


class Problem(WireError):
    """A request the API refuses (or, status 5xx, could not serve); the app answers it as
    problem+json."""

    def __init__(self, status: int, detail: str, *,
                 errors: Mapping[str, Sequence[str]] | None = None,
                 headers: Mapping[str, str] | None = None, title: str | None = None) -> None:
        super().__init__(detail)
        self.status = status
        self.detail = detail
        self.errors = {k: list(v) for k, v in (errors or {}).items()}
        self.headers = dict(headers or {})
        self.title = title or _TITLES.get(status, "Error")


def problem_body(problem: Problem) -> dict[str, Any]:
    body: dict[str, Any] = {"type": _TYPE + _SLUGS.get(problem.status, str(problem.status)),
                            "title": problem.title, "status": problem.status,
                            "detail": problem.detail}
    if problem.errors:
        body["errors"] = problem.errors
    return body


def problem_response(problem: Problem) -> Response:
    return Response(dump_bytes(problem_body(problem)), problem.status,
                    headers=problem.headers, media_type=MEDIA_TYPE)
