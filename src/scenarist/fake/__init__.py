"""In-process scripted fake model for unit tests (see ``docs/fake-model.md``).

    from scenarist.fake import FakeModel, text, tool_call, finish

    model = FakeModel(scripts=[[tool_call(id="c1", name="ls", arguments={})], [text("done")]])
    client = model.openai_client()        # the official SDK, answered with no socket
"""

from scenarist.fake.events import (
    EVENT_TYPES,
    NO_SCRIPTED_RESPONSE,
    TRANSIENT,
    ErrorEvent,
    FakeEvent,
    FakeModelError,
    MessageCompleted,
    MessageStarted,
    RawChunkEvent,
    TextCompleted,
    TextDelta,
    ToolCallCompleted,
    ToolCallDelta,
    ToolCallStarted,
    script_exhausted_error,
)
from scenarist.fake.model import Cursor, FakeModel, Response, ToolCallResult
from scenarist.fake.script import (
    Entry,
    delay,
    error,
    error_event,
    finish,
    ok,
    preflight_error,
    raw_chunk,
    sleep,
    stream_error,
    text,
    text_delta,
    tool_call,
    tool_call_delta,
    usage,
)
from scenarist.fake.stream import AsyncStream, CloseCounter, Stream

__all__ = [
    "EVENT_TYPES",
    "NO_SCRIPTED_RESPONSE",
    "TRANSIENT",
    "AsyncStream",
    "CloseCounter",
    "Cursor",
    "Entry",
    "ErrorEvent",
    "FakeEvent",
    "FakeModel",
    "FakeModelError",
    "MessageCompleted",
    "MessageStarted",
    "RawChunkEvent",
    "Response",
    "Stream",
    "TextCompleted",
    "TextDelta",
    "ToolCallCompleted",
    "ToolCallDelta",
    "ToolCallResult",
    "ToolCallStarted",
    "delay",
    "error",
    "error_event",
    "finish",
    "ok",
    "preflight_error",
    "raw_chunk",
    "script_exhausted_error",
    "sleep",
    "stream_error",
    "text",
    "text_delta",
    "tool_call",
    "tool_call_delta",
    "usage",
]
