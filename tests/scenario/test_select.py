"""Selection by name and by nearest initial prompt: ties, runners-up, errors, exactness."""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rapidfuzz.distance import Levenshtein

from scenarist.scenario.select import ScenarioIndex, SelectionError, select_scenario


@dataclass(frozen=True)
class Fake:
    """Just what selection reads; the real Scenario is used in test_select_cli.py."""

    name: str
    effective_initial_prompt: str | None
    source_path: Path | None = None


HELLO = Fake("hello", "Create hello.py that prints hello world", Path("a/hello.yaml"))
FIX = Fake("fix-bug", "Fix the failing test in tests/test_api.py", Path("a/fix.yaml"))
DOCS = Fake("docs", "Write a README for the project", Path("a/docs.yaml"))
SILENT = Fake("no-prompt", None, Path("a/silent.yaml"))
ALL = [HELLO, FIX, DOCS, SILENT]


def test_exact_name_wins_over_any_prompt() -> None:
    chosen = select_scenario(ALL, name="docs", prompt=HELLO.effective_initial_prompt)
    assert chosen.scenario is DOCS and chosen.by == "name" and chosen.distance is None
    assert chosen.runners_up == ()


def test_a_scenario_without_prompt_is_selectable_by_name() -> None:
    assert select_scenario(ALL, name="no-prompt").scenario is SILENT


def test_nearest_prompt_is_selected_with_distance_and_runners_up() -> None:
    prompt = "Create hello.py which prints hello world"
    chosen = select_scenario(ALL, prompt=prompt)
    assert chosen.name == "hello" and chosen.by == "prompt"
    assert chosen.distance == Levenshtein.distance(prompt, HELLO.effective_initial_prompt)
    expected = sorted((Levenshtein.distance(prompt, s.effective_initial_prompt or ""), s.name)
                      for s in (FIX, DOCS))
    assert chosen.runners_up == tuple((n, d) for d, n in expected)


def test_runners_up_can_be_limited() -> None:
    prompt = "Create hello.py which prints hello world"
    assert select_scenario(ALL, prompt=prompt, runners_up=0).runners_up == ()
    one = select_scenario(ALL, prompt=prompt, runners_up=1)
    assert one.name == "hello" and len(one.runners_up) == 1
    assert one.runners_up == select_scenario(ALL, prompt=prompt).runners_up[:1]


def test_exact_prompt_is_distance_zero_and_whitespace_is_ignored() -> None:
    chosen = select_scenario(ALL, prompt="  Fix the failing test in tests/test_api.py\n")
    assert (chosen.name, chosen.distance) == ("fix-bug", 0)


def test_ties_go_to_name_then_source_path_whatever_the_load_order() -> None:
    twins = [Fake("b", "same prompt", Path("z.yaml")), Fake("a", "same prompt", Path("y.yaml")),
             Fake("a", "same prompt", Path("x.yaml"))]
    for order in (twins, twins[::-1], [twins[1], twins[2], twins[0]]):
        chosen = select_scenario(order, prompt="same prompt!")
        assert (chosen.name, chosen.scenario.source_path, chosen.distance) == ("a", Path("x.yaml"), 1)
        assert chosen.runners_up == (("a", 1), ("b", 1))


def test_duplicate_names_select_the_first_source_path() -> None:
    dupes = [Fake("x", "p", Path("2.yaml")), Fake("x", "q", Path("1.yaml"))]
    assert select_scenario(dupes, name="x").scenario.source_path == Path("1.yaml")


def test_unknown_name_lists_known_names_nearest_first() -> None:
    with pytest.raises(SelectionError) as caught:
        select_scenario(ALL, name="hallo", prompt="anything")
    message = str(caught.value)
    assert "no scenario is named 'hallo'" in message
    assert message.index("hello") < message.index("docs") < message.index("fix-bug")
    assert set(caught.value.known) == {"hello", "fix-bug", "docs", "no-prompt"}


def test_unknown_name_error_shortens_a_long_list() -> None:
    many = [Fake(f"s{i:03}", None) for i in range(40)]
    with pytest.raises(SelectionError, match=r"\(and 30 more\)"):
        select_scenario(many, name="nope")


def test_prompt_with_no_prompted_scenario_says_to_use_a_name() -> None:
    with pytest.raises(SelectionError, match=r"no scenario has an initial prompt.*no-prompt"):
        select_scenario([SILENT, Fake("blank", "   ")], prompt="hello")


def test_no_scenarios_at_all() -> None:
    with pytest.raises(SelectionError, match="no scenarios to select from"):
        select_scenario([], prompt="hello")


def test_neither_name_nor_prompt_selects_a_lone_scenario_only() -> None:
    assert select_scenario([SILENT]).by == "only"
    with pytest.raises(SelectionError, match="neither a name nor a prompt"):
        select_scenario(ALL)


def test_index_is_reusable_and_reports_its_names() -> None:
    index = ScenarioIndex(ALL)
    assert index.prepare() is index and len(index) == 4
    assert index.names == ["docs", "fix-bug", "hello", "no-prompt"]
    assert index.by_name("hello") is HELLO and index.by_name("x") is None
    assert index.select(prompt="Write a README").name == "docs"
    assert index.select(prompt="Fix the failing test in test_api.py").name == "fix-bug"
    assert index.nearest("anything", k=0) == []


def brute_force(scenarios: list[Fake], prompt: str, k: int) -> list[tuple[int, str, str]]:
    scored = [(Levenshtein.distance(prompt.strip(), s.effective_initial_prompt.strip()), s.name,
               str(s.source_path))
              for s in scenarios if s.effective_initial_prompt and s.effective_initial_prompt.strip()]
    return sorted(scored)[:k]


def test_pruned_search_equals_brute_force_on_a_large_set() -> None:
    rng = random.Random(7)
    words = ["fix", "add", "the", "bug", "test", "api", "docs", "create", "file", "module", "parser", "login", "page", "run"]

    def sentence() -> str:
        return " ".join(rng.choice(words) for _ in range(rng.randint(1, 25)))

    scenarios = [Fake(f"s{i % 300}", sentence(), Path(f"{i}.yaml")) for i in range(2000)]
    index = ScenarioIndex(scenarios)
    queries = [sentence() for _ in range(30)] + [s.effective_initial_prompt or "" for s in
                                                 scenarios[:5]] + ["", "x" * 400]
    for query in queries:
        got = [(d, s.name, str(s.source_path)) for d, s in index.nearest(query, k=5)]
        assert got == brute_force(scenarios, query, 5), query


@settings(max_examples=150, deadline=None)
@given(prompts=st.lists(st.text(max_size=30), min_size=1, max_size=40),
       query=st.text(max_size=40), k=st.integers(1, 6))
def test_nearest_is_exact_for_any_prompts(prompts: list[str], query: str, k: int) -> None:
    scenarios = [Fake(f"n{i % 7}", p, Path(f"{i}.yaml")) for i, p in enumerate(prompts)]
    got = [(d, s.name, str(s.source_path)) for d, s in ScenarioIndex(scenarios).nearest(query, k)]
    assert got == brute_force(scenarios, query, k)
