"""Conformance: the Agent Harbor reference scenarios load, compile, validate and select.

Collected only with ``--agent-harbor-scenarios DIR`` (AGPL test data, read from that folder).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
import yaml
from schema_agreement import verdicts

from scenarist.scenario import (
    AgentToolUse,
    ScenarioError,
    compile_timeline,
    load_scenario,
    load_scenarios,
)
from scenarist.scenario.schema import scenario_schema
from scenarist.scenario.select import ScenarioIndex
from scenarist.scenario.source import parse_yaml

MUST_LOAD = ["simulation_smoke", "long_running_demo", "timing_test_scenario", "prompt_turn_basic",
             "acp_round_trip", "acp_realistic_session", "acp_loadsession_meta"]


@pytest.mark.parametrize("name", MUST_LOAD)
def test_reference_scenarios_load(reference: Path, name: str) -> None:
    s = load_scenario(reference / f"{name}.yaml")
    assert s.name == name and compile_timeline(s).beats


def test_meta_multimodal_rejected_with_reason_and_location(reference: Path) -> None:
    path = reference / "acp_meta_multimodal.yaml"
    with pytest.raises(ScenarioError) as info:
        load_scenario(path)
    (issue,) = info.value.errors
    assert "sessionStart" in issue.message and "loadSession" in issue.message
    line = next(i for i, text in enumerate(path.read_text().splitlines(), 1) if "- sessionStart" in text)
    assert (issue.line, issue.path) == (line, "timeline[1].sessionStart")


def test_realistic_development_scenario_loads_under_delta_timing(reference: Path) -> None:
    s = load_scenario(reference / "realistic_development_scenario.yaml")
    run = next(e for e in s.timeline if isinstance(e, AgentToolUse) and e.tool_name == "runCmd")
    assert "cmd" in run.args  # its old 'command' argument is read as 'cmd' (with a warning)
    assert s.warnings and all(w.severity == "warning" for w in s.warnings)


def test_realistic_development_scenario_timing_adds_up(reference: Path) -> None:
    t = compile_timeline(load_scenario(reference / "realistic_development_scenario.yaml"))
    thinks = [b.at_ms for b in t.beats if b.kind == "think"][:2]
    assert thinks == [2000, 3500]  # 2000 then 1500 later: deltas, not offsets
    assert 20_000 <= t.duration_ms <= 40_000  # the spec's "~30-second" example


def test_reference_directory_loads_sorted_except_the_rejected_one(reference: Path) -> None:
    with pytest.raises(ScenarioError) as info:
        load_scenarios([reference])
    assert {Path(i.file).name for i in info.value.errors} == {"acp_meta_multimodal.yaml"}


def test_reference_scenarios_validate_against_the_schema(reference: Path) -> None:
    validator = jsonschema.Draft7Validator(scenario_schema())
    for name in MUST_LOAD:
        path = reference / f"{name}.yaml"
        problems = [e.message for e in validator.iter_errors(yaml.safe_load(path.read_text()))]
        assert not problems, (path.name, problems[:3])


def test_every_reference_scenario_gets_one_verdict(reference: Path) -> None:
    """The schema and the loader agree on each reference file (schema_agreement.py)."""
    found = {}
    for path in sorted(reference.glob("*.yaml")):
        text = path.read_text(encoding="utf-8")
        found[path.name] = verdicts(parse_yaml(text, str(path)).root, text, path)
    assert len(found) >= 8 and "rejected" in {v.loader for v in found.values()}
    assert all(v.agree for v in found.values()), {n: v for n, v in found.items() if not v.agree}


def test_reference_scenarios_select_by_their_effective_initial_prompt(reference: Path) -> None:
    scenarios = load_scenarios([reference / f"{n}.yaml" for n in MUST_LOAD])
    index = ScenarioIndex(scenarios)
    prompted = [s for s in scenarios if s.effective_initial_prompt]
    assert prompted, "the reference scenarios have initial prompts"
    for s in prompted:
        chosen = index.select(prompt=s.effective_initial_prompt)
        assert chosen.distance == 0
        # identical prompts in several files: the smallest name wins, deterministically
        same = sorted(o.name for o in prompted
                      if (o.effective_initial_prompt or "").strip()
                      == (s.effective_initial_prompt or "").strip())
        assert chosen.name == same[0]


def test_console_script_reports_the_rejected_reference_file(reference: Path) -> None:
    path = reference / "acp_meta_multimodal.yaml"
    proc = subprocess.run([sys.executable, "-m", "scenarist", "validate", str(path)],
                          capture_output=True, text=True)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert "acp_meta_multimodal.yaml:" in proc.stderr and "loadSession" in proc.stderr
