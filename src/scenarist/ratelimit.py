"""The one token bucket: how fast a client may send, for every server that limits it.

The hub limits WebSocket messages per connection (``rate_per_s``, ``rate_burst``); the REST
server limits POSTs per client address (``--rate-limit`` per minute, the minute's worth as the
burst). Both ask the same question — may this one go now, and if not, how long until it may —
so both use :class:`TokenBucket`. Time comes from the caller's clock, so a test (or the REST
server's virtual clock) drives it.
"""

from __future__ import annotations

import time
from collections.abc import Callable

__all__ = ["TokenBucket"]


class TokenBucket:
    """``burst`` tokens at once, refilled at ``rate`` per second (never beyond ``burst``);
    ``clock`` gives seconds."""

    __slots__ = ("_clock", "_last", "_tokens", "burst", "rate")

    def __init__(self, rate: float, burst: float,
                 clock: Callable[[], float] = time.monotonic) -> None:
        if rate <= 0 or burst < 1:
            raise ValueError(f"a token bucket needs rate > 0 and burst >= 1, got {rate}, {burst}")
        self.rate, self.burst, self._clock = rate, float(burst), clock
        self._tokens = float(burst)
        self._last = clock()

    def take(self) -> float:
        """Take a token: 0.0 when there was one, else the seconds until there will be (and
        nothing is taken)."""
        now = self._clock()
        self._tokens = min(self.burst, self._tokens + (now - self._last) * self.rate)
        self._last = now
        if self._tokens >= 1.0:
            self._tokens -= 1.0
            return 0.0
        return (1.0 - self._tokens) / self.rate

    def allow(self) -> bool:
        """Whether a token was taken (see :meth:`take`)."""
        return self.take() == 0.0
