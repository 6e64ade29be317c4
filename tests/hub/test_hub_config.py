"""Hub configuration: defaults, overrides, and errors that say where and how to fix."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from scenarist.hub.config import ConfigError, HubConfig, default_agents, load_config, parse_config


def test_defaults_map_the_spec_agents_and_the_fake_codex() -> None:
    agents = default_agents()
    assert agents["droid"].argv == ("openspec", "droid")
    assert agents["claudecode"].argv == ("claude",)
    assert agents["codex"].argv == ("codex",)
    assert agents["fake-codex"].argv == (sys.executable, "-m", "scenarist", "codex", "--interactive")


def test_config_adds_an_agent_and_overrides_fields_of_a_default(tmp_path: Path) -> None:
    data = {"agents": {"mine": {"argv": ["prog", "--flag"], "cwd": "work", "env": {"A": "1"},
                                "timeout_s": 5, "kill_on_timeout": True},
                       "codex": {"timeout_s": 9}}}
    agents = parse_config(data, "hub.toml", tmp_path)
    mine = agents["mine"]
    assert mine.argv == ("prog", "--flag")
    assert mine.cwd == str(tmp_path / "work")
    assert dict(mine.env) == {"A": "1"}
    assert (mine.timeout_s, mine.kill_on_timeout) == (5.0, True)
    assert agents["codex"].argv == ("codex",) and agents["codex"].timeout_s == 9.0
    assert "fake-codex" in agents


def test_include_defaults_false_keeps_only_configured_agents() -> None:
    agents = parse_config({"include_defaults": False, "agents": {"only": {"argv": ["x"]}}})
    assert list(agents) == ["only"]


def test_timeout_falls_back_to_the_hub_default() -> None:
    agents = parse_config({"agents": {"a": {"argv": ["x"]}, "b": {"argv": ["x"], "timeout_s": 2}}})
    config = HubConfig(agents=agents, token="t" * 10, timeout_s=42)
    assert config.timeout_for(agents["a"]) == 42
    assert config.timeout_for(agents["b"]) == 2


@pytest.mark.parametrize(("data", "fragment"), [
    ({"agents": {"sh": {"argv": "bash -c 'rm -rf /'"}}}, "write it as a list"),
    ({"agents": {"new": {"cwd": "/tmp"}}}, "a new agent needs argv"),
    ({"agents": {"a": {"argv": []}}}, "non-empty list"),
    ({"agents": {"a": {"argv": ["x"], "shell": True}}}, "unknown key(s) 'shell'"),
    ({"agents": {"bad name": {"argv": ["x"]}}}, "agent name must be"),
    ({"agents": {"a": {"argv": ["x"], "timeout_s": -1}}}, "positive number"),
    ({"agents": {"a": {"argv": ["x"], "kill_on_timeout": "yes"}}}, "true or false"),
    ({"agents": {"a": {"argv": ["x"], "env": {"K": 1}}}}, "table of strings"),
    ({"include_defaults": False}, "no agents configured"),
    ({"agent": {}}, "unknown key(s) 'agent'"),
])
def test_bad_config_is_explained(data: dict[str, object], fragment: str) -> None:
    with pytest.raises(ConfigError) as err:
        parse_config(data, "hub.toml")
    assert fragment in str(err.value)
    assert str(err.value).startswith("hub.toml")


def test_load_config_reads_toml_and_reports_syntax_errors_with_the_file(tmp_path: Path) -> None:
    good = tmp_path / "hub.toml"
    good.write_text('[agents.mine]\nargv = ["prog"]\nkill_on_timeout = true\n')
    assert load_config(good)["mine"].kill_on_timeout is True
    bad = tmp_path / "bad.toml"
    bad.write_text("[agents.mine\nargv = 1\n")
    with pytest.raises(ConfigError, match=r"bad\.toml: not valid TOML.*line 1"):
        load_config(bad)
    with pytest.raises(ConfigError, match="cannot read config file"):
        load_config(tmp_path / "missing.toml")


def test_done_marker_is_a_checked_regular_expression() -> None:
    agents = parse_config({"agents": {"a": {"argv": ["x"], "done_marker": "^> $"}}})
    assert agents["a"].done_marker == "^> $"
    assert agents["fake-codex"].done_marker  # the default fake agent finishes turns visibly
    for bad, needle in (("(", "not a valid regular expression"), ("", "non-empty"),
                        (3, "non-empty")):
        with pytest.raises(ConfigError, match=needle):
            parse_config({"agents": {"a": {"argv": ["x"], "done_marker": bad}}})
