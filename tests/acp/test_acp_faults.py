"""Faults on ACP stdio (issue 25): ``scenarist acp`` plays the scenario's faults on the wire,
and ``scenarist acp-test`` survives each and reports it precisely: a frame split across
reads is reassembled, a bad line is quoted with where the session stood, an agent that exits
mid-turn is named with its code or signal, the prompt turn and the updates so far, and
nothing hangs (every wait here is bounded and every agent process is stopped)."""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import acp
import pytest
from acp import schema as s
from acpkit import agent_command, child_env, validate_messages, write_scenario

from scenarist.acp.client import AcpTestOptions, AcpTestReport, format_report, run_report
from scenarist.scenario import load_scenario

WAIT_S = 60.0  # a bound against a hang, never a timing assertion
INIT = b'{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}}\n'


async def acp_test(tmp_path: Path, text: str, timeout: float = 30.0) -> AcpTestReport:
    path = write_scenario(tmp_path, text)
    command = agent_command("--speed", "0.01", "--scenario", str(path))
    return await run_report(load_scenario(path), AcpTestOptions(
        command=tuple(command), cwd=tmp_path / "ws", speed=0.01, timeout=timeout,
        env=child_env()))


def problems(report: AcpTestReport, check: str) -> list[str]:
    found = [c for c in report.checks if c.name == check]
    assert found, format_report(report)
    return list(found[0].problems)


def texts(report: AcpTestReport) -> list[str]:
    return [u["content"]["text"] for u in report.updates
            if u.get("sessionUpdate") == "agent_message_chunk"]


# -- fragment -------------------------------------------------------------------------------


@pytest.mark.parametrize("size", [1, 7])
async def test_fragmented_frames_are_reassembled(tmp_path: Path, size: int) -> None:
    report = await acp_test(tmp_path, f"""\
        name: fragments
        timeline:
          - userInputs: [[0, "go"]]
          - fault: {{kind: fragment, bytes: {size}}}
          - llmResponse: [{{think: [[10, "thinking"]]}}, {{assistant: [[10, "one "]]}},
                          {{assistant: [[10, "two"]]}}]
          - userInputs: [[100, "again"]]
          - llmResponse: [{{assistant: [[10, "three"]]}}]
        """)
    assert report.ok, format_report(report)
    assert texts(report) == ["one ", "two", "three"]
    assert validate_messages(report.transcript) > 6


def test_a_fragmented_frame_reaches_the_reader_in_pieces(tmp_path: Path) -> None:
    """Read the agent's stdout raw, as a client's pipe does: with 2-byte pieces and a flush
    between, reads end inside frames, and the bytes still join into the same JSON lines."""
    path = write_scenario(tmp_path, """\
        name: pieces
        timeline:
          - fault: {kind: fragment, bytes: 2}
          - userInputs: [[0, "go"]]
          - llmResponse: [{assistant: [[10, "a chunk of text that spans many pieces"]]}]
        """)
    process = subprocess.Popen(
        agent_command("--speed", "0.01", "--scenario", str(path)), env=child_env(),
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd=tmp_path)
    reads: list[bytes] = []

    def read_all() -> None:
        assert process.stdout is not None
        while chunk := os.read(process.stdout.fileno(), 65536):
            reads.append(chunk)

    reader = threading.Thread(target=read_all, daemon=True)
    reader.start()
    try:
        assert process.stdin is not None
        process.stdin.write(INIT + b'{"jsonrpc":"2.0","id":1,"method":"session/new",'
                            b'"params":{"cwd":"/tmp","mcpServers":[]}}\n')
        process.stdin.flush()
        while not any(b'"id":1' in r for r in reads) and reader.is_alive():
            reader.join(0.05)
        sid = json.loads(b"".join(reads).splitlines()[1])["result"]["sessionId"]
        process.stdin.write(json.dumps({"jsonrpc": "2.0", "id": 2, "method": "session/prompt",
                                        "params": {"sessionId": sid, "prompt": [
                                            {"type": "text", "text": "go"}]}}).encode() + b"\n")
        process.stdin.flush()
        while b'"stopReason"' not in b"".join(reads) and reader.is_alive():
            reader.join(0.05)
        process.stdin.close()
        assert process.wait(WAIT_S) == 0
        reader.join(WAIT_S)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(WAIT_S)
    lines = b"".join(reads).splitlines()
    messages = [json.loads(line) for line in lines]
    assert messages[-1]["result"]["stopReason"] == "end_turn"
    assert messages[-2]["params"]["update"]["content"]["text"].startswith("a chunk of text")
    boundaries, total = set(), 0
    for line in lines:
        total += len(line) + 1
        boundaries.add(total)
    offsets, at = [], 0
    for r in reads:
        at += len(r)
        offsets.append(at)
    inside = [o for o in offsets if o not in boundaries]
    print(f"fragment 2: {len(reads)} reads, {len(inside)} ended inside a frame")
    assert inside, "no read ended inside a frame"


# -- malformed, stderr ---------------------------------------------------------------------


async def test_a_malformed_line_is_quoted_with_its_moment_and_the_turn_goes_on(
        tmp_path: Path) -> None:
    report = await acp_test(tmp_path, """\
        name: malformed
        timeline:
          - userInputs: [[0, "go"]]
          - llmResponse:
              - assistant: [[10, "before "]]
              - fault: {kind: malformed}
              - assistant: [[10, "after"]]
          - fault: {kind: malformed, text: '{"jsonrpc": "2.0", "id": true}'}
        """)
    assert problems(report, "prompt 1") == []
    assert texts(report) == ["before ", "after"]
    found = problems(report, "agent messages")
    assert found[0].startswith("2 line(s) from the agent are not JSON-RPC messages")
    assert found[1].startswith("line 4 (during session/prompt of turn 1, after 1 update): "
                               "parse error: Expecting value at column 66: ")
    assert found[1].endswith('"{\\"jsonrpc\\":\\"2.0\\",\\"method\\":\\"session/update\\",'
                             '\\"params\\":{\\"sessionId\\":"')
    assert found[2] == ("line 6 (during session/prompt of turn 1, after 2 updates): invalid "
                        "request: id is a boolean; it must be a string, a number or null: "
                        '"{\\"jsonrpc\\": \\"2.0\\", \\"id\\": true}"')


async def test_stderr_noise_is_kept_and_the_turn_completes(tmp_path: Path) -> None:
    report = await acp_test(tmp_path, """\
        name: noise
        timeline:
          - userInputs: [[0, "go"]]
          - llmResponse:
              - assistant: [[10, "one"]]
              - fault: {kind: stderr, text: "warning: disk almost full"}
        """)
    assert report.ok, format_report(report)
    assert "warning: disk almost full" in report.agent_stderr


# -- the agent goes away ------------------------------------------------------------------


@pytest.mark.parametrize(("fault", "said"), [
    ("{kind: exit, code: 3}", "the agent exited with code 3"),
    ("{kind: exit, signal: SIGKILL}", "the agent was killed by SIGKILL"),
    ("{kind: exit, signal: SIGTERM}", "the agent was killed by SIGTERM"),
])
async def test_an_agent_exit_mid_turn_is_reported_precisely(tmp_path: Path, fault: str,
                                                            said: str) -> None:
    report = await acp_test(tmp_path, f"""\
        name: exits
        timeline:
          - userInputs: [[0, "first"]]
          - llmResponse: [{{assistant: [[10, "done"]]}}]
          - userInputs: [[50, "second"]]
          - llmResponse:
              - assistant: [[10, "one "]]
              - assistant: [[10, "two "]]
              - fault: {fault}
              - assistant: [[10, "never sent"]]
        """)
    assert problems(report, "prompt 1") == []
    assert problems(report, "agent") == [
        f"{said} during session/prompt of turn 2, after 2 updates"]
    assert texts(report) == ["done", "one ", "two "]  # what was written was flushed first
    assert report.stopped == ()  # nothing of it was left running


async def test_an_exit_after_bytes_cuts_a_frame(tmp_path: Path) -> None:
    report = await acp_test(tmp_path, """\
        name: cut
        timeline:
          - userInputs: [[0, "go"]]
          - llmResponse:
              - assistant: [[10, "one "]]
              - assistant: [[10, "two"]]
              - fault: {kind: exit, code: 9, afterBytes: 200}
        """)
    assert problems(report, "agent") == [
        "the agent exited with code 9 during session/prompt of turn 1, after 1 update"]
    cut = problems(report, "agent messages")
    assert cut[1].startswith("line 4 (during session/prompt of turn 1, after 1 update): parse "
                             "error: ")
    assert texts(report) == ["one "]


async def test_a_stall_that_closes_stdout_is_reported_as_such(tmp_path: Path) -> None:
    report = await acp_test(tmp_path, """\
        name: stall
        timeline:
          - userInputs: [[0, "go"]]
          - llmResponse:
              - assistant: [[10, "one "]]
              - fault: {kind: stall, ms: 100, then: close}
              - assistant: [[10, "two"]]
        """)
    assert problems(report, "agent") == [
        "the agent closed its stdout during session/prompt of turn 1, after 1 update (still "
        "running 1 s later: stopped)"]
    assert report.stopped == ()  # it exited once its stdin closed


async def test_a_truncated_turn_ends_at_the_timeout_saying_what_it_waited_for(
        tmp_path: Path) -> None:
    report = await acp_test(tmp_path, """\
        name: truncated
        timeline:
          - userInputs: [[0, "go"]]
          - llmResponse:
              - assistant: [[10, "one "]]
              - fault: {kind: truncate}
              - assistant: [[10, "two"]]
        """, timeout=8.0)  # (the SDK's import alone may take 2 s on a busy machine)
    [problem] = problems(report, "agent")
    assert problem.startswith("no end after 8.0 s (--timeout), during session/prompt of turn 1, "
                              "after 1 update; the agent's last line came ")
    assert texts(report) == ["one "]


def test_the_cli_reports_fragments_and_an_exit_precisely(tmp_path: Path) -> None:
    """The issue's "done when": acp-test against scenarist acp with fragmented frames and an
    agent exit reports a precise failure, and does not hang."""
    path = write_scenario(tmp_path, """\
        name: done-when
        timeline:
          - userInputs: [[0, "go"]]
          - fault: {kind: fragment, bytes: 3}
          - llmResponse:
              - assistant: [[10, "one "]]
              - fault: {kind: exit, code: 137}
        """)
    agent = subprocess.list2cmdline(agent_command("--speed", "0.01", "--scenario", str(path)))
    done = subprocess.run([sys.executable, "-m", "scenarist", "acp-test", "--agent", agent,
                           "--scenario", str(path), "--speed", "0.01", "--timeout", "30"],
                          env=child_env(), capture_output=True, text=True, timeout=WAIT_S,
                          check=False, cwd=tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    assert ("FAIL done-when: agent\n    the agent exited with code 137 during session/prompt "
            "of turn 1, after 1 update\n") in done.stdout


# -- ordering: duplicate, reorder, a late answer after cancel -------------------------------


async def test_a_duplicate_update_reaches_the_client_twice(tmp_path: Path) -> None:
    report = await acp_test(tmp_path, """\
        name: twice
        timeline:
          - userInputs: [[0, "go"]]
          - llmResponse:
              - assistant: [[10, "one "]]
              - fault: {kind: duplicate}
              - assistant: [[10, "two"]]
        """)
    assert report.ok, format_report(report)  # ACP has no id to tell a duplicate by
    assert texts(report) == ["one ", "two", "two"]


async def test_reordered_updates_are_named(tmp_path: Path) -> None:
    report = await acp_test(tmp_path, """\
        name: swapped
        timeline:
          - userInputs: [[0, "go"]]
          - fault: {kind: reorder}
          - agentToolUse: {toolName: readFile, toolCallId: t1, args: {path: a.txt},
                           result: "text"}
          - llmResponse:
              - fault: {kind: reorder}  # the last update and the answer swap
              - assistant: [[10, "done"]]
        """)
    assert problems(report, "prompt 1") == [
        "update 1 of turn 1: a tool_call_update for toolCallId 't1' came before its tool_call"]
    assert problems(report, "updates after the answer") == [
        "1 session/update of turn 1 came after its session/prompt answer; ACP sends every "
        "update before the answer"]


CANCELLED = """\
    name: late
    timeline:
      - userInputs:
          - relativeTime: 0
            input: "go"
            expectedResponse: {{stopReason: {reason}}}
      - llmResponse: [{{assistant: [[10, "working "]]}}]
      - userCancelSession
      - llmResponse: [{{assistant: [[10, "wrapping up"]]}}]
      - fault: {{kind: lateResponse, ms: 300}}
      - llmResponse: [{{assistant: [[10, "never sent"]]}}]
    """


async def test_a_late_cancelled_answer_with_updates_after_the_cancel_is_tolerated(
        tmp_path: Path) -> None:
    report = await acp_test(tmp_path, CANCELLED.format(reason="cancelled"))
    assert report.ok, format_report(report)
    assert texts(report) == ["working ", "wrapping up"]
    order = [m["message"].get("method") or "answer" for m in report.transcript
             if m["message"].get("method") in ("session/cancel", "session/update")
             or "stopReason" in m["message"].get("result", {})]
    # the cancel may overtake the first update; the second comes after it, then the answer
    assert order[-2:] == ["session/update", "answer"] and "session/cancel" in order[:-2]


async def test_a_late_answer_other_than_cancelled_is_reported(tmp_path: Path) -> None:
    report = await acp_test(tmp_path, CANCELLED.format(reason="end_turn"))
    assert problems(report, "prompt 1") == [
        "session/prompt of turn 1 was answered with stopReason 'end_turn' after the client's "
        "session/cancel; ACP requires 'cancelled'"]


# -- seeded chaos -------------------------------------------------------------------------

CHAOS_SCENARIO = "name: chaos\ntimeline:\n" + "".join(
    f'  - userInputs: [[{100 * n}, "turn {n}"]]\n'
    f'  - llmResponse: [{{assistant: [[1, "a{n} "]]}}, {{assistant: [[1, "b{n} "]]}}, '
    f'{{assistant: [[1, "c{n}"]]}}]\n' for n in range(6))


def chaos_bytes(path: Path, tmp_path: Path, *chaos: str) -> bytes:
    """Everything ``scenarist acp --chaos`` writes on stdout for six prompt turns."""
    process = subprocess.Popen(
        agent_command("--speed", "0.01", "--session-id", "s", "--scenario", str(path), *chaos),
        env=child_env(), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL, cwd=tmp_path)
    assert process.stdin is not None and process.stdout is not None
    out = b""
    try:
        process.stdin.write(INIT + b'{"jsonrpc":"2.0","id":1,"method":"session/new",'
                            b'"params":{"cwd":"/tmp","mcpServers":[]}}\n')
        process.stdin.flush()
        for n in range(6):
            prompt = {"jsonrpc": "2.0", "id": 10 + n, "method": "session/prompt",
                      "params": {"sessionId": "s", "prompt": [{"type": "text", "text": "go"}]}}
            process.stdin.write(json.dumps(prompt).encode() + b"\n")
            process.stdin.flush()
            while f'"id":{10 + n},"result"'.encode() not in out:
                line = process.stdout.readline()
                assert line, out.decode()
                out += line
        process.stdin.close()
        out += process.stdout.read()
        assert process.wait(WAIT_S) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(WAIT_S)
    return out


def test_the_same_seed_gives_the_same_bytes_and_another_seed_others(tmp_path: Path) -> None:
    path = write_scenario(tmp_path, CHAOS_SCENARIO)
    kinds = ("--chaos", "1:malformed,duplicate,reorder,fragment")
    runs = [hashlib.sha256(chaos_bytes(path, tmp_path, *kinds, "--seed", seed)).hexdigest()
            for seed in ("7", "7", "8")]
    plain = hashlib.sha256(chaos_bytes(path, tmp_path)).hexdigest()
    assert runs[0] == runs[1]
    assert runs[0] != runs[2] and plain not in runs


def test_an_unreadable_chaos_is_a_usage_error(tmp_path: Path) -> None:
    path = write_scenario(tmp_path, CHAOS_SCENARIO)
    done = subprocess.run(agent_command("--scenario", str(path), "--chaos", "0.5:httpStatus"),
                          env=child_env(), capture_output=True, text=True, timeout=WAIT_S,
                          check=False, stdin=subprocess.PIPE)
    assert done.returncode == 2
    assert "--chaos: chaos '0.5:httpStatus': 'httpStatus' is not a fault kind played here" in (
        done.stderr)


def test_a_fault_the_agent_does_not_play_is_named_at_start(tmp_path: Path) -> None:
    path = write_scenario(tmp_path, """\
        name: http-only
        timeline:
          - userInputs: [[0, "go"]]
          - llmResponse:
              - assistant: [[10, "one"]]
              - fault: {kind: httpStatus, statusCode: 529}
        """)
    done = subprocess.run(agent_command("--scenario", str(path)), env=child_env(),
                          capture_output=True, text=True, timeout=WAIT_S, check=False,
                          input="")
    assert done.returncode == 0, done.stderr
    assert (f"{path}:6:16: warning: the ACP agent (scenarist acp) does not play httpStatus "
            "faults in an llmResponse; it is ignored here") in done.stderr


async def test_after_a_truncated_turn_the_next_prompt_is_served(tmp_path: Path) -> None:
    path = write_scenario(tmp_path, """\
        name: truncated-then-more
        timeline:
          - userInputs: [[0, "first"]]
          - llmResponse:
              - assistant: [[10, "one "]]
              - fault: {kind: truncate}
              - assistant: [[10, "lost"]]
          - userInputs: [[100, "second"]]
          - llmResponse: [{assistant: [[10, "two"]]}]
        """)

    class Quiet(acp.Client):
        def on_connect(self, conn: object) -> None:
            return None

        async def session_update(self, session_id: str, update: object, **kwargs: object
                                 ) -> None:
            return None

    command, *rest = agent_command("--speed", "0.01", "--scenario", str(path))
    async with acp.spawn_agent_process(Quiet(), command, *rest, env=child_env(),
                                       cwd=str(tmp_path),
                                       transport_kwargs={"stderr": subprocess.DEVNULL,
                                                         "shutdown_timeout": 5}
                                       ) as (conn, _process):
        await conn.initialize(protocol_version=1)
        session = await conn.new_session(cwd=str(tmp_path), mcp_servers=[])
        prompt = [s.TextContentBlock(type="text", text="go")]
        first = asyncio.create_task(conn.prompt(session_id=session.session_id, prompt=prompt))
        done, _ = await asyncio.wait({first}, timeout=1.0)
        assert not done  # never answered
        first.cancel()
        async with asyncio.timeout(WAIT_S):
            second = await conn.prompt(session_id=session.session_id, prompt=prompt)
        assert second.stop_reason == "end_turn"
