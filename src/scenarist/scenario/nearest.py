"""Exact k-nearest strings by Levenshtein distance, fast for many thousand candidates.

:class:`NearestStrings` answers "which ``k`` of these strings are nearest to ``query``, and
at what distance" exactly, ties going to the smaller position. Selection
(:mod:`scenarist.scenario.select`) uses it over scenario prompts.

A query equal to one of the strings, when no runner-up is asked for (``k == 1``, or there
is only that string), is answered by a dictionary lookup: distance 0, the first position holding
it. That is the usual first request to a server playing one scenario, and it needs no edit
distance, so rapidfuzz (~15 ms to import) is imported only where a distance is computed.
A small set (fewer than :data:`LARGE` strings) is otherwise simply scanned with rapidfuzz: that
costs about a microsecond per string. A large set is searched with lower bounds
(:mod:`scenarist.scenario.bag_index`), built on the first query so that constructing an
index stays cheap and numpy is imported only by programs that need it. numpy is the optional
extra ``scenarist[fast-select]``: without it every set is scanned, which gives the same answers
(bench/bench_scenario_select.py: among 1,000 scenarios the scan is what runs anyway; among
10,000 a query costs ~10 ms instead of ~1-3 ms).
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from scenarist.scenario.bag_index import BagIndex

__all__ = ["LARGE", "NearestStrings"]

LARGE = 2048  # from this many strings on, search with bounds (a scan costs ~2 ms by then)


class NearestStrings:
    """Strings prepared for repeated exact nearest-neighbour queries."""

    def __init__(self, strings: Sequence[str]) -> None:
        self.strings: tuple[str, ...] = tuple(strings)
        self._exact: dict[str, int] = {}
        for position, string in enumerate(self.strings):
            self._exact.setdefault(string, position)
        self._bags: BagIndex | None = None
        self._bounded = len(self.strings) >= LARGE  # False once numpy turns out to be absent

    def __len__(self) -> int:
        return len(self.strings)

    def prepare(self) -> None:
        """Build the search structures now rather than on the first query (a server calls
        this at start-up so that its first request does not pay ~0.1 s for 10,000 strings)."""
        if self._bounded and self._bags is None:
            try:
                from scenarist.scenario.bag_index import BagIndex
            except ImportError:  # no numpy (the fast-select extra): scan instead
                self._bounded = False
                return
            self._bags = BagIndex(self.strings)

    def nearest(self, query: str, k: int) -> list[tuple[int, int]]:
        """The ``k`` nearest strings to ``query`` as ``(distance, position)``, sorted by
        distance, then position."""
        if k <= 0 or not self.strings:
            return []
        exact = self._exact.get(query)
        if exact is not None and (k == 1 or len(self.strings) == 1):
            return [(0, exact)]  # nothing can be nearer, and ties go to the first position
        if self._bounded and k * 8 < len(self.strings):
            self.prepare()
        if self._bags is None or k * 8 >= len(self.strings):
            return scan(query, self.strings, k)
        return self._bags.nearest(query, k)


def scan(query: str, strings: Sequence[str], k: int) -> list[tuple[int, int]]:
    """The ``k`` nearest by one plain pass over ``strings`` (the reference answer)."""
    from rapidfuzz import process  # here, not at import: see the module doc
    from rapidfuzz.distance import Levenshtein

    found = process.extract(query, strings, scorer=Levenshtein.distance, limit=None)
    return heapq.nsmallest(k, ((int(d), j) for _, d, j in found))
