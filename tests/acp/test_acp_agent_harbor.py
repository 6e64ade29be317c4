"""Conformance: ``scenarist acp-test`` against ``scenarist acp`` on the reference scenarios.

Collected only with ``--agent-harbor-scenarios DIR`` (AGPL test data, never in this
repository). Every reference scenario that loads is played through ACP, and every message
of the session is validated against the ACP JSON Schema.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from acpkit import agent_command, child_env, reference_folder, validate_messages

from scenarist.acp.client import AcpTestOptions, format_report, run_report
from scenarist.scenario import ScenarioError, load_scenario


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "acp_reference" in metafunc.fixturenames:
        folder = reference_folder(metafunc.config)
        if folder is None:
            raise pytest.UsageError(f"{__name__} needs --agent-harbor-scenarios DIR")
        files = sorted(folder.glob("*.yaml"))
        metafunc.parametrize("acp_reference", files, ids=[f.stem for f in files])


async def test_reference_scenario_plays_through_acp(acp_reference: Path, tmp_path: Path) -> None:
    try:
        scenario = load_scenario(acp_reference)
    except ScenarioError as exc:  # the rejected ones are covered by the scenario tests
        assert exc.errors and all(i.file == str(acp_reference) for i in exc.errors)
        return
    command = agent_command("--speed", "0.01", "--scenario", str(acp_reference))
    report = await run_report(scenario, AcpTestOptions(
        command=tuple(command), cwd=tmp_path, speed=0.01, timeout=120, env=child_env()))
    assert report.ok, format_report(report)
    assert validate_messages(report.transcript) >= 4
