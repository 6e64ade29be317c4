"""Lazy sync and async streams over a call's steps, with cleanup that fires exactly once.

Nothing runs until the consumer asks for the first event. Scripted delays set the times of
the steps after them (:func:`~scenarist.fake.interpret.timed_steps`), and each step is handed
out when due on one :class:`scenarist.play.Schedule` (absolute start: the first request for
an event), so a slow consumer or a late wake-up never shifts the steps after it. ``on_close`` runs once on every end: exhaustion, ``break`` (the stream is dropped),
``close()``/``aclose()``, leaving a ``with`` block, an exception in the consumer or in the
stream, and task cancellation while the stream waits.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from types import TracebackType
from typing import Generic, Self, TypeVar

from scenarist.fake.interpret import Raise, Wait, timed_steps
from scenarist.play.clock import Clock
from scenarist.play.pacing import Schedule

T = TypeVar("T")


class CloseCounter:
    """An ``on_close`` callback that counts how many streams have closed (thread-safe)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.count = 0

    def __call__(self) -> None:
        with self._lock:
            self.count += 1

    def __repr__(self) -> str:
        return f"CloseCounter(count={self.count})"


class _Base(Generic[T]):
    def __init__(self, steps: Iterator[T | Wait | Raise], clock: Clock,
                 on_close: Callable[[], None] | None) -> None:
        self._steps = timed_steps(steps)
        self._schedule = Schedule(clock)
        self._on_close = on_close
        self._closed = False
        self._lock = threading.Lock()

    @property
    def closed(self) -> bool:
        return self._closed

    def _close(self) -> None:
        with self._lock:
            if self._closed:
                return
            self._closed = True
        if self._on_close is not None:
            self._on_close()

    def __del__(self) -> None:
        # A dropped stream (``break`` out of ``for e in model.stream()``) is closed here.
        if not getattr(self, "_closed", True):
            self._close()


class Stream(_Base[T]):
    """Iterator of events (the fake's, or wire events for HTTP); also a context manager."""

    def __iter__(self) -> Self:
        return self

    def __next__(self) -> T:
        if self._closed:
            raise StopIteration
        try:
            at, step = next(self._steps)
            self._schedule.wait_sync(at)
            if isinstance(step, Raise):
                raise step.error
            return step
        except BaseException:
            self._close()
            raise

    def close(self) -> None:
        self._close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self._close()


class AsyncStream(_Base[T]):
    """Async iterator of events; also an async context manager. Waits don't block the loop."""

    def __aiter__(self) -> Self:
        return self

    async def __anext__(self) -> T:
        if self._closed:
            raise StopAsyncIteration
        try:
            timed = next(self._steps, None)
            if timed is None:
                raise StopAsyncIteration
            at, step = timed
            await self._schedule.wait(at)
            if isinstance(step, Raise):
                raise step.error
            return step
        except BaseException:
            self._close()
            raise

    async def aclose(self) -> None:
        self._close()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                        tb: TracebackType | None) -> None:
        self._close()
