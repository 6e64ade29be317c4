"""Conformance: ``fake-codex --scenario`` on the Agent Harbor reference scenarios.

Collected only with ``--agent-harbor-scenarios DIR`` (AGPL test data, read from that folder).
"""

from __future__ import annotations

import base64
from pathlib import Path

from codexkit import assert_valid_stream, fake_codex


def test_reference_scenarios_play_or_fail_cleanly(reference_file: Path) -> None:
    result = fake_codex("--seed", "1", "--time-scale", "0", "--scenario", str(reference_file), "go")
    if result.code == 1:  # the core loader rejects it: one teaching line, no output
        assert result.stdout == b""
        assert result.stderr.startswith(f"fake-codex: --scenario: {reference_file}:")
        assert result.stderr.count("\n") == 1
        return
    assert_valid_stream(result)
    assert result.types[0] == "session_configured" and result.types[-1] == "task_complete"


def test_tool_execution_output_and_exit_code_reach_exec_events(reference: Path) -> None:
    path = reference / "acp_round_trip.yaml"
    result = fake_codex("--seed", "1", "--time-scale", "0", "--scenario", str(path), "x")
    assert_valid_stream(result)
    events = result.events
    begin = next(e for e in events if e["type"] == "exec_command_begin")
    assert begin["call_id"] == "run-check" and begin["command"][:2] == ["/bin/bash", "-lc"]
    chunks = [
        base64.b64decode(e["chunk"]).decode()
        for e in events
        if e["type"] == "exec_command_output_delta"
    ]
    end = next(e for e in events if e["type"] == "exec_command_end")
    assert "".join(chunks) == end["stdout"] and "round trip done" in end["stdout"]
    assert end["exit_code"] == 0 and end["status"] == "completed"
    patch = next(e for e in events if e["type"] == "patch_apply_begin")
    assert list(patch["changes"]) == ["/tmp/acp_round_trip.txt"]
    assert "+fn bar()" in patch["changes"]["/tmp/acp_round_trip.txt"]["unified_diff"]
    assert "plan_update" in result.types
    assert (
        events[-1]["last_agent_message"] == "Check completed, edited src/lib.rs, ready to proceed."
    )
