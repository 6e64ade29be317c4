"""Which scenario a request plays: by exact name, else by the nearest initial prompt.

A front end (the mock model server, a runner) builds one :class:`ScenarioIndex` when it
starts and queries it per request. The nearest prompt is the smallest Levenshtein
distance between the (stripped) request prompt and each scenario's effective initial
prompt; ties go to the smaller name, then the smaller source path, so the same files
always select the same scenario whatever order they were loaded in.

Search is exact and lives in :mod:`scenarist.scenario.nearest`: a plain rapidfuzz pass
over a few thousand prompts, a search pruned by character-count lower bounds beyond that
(10,000 prompts: well under a millisecond for a prompt close to some scenario's).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from os import PathLike
from typing import Generic, Literal, Protocol, TypeVar

from scenarist.errors import ScenaristError
from scenarist.scenario.nearest import NearestStrings

__all__ = ["ScenarioIndex", "Selectable", "Selection", "SelectionError", "select_scenario"]

RUNNERS_UP = 3  # how many nearest others a Selection reports
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


class SelectionError(ScenaristError, LookupError):
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
        # prompts in scenario order, so the search's tie order (position) is ours
        prompted = [(i, p) for i, s in enumerate(self.scenarios)
                    if (p := _prompt_of(s)) is not None]
        self._owners = [i for i, _ in prompted]
        self._search = NearestStrings([p for _, p in prompted])

    def __len__(self) -> int:
        return len(self.scenarios)

    def prepare(self) -> ScenarioIndex[S]:
        """Build the prompt search now instead of on the first prompt query (from 2,048
        prompts on that takes numpy's import plus ~40 ms per 10,000); returns the index."""
        self._search.prepare()
        return self

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
        found = self._search.nearest(prompt.strip(), k)
        return [(d, self.scenarios[self._owners[j]]) for d, j in found]

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
            from rapidfuzz.distance import Levenshtein  # only errors rank names (nearest.py)

            names.sort(key=lambda n: (Levenshtein.distance(near, n), n))
        shown = ", ".join(names[:_KNOWN_SHOWN])
        more = len(names) - _KNOWN_SHOWN
        return shown + (f" (and {more} more)" if more > 0 else "")


def select_scenario(scenarios: Iterable[S], *, name: str | None = None,
                    prompt: str | None = None, runners_up: int = RUNNERS_UP) -> Selection[S]:
    """One-off selection; build a :class:`ScenarioIndex` instead to select many times."""
    return ScenarioIndex(scenarios).select(name=name, prompt=prompt, runners_up=runners_up)
