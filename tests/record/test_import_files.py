"""``scenarist import`` on session files written here: each kind read from its content, the
details of each reader, and bad input refused with file:line, nothing written half."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from scenarist.cli import main
from scenarist.record.lines import MAX_LINE_BYTES
from scenarist.record.sessions import read_session
from scenarist.scenario import (
    AgentToolUse,
    EditFile,
    GenericTool,
    LlmResponse,
    ReadFile,
    RunCmd,
    WriteFile,
    load_scenario,
)

KEY = "sk-proj-" + "k" * 40
CWD = "/home/dev/proj"


def jsonl(path: Path, lines: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def codex_line(kind: str, payload: dict[str, Any], ms: int = 0) -> dict[str, Any]:
    return {"timestamp": f"2026-11-26T10:00:{ms // 1000:02}.{ms % 1000:03}Z", "type": kind,
            "payload": payload}


def codex_file(path: Path) -> Path:
    def item(payload: dict[str, Any], ms: int) -> dict[str, Any]:
        return codex_line("response_item", payload, ms)
    return jsonl(path, [
        codex_line("session_meta", {"id": "0f8fad5b-d9cb-469f-a165-70867728950e", "cwd": CWD}),
        item({"type": "message", "role": "developer", "content": [
            {"type": "input_text", "text": "<permissions>never</permissions>"}]}, 0),
        item({"type": "message", "role": "user", "content": [
            {"type": "input_text", "text": f"<environment_context>\n<cwd>{CWD}</cwd>\n"
             "</environment_context>"}]}, 0),
        item({"type": "message", "role": "user", "content": [
            {"type": "input_text", "text": f"Fix the README (key {KEY})"}]}, 100),
        item({"type": "reasoning", "summary": [{"type": "summary_text", "text": "Look first."}],
              "content": None, "encrypted_content": "x"}, 300),
        item({"type": "function_call", "name": "exec_command", "call_id": "c1",
              "arguments": json.dumps({"cmd": f"cat {CWD}/README.md", "workdir": CWD})}, 500),
        item({"type": "function_call_output", "call_id": "c1", "output":
              "Chunk ID: a\nWall time: 0.1 seconds\nProcess exited with code 0\n"
              "Original token count: 2\nOutput:\nhelo\n"}, 700),
        codex_line("event_msg", {"type": "error", "message": "unexpected status 429 Too Many "
                                 "Requests"}, 800),
        item({"type": "custom_tool_call", "name": "apply_patch", "call_id": "c2", "input":
              "*** Begin Patch\n*** Update File: README.md\n@@\n-helo\n+hello\n*** End Patch\n"},
             1000),
        item({"type": "custom_tool_call_output", "call_id": "c2", "output":
              "Exit code: 0\nWall time: 0 seconds\nOutput:\nSuccess.\n"}, 1100),
        item({"type": "local_shell_call", "call_id": "c3", "action": {
            "type": "exec", "command": ["bash", "-lc", "make test"],
            "working_directory": f"{CWD}/sub"}}, 1200),
        item({"type": "function_call", "name": "view_image", "call_id": "c4",
              "arguments": json.dumps({"path": "a.png"})}, 1300),
        item({"type": "message", "role": "assistant", "content": [
            {"type": "output_text", "text": "Fixed."}]}, 1500),
    ])


def test_a_codex_session_reads_prompts_reasoning_calls_results_and_errors(
        tmp_path: Path) -> None:
    kind, transcript = read_session(codex_file(tmp_path / "rollout-x.jsonl"))
    assert (kind, transcript.cwd, len(transcript.turns)) == ("codex", CWD, 1)
    out = tmp_path / "out.yaml"
    assert main(["import", str(tmp_path / "rollout-x.jsonl"), "-o", str(out)]) == 0
    text = out.read_text()
    assert KEY not in text and "[REDACTED]" in text
    scenario = load_scenario(out, strict=True)
    uses = [e for e in scenario.timeline if isinstance(e, AgentToolUse)]
    assert [u.tool for u in uses] == [
        ReadFile("README.md"), EditFile("README.md", "helo\n", "hello\n"),
        RunCmd("make test", cwd="sub"), GenericTool("view_image", {"path": "a.png"})]
    assert [(u.result, u.status) for u in uses[:2]] == [("helo\n", "ok"), ("Success.\n", "ok")]
    steps = [s for e in scenario.timeline if isinstance(e, LlmResponse) for s in e.steps]
    assert [s.kind for s in steps] == ["think", "error", "assistant"]
    assert steps[0].delay_ms == 200 and steps[1].status_code == 429  # type: ignore[union-attr]


def test_a_claude_code_transcript_reads_turns_and_skips_its_bookkeeping(
        tmp_path: Path) -> None:
    def line(kind: str, content: Any, ms: int, **more: Any) -> dict[str, Any]:
        return {"type": kind, "sessionId": "s", "cwd": CWD, "isSidechain": False,
                "timestamp": f"2026-11-26T10:00:00.{ms:03}Z",
                "message": {"role": kind, "content": content}, **more}
    path = jsonl(tmp_path / "session.jsonl", [
        {"type": "queue-operation", "operation": "enqueue", "sessionId": "s"},
        line("user", "Write a.txt", 0),
        line("user", "<command-name>/clear</command-name>", 1),
        line("user", "injected", 2, isMeta=True),
        line("assistant", [{"type": "thinking", "thinking": "Easy.", "signature": "x"}], 50),
        line("assistant", [{"type": "tool_use", "id": "t1", "name": "Write", "input": {
            "file_path": f"{CWD}/a.txt", "content": "A\n"}}], 60),
        line("user", [{"type": "tool_result", "tool_use_id": "t1", "content": "ok"}], 70),
        line("assistant", [{"type": "tool_use", "id": "t2", "name": "Agent", "input": {
            "description": "d", "prompt": "look"}}], 80),
        line("assistant", [{"type": "text", "text": "sub-agent"}], 85, isSidechain=True),
        line("user", [{"type": "tool_result", "tool_use_id": "t2", "is_error": True,
                       "content": [{"type": "text", "text": "failed"}]}], 90),
        line("assistant", [{"type": "text", "text": "API Error: 529 overloaded"}], 95,
             isApiErrorMessage=True),
        line("user", "And now?", 200),
        line("assistant", [{"type": "text", "text": "Done."}], 250),
    ])
    kind, transcript = read_session(path)
    assert kind == "claude-code" and [t.prompt for t in transcript.turns] == [
        "Write a.txt", "And now?"]
    out = tmp_path / "out.yaml"
    assert main(["import", str(path), "-o", str(out), "--name", "claude demo"]) == 0
    scenario = load_scenario(out, strict=True)
    assert scenario.name == "claude demo"
    uses = [e for e in scenario.timeline if isinstance(e, AgentToolUse)]
    assert [(type(u.tool), u.result, u.status) for u in uses] == [
        (WriteFile, "ok", "ok"), (type(uses[1].tool), "failed", "error")]
    assert uses[0].tool == WriteFile("a.txt", "A\n") and uses[1].tool.name == "task"
    texts = [s.content.text for e in scenario.timeline if isinstance(e, LlmResponse)  # type: ignore[union-attr]
             for s in e.steps if s.kind != "error"]
    assert "sub-agent" not in texts


def test_standard_output_without_o_and_any_json_rpc_log(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rpc = [{"jsonrpc": "2.0", "id": 1, "method": "session/new", "params": {"cwd": CWD}},
           {"jsonrpc": "2.0", "id": 2, "method": "session/prompt", "params": {
               "sessionId": "1", "prompt": [{"type": "text", "text": "List files"}]}},
           {"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": "1", "update": {
               "sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "Su"}}}},
           {"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": "1", "update": {
               "sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "re."}}}},
           {"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": "1", "update": {
               "sessionUpdate": "tool_call", "toolCallId": "t", "title": "ls", "kind": "execute",
               "status": "pending", "rawInput": {"cmd": "ls"}}}},
           {"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": "1", "update": {
               "sessionUpdate": "tool_call_update", "toolCallId": "t", "status": "completed",
               "rawOutput": {"result": "a\nb\n", "exitCode": 0}}}}]
    path = jsonl(tmp_path / "log.jsonl", rpc)
    assert main(["import", str(path)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("# Imported from an ACP session log")
    assert "- [0, Sure.]" in out and "cmd: ls" in out and "result: |\n        a\n        b" in out


def bad_files(tmp_path: Path) -> dict[str, tuple[Path, str]]:
    good = codex_file(tmp_path / "good.jsonl").read_bytes()
    truncated = tmp_path / "truncated.jsonl"
    truncated.write_bytes(good[: good.rindex(b"\n", 0, len(good) - 1) + 20])
    lines = good.count(b"\n")  # the last line, cut
    huge = tmp_path / "huge.jsonl"
    huge.write_bytes(good[: good.index(b"\n") + 1] + b'{"type": "response_item", "x": "'
                     + b"a" * (5 * 1024 * 1024) + b'"}\n')
    unknown = jsonl(tmp_path / "unknown.jsonl", [{"hello": "world"}])
    garbage = tmp_path / "garbage.jsonl"
    garbage.write_bytes(good[: good.index(b"\n") + 1] + b"not json\n" + good)
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n")
    prompts = jsonl(tmp_path / "noprompt.jsonl", [codex_line("session_meta", {"cwd": CWD})])
    return {
        "truncated": (truncated, f"truncated.jsonl:{lines}: the last line is cut off"),
        "huge": (huge, f"huge.jsonl:2: line longer than {MAX_LINE_BYTES // 1024 // 1024} MiB"),
        "unknown": (unknown, "unknown.jsonl:1: unknown kind of session file"),
        "garbage": (garbage, "garbage.jsonl:2: not a JSON line"),
        "empty": (empty, "empty.jsonl:1: unknown kind of session file: it is empty"),
        "no prompt": (prompts, "noprompt.jsonl:1: a codex session with no prompt"),
        "missing": (tmp_path / "nope.jsonl", "nope.jsonl: cannot read"),
    }


@pytest.mark.parametrize("case", ["truncated", "huge", "unknown", "garbage", "empty",
                                  "no prompt", "missing"])
def test_bad_input_is_a_clear_error_naming_file_and_line_and_nothing_is_written(
        case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path, message = bad_files(tmp_path)[case]
    out = tmp_path / "out" / "scenario.yaml"
    out.parent.mkdir()
    out.write_text("name: kept\n")
    assert main(["import", str(path), "-o", str(out)]) == 1
    err = capsys.readouterr().err
    assert message in err and err.startswith("scenarist import: error: ") and "Traceback" not in err
    assert out.read_text() == "name: kept\n" and list(out.parent.iterdir()) == [out]


def test_redact_masks_more_and_a_bad_pattern_is_an_error(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    session = codex_file(tmp_path / "s.jsonl")
    assert main(["import", str(session), "--redact", r"hel+o", "--redact", "README"]) == 0
    out = capsys.readouterr().out
    assert "helo" not in out and "README" not in out and "[REDACTED]" in out
    assert main(["import", str(session), "--redact", "("]) == 1
    assert "--redact '(': not a regular expression" in capsys.readouterr().err


def test_usage_errors_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["import"]) == 2
    session = codex_file(tmp_path / "s.jsonl")
    assert main(["import", str(session), "--normalise", "no_such_module_x:f"]) == 1
    assert "cannot import 'no_such_module_x'" in capsys.readouterr().err
    assert main(["import", str(session), "-o", str(tmp_path / "s.jsonl" / "x.yaml")]) == 2
