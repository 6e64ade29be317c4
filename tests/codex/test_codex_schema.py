"""Everything fake-codex emits validates against openai/codex's published EventMsg schema."""

from __future__ import annotations

import io
import json

import pytest
from codexkit import (
    _branch_validators,
    assert_valid_stream,
    event_errors,
    fake_codex,
    full_event_validator,
    notification_validator,
    schema,
)

from scenarist.codex.cli import run
from scenarist.codex.events import REQUIRED, check_event

EVERY_COMMAND = [
    "help",
    "?",
    "help help",
    "help exec",
    "help exec approvals",
    "help exec declined",
    "help exec exit=3 make test",
    "help exec echo hi there",
    "help patch",
    "help apply_patch approvals delete old.txt",
    "help patch update /abs/file.py",
    "help mcp",
    'help mcp github.search_issues {"q": "bug"}',
    "help web",
    "help web_search rust serde flatten",
    "help search x",
    "help reasoning",
    "help think deeply about it",
    "help message",
    "help msg a longer message that is split into several deltas of assorted sizes",
    "help warning",
    "help error",
    "help error boom",
    "help stream_error",
    "help errors",
    "help session",
    "help session my-session-id",
    "help background",
    "help background_event note",
    "help plan",
    "help todo one | two | three",
    "help user",
    "help sleep 0",
    'help emit {"type":"warning","message":"w"}',
    'help emit {"type":"turn_diff","unified_diff":""}',
    'help notify {"jsonrpc":"2.0","method":"codex/custom","params":{"x":1}}',
    "(exec)(mcp)(message done)",
]


@pytest.mark.parametrize("prompt", EVERY_COMMAND)
@pytest.mark.parametrize("extra", [[], ["--approvals"], ["--no-turn-lifecycle"]])
def test_every_command_validates(prompt: str, extra: list[str]) -> None:
    assert_valid_stream(fake_codex("--seed", "11", *extra, prompt))


def test_a_thousand_random_seeds_validate() -> None:
    """1,000 seeded random runs (options varied by seed): every line and event is valid."""
    notification = notification_validator()
    seen: set[str] = set()
    for seed in range(1000):
        argv = ["--seed", str(seed), "--cwd", "/repo"]
        if seed % 3 == 0:
            argv.append("--approvals")
        if seed % 4 == 1:
            argv.append("--errors")
        if seed % 5 == 2:
            argv.append("--no-reasoning")
        if seed % 7 == 3:
            argv += ["--tool-events", "exec,mcp"]
        out = io.BytesIO()
        prompt = f"Task number {seed}: make the tests pass"
        code = run(
            [*argv, prompt], stdin=io.BytesIO(), stdout=out, stderr=io.StringIO(), environ={}
        )
        assert code == 0
        for raw in out.getvalue().splitlines():
            line = json.loads(raw)
            notification.validate(line)
            msg = line["params"]["msg"]
            problems = event_errors(msg)
            assert not problems, (seed, msg, problems)
            seen.add(msg["type"])
    assert {
        "session_configured",
        "task_started",
        "agent_reasoning_delta",
        "exec_approval_request",
        "exec_command_begin",
        "exec_command_output_delta",
        "exec_command_end",
        "apply_patch_approval_request",
        "patch_apply_begin",
        "patch_apply_end",
        "mcp_tool_call_begin",
        "mcp_tool_call_end",
        "web_search_begin",
        "web_search_end",
        "warning",
        "stream_error",
        "agent_message_delta",
        "agent_message",
        "background_event",
        "token_count",
        "task_complete",
    } <= seen


def test_per_variant_validation_agrees_with_the_full_schema() -> None:
    """The fast per-type validators accept and reject exactly what EventMsg.json does."""
    full = full_event_validator()
    events = fake_codex(
        "--seed",
        "2",
        "--approvals",
        "help "
        + "; ".join(
            ["exec", "patch", "mcp", "web", "reasoning", "message", "errors", "error", "plan"]
        ),
    ).events
    bad = [
        {"type": "exec_command_end", "call_id": "x"},
        {"type": "exec_command_output_delta", "call_id": "c", "chunk": "", "stream": "out"},
        {"type": "agent_message", "message": 3},
        {"type": "no_such_event"},
    ]
    for event in [*events, *bad]:
        assert full.is_valid(event) == (not event_errors(event)), event


def test_our_definitions_match_the_published_schema() -> None:
    """Every EventMsg variant is known to us, with the same required fields."""
    published = {}
    for branch in schema("EventMsg.json")["oneOf"]:
        (etype,) = branch["properties"]["type"]["enum"]
        published[etype] = set(branch.get("required", [])) - {"type"}
    assert set(REQUIRED) == set(published)
    for etype, fields in REQUIRED.items():
        assert {f[0] for f in fields} == published[etype], etype
    assert set(_branch_validators()) == set(published)


@pytest.mark.parametrize(
    ("event", "message"),
    [
        ([1], "an event must be a JSON object, got an array"),
        ({"message": "x"}, 'an event needs a string "type" field'),
        ({"type": 5}, 'the event "type" must be a string, got a number'),
        ({"type": "warning"}, "warning is missing required field 'message' (it needs: message)"),
        ({"type": "warning", "message": None}, "warning.message must be a string, got null"),
        (
            {"type": "exec_command_output_delta", "call_id": "c", "chunk": "", "stream": "out"},
            'exec_command_output_delta.stream must be one of "stdout", "stderr", got \'out\'',
        ),
        (
            {"type": "task_complete", "turn_id": 1},
            "task_complete.turn_id must be a string, got a number",
        ),
    ],
)
def test_check_event_explains_the_problem(event: object, message: str) -> None:
    problem = check_event(event)
    assert problem is not None and problem.startswith(message), problem


def test_unknown_types_and_extra_fields_pass() -> None:
    assert check_event({"type": "from_the_future", "anything": [1]}) is None
    assert check_event({"type": "warning", "message": "m", "extra": True}) is None
