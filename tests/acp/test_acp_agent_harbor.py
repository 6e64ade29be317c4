"""Conformance: ``scenarist acp-test`` against ``scenarist acp`` on the reference scenarios.

Collected only with ``--agent-harbor-scenarios DIR`` (AGPL test data, never in this
repository; the root conftest leaves ``test_*_agent_harbor.py`` out without it and
parametrises ``reference_file``). Every reference scenario that loads is played through
ACP, and every message of the session is validated against the ACP JSON Schema.
"""

from __future__ import annotations

from pathlib import Path

from acpkit import agent_command, child_env, validate_messages

from scenarist.acp.client import AcpTestOptions, format_report, run_report
from scenarist.scenario import ScenarioError, load_scenario


async def test_reference_scenario_plays_through_acp(reference_file: Path, tmp_path: Path) -> None:
    try:
        scenario = load_scenario(reference_file)
    except ScenarioError as exc:  # the rejected ones are covered by the scenario tests
        assert exc.errors and all(i.file == str(reference_file) for i in exc.errors)
        return
    command = agent_command("--speed", "0.01", "--scenario", str(reference_file))
    report = await run_report(scenario, AcpTestOptions(
        command=tuple(command), cwd=tmp_path, speed=0.01, timeout=120, env=child_env()))
    assert report.ok, format_report(report)
    assert validate_messages(report.transcript) >= 4
