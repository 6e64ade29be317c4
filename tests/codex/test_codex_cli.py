"""The command line: options, config sources, errors, stdin, replay, exec mode, pacing."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from codexkit import assert_valid_stream, fake_codex

from scenarist.codex.cli import parse_args
from scenarist.codex.commands import split_commands, split_prefix
from scenarist.codex.output import Writer
from scenarist.codex.turn import Raw, Sleep

# ---- grammar -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("prompt", "expected"),
    [
        ("help exec", ("help", " exec")),
        ("  help", ("help", "")),
        ("help;exec", ("help", ";exec")),
        ("help:exec", ("help", ":exec")),
        ("?exec", ("?", "exec")),
        ("(exec)", ("(", "exec)")),
        ("helpful", None),
        ("please help exec", None),
        ("", None),
    ],
)
def test_split_prefix(prompt: str, expected: tuple[str, str] | None) -> None:
    assert split_prefix(prompt) == expected


def test_split_commands_keeps_json_whole() -> None:
    body = (
        'emit {"type":"warning","message":"a;b\\"; c"}; notify [1,{"x":";"}]\nmessage it\'s ok; x'
    )
    assert split_commands(body) == [
        'emit {"type":"warning","message":"a;b\\"; c"}',
        'notify [1,{"x":";"}]',
        "message it's ok",
        "x",
    ]
    assert split_commands("exec)(mcp)", parens=True) == ["exec", "mcp"]
    assert split_commands("message (a) b") == ["message (a) b"]


def test_custom_prefixes_replace_the_defaults() -> None:
    custom = fake_codex("--seed", "1", "--command-prefix", "/fake", "/fake warning hi")
    assert "warning" in custom.types and "agent_reasoning" not in custom.types
    default = fake_codex("--seed", "1", "--command-prefix", "/fake", "help warning hi")
    assert "agent_reasoning" in default.types  # "help" is no longer a prefix
    via_env = fake_codex(
        "--seed", "1", "!! warning", env={"SCENARIST_CODEX_CONFIG": '{"command_prefixes": ["!!"]}'}
    )
    assert via_env.types.count("warning") == 1


# ---- errors -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "env", "message"),
    [
        (["help nope"], None, "command 1 ('nope'): unknown command"),
        (["help message a; emit {bad"], None, "command 2 (emit): bad JSON"),
        (['help emit {"type":"warning"}'], None, "warning is missing required field 'message'"),
        (['help emit {"message":"x"}'], None, 'needs a string "type"'),
        (["help notify 3"], None, "command 1 (notify): needs a JSON object"),
        (["help sleep soon"], None, "command 1 (sleep): needs a whole number"),
        (["help exec exit=x"], None, "exit=N needs an integer"),
        (["--seed"], None, "option --seed needs a value"),
        (["--seed", "-1", "x"], None, "--seed must be at least 0"),
        (["--format", "xml", "x"], None, "--format must be one of codex-event, exec-json"),
        (["--tool-events", "exec,ftp", "x"], None, "unknown tool 'ftp'"),
        (["--chunk-min", "9", "--chunk-max", "3", "x"], None, "message_chunk_min (9) is larger"),
        (["--wat", "x"], None, "unknown option '--wat'"),
        (["a", "b"], None, "expected at most one prompt"),
        (["--config", "{nope", "x"], None, "--config: bad JSON"),
        (["--config", "[1]", "x"], None, "--config: must be a JSON object"),
        (["--config", "@/nonexistent/cfg.json", "x"], None, "cannot read config file"),
        (["--replay", "/nonexistent.jsonl"], None, "cannot read replay file"),
        (["x"], {"SCENARIST_CODEX_CONFIG": '{"cadence": 5}'}, "unknown key 'cadence'"),
        (["x"], {"SCENARIST_CODEX_CONFIG": '{"seed": "7"}'}, "seed must be an integer"),
        (["x"], {"SCENARIST_CODEX_CONFIG": "not json"}, "$SCENARIST_CODEX_CONFIG: bad JSON"),
        (["--scenario", "a.yaml", "--replay", "b.jsonl"], None, "cannot be combined"),
        # hostile values: bounded pauses, finite scales, no devices or FIFOs read as files
        (["help sleep 99999999999999999999"], None, "at most 86400000 ms (one day)"),
        (["--cadence-ms", "99999999999999999999", "x"], None, "cadence_ms must be at most"),
        (["--time-scale", "1e300", "x"], None, "time_scale must be a number from 0 to 1000"),
        (["--time-scale", "nan", "x"], None, "time_scale must be a number from 0 to 1000"),
        (["--replay", "/dev/zero"], None, "replay file '/dev/zero' is not a regular file"),
        (["--scenario", "/dev/zero", "x"], None, "--scenario: /dev/zero:1:1: error: not a regular file"),
        (["--config", "@/dev/zero", "x"], None, "config file '/dev/zero' is not a regular file"),
    ],
)
def test_bad_input_exits_1_with_one_line(
    argv: list[str], env: dict[str, str] | None, message: str
) -> None:
    result = fake_codex(*argv, env=env)
    assert result.code == 1
    assert result.stdout == b""  # nothing half-written
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("fake-codex: "), result.stderr
    assert message in lines[0]


def test_replayed_sleep_is_bounded(tmp_path: Path) -> None:
    recording = tmp_path / "r.jsonl"
    recording.write_text('{"type":"sleep","ms":99999999999999999999}\n')
    result = fake_codex("--replay", str(recording))
    assert result.code == 1 and result.stdout == b""
    assert "must be a whole number from 0 to 86400000" in result.stderr


def test_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)
    result = fake_codex("--replay", str(fifo))  # opening a FIFO for reading would block here
    assert result.code == 1 and "is not a regular file" in result.stderr


def test_argument_that_is_not_utf8_is_read_with_replacement_characters() -> None:
    """Invalid UTF-8 on the command line arrives as lone surrogates; it must not crash the
    JSON output (it did: UnicodeEncodeError after the first lines)."""
    prompt = os.fsdecode(b"help message caf\xe9 \xff")
    proc = subprocess.run([sys.executable, "-m", "scenarist", "codex", "--seed", "1", prompt],
                          capture_output=True, check=False)
    assert proc.returncode == 0, proc.stderr
    message = [json.loads(line)["params"]["msg"] for line in proc.stdout.splitlines()][-3]
    assert message == {"type": "agent_message", "message": "caf\ufffd \ufffd"}


def test_help() -> None:
    result = fake_codex("--help")
    assert result.code == 0 and b"usage: fake-codex" in result.stdout


# ---- config -------------------------------------------------------------------


def test_config_sources_and_precedence(tmp_path: Path) -> None:
    env = {
        "SCENARIST_CODEX_CONFIG": json.dumps(
            {
                "seed": 5,
                "message_chunk_min": 2,
                "message_chunk_max": 2,
                "include_reasoning": False,
                "tool_events": {
                    "exec_command": True,
                    "apply_patch": False,
                    "mcp": False,
                    "web_search": False,
                    "approvals": True,
                },
                "session_id": "sess-env",
                "model": "m-env",
                "write_fake_files": True,
            }
        )
    }
    result = fake_codex("do it", env=env)
    assert result.events[0]["session_id"] == "sess-env"
    assert result.events[0]["model"] == "m-env"
    assert result.events[0]["approval_policy"] == "on-request"
    assert "agent_reasoning_delta" not in result.types
    assert "exec_approval_request" in result.types and "patch_apply_begin" not in result.types
    assert all(
        len(e["delta"]) == 2
        for e in result.events
        if e["type"] == "agent_message_delta"
        if e is not result.events[-1]
    )
    cfg = tmp_path / "c.json"
    cfg.write_text('{"session_id": "sess-file"}')
    over = fake_codex("--config", f"@{cfg}", "do it", env=env)
    assert over.events[0]["session_id"] == "sess-file"
    flag = fake_codex("--config", f"@{cfg}", "--session-id", "sess-flag", "do it", env=env)
    assert flag.events[0]["session_id"] == "sess-flag"
    assert fake_codex("do it", env=env).stdout == result.stdout  # seed from the env


def test_unseeded_run_reports_its_seed_and_can_be_reproduced() -> None:
    first = fake_codex("Explain the design")
    seed = first.stderr.split("--seed ")[1].split()[0]
    again = fake_codex("--seed", seed, "Explain the design")
    assert again.stdout == first.stdout and again.stderr == ""


def test_prompt_from_stdin() -> None:
    piped = fake_codex("--seed", "1", stdin=b"help message from stdin")
    dash = fake_codex("--seed", "1", "-", stdin=b"help message from stdin")
    assert piped.stdout == dash.stdout
    assert piped.events[-1]["last_agent_message"] == "from stdin"


def test_cwd_is_only_reported() -> None:
    result = fake_codex("--seed", "1", "--cwd", "/definitely/not/here", "help exec; patch")
    assert result.events[0]["cwd"] == "/definitely/not/here"
    begin = next(e for e in result.events if e["type"] == "patch_apply_begin")
    assert list(begin["changes"]) == ["/definitely/not/here/fake_agent_notes.md"]


def test_turn_lifecycle_can_be_switched_off() -> None:
    types = fake_codex("--seed", "1", "--no-turn-lifecycle", "help message hi").types
    assert types == ["session_configured", "agent_message_delta", "agent_message"]
    env = {"SCENARIST_CODEX_CONFIG": '{"turn_lifecycle": false}'}
    assert fake_codex("--seed", "1", "help message hi", env=env).types == types


def test_chunk_sizes() -> None:
    text = "abcdefghij" * 10
    result = fake_codex(
        "--seed", "4", "--chunk-min", "3", "--chunk-max", "5", f"help message {text}"
    )
    deltas = [e["delta"] for e in result.events if e["type"] == "agent_message_delta"]
    assert "".join(deltas) == text
    assert all(3 <= len(d) <= 5 for d in deltas[:-1]) and 1 <= len(deltas[-1]) <= 5
    assert len({len(d) for d in deltas}) > 1


def test_random_mode_tool_selection() -> None:
    only_exec = fake_codex("--seed", "8", "--tool-events", "exec", "--no-reasoning", "go")
    tools = {t for t in only_exec.types if t.endswith(("_begin", "_end"))}
    assert tools == {"exec_command_begin", "exec_command_end"}
    none = fake_codex("--seed", "8", "--tool-events", "", "--errors", "go")
    assert not any(t.endswith("_begin") for t in none.types)
    assert {"warning", "stream_error"} <= set(none.types)


# ---- replay ---------------------------------------------------------------------


def test_replay_reemits_a_recording(tmp_path: Path) -> None:
    # a seeded run of every command with an ApprovalResponse line after each approval request
    example = Path(__file__).parent / "data" / "recording.jsonl"
    result = fake_codex("--replay", str(example))
    assert result.code == 0, result.stderr
    original = [json.loads(line) for line in example.read_text().splitlines() if line.strip()]
    out = result.lines
    assert len(out) == len(original)
    for before, after in zip(original, out, strict=True):
        if before.get("method") == "codex/event":
            assert after["params"]["msg"] == before["params"]["msg"]
            assert after["jsonrpc"] == "2.0"
        else:
            assert after == before  # e.g. {"ApprovalResponse": ...} written verbatim
    rec = tmp_path / "r.jsonl"
    rec.write_text(
        '{"type":"warning","message":"a"}\n\n{"type":"sleep","ms":0}\n'
        '{"id":"0","msg":{"type":"background_event","message":"b"}}\n'
        '{"jsonrpc":"2.0","method":"other/thing","params":{}}\n'
    )
    lines = fake_codex("--replay", str(rec)).lines
    assert [ln["params"].get("msg", {}).get("type") for ln in lines] == [
        "warning",
        "background_event",
        None,
    ]
    assert lines[2] == {"jsonrpc": "2.0", "method": "other/thing", "params": {}}
    rec.write_text('{"type":"warning","message":"a"}\n{"type":"agent_message"}\n')
    bad = fake_codex("--replay", str(rec))
    assert bad.code == 1 and f"{rec}:2: agent_message is missing" in bad.stderr


# ---- exec mode (codex exec stand-in) ---------------------------------------------


def test_exec_mode_accepts_the_real_flags() -> None:
    sdk_like = [
        "exec",
        "--experimental-json",
        "--config",
        'openai_base_url="http://x"',
        "--model",
        "gpt-x",
        "--sandbox",
        "read-only",
        "--cd",
        "/w",
        "--add-dir",
        "/a",
        "--skip-git-repo-check",
        "--output-schema",
        "/s.json",
        "--config",
        'model_reasoning_effort="high"',
        "--config",
        'approval_policy="never"',
        "--image",
        "i.png",
        "--seed",
        "3",
        "--some-future-flag",
    ]
    result = fake_codex(*sdk_like, stdin=b"help message hello")
    assert result.code == 0, result.stderr
    types = [line["type"] for line in result.lines]
    assert types == ["thread.started", "turn.started", "item.completed", "turn.completed"]
    assert result.lines[2]["item"] == {"id": "item_0", "type": "agent_message", "text": "hello"}
    resumed = fake_codex(*sdk_like, "resume", "thread-123", stdin=b"hi")
    assert resumed.lines[0] == {"type": "thread.started", "thread_id": "thread-123"}
    json_cfg = fake_codex("exec", "--json", "-c", '{"session_id": "s-1"}', "x")
    assert json_cfg.lines[0]["thread_id"] == "s-1"
    as_events = fake_codex("exec", "--format", "codex-event", "--seed", "1", "help warning")
    assert_valid_stream(as_events)


def test_parse_args_exec_resume_and_prompt() -> None:
    args = parse_args(["exec", "--json", "-m", "m", "resume", "abc", "do it"])
    assert args.exec_mode and args.resume == "abc" and args.prompt == "do it"
    # `resume --last PROMPT`: no session id is given, the word is the prompt (as in codex)
    last = parse_args(["exec", "--json", "resume", "--last", "next step"])
    assert last.resume is None and last.prompt == "next step"
    # a prompt written before the subcommand is used when resume has none of its own
    before = parse_args(["exec", "--json", "next step", "resume", "--last"])
    assert before.resume is None and before.prompt == "next step"
    both = parse_args(["exec", "--json", "old", "resume", "abc", "new"])
    assert both.resume == "abc" and both.prompt == "new"
    stdin = parse_args(["exec", "--json", "resume", "--last", "-"])
    assert stdin.resume is None and stdin.prompt == "-"
    out = fake_codex("exec", "--json", "--seed", "1", "resume", "--last", "help message hi")
    assert out.lines[0]["type"] == "thread.started"
    assert out.lines[0]["thread_id"] != "help message hi"
    assert any(ln.get("item", {}).get("text") == "hi" for ln in out.lines)
    assert parse_args(["--", "--not-an-option"]).prompt == "--not-an-option"


def test_exec_json_mapping_of_every_tool() -> None:
    prompt = (
        'help plan a | b; exec; exec exit=1 false; patch; mcp; emit {"type":"mcp_tool_call_end",'
        '"call_id":"m2","invocation":{"server":"s","tool":"t"},'
        '"duration":{"secs":0,"nanos":0},"result":{"Err":"down"}}; web q; '
        "warning careful; reasoning hmm; message bye"
    )
    lines = fake_codex("exec", "--json", "--seed", "2", prompt).lines
    items = [
        (ln["type"], ln["item"]["type"], ln["item"].get("status"))
        for ln in lines
        if ln["type"].startswith("item.")
    ]
    assert items == [
        ("item.started", "todo_list", None),
        ("item.started", "command_execution", "in_progress"),
        ("item.completed", "command_execution", "completed"),
        ("item.started", "command_execution", "in_progress"),
        ("item.completed", "command_execution", "failed"),
        ("item.started", "file_change", "in_progress"),
        ("item.completed", "file_change", "completed"),
        ("item.started", "mcp_tool_call", "in_progress"),
        ("item.completed", "mcp_tool_call", "completed"),
        ("item.completed", "mcp_tool_call", "failed"),
        ("item.started", "web_search", None),
        ("item.completed", "web_search", None),
        ("item.completed", "error", None),
        ("item.completed", "reasoning", None),
        ("item.completed", "agent_message", None),
        ("item.completed", "todo_list", None),
    ]
    ids = [ln["item"]["id"] for ln in lines if ln["type"] == "item.completed"]
    assert len(set(ids)) == len(ids)
    mcp_err = [
        ln["item"]
        for ln in lines
        if ln.get("item", {}).get("type") == "mcp_tool_call" and ln["item"]["status"] == "failed"
    ]
    assert mcp_err[0]["error"] == {"message": "down"}
    assert lines[-1]["type"] == "turn.completed" and lines[-1]["usage"]["input_tokens"] > 0


def test_exec_json_error_fails_the_turn() -> None:
    lines = fake_codex("exec", "--json", "--seed", "2", "help error quota exceeded").lines
    assert lines[-2:] == [
        {"type": "error", "message": "quota exceeded"},
        {"type": "turn.failed", "error": {"message": "quota exceeded"}},
    ]


# ---- pacing -----------------------------------------------------------------------


class FakeClock:
    """A :class:`scenarist.play.Clock` that oversleeps 4 ms on every blocking wait."""

    def __init__(self) -> None:
        self.now = 100_000.0
        self.sleeps: list[float] = []

    def now_ms(self) -> float:
        return self.now

    def now(self) -> float:
        return self.now / 1000

    async def sleep_until(self, t_ms: float) -> None:
        raise AssertionError("the writer is blocking code: it never awaits")

    def wait_until(self, t_ms: float) -> None:
        self.sleeps.append(round((t_ms - self.now) / 1000, 6))  # seconds slept
        self.now = t_ms + 4  # oversleeps a little every time


def test_cadence_follows_an_absolute_schedule() -> None:
    fake = FakeClock()
    out = io.BytesIO()
    writer = Writer(out, cadence_ms=100, clock=fake)
    steps = [{"type": "warning", "message": str(i)} for i in range(4)]
    writer.write(
        [*steps[:2], Sleep(250), Raw({"x": 1}), *steps[2:]], lambda e: json.dumps(e) + "\n"
    )
    assert out.getvalue().count(b"\n") == 5
    # due times 0.1, 0.2, 0.45, 0.55, 0.65, 0.75: the oversleep is absorbed, not accumulated
    assert fake.sleeps == [0.1, 0.096, 0.246, 0.096, 0.096, 0.096]


def test_fast_path_writes_blocks_and_honours_sleep() -> None:
    fake = FakeClock()

    class Counting(io.BytesIO):
        writes = 0

        def write(self, data: bytes) -> int:  # type: ignore[override]
            Counting.writes += 1
            return super().write(data)

    out = Counting()
    writer = Writer(out, clock=fake)
    steps: list = [{"type": "warning", "message": str(i)} for i in range(5000)]
    steps.insert(10, Sleep(50))
    writer.write(steps, lambda e: json.dumps(e) + "\n")
    assert out.getvalue().count(b"\n") == 5000
    assert Counting.writes <= 6  # first line, then blocks
    assert fake.sleeps == [0.05]


def test_exec_json_announces_the_thread_before_the_turn_whatever_the_commands() -> None:
    """A `session` command in the middle of a sequence used to put thread.started after
    turn.started; codex exec --json always starts with the thread."""
    lines = fake_codex("exec", "--json", "--seed", "1", "help message a; session; message b").lines
    assert [ln["type"] for ln in lines[:2]] == ["thread.started", "turn.started"]
    assert [ln["type"] for ln in lines].count("thread.started") == 1
    assert sorted(lines[-1]["usage"]) == sorted([
        "input_tokens", "cached_input_tokens", "cache_write_input_tokens", "output_tokens",
        "reasoning_output_tokens"])  # the @openai/codex-sdk Usage type requires all five
