"""The error of a model request that the real API would refuse (shared by the request readers)."""

from __future__ import annotations

from scenarist.errors import WireError

__all__ = ["RequestError"]


class RequestError(WireError, ValueError):
    """A request the real API would refuse: HTTP ``status``, a message, the offending field."""

    def __init__(self, message: str, *, param: str | None = None, status: int = 400) -> None:
        super().__init__(message)
        self.message = message
        self.param = param
        self.status = status
