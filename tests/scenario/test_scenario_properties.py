"""Property tests: arbitrary YAML and mutated valid scenarios raise only ScenarioError."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scenario_testutil import EXAMPLES

from scenarist.scenario import Scenario, ScenarioError, compile_timeline, load_scenario_text

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

scalars = st.one_of(st.none(), st.booleans(), st.integers(-10**6, 10**6),
                    st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=12))
keys = st.sampled_from(["name", "timeline", "llmResponse", "think", "assistant", "runCmd", "cmd",
                        "userInputs", "relativeTime", "input", "type", "text", "rules", "when",
                        "config", "default", "sessionStart", "acp", "capabilities", "loadSession",
                        "baseTimeDelta", "agentToolUse", "toolName", "args", "progress", "error",
                        "content", "path", "mimeType", "data", "_meta", "status", "granted"])
data = st.recursive(scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(keys, inner, max_size=4)), max_leaves=25)


def _load(text: str) -> Scenario | None:
    try:
        scenario = load_scenario_text(text, path=EXAMPLES / "prop.yaml",
                                      defines={"a": True, "n": 2})
    except ScenarioError as exc:
        assert exc.issues, "an error carries issues"
        assert not any("internal error" in i.message for i in exc.issues), exc
        for issue in exc.issues:
            assert issue.line >= 1 and issue.col >= 1 and str(issue)
        return None
    compile_timeline(scenario)
    return scenario


@SETTINGS
@given(st.text(max_size=200))
def test_arbitrary_text(text: str) -> None:
    _load(text)


@SETTINGS
@given(data)
def test_arbitrary_yaml_data(value: Any) -> None:
    _load(yaml.safe_dump(value))


@SETTINGS
@given(st.dictionaries(keys, data, max_size=3), data)
def test_arbitrary_timeline_items(item: dict[str, Any], extra: Any) -> None:
    _load(yaml.safe_dump({"name": "p", "timeline": [item, extra],
                          "acp": {"capabilities": {"loadSession": True}}}))


EXAMPLE_TEXTS = [p.read_text() for p in sorted(Path(EXAMPLES).glob("*.yaml"))]


def _mutate(value: Any, path: list[int], replacement: Any) -> Any:
    """Replace the node reached by following ``path`` (indices modulo sizes)."""
    if not path or not isinstance(value, (dict, list)) or not value:
        return replacement
    if isinstance(value, dict):
        key = list(value)[path[0] % len(value)]
        return {**value, key: _mutate(value[key], path[1:], replacement)}
    i = path[0] % len(value)
    return [*value[:i], _mutate(value[i], path[1:], replacement), *value[i + 1:]]


@SETTINGS
@given(st.sampled_from(EXAMPLE_TEXTS), st.lists(st.integers(0, 50), max_size=6), data)
def test_mutated_valid_scenarios(text: str, path: list[int], replacement: Any) -> None:
    _load(yaml.safe_dump(_mutate(yaml.safe_load(text), path, replacement)))


@SETTINGS
@given(st.sampled_from(EXAMPLE_TEXTS), st.integers(0, 10_000), st.integers(0, 10_000))
def test_truncated_and_spliced_text(text: str, cut: int, at: int) -> None:
    _load(text[: cut % (len(text) + 1)])
    _load(text[: at % (len(text) + 1)] + "\n  - {]" + text[at % (len(text) + 1):])
