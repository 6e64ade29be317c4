"""Hostile ACP lines, both ways: ``scenarist acp`` answers every line as JSON-RPC 2.0 says
and lives on; ``acp-test`` against a hostile agent reports a clear failure, never crashes
or hangs, and leaves nothing of the agent running. The reproducers of issue 27 first, then
seeded fuzz tiers (``hostile.py`` makes the lines, ``hostile_agent.py`` is the agent)."""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from acpkit import EXAMPLES, agent_command, child_env, write_scenario
from hostile import Hostile

from scenarist.acp.client import AcpTestOptions, format_report, run_report
from scenarist.acp.stdio import STDIO_LIMIT
from scenarist.scenario import load_scenario

HERE = Path(__file__).parent
HOSTILE_AGENT = HERE / "hostile_agent.py"
SCENARIO = EXAMPLES / "acp-capabilities.yaml"
INIT = b'{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":1}}'
WAIT_S = 60.0  # a bound against a hang, never a timing assertion


def _strict(line: bytes) -> Any:
    def refuse(name: str) -> Any:
        raise AssertionError(f"the agent wrote {name}, which is not JSON: {line[:200]!r}")

    return json.loads(line, parse_constant=refuse)


class AgentPipe:
    """``scenarist acp`` as a subprocess, fed and read line by line; stderr in a file."""

    def __init__(self, tmp_path: Path, *args: str) -> None:
        self.err_path = tmp_path / "stderr.txt"
        self.err = self.err_path.open("wb")
        self.process = subprocess.Popen(
            agent_command("--speed", "0.01", "--scenario", str(SCENARIO), *args),
            env=child_env(), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.err,
            cwd=tmp_path)
        assert self.process.stdout is not None
        self.out = self.process.stdout
        self.buffer = b""

    def send(self, data: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(data + b"\n")
        self.process.stdin.flush()

    def reply(self) -> Any:
        """The next message the agent writes (bounded wait)."""
        deadline = time.monotonic() + WAIT_S
        while b"\n" not in self.buffer:
            left = deadline - time.monotonic()
            ready, _, _ = select.select([self.out], [], [], max(left, 0))
            assert ready, f"no answer within {WAIT_S} s; stderr: {self.stderr()[-2000:]}"
            chunk = os.read(self.out.fileno(), 1 << 20)
            assert chunk, f"the agent closed stdout (exit {self.process.wait()}): {self.stderr()}"
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        return _strict(line)

    def ask(self, data: bytes) -> Any:
        self.send(data)
        return self.reply()

    def stderr(self) -> str:
        if not self.err.closed:
            self.err.flush()
        return self.err_path.read_text(errors="replace")

    def close(self) -> int:
        assert self.process.stdin is not None
        self.process.stdin.close()
        code = self.process.wait(timeout=WAIT_S)
        self.err.close()
        return code

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        self.err.close()


@pytest.fixture
def pipe(tmp_path: Path) -> Iterator[AgentPipe]:
    agent = AgentPipe(tmp_path)
    try:
        yield agent
    finally:
        agent.kill()


def _error(reply: Any) -> tuple[Any, int]:
    assert isinstance(reply, dict) and reply["jsonrpc"] == "2.0", reply
    return reply["id"], reply["error"]["code"]


DEEP = b'{"jsonrpc":"2.0","id":8,"method":"x","params":' + b"[" * 5000 + b"]" * 5000 + b"}"
REPRODUCERS: list[tuple[bytes, Any, int]] = [  # a line, the id of its answer, the code
    (b"[]", None, -32600),
    (b'"s"', None, -32600),
    (b"42", None, -32600),
    (b"true", None, -32600),
    (b"1e400", None, -32600),
    (b"NaN", None, -32700),
    (b"null", None, -32600),
    (b"{not json", None, -32700),
    (b'{"jsonrpc":"2.0","id":6}', 6, -32600),
    (b'{"jsonrpc":"2.0","id":7,"method":null}', 7, -32600),
    (b'{"jsonrpc":"2.0","id":"m","method":5,"params":{}}', "m", -32600),
    (DEEP, 8, -32600),
    (b'{"jsonrpc":"2.0","id":9,"method":"session/new","params":"s"}', 9, -32600),
    (b'{"jsonrpc":"2.0","id":10,"method":"session/new","params":[1]}', 10, -32602),
    (b'{"jsonrpc":"2.0","id":11,"method":"session/new","params":{"cwd":5}}', 11, -32602),
    (b'{"jsonrpc":"2.0","id":12,"method":"session/nonsense","params":{}}', 12, -32601),
    (b'{"jsonrpc":"2.0","id":13,"method":"session/new","params":{"a":"\xff"}}', 13, -32700),
    (b'{"jsonrpc":"2.0","id":14,"method":"session/new","params":{"cwd":"/tm', 14, -32700),
    (b'{"jsonrpc":"1.0","id":15,"method":"session/new","params":{}}', 15, -32600),
    (b'{"jsonrpc":"2.0","id":[1],"method":"session/new"}', None, -32600),
    (b'{"jsonrpc":"2.0","id":1' + b"0" * 5000 + b',"method":"x"}', None, -32600),
    (b'{"jsonrpc":"2.0","id":16,"method":"x","params":{"n":1' + b"0" * 5000 + b"}}", 16,
     -32600),
    (b'{"jsonrpc":"2.0","id":17,"method":"initialize","params":{"protocolVersion":1,'
     b'"clientCapabilities":"x"}}', 17, -32602),
]


def test_every_reproducer_is_answered_and_the_agent_lives_on(pipe: AgentPipe) -> None:
    assert pipe.ask(INIT)["id"] == "init"
    for line, want_id, want_code in REPRODUCERS:
        assert _error(pipe.ask(line)) == (want_id, want_code), line[:80]
    batch = pipe.ask(b'[{"jsonrpc":"2.0","id":20,"method":"session/new","params":{}},'
                     b'{"jsonrpc":"2.0","method":"session/cancel","params":{}}, 3]')
    assert [_error(r) for r in batch] == [(20, -32600), (None, -32600)]
    assert [_error(r) for r in pipe.ask(b"[1]")] == [(None, -32600)]
    # a notification is never answered, even with bad params; the next request is
    pipe.send(b'{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":5}}')
    pipe.send(b'[{"jsonrpc":"2.0","method":"session/cancel","params":{}}]')
    # params that are no structure make it no notification: "Invalid Request", id null
    assert _error(pipe.ask(b'{"jsonrpc":"2.0","method":"session/cancel","params":"s"}')) == (
        None, -32600)
    made = pipe.ask(b'{"jsonrpc":"2.0","id":21,"method":"session/new",'
                    b'"params":{"cwd":"/tmp","mcpServers":[]}}')
    assert made["id"] == 21 and made["result"]["sessionId"]
    assert pipe.close() == 0
    stderr = pipe.stderr()
    assert "Traceback" not in stderr
    assert "line 2: invalid request: an empty batch" in stderr


def test_garbage_before_initialize_is_answered_then_initialize_works(pipe: AgentPipe) -> None:
    assert _error(pipe.ask(b"null")) == (None, -32600)  # once ended the agent silently
    assert _error(pipe.ask(b"[1]")[0]) == (None, -32600)
    assert pipe.ask(INIT)["result"]["protocolVersion"] == 1
    assert pipe.close() == 0 and "Traceback" not in pipe.stderr()


def test_an_initialize_with_capabilities_that_are_no_object_is_refused(pipe: AgentPipe
                                                                       ) -> None:
    bad = (b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,'
           b'"clientCapabilities":"fs"}}')
    reply = pipe.ask(bad)
    assert _error(reply) == (1, -32602) and "clientCapabilities" in reply["error"]["message"]
    assert pipe.ask(INIT)["result"]["protocolVersion"] == 1
    made = pipe.ask(b'{"jsonrpc":"2.0","id":2,"method":"session/new",'
                    b'"params":{"cwd":"/tmp","mcpServers":[]}}')
    assert made["result"]["sessionId"]
    assert pipe.close() == 0 and "Traceback" not in pipe.stderr()


def test_a_line_over_the_limit_is_answered_with_its_id(pipe: AgentPipe) -> None:
    assert pipe.ask(INIT)["id"] == "init"
    head = b'{"jsonrpc":"2.0","id":"big","method":"session/new","params":{"blob":"'
    pipe.send(head + b"x" * (STDIO_LIMIT + 10) + b'"}}')
    reply = pipe.reply()
    assert _error(reply) == ("big", -32600) and "longer than" in reply["error"]["message"]
    assert pipe.ask(b'{"jsonrpc":"2.0","id":3,"method":"nope","params":{}}')["id"] == 3
    assert pipe.close() == 0 and "Traceback" not in pipe.stderr()


@pytest.mark.fuzz
def test_fuzz_thousands_of_hostile_lines_never_end_scenarist_acp(pipe: AgentPipe) -> None:
    assert pipe.ask(INIT)["id"] == "init"
    lines = Hostile(seed=27).lines(3_000)
    assert len({line.category for line in lines}) >= 11
    waiting = {json.dumps(line.answer_id) for line in lines if line.waits}
    assert len(waiting) > 1_500

    def feed() -> None:
        for line in lines:
            pipe.send(line.data)
        pipe.send(b'{"jsonrpc":"2.0","id":"last","method":"session/new",'
                  b'"params":{"cwd":"/tmp","mcpServers":[]}}')

    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    answered: set[str] = set()
    nulls = 0
    while '"last"' not in answered or not waiting <= answered:
        reply = pipe.reply()
        for message in reply if isinstance(reply, list) else [reply]:
            assert message["jsonrpc"] == "2.0" and ("result" in message or "error" in message)
            answered.add(json.dumps(message["id"]))
            nulls += message["id"] is None
    writer.join(WAIT_S)
    assert nulls > 0
    assert pipe.close() == 0  # still alive until its stdin closed: 0 crashes
    stderr = pipe.stderr()
    assert "Traceback" not in stderr
    assert all(line.startswith("scenarist acp: ") for line in stderr.splitlines())


# -- a scripted error does not end playback --------------------------------------------


RETRY = """\
    name: retry
    timeline:
      - userInputs: [[0, "summarise"]]
      - llmResponse:
          - error: {errorType: rate_limit_exceeded, statusCode: 429, message: "slow down",
                    retryAfterSeconds: 1, details: {limit: 10, window: 1m}}
      - llmResponse:
          - error: {errorType: overloaded_error, statusCode: 529, message: "busy"}
      - llmResponse:
          - assistant: [[10, "The summary."]]
      - userInputs: [[100, "thanks"]]
      - llmResponse:
          - assistant: [[10, "You're welcome."]]
    """


def test_a_scripted_error_answers_one_prompt_and_the_retry_plays_on(pipe: AgentPipe,
                                                                    tmp_path: Path) -> None:
    pipe.kill()
    agent = AgentPipe(tmp_path, "--scenario", str(write_scenario(tmp_path, RETRY)),
                      "--scenario-name", "retry")
    try:
        assert agent.ask(INIT)["id"] == "init"
        session = agent.ask(b'{"jsonrpc":"2.0","id":1,"method":"session/new",'
                            b'"params":{"cwd":"/tmp","mcpServers":[]}}')["result"]["sessionId"]

        def prompt(n: int, text: str) -> list[Any]:
            agent.send(json.dumps({"jsonrpc": "2.0", "id": n, "method": "session/prompt",
                                   "params": {"sessionId": session,
                                              "prompt": [{"type": "text", "text": text}]}}
                                  ).encode())
            messages = [agent.reply()]
            while messages[-1].get("id") != n:
                messages.append(agent.reply())
            return messages

        first = prompt(2, "summarise")[-1]["error"]
        assert first["code"] == -32603 and first["data"] == {
            "errorType": "rate_limit_exceeded", "message": "slow down", "statusCode": 429,
            "details": {"limit": 10, "window": "1m"}, "retryAfterSeconds": 1}
        assert prompt(3, "summarise")[-1]["error"]["data"]["errorType"] == "overloaded_error"
        retried = prompt(4, "summarise")
        assert retried[-1]["result"]["stopReason"] == "end_turn"
        assert [m["params"]["update"]["content"]["text"] for m in retried[:-1]] == [
            "The summary."]
        thanks = prompt(5, "thanks")
        assert [m["params"]["update"]["content"]["text"] for m in thanks[:-1]] == [
            "You're welcome."]
        assert agent.close() == 0 and "Traceback" not in agent.stderr()
    finally:
        agent.kill()


async def test_acp_test_retries_after_a_scripted_error(tmp_path: Path) -> None:
    path = write_scenario(tmp_path, RETRY)
    report = await run_report(load_scenario(path), AcpTestOptions(
        command=tuple(agent_command("--speed", "0.01", "--scenario", str(path))),
        cwd=tmp_path / "ws", speed=0.01, timeout=WAIT_S, env=child_env()))
    assert report.ok, format_report(report)
    assert [c.name for c in report.checks if c.name.startswith("prompt")] == [
        "prompt 1", "prompt 1 retry 1", "prompt 1 retry 2", "prompt 2"]


def test_the_rate_limit_example_plays_through_acp_test(tmp_path: Path) -> None:
    path = EXAMPLES / "rate-limit-retry.yaml"
    agent = subprocess.list2cmdline(agent_command("--speed", "0.01", "--scenario", str(path)))
    done = subprocess.run([sys.executable, "-m", "scenarist", "acp-test", "--agent", agent,
                           "--scenario", str(path), "--speed", "0.01", "--timeout", "60"],
                          env=child_env(), capture_output=True, text=True, timeout=120,
                          check=False, cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "PASS rate-limit-retry: prompt 1 retry 1" in done.stdout


# -- acp-test against a hostile agent --------------------------------------------------


def _alive(pid: int) -> bool:
    """Whether ``pid`` still runs once a killed process has had time (bounded) to die."""
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (FileNotFoundError, ProcessLookupError):
            return False
        if state in ("Z", "X"):
            return False
        time.sleep(0.05)
    return True


def _hostile(tmp_path: Path, mode: str, seed: int = 0, lines: int = 0) -> tuple[str, ...]:
    return (sys.executable, str(HOSTILE_AGENT), mode, str(seed), str(lines),
            str(tmp_path / f"{mode}-{seed}.json"))


def _summary(tmp_path: Path, mode: str, seed: int = 0) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((tmp_path / f"{mode}-{seed}.json").read_text())
    return data


def test_acp_test_timeout_ends_the_run_and_the_agents_children(tmp_path: Path) -> None:
    agent = subprocess.list2cmdline(_hostile(tmp_path, "silent"))
    done = subprocess.run([sys.executable, "-m", "scenarist", "acp-test", "--agent", agent,
                           "--scenario", str(SCENARIO), "--timeout", "3"], env=child_env(),
                          capture_output=True, text=True, timeout=WAIT_S, check=False,
                          cwd=tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "no end after 3.0 s (--timeout)" in done.stdout
    assert "Traceback" not in done.stdout + done.stderr
    child = _summary(tmp_path, "silent")["child"]  # a child that ignores SIGTERM
    assert not _alive(child), f"the agent's child {child} is still running"


@pytest.mark.parametrize("mode", ["garbage", "broken-answers", "exit", "silent"])
def test_acp_test_reports_a_hostile_agent_as_a_clear_failure(tmp_path: Path, mode: str
                                                             ) -> None:
    agent = subprocess.list2cmdline(_hostile(tmp_path, mode, seed=1, lines=40))
    done = subprocess.run([sys.executable, "-m", "scenarist", "acp-test", "--agent", agent,
                           "--scenario", str(SCENARIO), "--timeout", "5"], env=child_env(),
                          capture_output=True, text=True, timeout=WAIT_S, check=False,
                          cwd=tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "FAIL acp-capabilities" in done.stdout and "Traceback" not in done.stdout
    assert not [line for line in done.stderr.splitlines()
                if not line.startswith("scenarist acp-test: ")], done.stderr


@pytest.mark.fuzz
async def test_fuzz_acp_test_against_hostile_agents(tmp_path: Path) -> None:
    scenario = load_scenario(SCENARIO)
    sent = 0
    for seed in range(16):
        mode = ("garbage", "broken-answers", "garbage", "exit")[seed % 4]
        options = AcpTestOptions(command=_hostile(tmp_path, mode, seed, 80), cwd=tmp_path / "ws",
                                 speed=0.01, timeout=10, quiet=True)
        report = await run_report(scenario, options)  # 0 crashes: nothing escapes
        failed = [c for c in report.checks if not c.ok]
        assert failed and all(c.problems for c in failed), format_report(report)
        summary = _summary(tmp_path, mode, seed)
        sent += summary["sent"]
        assert not summary["unanswered"], (seed, mode, summary["unanswered"][:5])
        assert not _alive(summary["child"])
    assert sent >= 1_000

