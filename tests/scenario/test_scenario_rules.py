"""Symbols and rules: parse_defines, conditions, merging, defaults, splicing, errors."""

from __future__ import annotations

import pytest
from scenario_testutil import errors, load, one_error

from scenarist.scenario import LlmResponse, Log, evaluate_condition, parse_defines


def test_defines_typed_bool_int_string() -> None:
    got = parse_defines(["fast", "n=3", "flag=FALSE", "env=prod", 'q="x y"'], env="")
    assert got == {"fast": True, "n": 3, "flag": False, "env": "prod", "q": "x y"}
    assert type(got["n"]) is int and got["flag"] is False


def test_env_is_a_fallback_never_merged_with_flags_and_last_duplicate_wins() -> None:
    assert parse_defines(["n=5", "a=1", "a=2"], env="n=3,FLAG=true") == {"n": 5, "a": 2}
    assert parse_defines([], env="n=3,FLAG=true,N=7,m=1,m=2") == {"n": 3, "FLAG": True,
                                                                 "N": 7, "m": 2}


def test_env_is_read_by_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AH_SCENARIO_DEFINES", "x=1, y")
    assert parse_defines([]) == {"x": 1, "y": True}


def test_bad_define_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="--define"):
        parse_defines(["=3"], env="")


@pytest.mark.parametrize(("when", "symbols", "expected"), [
    ("$a", {"a": False}, True),  # existence, whatever the value
    ("$a", {}, False),
    ("$n >= 3", {"n": 3}, True), ("$n > 3", {"n": 3}, False), ("$n < 4", {"n": 3}, True),
    ("$n <= 2", {"n": 3}, False), ("$n == 3", {"n": 3}, True), ("$n != 3", {"n": 3}, False),
    ("$n >= 3", {}, False),  # undefined: false
    ("$n >= 3", {"n": "x"}, False),  # not a number: false
    ('$env == "prod"', {"env": "prod"}, True), ("$env == 'prod'", {"env": "dev"}, False),
    ('$env != "prod"', {"env": "dev"}, True),
    ("$flag == true", {"flag": True}, True), ("$flag != true", {"flag": True}, False),
    ("$n == 1.5", {"n": 1}, False),
])
def test_conditions(when: str, symbols: dict[str, bool | int | str], expected: bool) -> None:
    assert evaluate_condition(when, symbols) is expected


SERVER_RULES = """
    name: r
    server:
      mode: mock
      rules:
        - when: "$a"
          config: {llmApiStyle: anthropic, coalesceThinkingWithToolUse: false}
        - when: "$b"
          config: {llmApiStyle: openai}
        - default: true
          config: {mode: real}
    timeline: []
"""


def test_default_only_when_nothing_matched() -> None:
    assert load(SERVER_RULES).server.mode == "real"
    s = load(SERVER_RULES, defines={"a": True})
    assert (s.server.mode, s.server.llm_api_style, s.server.coalesce_thinking_with_tool_use) == (
        "mock", "anthropic", False)


def test_all_matches_merge_in_order_later_wins() -> None:
    s = load(SERVER_RULES, defines={"a": True, "b": True})
    assert s.server.llm_api_style == "openai"
    assert s.server.coalesce_thinking_with_tool_use is False


def test_undefined_symbol_skips_and_env_string_comparison() -> None:
    text = """
        name: r
        acp:
          rules:
            - when: '$env == "prod"'
              config: {cwd: /prod}
            - default: true
              config: {cwd: /dev}
        timeline: []
    """
    assert load(text).acp.cwd == "/dev"  # type: ignore[union-attr]
    assert load(text, defines={"env": "prod"}).acp.cwd == "/prod"  # type: ignore[union-attr]


def test_list_config_is_spliced_into_the_timeline() -> None:
    text = """
        name: r
        timeline:
          - log: first
          - rules:
              - when: "$v >= 2"
                config:
                  - log: enhanced
                  - log: also
              - default: true
                config:
                  - log: basic
          - log: last
    """
    basic = [e.message for e in load(text).timeline if isinstance(e, Log)]
    assert basic == ["first", "basic", "last"]
    enhanced = load(text, defines={"v": 2}).timeline
    assert [e.message for e in enhanced if isinstance(e, Log)] == ["first", "enhanced", "also", "last"]
    assert [e.index for e in enhanced] == [0, 1, 2, 3]


def test_nested_rules_resolve_at_any_depth() -> None:
    text = """
        name: r
        timeline:
          - llmResponse:
              - assistant:
                  - relativeTime: 100
                    content: hi
                    rules:
                      - when: "$fast"
                        config:
                          relativeTime: 1
                          rules:
                            - when: "$faster"
                              config: {relativeTime: 0}
    """
    def delay(**symbols: bool) -> int:
        event = load(text, defines=symbols).timeline[0]
        assert isinstance(event, LlmResponse)
        return event.steps[0].delay_ms

    assert (delay(), delay(fast=True), delay(fast=True, faster=True)) == (100, 1, 0)


def test_no_match_and_no_default_removes_the_rules() -> None:
    s = load("name: r\nserver:\n  rules:\n    - when: '$x'\n      config: {mode: real}\ntimeline: []\n")
    assert s.server.mode == "none" and not s.warnings


def test_invalid_condition_points_at_when() -> None:
    text = "name: r\nserver:\n  rules:\n    - when: 'fast'\n      config: {}\ntimeline: []\n"
    issue = one_error(text, "invalid condition")
    assert (issue.line, issue.path) == (4, "server.rules[0].when")
    assert "$" in issue.hint


@pytest.mark.parametrize(("when", "needle"), [
    ('$env < "x"', "compares numbers"),
    ("$env == prod", "not a number"),
    ("$n >=", "needs a value"),
])
def test_condition_errors(when: str, needle: str) -> None:
    text = f"name: r\nserver:\n  rules:\n    - when: '{when}'\n      config: {{}}\ntimeline: []\n"
    one_error(text, needle)


def test_rule_shape_errors_are_all_reported() -> None:
    text = """
        name: r
        server:
          rules:
            - config: {mode: real}
            - when: "$a"
              default: true
              config: {}
            - when: "$a"
              config: 3
            - 7
        timeline: []
    """
    messages = [i.message for i in errors(text)]
    assert any("needs 'when' or 'default" in m for m in messages)
    assert any("not both" in m for m in messages)
    assert any("'config' must be a mapping" in m for m in messages)
    assert any("a rule must be a mapping" in m for m in messages)


def test_list_config_inside_a_mapping_is_an_error() -> None:
    text = "name: r\nserver:\n  rules:\n    - default: true\n      config: [1]\ntimeline: []\n"
    issue = one_error(text, "produce a list")
    assert issue.path == "server.rules"


def test_errors_after_rules_point_into_the_config() -> None:
    text = """
        name: r
        timeline:
          - rules:
              - default: true
                config:
                  - log: ok
                  - baseTimeDelta: -5
    """
    issue = one_error(text, "baseTimeDelta must be")
    assert issue.line == 8
