"""Which scenario a request plays: by exact name, else by the nearest initial prompt.

A front end (the mock model server, a runner) builds one :class:`ScenarioIndex` when it
starts and queries it per request. The nearest prompt is the smallest Levenshtein
distance between the (stripped) request prompt and each scenario's effective initial
prompt; ties go to the smaller name, then the smaller source path, so the same files
always select the same scenario whatever order they were loaded in.

Search is exact. Prompts are kept sorted by length, and a distance ``d`` is only possible
for prompts whose length is within ``d`` of the query's. The index asks rapidfuzz for every
prompt within a small cutoff in that length window and widens the cutoff (15, 31, 63, ...)
until enough candidates are found. The cutoff is capped by the distances of a small sample
of similar-length prompts (an upper bound on the answer), and once a round would cover most
prompts anyway, one plain pass over all of them ends the search. So a query close to some
scenarios (with close runners-up) is fast; one far from all costs about a full pass.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Iterable
from dataclasses import dataclass
from os import PathLike
from typing import Generic, Literal, Protocol, TypeVar

from rapidfuzz import process
from rapidfuzz.distance import Levenshtein

__all__ = ["ScenarioIndex", "Selectable", "Selection", "SelectionError", "select_scenario"]

RUNNERS_UP = 3  # how many nearest others a Selection reports
_FIRST_CUTOFF = 15  # the first round's cutoff; rounds go 15, 31, 63, ... (see _within)
_SAMPLE = 32  # similar-length prompts whose distances bound the search
_KNOWN_SHOWN = 10  # names listed in an "unknown name" error


class Selectable(Protocol):
    """What selection reads from a scenario (``scenarist.scenario.Scenario`` has it all)."""

    @property
    def name(self) -> str: ...

    @property
    def effective_initial_prompt(self) -> str | None: ...

    @property
    def source_path(self) -> str | PathLike[str] | None: ...


S = TypeVar("S", bound=Selectable)


@dataclass(frozen=True, slots=True)
class Selection(Generic[S]):
    """The chosen scenario and why: ``by`` name, ``by`` prompt at ``distance``, or as the
    ``only`` scenario there is (no name or prompt given).

    ``runners_up`` are the next nearest scenarios as ``(name, distance)``, nearest first
    (empty when chosen by name), so a caller can tell a clear match from a close call.
    """

    scenario: S
    distance: int | None
    runners_up: tuple[tuple[str, int], ...]
    by: Literal["name", "prompt", "only"]

    @property
    def name(self) -> str:
        return self.scenario.name


class SelectionError(LookupError):
    """No scenario can be selected; the message says why and what would work."""

    def __init__(self, message: str, *, known: Iterable[str] = ()) -> None:
        super().__init__(message)
        self.known = tuple(known)


def _source(scenario: Selectable) -> str:
    path = scenario.source_path
    return "" if path is None else str(path)


def _prompt_of(scenario: Selectable) -> str | None:
    prompt = scenario.effective_initial_prompt
    return None if prompt is None or not prompt.strip() else prompt.strip()


class ScenarioIndex(Generic[S]):
    """Scenarios prepared for many selections: build once, then :meth:`select` per request."""

    def __init__(self, scenarios: Iterable[S]) -> None:
        ordered = sorted(scenarios, key=lambda s: (s.name, _source(s)))
        self.scenarios: tuple[S, ...] = tuple(ordered)
        self._by_name: dict[str, int] = {}
        for i, scenario in enumerate(self.scenarios):
            self._by_name.setdefault(scenario.name, i)
        prompted = sorted(((len(p), i, p) for i, s in enumerate(self.scenarios)
                           if (p := _prompt_of(s)) is not None))
        self._lengths = [n for n, _, _ in prompted]
        self._owners = [i for _, i, _ in prompted]
        self._prompts = [p for _, _, p in prompted]
        self._prompted = sorted(self._owners)  # owners of prompts, in owner order
        self._prompts_by_owner = [_prompt_of(self.scenarios[i]) or "" for i in self._prompted]

    def __len__(self) -> int:
        return len(self.scenarios)

    @property
    def names(self) -> list[str]:
        """Every distinct scenario name, sorted."""
        return list(self._by_name)

    def by_name(self, name: str) -> S | None:
        """The scenario called ``name`` (the first by source path if several are), or None."""
        i = self._by_name.get(name)
        return None if i is None else self.scenarios[i]

    def nearest(self, prompt: str, k: int = 1 + RUNNERS_UP) -> list[tuple[int, S]]:
        """The ``k`` scenarios whose initial prompts are nearest to ``prompt``, as
        ``(distance, scenario)`` sorted by distance, then name, then source path."""
        query = prompt.strip()
        if k <= 0 or not self._prompts:
            return []
        hits = self._within(query, self._sample_bound(query, k), k)
        return [(d, self.scenarios[i]) for d, i in sorted(hits)[:k]]

    def _sample_bound(self, query: str, k: int) -> int:
        """An upper bound on the k-th smallest distance: the k-th among similar lengths."""
        mid = bisect_left(self._lengths, len(query))
        lo = max(0, mid - _SAMPLE // 2)
        sample = self._prompts[lo:lo + _SAMPLE]
        found = process.extract(query, sample, scorer=Levenshtein.distance, limit=k)
        bound = int(found[-1][1])
        if len(found) < k:  # fewer prompts than k in the sample: every prompt must be seen
            bound = max(bound, len(query), self._lengths[-1])
        return bound

    def _within(self, query: str, bound: int, k: int) -> list[tuple[int, int]]:
        """Every ``(distance, owner)`` with distance <= cutoff, for the smallest cutoff in
        the doubling series that yields ``k`` hits (at most ``bound``)."""
        n = len(query)
        cutoff = min(_FIRST_CUTOFF, bound)
        while True:
            lo = bisect_left(self._lengths, n - cutoff)
            hi = bisect_right(self._lengths, n + cutoff)
            found = process.extract(query, self._prompts[lo:hi], scorer=Levenshtein.distance,
                                    limit=None, score_cutoff=cutoff)
            if len(found) >= k or cutoff >= bound:
                return [(int(d), self._owners[lo + j]) for _, d, j in found]
            # 2c+1: a cutoff below 32 keeps rapidfuzz on its one-machine-word band (~3x faster)
            cutoff = min(cutoff * 2 + 1, bound)
            wider = bisect_right(self._lengths, n + cutoff) - bisect_left(self._lengths, n - cutoff)
            if 2 * wider > len(self._lengths):  # nearly a full scan anyway: do a plain one
                return self._full_scan(query, k)

    def _full_scan(self, query: str, k: int) -> list[tuple[int, int]]:
        """The k nearest by one pass over every prompt in owner order (rapidfuzz documents
        that equal distances come out in index order, which is our tie order)."""
        found = process.extract(query, self._prompts_by_owner, scorer=Levenshtein.distance,
                                limit=k)
        return [(int(d), self._prompted[j]) for _, d, j in found]

    def select(self, *, name: str | None = None, prompt: str | None = None,
               runners_up: int = RUNNERS_UP) -> Selection[S]:
        """Pick by exact ``name`` if given (an unknown name is an error, not a fallback),
        else by the nearest initial prompt to ``prompt``, reporting up to ``runners_up``
        nearest others (fewer is faster: far runners-up cost a wide search).

        With neither, a lone scenario is selected; otherwise it is an error.
        """
        if not self.scenarios:
            raise SelectionError("no scenarios to select from: pass at least one scenario "
                                 "file or directory (--scenario PATH)")
        if name is not None:
            return self._select_name(name)
        if prompt is None:
            if len(self.scenarios) == 1:
                return Selection(self.scenarios[0], None, (), "only")
            raise SelectionError(
                f"{len(self.scenarios)} scenarios and neither a name nor a prompt to choose "
                f"by: give a prompt, or one of the names: {self._names_hint(None)}",
                known=self.names)
        nearest = self.nearest(prompt, k=1 + max(0, runners_up))
        if not nearest:
            raise SelectionError(
                "no scenario has an initial prompt (a userInputs event) to match the prompt "
                f"against; select one by name: {self._names_hint(None)}", known=self.names)
        (distance, chosen), others = nearest[0], nearest[1:]
        return Selection(chosen, distance, tuple((s.name, d) for d, s in others), "prompt")

    def _select_name(self, name: str) -> Selection[S]:
        chosen = self.by_name(name)
        if chosen is None:
            raise SelectionError(f"no scenario is named {name!r}; known names, nearest first: "
                                 f"{self._names_hint(name)}", known=self.names)
        return Selection(chosen, None, (), "name")

    def _names_hint(self, near: str | None) -> str:
        names = self.names
        if near is not None:
            names.sort(key=lambda n: (Levenshtein.distance(near, n), n))
        shown = ", ".join(names[:_KNOWN_SHOWN])
        more = len(names) - _KNOWN_SHOWN
        return shown + (f" (and {more} more)" if more > 0 else "")


def select_scenario(scenarios: Iterable[S], *, name: str | None = None,
                    prompt: str | None = None, runners_up: int = RUNNERS_UP) -> Selection[S]:
    """One-off selection; build a :class:`ScenarioIndex` instead to select many times."""
    return ScenarioIndex(scenarios).select(name=name, prompt=prompt, runners_up=runners_up)
