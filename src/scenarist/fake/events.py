"""The fake model's event vocabulary (the spec's adapter events) and its error type."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from scenarist.errors import ScenaristError
from scenarist.fake.script import FinishReason, ToolKind

NO_SCRIPTED_RESPONSE = "no_scripted_response"
TRANSIENT = "transient_error"

_STATUS = {NO_SCRIPTED_RESPONSE: 500, TRANSIENT: 503, "rate_limited": 429, "rate_limit": 429,
           "overloaded": 529, "timeout": 504, "invalid_request": 400, "unauthorized": 401,
           "authentication": 401, "not_found": 404, "context_length_exceeded": 400}


class FakeModelError(ScenaristError):
    """A scripted (or exhausted-script) failure: ``reason`` plus the script's ``details``.

    ``status`` is the HTTP status the SDK clients see (from ``details["status"]``, else a
    default by reason, else 500).
    """

    def __init__(self, reason: str, message: str | None = None, **details: Any) -> None:
        self.reason = reason
        self.message = message or reason.replace("_", " ")
        self.details: dict[str, Any] = details
        status = details.get("status", _STATUS.get(reason, 500))
        self.status = status if isinstance(status, int) else 500
        super().__init__(f"{reason}: {self.message}")

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, FakeModelError) and other.reason == self.reason
                and other.message == self.message and other.details == self.details)

    def __hash__(self) -> int:
        return hash((self.reason, self.message))


def script_exhausted_error() -> FakeModelError:
    """The canonical error of a call with no scripted response left."""
    return FakeModelError(NO_SCRIPTED_RESPONSE, "no scripted response")


def error_from(reason: str, details: Mapping[str, Any]) -> FakeModelError:
    rest = {k: v for k, v in details.items() if k != "message"}
    message = details.get("message")
    return FakeModelError(reason, message if isinstance(message, str) else None, **rest)


@dataclass(frozen=True, slots=True)
class MessageStarted:
    type: ClassVar[str] = "message_started"
    request_id: str | None
    model: str


@dataclass(frozen=True, slots=True)
class TextDelta:
    type: ClassVar[str] = "text_delta"
    delta: str


@dataclass(frozen=True, slots=True)
class TextCompleted:
    type: ClassVar[str] = "text_completed"
    text: str


@dataclass(frozen=True, slots=True)
class ToolCallStarted:
    type: ClassVar[str] = "tool_call_started"
    id: str
    name: str
    kind: ToolKind = "function"


@dataclass(frozen=True, slots=True)
class ToolCallDelta:
    type: ClassVar[str] = "tool_call_delta"
    id: str
    delta: str


@dataclass(frozen=True, slots=True)
class ToolCallCompleted:
    """A finished call: ``arguments`` is the parsed JSON (``None`` if not a JSON object)."""

    type: ClassVar[str] = "tool_call_completed"
    id: str
    name: str
    raw_arguments: str
    arguments: dict[str, Any] | None = None
    kind: ToolKind = "function"


@dataclass(frozen=True, slots=True)
class MessageCompleted:
    type: ClassVar[str] = "message_completed"
    finish_reason: FinishReason
    usage: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class RawChunkEvent:
    type: ClassVar[str] = "raw_chunk"
    chunk: Any


@dataclass(frozen=True, slots=True)
class ErrorEvent:
    type: ClassVar[str] = "error"
    error: FakeModelError


FakeEvent = (MessageStarted | TextDelta | TextCompleted | ToolCallStarted | ToolCallDelta
         | ToolCallCompleted | MessageCompleted | RawChunkEvent | ErrorEvent)

EVENT_TYPES = ("message_started", "text_delta", "text_completed", "tool_call_started",
               "tool_call_delta", "tool_call_completed", "message_completed", "raw_chunk", "error")
