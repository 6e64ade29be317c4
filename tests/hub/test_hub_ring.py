"""The per-agent output ring: keeps exactly the newest bytes, cut on character boundaries."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from scenarist.hub.ring import OutputRing, utf8_len


def joined(ring: OutputRing) -> str:
    return "".join(text for _, text in ring.snapshot())


def test_keeps_the_newest_bytes_and_counts_what_it_dropped() -> None:
    ring = OutputRing(10)
    ring.append("stdout", "abcdef")
    ring.append("stdout", "ghijkl")
    assert joined(ring) == "cdefghijkl"
    assert (ring.size, ring.dropped) == (10, 2)


def test_snapshot_joins_same_stream_chunks_and_keeps_stream_order() -> None:
    ring = OutputRing(100)
    for stream, text in [("stdout", "a"), ("stdout", "b"), ("stderr", "c"), ("stdout", "d")]:
        ring.append(stream, text)  # type: ignore[arg-type]
    assert ring.snapshot() == [("stdout", "ab"), ("stderr", "c"), ("stdout", "d")]
    assert ring.snapshot(frame_bytes=1) == [("stdout", "a"), ("stdout", "b"), ("stderr", "c"),
                                            ("stdout", "d")]


def test_cut_never_splits_a_character() -> None:
    ring = OutputRing(5)
    ring.append("stdout", "\u20ac\u20acb")  # 3 + 3 + 1 bytes: keeping 5 would start mid-euro
    assert joined(ring) == "\u20acb"
    assert (ring.size, ring.dropped) == (4, 3)


@given(st.lists(st.tuples(st.sampled_from(["stdout", "stderr"]), st.text(max_size=40)),
                max_size=30),
       st.integers(min_value=0, max_value=120))
def test_ring_holds_a_suffix_of_everything_within_capacity(
        chunks: list[tuple[str, str]], capacity: int) -> None:
    ring = OutputRing(capacity)
    for stream, text in chunks:
        ring.append(stream, text)  # type: ignore[arg-type]
    everything = "".join(text for _, text in chunks)
    kept = joined(ring)
    assert everything.endswith(kept)
    assert ring.size == utf8_len(kept) <= capacity
    # Only a partial character (at most 3 bytes) may be lost beyond the capacity.
    assert utf8_len(everything) - ring.dropped == ring.size
    assert ring.size >= min(capacity, utf8_len(everything)) - 3
    # Appends never cut (no copying on the hot path): at most one chunk is held beyond capacity.
    largest = max((utf8_len(text) for _, text in chunks), default=0)
    assert ring.held <= capacity + largest


def test_a_flood_of_large_chunks_is_held_whole_and_cut_only_for_a_replay() -> None:
    ring = OutputRing(1000)
    chunks = [chr(ord("a") + i) * 300 for i in range(10)]
    for text in chunks:
        ring.append("stdout", text)
    assert ring.held == 1200  # four whole chunks: the oldest sticks out by 200 bytes
    assert (ring.size, ring.dropped) == (1000, 2000)
    assert joined(ring) == "".join(chunks)[-1000:]
