"""The selector's cache of choices: bounded (least recently used out first), and a cached
answer is the answer a selector without a cache gives."""

from __future__ import annotations

import pytest

from scenarist.llm.plan import build_script
from scenarist.llm.script import Script
from scenarist.llm.selection import CHOICE_CACHE_SIZE, Choice, RequestSelectionError, Selector
from scenarist.scenario import load_scenario_text

PROMPTS = ("create hello.py and run it", "fix the failing test in test_app.py",
           "write a README for the project", "rename the module utils to helpers")


def _script(i: int, prompt: str) -> Script:
    return build_script(load_scenario_text(
        f"name: s{i}\ntimeline:\n  - userInputs: [[0, {prompt!r}]]\n"
        "  - llmResponse: [{assistant: [[0, ok]]}]\n"))


SCRIPTS = [_script(i, p) for i, p in enumerate(PROMPTS)]


def _asked(n: int) -> str:
    """The n-th prompt a client sends: a scripted one with a fresh suffix (an id, a date)."""
    return f"{PROMPTS[n % len(PROMPTS)]} (run {n})"


def _answer(selector: Selector, prompt: str) -> tuple[str, str, int | None]:
    choice: Choice = selector.choose(conversation_prompt=prompt)
    return choice.script.name, choice.by, choice.distance


def test_the_cache_stays_bounded_and_answers_stay_the_same() -> None:
    cached, uncached = Selector(SCRIPTS, cache_size=64), Selector(SCRIPTS, cache_size=0)
    for n in range(1_000):
        prompt = _asked(n)
        assert _answer(cached, prompt) == _answer(uncached, prompt)
        assert cached.cache_info().currsize <= 64
    info = cached.cache_info()
    assert (info.currsize, info.maxsize, info.misses) == (64, 64, 1_000)
    assert uncached.cache_info().currsize == 0


def test_the_least_recently_used_choice_goes_first() -> None:
    selector = Selector(SCRIPTS, cache_size=3)
    for n in range(3):
        _answer(selector, _asked(n))
    _answer(selector, _asked(0))  # used again: now the most recent
    _answer(selector, _asked(3))  # evicts _asked(1), the least recently used
    before = selector.cache_info()
    _answer(selector, _asked(0))
    _answer(selector, _asked(2))
    assert selector.cache_info().hits == before.hits + 2
    _answer(selector, _asked(1))
    assert selector.cache_info().misses == before.misses + 1


def test_a_prompt_that_selects_nothing_is_not_kept() -> None:
    selector = Selector(SCRIPTS, cache_size=8)
    for _ in range(2):
        with pytest.raises(RequestSelectionError):
            selector.choose(conversation_prompt="something else entirely, unrelated")
    assert selector.cache_info().currsize == 0


def test_the_default_bound_and_none() -> None:
    assert Selector(SCRIPTS).cache_info().maxsize == CHOICE_CACHE_SIZE == 4096
    selector = Selector(SCRIPTS, cache_size=-1)
    assert _answer(selector, _asked(1)) == _answer(selector, _asked(1))
    assert selector.cache_info() == (0, 2, 0, 0)
