"""Pure helpers that read the few request fields the encoders depend on."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def wants_stream(body: Mapping[str, Any]) -> bool:
    """Whether the client asked for SSE (``"stream": true``; absent means no in every API)."""
    return body.get("stream") is True


def include_usage(body: Mapping[str, Any]) -> bool:
    """Chat Completions: whether a final usage chunk was asked for (``stream_options``)."""
    options = body.get("stream_options")
    return isinstance(options, Mapping) and options.get("include_usage") is True


def requested_model(body: Mapping[str, Any], default: str) -> str:
    """The ``model`` the client named, which the answer echoes back."""
    model = body.get("model")
    return model if isinstance(model, str) and model else default
