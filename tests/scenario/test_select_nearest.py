"""The k-nearest search behind selection is exact: the bound-pruned search over large sets
returns what one plain pass over every string returns, distances, order and ties."""

from __future__ import annotations

import random
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import scenarist.scenario.bag_index as bag_index
from scenarist.scenario.bag_index import BagIndex
from scenarist.scenario.nearest import LARGE, NearestStrings, scan
from scenarist.scenario.select import ScenarioIndex

WORDS = ["Create", "Fix", "the", "failing", "test", "in", "tests/test_api.py", "hello.py",
         "README", "login", "page", "(ticket", "Also", "look", "at", "and", "run", "pytest"]
OTHER = ["quantum", "violin", "glacier", "orbit", "saffron", "ledger", "meadow"]


def prompt(rng: random.Random, i: int) -> str:
    body = " ".join(rng.choice(WORDS) for _ in range(rng.randint(2, 30)))
    return f"{body} {i})"


def variants(rng: random.Random, base: str) -> list[str]:
    """Query kinds a selector sees: exact, typos, extra text before/after, unrelated."""
    chars = list(base)
    for _ in range(rng.randint(1, 5)):
        chars[rng.randrange(len(chars))] = rng.choice("xyz ")
    return [base, "".join(chars), base + " Please keep the diff small and run the tests.",
            "Context: a Python 3.11 repository.\n" + base,
            " ".join(rng.choice(OTHER) for _ in range(rng.randint(1, 30)))]


@pytest.fixture(scope="module")
def large() -> tuple[list[str], NearestStrings]:
    rng = random.Random(11)
    strings = [prompt(rng, i) for i in range(LARGE + 500)]
    strings += strings[:40]  # exact duplicates: ties must go to the smaller position
    strings += ["déjà vu ü 😀 \udcff", "ü" * 300, "a" * 70_000, "", "日本語のプロンプト"]
    return strings, NearestStrings(strings)


def test_large_set_uses_the_bound_index_and_matches_a_full_scan(
        large: tuple[list[str], NearestStrings]) -> None:
    strings, search = large
    rng = random.Random(3)
    queries = ["", "x" * 400, "a" * 300, "ü" * 280, "déjà vu", "日本語", strings[7]]
    for base in rng.sample(strings[:LARGE], 12):
        queries += variants(rng, base)
    for query in queries:
        for k in (1, 4, 9):
            assert search.nearest(query, k) == scan(query, strings, k), (query[:80], k)
    assert search._bags is not None  # the pruned search answered, not the plain scan


def test_histogram_counts_wider_than_a_byte_keep_the_bound_valid(
        large: tuple[list[str], NearestStrings]) -> None:
    search = large[1]
    search.nearest("a", 1)
    assert search._bags is not None and search._bags.hist.dtype == np.uint32  # 70,000 "a"s
    rng = random.Random(5)
    narrow = [prompt(rng, i) for i in range(LARGE)] + ["b" * 300]
    index = BagIndex(tuple(narrow))
    assert index.hist.dtype == np.uint16
    for query in ("b" * 290, "b" * 10 + "Fix the test", narrow[3]):
        assert index.nearest(query, 3) == scan(query, narrow, 3)


def test_many_equal_distances_come_back_in_position_order() -> None:
    strings = [f"prompt number {i % 7}" for i in range(LARGE + 100)]
    search = NearestStrings(strings)
    assert search.nearest("prompt number 3", 5) == [(0, 3), (0, 10), (0, 17), (0, 24), (0, 31)]
    assert search.nearest("zzz", 6) == scan("zzz", strings, 6)


def test_prepare_builds_the_bound_index_before_any_query() -> None:
    rng = random.Random(4)
    strings = [prompt(rng, i) for i in range(LARGE)]
    search = NearestStrings(strings)
    assert search._bags is None
    search.prepare()
    bags = search._bags
    assert bags is not None and search.nearest(strings[9], 2)[0] == (0, 9)
    assert search._bags is bags  # built once
    small = NearestStrings(strings[:10])
    small.prepare()
    assert small._bags is None  # a scan needs nothing


def test_a_large_k_falls_back_to_the_scan() -> None:
    strings = [f"s{i}" for i in range(LARGE)]
    search = NearestStrings(strings)
    assert search.nearest("s77", LARGE // 8) == scan("s77", strings, LARGE // 8)
    assert search._bags is None
    assert search.nearest("s77", 0) == [] and NearestStrings([]).nearest("x", 3) == []


def test_selection_over_a_large_index_is_the_brute_force_choice() -> None:
    rng = random.Random(8)

    class Entry:
        def __init__(self, name: str, text: str) -> None:
            self.name, self.effective_initial_prompt, self.source_path = name, text, None

    entries = [Entry(f"s{i % 1000:04}", prompt(rng, i)) for i in range(LARGE + 200)]
    index = ScenarioIndex(entries)
    for base in rng.sample([e.effective_initial_prompt for e in entries], 5):
        for query in variants(rng, base):
            chosen = index.select(prompt=query)
            expected = sorted((d, e.name, j) for j, e in enumerate(entries)
                              for d in [scan(query.strip(), [e.effective_initial_prompt], 1)[0][0]])
            ranked = sorted((d, name) for d, name, _ in expected)
            assert (chosen.distance, chosen.name) == ranked[0]
            assert chosen.runners_up == tuple((n, d) for d, n in ranked[1:4])


@settings(max_examples=300, deadline=None)
@given(strings=st.lists(st.text(max_size=40), min_size=1, max_size=60),
       query=st.text(max_size=50), k=st.integers(1, 8),
       knobs=st.sets(st.sampled_from(["_PARALLEL_FROM", "_LCS_FROM", "_REFINE_FROM",
                                      "_FIRST_ROUND", "_SEED_BOUNDS", "_SEED_SORTED"])))
def test_bound_index_is_exact_for_any_strings(strings: list[str], query: str, k: int,
                                              knobs: set[str]) -> None:
    """Every path of the search (threads, LCS bounds, re-seeding, tiny rounds and seeds),
    forced on small sets by turning its threshold down, returns the full scan's answer."""
    k = min(k, len(strings))
    with pytest.MonkeyPatch.context() as patch:
        for knob in knobs:
            patch.setattr(bag_index, knob, 1 if knob in ("_FIRST_ROUND", "_SEED_BOUNDS") else 0)
        got = BagIndex(tuple(strings)).nearest(query, k)
    assert got == scan(query, strings, k)


def test_without_numpy_a_large_set_is_scanned_with_the_same_answers(
        large: tuple[list[str], NearestStrings], monkeypatch: pytest.MonkeyPatch) -> None:
    """The fast-select extra absent: importing numpy (and so the bound index) fails."""
    strings, bounded = large
    rng = random.Random(5)
    queries = [query for base in rng.sample(strings, 6) for query in variants(rng, base)]
    expected = [bounded.nearest(query, 4) for query in queries]
    monkeypatch.setitem(sys.modules, "numpy", None)
    monkeypatch.setitem(sys.modules, "scenarist.scenario.bag_index", None)
    plain = NearestStrings(strings)
    plain.prepare()
    assert [plain.nearest(query, 4) for query in queries] == expected
    assert plain._bags is None


def test_an_exact_query_is_the_scans_answer_without_computing_distances() -> None:
    strings = ["fix the bug", "write hello.py", "fix the bug", "Write hello.py"]
    search = NearestStrings(strings)
    for query in [*strings, "fix the bug ", "nothing like it"]:
        for k in (1, 2, 4):
            assert search.nearest(query, k) == scan(query, strings, k), (query, k)
    assert NearestStrings(["only one"]).nearest("only one", 4) == [(0, 0)]
