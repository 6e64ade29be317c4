"""The one token bucket, as the hub (messages per second) and the REST server (POSTs per
minute) use it."""

from __future__ import annotations

import pytest

from scenarist.ratelimit import TokenBucket


def test_a_burst_then_the_sustained_rate() -> None:
    now = [0.0]
    bucket = TokenBucket(rate=2.0, burst=3, clock=lambda: now[0])
    assert [bucket.allow() for _ in range(4)] == [True, True, True, False]
    now[0] += 0.5  # one token back
    assert [bucket.allow(), bucket.allow()] == [True, False]
    now[0] += 100.0  # refills to the burst, not beyond
    assert sum(bucket.allow() for _ in range(10)) == 3


def test_a_refusal_says_how_long_until_the_next_token_and_takes_nothing() -> None:
    now = [0.0]
    bucket = TokenBucket(rate=10 / 60, burst=10, clock=lambda: now[0])  # 10 per minute
    assert [bucket.take() for _ in range(10)] == [0.0] * 10
    assert bucket.take() == pytest.approx(6.0)
    now[0] += 4.5
    assert bucket.take() == pytest.approx(1.5)  # the refusal above took no token
    now[0] += 1.5
    assert bucket.take() == 0.0


def test_a_bucket_that_could_never_give_a_token_is_refused() -> None:
    with pytest.raises(ValueError, match="rate > 0"):
        TokenBucket(rate=0, burst=1)
