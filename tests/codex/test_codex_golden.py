"""The spec's scenarios (seeds/000), each pinned by a golden file and by explicit checks.

Regenerate the golden files after an intended change with
``SCENARIST_UPDATE_GOLDEN=1 pytest tests/codex/test_codex_golden.py`` and review the diff.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from codexkit import assert_valid_stream, fake_codex

GOLDEN = Path(__file__).parent / "golden"

SCENARIOS = {
    # Stream assistant output (random mode)
    "stream_random_seed42": ["--seed", "42", "Add a README that explains the setup"],
    # Multi-command run
    "multi_exec_mcp": ["--seed", "1", "help exec; mcp"],
    # Built-in exec command, with approvals
    "exec_approvals": ["--seed", "1", "--approvals", "help exec"],
    # Emit new event type
    "emit_new_type": ["--seed", "1", 'help emit {"type":"brand_new_event","payload":{"a":[1,2]}}'],
    # Missing session configured
    "inject_session": ["--seed", "1", "? message hi"],
    # codex exec --json stand-in
    "exec_json_random_seed7": ["exec", "--json", "--seed", "7", "-C", "/repo", "tidy up"],
    # every built-in command once
    "all_commands": [
        "--seed",
        "5",
        "help session; reasoning why; exec ls -la; exec exit=2 false; patch update src/a.py; "
        'mcp docs.search {"q":"x"}; web pytest; plan a | b; warning w; error e; '
        "stream_error s; errors; background b; user u; message the end",
    ],
}


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_golden(name: str) -> None:
    result = fake_codex(*SCENARIOS[name])
    assert result.code == 0, result.stderr
    path = GOLDEN / f"{name}.jsonl"
    if os.environ.get("SCENARIST_UPDATE_GOLDEN"):
        path.parent.mkdir(exist_ok=True)
        path.write_bytes(result.stdout)
    assert result.stdout.decode() == path.read_text(), f"output differs from {path}"


def test_stream_assistant_output() -> None:
    """A run starts with session_configured and streams deltas until the final message."""
    result = fake_codex("--seed", "42", "Add a README that explains the setup")
    assert_valid_stream(result)
    types = result.types
    assert types[0] == "session_configured"
    assert result.events[0]["session_id"]
    deltas = [i for i, t in enumerate(types) if t == "agent_message_delta"]
    final = types.index("agent_message")
    assert deltas and max(deltas) < final
    text = "".join(result.events[i]["delta"] for i in deltas)
    assert text == result.events[final]["message"]
    assert "Add a README that explains the setup" in text  # the answer quotes the prompt
    assert types[-3:] == ["background_event", "token_count", "task_complete"]
    assert types[1] == "task_started"


@pytest.mark.parametrize(
    "argv",
    [
        ["--seed", "9", "Refactor the parser"],
        ["--seed", "9", "help exec; patch; mcp; web; message hello world"],
        ["--seed", "9", "--format", "exec-json", "Refactor the parser"],
    ],
)
def test_repeatable_output(argv: list[str]) -> None:
    first, second = fake_codex(*argv), fake_codex(*argv)
    assert first.code == second.code == 0
    assert first.stdout == second.stdout
    other = fake_codex(*["10" if a == "9" else a for a in argv])
    assert other.stdout != first.stdout


@pytest.mark.parametrize(
    "prompt", ["help exec", "?exec", "(exec)", "  help: exec", "HELP exec", "help\nexec", "? exec"]
)
def test_prefix_at_start_triggers_command_mode(prompt: str) -> None:
    types = fake_codex("--seed", "3", "--no-reasoning", prompt).types
    assert types == [
        "session_configured",
        "task_started",
        "exec_command_begin",
        "exec_command_output_delta",
        "exec_command_end",
        "token_count",
        "task_complete",
    ]


@pytest.mark.parametrize(
    "prompt", ["please help exec", "can you help? exec", "helpexec", "x (exec)"]
)
def test_prefix_mid_text_is_ignored(prompt: str) -> None:
    result = fake_codex("--seed", "3", prompt)
    assert_valid_stream(result)
    message = next(e for e in result.events if e["type"] == "agent_message")["message"]
    assert prompt in message  # the random simulation answers the prompt
    assert "agent_reasoning" in result.types


def test_multi_command_order() -> None:
    types = fake_codex("--seed", "1", "help exec; mcp").types
    exec_end = types.index("exec_command_end")
    mcp_begin = types.index("mcp_tool_call_begin")
    assert types.index("exec_command_begin") < exec_end < mcp_begin
    mixed = fake_codex("--seed", "1", "help mcp\nwarning one;exec;warning two").types
    body = [t for t in mixed if t not in ("session_configured", "task_started", "token_count")]
    assert body == [
        "mcp_tool_call_begin",
        "mcp_tool_call_end",
        "warning",
        "exec_command_begin",
        "exec_command_output_delta",
        "exec_command_end",
        "warning",
        "task_complete",
    ]


def test_exec_with_and_without_approvals() -> None:
    plain = fake_codex("--seed", "1", "help exec").types
    assert "exec_approval_request" not in plain
    asked = fake_codex("--seed", "1", "--approvals", "help exec").types
    assert asked[2:5] == [
        "exec_approval_request",
        "exec_command_begin",
        "exec_command_output_delta",
    ]
    per_command = fake_codex("--seed", "1", "help exec approvals; exec no-approvals").types
    assert per_command.count("exec_approval_request") == 1
    events = fake_codex("--seed", "1", "help patch approvals").types
    assert events[2:5] == ["apply_patch_approval_request", "patch_apply_begin", "patch_apply_end"]


def test_emit_new_event_type_passes_through() -> None:
    event = {"type": "brand_new_event", "payload": {"a": [1, 2]}, "note": "ünïcode; x"}
    result = fake_codex("--seed", "1", "help emit " + json.dumps(event) + "; message ok")
    assert result.code == 0, result.stderr
    assert event in result.events
    line = next(ln for ln in result.lines if ln["params"]["msg"] == event)
    assert line == {"jsonrpc": "2.0", "method": "codex/event", "params": {"id": "1", "msg": event}}
    assert result.types[-3:] == ["agent_message", "token_count", "task_complete"]


def test_missing_session_configured_is_prepended_once() -> None:
    assert fake_codex("--seed", "1", "help warning x").types[0] == "session_configured"
    own = fake_codex("--seed", "1", "help warning x; session").types
    assert own.count("session_configured") == 1
    assert own[:3] == ["task_started", "warning", "session_configured"]
    custom = {
        "type": "session_configured",
        "session_id": "mine",
        "model": "m",
        "model_provider_id": "p",
        "approval_policy": "never",
        "sandbox_policy": {"type": "read-only"},
        "cwd": "/x",
        "history_log_id": 0,
        "history_entry_count": 0,
    }
    result = fake_codex("--seed", "1", "help emit " + json.dumps(custom) + "; message hi")
    assert result.events[0] == custom
    assert result.types.count("session_configured") == 1
    assert result.types[1] == "task_started"  # the lifecycle starts after the session
