"""Which scenario answers a request: ``x-scenario-name``, else ``x-scenario-prompt``, else the
conversation's first prompt as the user typed it, by Levenshtein distance to each effective
initial prompt (:class:`scenarist.scenario.select.ScenarioIndex` does the search).

A model server must not answer a request meant for something else, so a nearest scenario
only *matches* when a person would call it the same request: equal after whitespace/case
normalisation, the request containing the scenario's whole prompt (the user added a
sentence), or a normalised similarity of at least :data:`MIN_SIMILARITY`. A request that is
only a fragment of the scenario's prompt ("a", "run it") does not match: it is held to the
similarity rule. Otherwise the request fails loudly, naming the nearest scenarios and their
distances.
"""

# Annotations are not postponed here: see "Records" in docs/architecture.md.
import threading
from collections import OrderedDict
from collections.abc import Sequence
from typing import Literal, NamedTuple

from scenarist.errors import WireError
from scenarist.llm.divergence import Divergence
from scenarist.llm.journal import clip
from scenarist.llm.script import Script
from scenarist.scenario.select import ScenarioIndex, SelectionError

MIN_SIMILARITY = 0.5
#: how many choices a :class:`Selector` remembers, the most recently used: a server that lives
#: long and sees ever new prompts (ids, timestamps, generated tests) stays bounded in memory,
#: and a prompt asked again (each turn of a conversation asks its first prompt again) is
#: answered from the cache
CHOICE_CACHE_SIZE = 4096


class Choice(NamedTuple):
    """The scenario that answers a request and how it was chosen (``distance`` and
    ``runners_up`` as :class:`scenarist.scenario.select.Selection` reports them, for the
    journal)."""

    script: Script
    by: Literal["name", "header-prompt", "prompt", "only"]
    distance: int | None = None
    runners_up: tuple[tuple[str, int], ...] = ()


class RequestSelectionError(WireError, LookupError):
    """No scenario answers this request; ``status`` is the HTTP status to answer with, and
    ``divergence`` how the prompt differs from the nearest scenario's (when there is one)."""

    def __init__(self, message: str, status: int = 404,
                 divergence: Divergence | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        self.divergence = divergence


def _norm(text: str) -> str:
    return " ".join(text.split()).lower()


def match_score(prompt: str, candidate: str | None) -> float:
    """How well the scripted ``candidate`` matches the typed ``prompt``: 1.0 when the prompt
    contains it, else their normalised similarity; 0.0 below :data:`MIN_SIMILARITY` (no
    match, see the module doc)."""
    a, b = _norm(prompt), _norm(candidate or "")
    if not b:
        return 0.0
    if b in a:
        return 1.0
    if "<" in b or "[redacted]" in b:  # a recorded prompt: <UUID>, <TMP>, a hook's <BUILD>
        from scenarist.record.normalise import stands_for  # loaded only for such prompts

        if stands_for((candidate or "").strip(), prompt):  # as written: a hook's is capitals
            return 1.0
    from rapidfuzz.distance import Levenshtein  # only here: an exact prompt needs no distance

    score = float(Levenshtein.normalized_similarity(a, b))
    return score if score >= MIN_SIMILARITY else 0.0


def is_match(prompt: str, candidate: str | None) -> bool:
    """Whether the scripted ``candidate`` is close enough to the typed ``prompt`` to be the
    same request (see the module doc)."""
    return match_score(prompt, candidate) > 0.0


class CacheInfo(NamedTuple):
    """What a :class:`Selector`'s cache did, as :func:`functools.lru_cache` reports it."""

    hits: int
    misses: int
    maxsize: int
    currsize: int


class Selector:
    """Built once per server; :meth:`choose` per request (its answers kept in an LRU cache of
    ``cache_size`` entries, :data:`CHOICE_CACHE_SIZE` by default; a request that selects
    nothing is not kept, it raises)."""

    def __init__(self, scripts: Sequence[Script], cache_size: int = CHOICE_CACHE_SIZE) -> None:
        self.index: ScenarioIndex[Script] = ScenarioIndex(scripts)
        self.cache_size = max(cache_size, 0)  # 0 (or less): nothing is kept
        self._cache: OrderedDict[tuple[str | None, str | None, str | None], Choice] = OrderedDict()
        self._lock = threading.Lock()  # a threaded server inserts and evicts concurrently
        self._hits = self._misses = 0

    def choose(
        self,
        *,
        name: str | None = None,
        prompt: str | None = None,
        conversation_prompt: str | None = None,
    ) -> Choice:
        key = (name, prompt, conversation_prompt)
        cache = self._cache
        hit = cache.get(key)
        if hit is not None:  # the hot path takes no lock: each step is atomic under the GIL
            try:  # noqa: SIM105 - contextlib.suppress costs ~0.3 µs a request here
                cache.move_to_end(key)
            except KeyError:  # evicted by another thread meanwhile
                pass
            self._hits += 1
            return hit
        chosen = self._choose(name, prompt, conversation_prompt)
        with self._lock:
            self._misses += 1
            cache[key] = chosen
            while len(cache) > self.cache_size:
                cache.popitem(last=False)  # the least recently used
        return chosen

    def cache_info(self) -> CacheInfo:
        """Hits, misses, the bound and the current size of the cache of choices."""
        with self._lock:
            return CacheInfo(self._hits, self._misses, self.cache_size, len(self._cache))

    def named(self, name: str | None) -> Script:
        """The scenario called ``name`` (``POST /_scenarist/check``), or the only one loaded
        when no name is given; several loaded and none named is a 400, an unknown name a 404."""
        names = self.index.names
        if name is None:
            if len(self.index) == 1:
                return self.index.scenarios[0]
            raise RequestSelectionError(
                f"scenarist: say which scenario to check (scenario=NAME); loaded: {names}",
                status=400,
            )
        chosen = self.index.by_name(name)
        if chosen is None:
            raise RequestSelectionError(
                f"scenarist: no scenario named {clip(name, 200)!r}; loaded: {names}")
        return chosen

    def _choose(self, name: str | None, prompt: str | None, conv_prompt: str | None) -> Choice:
        if name:
            try:
                return Choice(self.index.select(name=name).scenario, "name")
            except SelectionError as exc:
                raise RequestSelectionError(f"scenarist: x-scenario-name: {exc}") from None
        by: Literal["header-prompt", "prompt"] = "header-prompt" if prompt else "prompt"
        text = prompt or conv_prompt
        if text is None:
            try:
                chosen = self.index.select()
            except SelectionError as exc:
                raise RequestSelectionError(
                    f"scenarist: the request has no user prompt to match a scenario with; "
                    f"send x-scenario-name or x-scenario-prompt ({exc})",
                    status=400,
                ) from None
            return Choice(chosen.scenario, "only")
        if len(self.index) == 1 and not self.index.scenarios[0].prompt:
            return Choice(self.index.scenarios[0], "only")  # nothing to match against
        nearest = self.index.nearest(text)
        if nearest and is_match(text, nearest[0][1].prompt):
            distance, best = nearest[0]
            others = tuple((s.name, d) for d, s in nearest[1:])
            return Choice(best, by, distance, others)
        shown = "; ".join(f"{s.name!r} at distance {d} (prompt {s.prompt!r})" for d, s in nearest)
        message = (f"scenarist: no scenario matches the prompt {text!r}; nearest: "
                   f"{shown or 'none (no scenario has an initial prompt)'}; send "
                   "x-scenario-name to pick one explicitly")
        divergence = None
        if nearest:
            best = nearest[0][1]
            where = best.where(best.segments[0].line if best.segments else 0)
            divergence = Divergence(
                best.name, "the first user prompt (selection)", where,
                "x-scenario-prompt" if by == "header-prompt" else "prompt",
                best.prompt or "", text,
                tuple((s.name, d, s.prompt or "") for d, s in nearest))
            message += f"; {divergence.describe(nearest=False)}"
        raise RequestSelectionError(message, divergence=divergence)
