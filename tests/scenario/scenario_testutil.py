"""Helpers shared by the scenario-format tests (load text, expect errors)."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest

from scenarist.scenario import Issue, Scenario, ScenarioError, load_scenario_text

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples"


def load(text: str, **kwargs: Any) -> Scenario:
    """Load dedented YAML text (named ``test.yaml`` in the examples folder for media paths)."""
    kwargs.setdefault("path", EXAMPLES / "test.yaml")
    return load_scenario_text(textwrap.dedent(text), **kwargs)


def errors(text: str, **kwargs: Any) -> list[Issue]:
    """The errors of a scenario that must fail to load."""
    with pytest.raises(ScenarioError) as info:
        load(text, **kwargs)
    found = info.value.errors
    assert found, "a ScenarioError must carry at least one error"
    return found


def one_error(text: str, needle: str, **kwargs: Any) -> Issue:
    """The error whose message contains ``needle`` (fails listing all errors otherwise)."""
    found = errors(text, **kwargs)
    matching = [i for i in found if needle in i.message]
    assert matching, f"no error mentions {needle!r}: {[str(i) for i in found]}"
    return matching[0]


def timeline(body: str, header: str = "name: t\n") -> str:
    """A scenario text with ``body`` as the timeline items (already indented by 2)."""
    return header + "timeline:\n" + textwrap.indent(textwrap.dedent(body), "  ")
