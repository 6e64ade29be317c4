"""The large-set search behind :class:`scenarist.scenario.nearest.NearestStrings`.

Two lower bounds on the Levenshtein distance of ``a`` and ``b`` do the pruning:

* the **bag bound** ``max(|a|, |b|) - Σ min(hist a, hist b)`` from character histograms
  (63 buckets for the set's most frequent characters, one shared by all others; sharing a
  bucket only lowers it). numpy computes it for every string at once, ~30 ns a string;
* the **LCS bound** ``max(|a|, |b|) - LCS(a, b)``: an alignment's matched pairs form a
  common subsequence, and every other position of the longer string costs an edit.
  rapidfuzz computes the LCS bit-parallel at about a third of the cost of the distance,
  and unlike letter counts it sees letter *order*: words added to a known prompt, or a
  prompt in other words, which the bag bound cannot tell apart from a close one.

A query is answered in three steps:

1. **Seed.** Exact distances of a few promising strings give ``U``, an upper bound on the
   k-th smallest distance: the smallest bag bounds, and the strings that sort next to the
   query forwards and backwards (the same request with words appended or prepended shares
   its beginning or its end). When ``U`` still leaves many strings, the strings nearest to
   the best one found are tried too (near-duplicates of the best are near the query).
2. **Bound.** Strings whose bag bound is ``<= U`` are candidates; when there are many, their
   LCS bound is computed and only those still ``<= U`` stay.
3. **Verify.** The candidates get exact distances, most promising first, in rounds of
   growing size with ``score_cutoff=U`` (rapidfuzz then works in a band of the DP matrix);
   ``U`` tightens after each round. Large batches are split over a few threads (rapidfuzz
   releases the GIL).

A string never verified has a bound ``> U >=`` the k-th distance, so the answer is exact.
"""

from __future__ import annotations

import os
from bisect import bisect_left
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np
import numpy.typing as npt
from rapidfuzz import process
from rapidfuzz.distance import LCSseq, Levenshtein

__all__ = ["WORKERS", "BagIndex"]

IntArray = npt.NDArray[np.int32]

_BUCKETS = 64  # histogram buckets: 63 frequent characters + one for everything else
_SEED_BOUNDS = 32  # strings with the smallest bounds seeded with exact distances
_SEED_SORTED = 4  # neighbours on each side in forward and in reversed sort order
_REFINE_FROM = 512  # seed near the best string found when more candidates than this remain
_LCS_FROM = 256  # compute LCS bounds when more candidates than this pass the bag bound
_FIRST_ROUND = 256  # candidates verified before the limit tightens; 4x more each round
_PARALLEL_FROM = 512  # score (LCS or distance) in threads from this many strings on
#: Threads that verify candidates (rapidfuzz releases the GIL). A module setting: change it
#: before the first large query (the pool is made then), as bench_scenario_select --workers does.
WORKERS = max(1, min(4, os.cpu_count() or 1))

_pool: tuple[int, ThreadPoolExecutor] | None = None


def _executor() -> ThreadPoolExecutor:
    """The shared verification threads (new ones in a forked child: threads don't fork)."""
    global _pool
    if _pool is None or _pool[0] != os.getpid():
        _pool = (os.getpid(), ThreadPoolExecutor(WORKERS, thread_name_prefix="scenarist-nearest"))
    return _pool[1]


def _codes(text: str) -> npt.NDArray[np.uint32]:
    """Code points, astral ones clipped to U+FFFF (they share the "other" bucket)."""
    raw = np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    return np.minimum(raw, 0xFFFF)


def _levenshtein(query: str, choices: Any, cutoff: int | None) -> IntArray:
    row: IntArray = process.cdist([query], choices, scorer=Levenshtein.distance,
                                  dtype=np.int32, score_cutoff=cutoff)[0]
    return row


def _lcs(query: str, choices: Any, _cutoff: int | None) -> IntArray:
    row: IntArray = process.cdist([query], choices, scorer=LCSseq.similarity, dtype=np.int32)[0]
    return row


class BagIndex:
    """Character histograms of many strings, for exact k-nearest queries."""

    def __init__(self, strings: tuple[str, ...]) -> None:
        self.strings = strings
        self.array: npt.NDArray[Any] = np.array(strings, dtype=object)
        self.lengths: IntArray = np.fromiter(map(len, strings), dtype=np.int32,
                                             count=len(strings))
        codes = _codes("".join(strings))
        frequent = np.argsort(np.bincount(codes, minlength=0x10000), kind="stable")
        self.table = np.full(0x10000, _BUCKETS - 1, dtype=np.intp)
        self.table[frequent[::-1][:_BUCKETS - 1]] = np.arange(_BUCKETS - 1)
        rows = np.repeat(np.arange(len(strings), dtype=np.intp), self.lengths)
        counts = np.bincount(rows * _BUCKETS + self.table[codes],
                             minlength=len(strings) * _BUCKETS).reshape(-1, _BUCKETS)
        peak = int(counts.max(initial=0))
        dtype = np.uint8 if peak <= 0xFF else np.uint16 if peak <= 0xFFFF else np.uint32
        self.hist = counts.astype(dtype)
        self.cap = int(np.iinfo(dtype).max)
        forward = sorted(range(len(strings)), key=strings.__getitem__)
        backward = sorted(range(len(strings)), key=lambda j: strings[j][::-1])
        self.sorted = (([strings[j] for j in forward], forward),
                       ([strings[j][::-1] for j in backward], backward))

    def bounds(self, query: str) -> IntArray:
        """The bag-distance lower bound of ``query`` against every string."""
        mine = np.bincount(self.table[_codes(query)], minlength=_BUCKETS)
        # every stored count is <= cap, so capping the query's counts changes no minimum
        mine = np.minimum(mine, self.cap).astype(self.hist.dtype)
        common = np.minimum(self.hist, mine).sum(axis=1, dtype=np.int32)
        bound: IntArray = np.maximum(self.lengths, len(query)).astype(np.int32) - common
        return bound

    def nearest(self, query: str, k: int) -> list[tuple[int, int]]:
        """The ``k`` nearest as ``(distance, position)``; needs ``k <= len(strings)``."""
        bound = self.bounds(query)
        want = max(_SEED_BOUNDS, k)
        seen = np.union1d(_smallest(bound, want), self._sorted_near(query))
        seen_d = self._run(_levenshtein, query, seen, None)
        limit = _kth(seen_d, k)  # U: the k-th best seen so far
        if int(np.count_nonzero(bound <= limit)) > _REFINE_FROM + len(seen):
            best = self.strings[int(seen[int(np.argmin(seen_d))])]
            more = np.setdiff1d(_smallest(self.bounds(best), want), seen)
            seen = np.concatenate([seen, more])
            seen_d = np.concatenate([seen_d, self._run(_levenshtein, query, more, limit)])
            limit = _kth(seen_d, k)
        unseen = bound <= limit
        unseen[seen] = False
        rest = np.flatnonzero(unseen)
        rest_bound = bound[rest]
        if len(rest) > _LCS_FROM:
            longer = np.maximum(self.lengths[rest], len(query))
            rest_bound = np.maximum(rest_bound, longer - self._run(_lcs, query, rest, None))
            keep = rest_bound <= limit
            rest, rest_bound = rest[keep], rest_bound[keep]
        order = np.argsort(rest_bound, kind="stable")  # most promising first
        rest, rest_bound = rest[order], rest_bound[order]
        wheres, dists = [seen], [seen_d]
        top = np.sort(seen_d)[:k]
        start, size = 0, _FIRST_ROUND
        while start < len(rest) and int(rest_bound[start]) <= limit:
            batch = rest[start:start + size][rest_bound[start:start + size] <= limit]
            batch_d = self._run(_levenshtein, query, batch, limit)
            wheres.append(batch)
            dists.append(batch_d)
            top = np.sort(np.concatenate([top, batch_d]))[:k]
            limit = int(top[-1])
            start, size = start + size, size * 4
        where, dist = np.concatenate(wheres), np.concatenate(dists)
        keep = dist <= limit
        where, dist = where[keep], dist[keep]
        return [(int(dist[i]), int(where[i])) for i in np.lexsort((where, dist))[:k]]

    def _sorted_near(self, query: str) -> npt.NDArray[np.intp]:
        """Strings next to the query in forward and in reversed sort order."""
        picks: list[int] = []
        for (keys, order), probe in zip(self.sorted, (query, query[::-1]), strict=True):
            at = bisect_left(keys, probe)
            picks += order[max(0, at - _SEED_SORTED):at + _SEED_SORTED]
        return np.array(picks, dtype=np.intp)

    def _run(self, scorer: Callable[[str, Any, int | None], IntArray], query: str,
             which: npt.NDArray[Any], cutoff: int | None) -> IntArray:
        """``scorer`` of ``query`` against the strings at positions ``which``, split over
        threads when there are many."""
        choices = self.array[which]
        if len(choices) < _PARALLEL_FROM or WORKERS == 1:
            return scorer(query, choices, cutoff)
        parts = np.array_split(choices, WORKERS)
        joined: IntArray = np.concatenate(
            list(_executor().map(lambda part: scorer(query, part, cutoff), parts)))
        return joined


def _kth(values: IntArray, k: int) -> int:
    return int(np.partition(values, k - 1)[k - 1])


def _smallest(values: IntArray, want: int) -> npt.NDArray[np.intp]:
    """Positions of (at least, about) the ``want`` smallest ``values``."""
    cut = int(np.searchsorted(np.cumsum(np.bincount(values)), want))
    found = np.flatnonzero(values <= cut)
    if len(found) > 4 * want:  # many equal values: any few of them will do
        found = found[np.argpartition(values[found], want)[:want]]
    return found
