"""YAML reading: scalar typing (YAML 1.2 core), marks, syntax errors, tags, merges."""

from __future__ import annotations

import math

import pytest
import yaml
from scenario_testutil import errors, load

from scenarist.scenario import ScenarioError, load_scenario
from scenarist.scenario.source import parse_yaml


@pytest.mark.parametrize(("text", "value"), [
    ("1", 1), ("-7", -7), ("0x1f", 31), ("0o17", 15), ("1.5", 1.5), ("1e3", 1000.0),
    ("true", True), ("False", False), ("null", None), ("~", None), ("", None),
    ("yes", "yes"), ("no", "no"), ("2024-01-01", "2024-01-01"), ("1.2.3", "1.2.3"),
    ("'1'", "1"), ('"true"', "true"), ("-x", "-x"), (".5", 0.5), ("!!str 12", "12"),
    ("!!int '12'", 12), ("!!float 1", 1.0), ("!!null ''", None),
])
def test_scalars_follow_the_yaml_core_schema(text: str, value: object) -> None:
    source = parse_yaml(f"k: {text}\n", "t.yaml")
    assert not source.issues
    got = source.root["k"]
    assert got == value and type(got) is type(value)


def test_special_floats() -> None:
    root = parse_yaml("a: .inf\nb: -.Inf\nc: .nan\n", "t.yaml").root
    assert root["a"] == math.inf and root["b"] == -math.inf and math.isnan(root["c"])


def test_same_data_as_pyyaml_for_plain_documents() -> None:
    text = "a: [1, 'x', {b: 2.5, c: null}]\nd: |\n  multi\n  line\ne: &x {f: g}\nh: *x\n"
    assert parse_yaml(text, "t.yaml").root == yaml.safe_load(text)


def test_merge_keys_and_aliases() -> None:
    root = parse_yaml("base: &b {x: 1, y: 2}\nother:\n  <<: *b\n  y: 3\n", "t.yaml").root
    assert root["other"] == {"x": 1, "y": 3}


def test_locations_point_at_the_value() -> None:
    source = parse_yaml("a:\n  b: [1, 2]\n  c: x\n", "t.yaml")
    inner = source.root["a"]
    assert source.where(inner, "c") == (3, 6)
    assert source.where(inner, "c", on_key=True) == (3, 3)
    assert source.where(inner["b"], 1) == (2, 10)


def test_syntax_error_names_line_and_column() -> None:
    issue = errors("name: x\ntimeline:\n  - a: [1, 2\n  - b\n")[0]
    assert issue.line >= 3 and "YAML syntax error" in issue.message
    assert issue.hint


def test_two_documents_are_one_too_many() -> None:
    issue = errors("name: a\n---\nname: b\n")[0]
    assert "one YAML document" in issue.hint


def test_empty_file_and_non_mapping() -> None:
    assert "empty" in errors("")[0].message
    assert "mapping of sections" in errors("- a\n- b\n")[0].message


def test_unknown_tag_is_an_error() -> None:
    issue = errors("name: !custom x\ntimeline: []\n")[0]
    assert "unsupported YAML tag" in issue.message and (issue.line, issue.col) == (1, 7)


def test_duplicate_key_is_a_warning() -> None:
    s = load("name: a\nname: b\ntimeline: []\n")
    assert s.name == "b"
    assert any("duplicate key" in w.message for w in s.warnings)


def test_non_utf8_file_reports_the_position(tmp_path: object) -> None:
    from pathlib import Path

    p = Path(str(tmp_path)) / "bad.yaml"
    p.write_bytes(b"name: ok\ntimeline:\n  - log: caf\xe9\n")
    with pytest.raises(ScenarioError) as info:
        load_scenario(p)
    issue = info.value.issues[0]
    assert "UTF-8" in issue.message and (issue.line, issue.col) == (3, 13)


def test_missing_file_and_folder(tmp_path: object) -> None:
    from pathlib import Path

    with pytest.raises(ScenarioError, match="no such file"):
        load_scenario(Path(str(tmp_path)) / "nope.yaml")
    with pytest.raises(ScenarioError, match="folder"):
        load_scenario(Path(str(tmp_path)))


def test_pure_python_composer_gives_the_same_data_and_marks() -> None:
    from scenario_testutil import EXAMPLES

    from scenarist.scenario.source import _parser_class

    pure = _parser_class(use_libyaml=False)
    for path in sorted(EXAMPLES.glob("*.yaml")):
        text = path.read_text()
        fast, slow = parse_yaml(text, "t.yaml"), parse_yaml(text, "t.yaml", parser_class=pure)
        assert fast.root == slow.root and not fast.issues and not slow.issues
        assert fast.where(fast.root, "timeline") == slow.where(slow.root, "timeline")
    bad = parse_yaml("a: [1,\n", "t.yaml", parser_class=pure)
    assert bad.issues and "YAML syntax error" in bad.issues[0].message


def test_aliases_share_one_value_and_rules_resolve_it_once() -> None:
    lines = ["name: shared", "a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]" for i in range(1, 4)]
    lines += ["rules: [{default: true, config: {tags: [t]}}]", "timeline: []"]
    s = load("\n".join(lines) + "\n")  # 12,330 nodes added by aliases: under the limit
    assert s.tags == ("t",)


def test_alias_bombs_are_refused_before_anything_walks_them() -> None:
    lines = ["name: bomb", "a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]" for i in range(1, 9)]
    issue = errors("\n".join(lines) + "\ntimeline: []\n")[0]  # 10**9 leaves if expanded
    assert "more than 100,000 nodes" in issue.message and "*a3 adds 11,111 (&a3 at line 5, col 5)" in issue.message
