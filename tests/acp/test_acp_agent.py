"""``scenarist acp`` as a subprocess, driven by the ACP SDK's Python client side.

Every message either side sends is validated against the ACP JSON Schema.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import acp
import pytest
from acp import schema as s
from acpkit import EXAMPLES, agent_command, child_env, validate_messages, write_scenario

TURN = """\
    name: turn
    acp: {capabilities: {loadSession: false}}
    timeline:
      - userInputs: [[0, "fix the greeting"]]
      - llmResponse:
          - think: [[10, "Look at hello.py first."]]
          - assistant: [[10, "I'll fix it."]]
      - agentPlan:
          entries: [{content: Fix the greeting, priority: high, status: in_progress}]
      - agentToolUse:
          toolName: readFile
          toolCallId: read-1
          args: {path: hello.py}
          result: "print('hi')"
          status: ok
      - runCmd:
          cmd: "printf 'ran\\\\n'"
          toolCallId: run-1
          progress: [[10, starting]]
          result: ran
      - agentPermissionRequest:
          toolCall: {toolCallId: edit-1, title: Edit hello.py, kind: edit}
          options:
            - {id: yes, label: Allow, kind: allow_once}
            - {id: no, label: Reject, kind: reject_once}
          granted: true
      - editFile:
          toolCallId: edit-1
          path: hello.py
          old_string: "hi"
          new_string: "hello"
      - agentFileReads:
          files: [{path: /workspace/notes.txt, expectedContent: "scripted notes"}]
      - llmResponse:
          - assistant: [[10, "Done."]]
    """


class Recorder(acp.Client):
    """A client that records every update and answers from a small table."""

    def __init__(self, workspace: Path, *, decision: str | None = None,
                 files: dict[str, str] | None = None) -> None:
        self.workspace = workspace
        self.updates: list[dict[str, Any]] = []
        self.decision = decision
        self.files = files or {}
        self.asked: list[s.RequestPermissionRequest] = []
        self.written: dict[str, str] = {}
        self.terminals: dict[str, subprocess.CompletedProcess[str]] = {}

    def on_connect(self, conn: Any) -> None:
        return None

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        self.updates.append(update.model_dump(mode="json", by_alias=True, exclude_none=True))

    async def request_permission(self, session_id: str, tool_call: Any, options: Any,
                                 **kwargs: Any) -> s.RequestPermissionResponse:
        self.asked.append(s.RequestPermissionRequest(session_id=session_id, tool_call=tool_call,
                                                     options=options))
        if self.decision is None:
            return s.RequestPermissionResponse(outcome=s.DeniedOutcome(outcome="cancelled"))
        return s.RequestPermissionResponse(outcome=s.AllowedOutcome(outcome="selected",
                                                                    option_id=self.decision))

    async def read_text_file(self, session_id: str, path: str, line: int | None = None,
                             limit: int | None = None, **kwargs: Any) -> s.ReadTextFileResponse:
        return s.ReadTextFileResponse(content=self.files[path])

    async def write_text_file(self, session_id: str, path: str, content: str,
                              **kwargs: Any) -> s.WriteTextFileResponse:
        self.written[path] = content
        return s.WriteTextFileResponse()

    async def create_terminal(self, session_id: str, command: str, args: Any = None,
                              env: Any = None, cwd: Any = None, output_byte_limit: Any = None,
                              **kwargs: Any) -> s.CreateTerminalResponse:
        ran = subprocess.run([command, *(args or [])], cwd=cwd, capture_output=True, text=True,
                             check=False, timeout=30)
        terminal_id = f"t{len(self.terminals) + 1}"
        self.terminals[terminal_id] = ran
        return s.CreateTerminalResponse(terminal_id=terminal_id)

    async def wait_for_terminal_exit(self, session_id: str, terminal_id: str,
                                     **kwargs: Any) -> s.WaitForTerminalExitResponse:
        return s.WaitForTerminalExitResponse(exit_code=self.terminals[terminal_id].returncode)

    async def release_terminal(self, session_id: str, terminal_id: str,
                               **kwargs: Any) -> s.ReleaseTerminalResponse:
        return s.ReleaseTerminalResponse()

    async def kill_terminal(self, session_id: str, terminal_id: str,
                            **kwargs: Any) -> s.KillTerminalResponse:
        return s.KillTerminalResponse()


FULL_CAPS = s.ClientCapabilities(fs=s.FileSystemCapabilities(read_text_file=True,
                                                             write_text_file=True),
                                 terminal=True)


@contextlib.asynccontextmanager
async def agent(client: Recorder, *args: str, misuse: bool = False
                ) -> AsyncIterator[tuple[Any, list[dict[str, Any]]]]:
    """``scenarist acp ARGS`` with ``client``; yields the connection and the live transcript,
    which is schema-validated when the block ends."""
    messages: list[dict[str, Any]] = []

    def observe(event: Any) -> None:
        direction = "client->agent" if event.direction.value == "outgoing" else "agent->client"
        messages.append({"direction": direction, "message": event.message})

    command, *rest = agent_command("--speed", "0.01", *args)
    async with acp.spawn_agent_process(client, command, *rest, env=child_env(),
                                       cwd=str(client.workspace), observers=[observe],
                                       transport_kwargs={"stderr": None, "shutdown_timeout": 60}
                                       ) as (conn, process):
        yield conn, messages
    assert process.returncode == 0
    validate_messages(messages, misuse=misuse)


async def test_a_turn_streams_every_kind_of_update(tmp_path: Path) -> None:
    path = write_scenario(tmp_path, TURN)
    client = Recorder(tmp_path, decision="yes",
                      files={str(tmp_path / "hello.py"): "print('hi')\n",
                             "/workspace/notes.txt": "scripted notes"})
    async with agent(client, "--scenario", str(path)) as (conn, _):
        init = await conn.initialize(protocol_version=1, client_capabilities=FULL_CAPS)
        assert init.protocol_version == 1 and init.agent_capabilities.load_session is False
        session = await conn.new_session(cwd=str(tmp_path), mcp_servers=[])
        answer = await conn.prompt(session_id=session.session_id,
                                   prompt=[acp.text_block("fix the greeting")])
    assert answer.stop_reason == "end_turn"
    kinds = [u["sessionUpdate"] for u in client.updates]
    assert kinds[:3] == ["agent_thought_chunk", "agent_message_chunk", "plan"]
    assert kinds[-1] == "agent_message_chunk" and client.updates[-1]["content"]["text"] == "Done."
    calls = {u["toolCallId"]: u for u in client.updates if u["sessionUpdate"] == "tool_call"}
    read, run, edit = calls["read-1"], calls["run-1"], calls["edit-1"]
    assert read["kind"] == "read" and read["locations"] == [{"path": str(tmp_path / "hello.py")}]
    assert read["rawInput"] == {"path": "hello.py"}
    assert run["kind"] == "execute" and run["content"][0]["type"] == "terminal"
    assert edit["kind"] == "edit" and edit["content"][0] == {
        "type": "diff", "path": str(tmp_path / "hello.py"), "oldText": "hi", "newText": "hello"}
    done = [u for u in client.updates if u["sessionUpdate"] == "tool_call_update"
            and u.get("status") in ("completed", "failed")]
    assert {u["toolCallId"] for u in done} == {"read-1", "run-1", "edit-1"}
    assert next(u for u in done if u["toolCallId"] == "read-1")["rawOutput"] == "print('hi')"
    assert next(u for u in done if u["toolCallId"] == "run-1")["rawOutput"] == {
        "result": "ran", "exitCode": 0}
    assert client.terminals["t1"].stdout == "ran\n"
    assert client.written == {str(tmp_path / "hello.py"): "print('hello')\n"}
    (asked,) = client.asked
    assert asked.tool_call.tool_call_id == "edit-1"
    assert [o.option_id for o in asked.options] == ["yes", "no"]


async def test_a_rejected_permission_skips_the_action_it_guards(tmp_path: Path) -> None:
    path = write_scenario(tmp_path, TURN)
    client = Recorder(tmp_path, decision="no",
                      files={"/workspace/notes.txt": "scripted notes"})
    async with agent(client, "--scenario", str(path)) as (conn, _):
        await conn.initialize(protocol_version=1, client_capabilities=FULL_CAPS)
        session = await conn.new_session(cwd=str(tmp_path), mcp_servers=[])
        answer = await conn.prompt(session_id=session.session_id, prompt=[acp.text_block("go")])
    assert answer.stop_reason == "end_turn"
    assert "edit-1" not in {u["toolCallId"] for u in client.updates if "toolCallId" in u}
    assert client.written == {}  # the edit was not made
    assert client.updates[-1]["content"]["text"] == "Done."  # the turn went on


async def test_a_cancelled_permission_ends_the_turn_cancelled(tmp_path: Path) -> None:
    path = write_scenario(tmp_path, TURN)
    client = Recorder(tmp_path, decision=None)
    async with agent(client, "--scenario", str(path)) as (conn, _):
        await conn.initialize(protocol_version=1, client_capabilities=FULL_CAPS)
        session = await conn.new_session(cwd=str(tmp_path), mcp_servers=[])
        answer = await conn.prompt(session_id=session.session_id, prompt=[acp.text_block("go")])
    assert answer.stop_reason == "cancelled"
    assert client.updates[-1]["sessionUpdate"] != "agent_message_chunk"


async def test_without_client_capabilities_no_client_methods_are_called(tmp_path: Path) -> None:
    path = write_scenario(tmp_path, TURN)
    client = Recorder(tmp_path, decision="yes")
    async with agent(client, "--scenario", str(path)) as (conn, messages):
        await conn.initialize(protocol_version=1)
        session = await conn.new_session(cwd=str(tmp_path), mcp_servers=[])
        await conn.prompt(session_id=session.session_id, prompt=[acp.text_block("go")])
    methods = {m["message"].get("method") for m in messages if m["direction"] == "agent->client"}
    assert methods == {"session/update", "session/request_permission", None}
    run = next(u for u in client.updates if u.get("toolCallId") == "run-1")
    assert "content" not in run  # no terminal: the scripted output is shown instead
    run_done = [u for u in client.updates if u.get("toolCallId") == "run-1"][-1]
    assert run_done["content"][0]["content"]["text"] == "starting\n"


async def test_cancel_answers_cancelled_at_once(tmp_path: Path) -> None:
    path = write_scenario(tmp_path, """\
        name: slow
        timeline:
          - userInputs: [[0, "take your time"]]
          - llmResponse: [{assistant: [[100000, "never shown"]]}]
        """)
    client = Recorder(tmp_path)
    async with agent(client, "--scenario", str(path), "--speed", "1") as (conn, _):
        await conn.initialize(protocol_version=1)
        session = await conn.new_session(cwd=str(tmp_path), mcp_servers=[])
        turn = asyncio.create_task(conn.prompt(session_id=session.session_id,
                                               prompt=[acp.text_block("take your time")]))
        await asyncio.sleep(0.2)
        await conn.cancel(session_id=session.session_id)
        answer = await asyncio.wait_for(turn, 60)
    assert answer.stop_reason == "cancelled" and client.updates == []


async def test_scripted_cancel_waits_for_the_clients_cancel(tmp_path: Path) -> None:
    path = write_scenario(tmp_path, """\
        name: cancel
        timeline:
          - userInputs: [[1000, "go"]]
          - llmResponse: [{assistant: [[10, "working"]]}]
          - userCancelSession
        """)
    client = Recorder(tmp_path)
    async with agent(client, "--scenario", str(path)) as (conn, _):
        await conn.initialize(protocol_version=1)
        session = await conn.new_session(cwd=str(tmp_path), mcp_servers=[])
        turn = asyncio.create_task(conn.prompt(session_id=session.session_id,
                                               prompt=[acp.text_block("go")]))
        while not client.updates:
            await asyncio.sleep(0.01)
        assert not turn.done()  # the agent waits for the cancel the scenario scripts
        await conn.cancel(session_id=session.session_id)
        answer = await asyncio.wait_for(turn, 60)
    assert answer.stop_reason == "cancelled"
    assert [u["content"]["text"] for u in client.updates] == ["working"]


async def test_load_replays_history_then_answers(tmp_path: Path) -> None:
    client = Recorder(tmp_path)
    async with agent(client, "--scenario", str(EXAMPLES / "load-session.yaml")) as (conn, msgs):
        init = await conn.initialize(protocol_version=1)
        assert init.agent_capabilities.load_session is True
        await conn.load_session(cwd=str(tmp_path), session_id="old-session", mcp_servers=[])
        replayed = list(client.updates)
        answer_at = next(i for i, m in enumerate(msgs) if m["direction"] == "agent->client"
                         and m["message"].get("id") == 1 and "result" in m["message"])
        assert all(m["message"].get("method") == "session/update" for m in msgs[3:answer_at])
        answer = await conn.prompt(session_id="old-session", prompt=[acp.text_block("Now run it")])
    assert [u["sessionUpdate"] for u in replayed] == [
        "user_message_chunk", "agent_message_chunk", "plan", "tool_call"]
    assert replayed[0]["content"]["text"] == "Make the greeting friendlier"
    assert answer.stop_reason == "end_turn"
    live = client.updates[len(replayed):]
    assert live[0]["sessionUpdate"] == "agent_thought_chunk"


async def test_prompt_selects_the_nearest_scenario(tmp_path: Path) -> None:
    write_scenario(tmp_path, "name: alpha\ntimeline:\n  - userInputs: [[0, 'write the alpha report']]\n"
                   "  - llmResponse: [{assistant: [[1, alpha]]}]\n", "alpha.yaml")
    write_scenario(tmp_path, "name: beta\ntimeline:\n  - userInputs: [[0, 'deploy beta now']]\n"
                   "  - llmResponse: [{assistant: [[1, beta]]}]\n", "beta.yaml")
    client = Recorder(tmp_path)
    async with agent(client, "--scenario", str(tmp_path)) as (conn, _):
        await conn.initialize(protocol_version=1)
        one = await conn.new_session(cwd=str(tmp_path), mcp_servers=[])
        two = await conn.new_session(cwd=str(tmp_path), mcp_servers=[])
        assert one.session_id != two.session_id
        await conn.prompt(session_id=one.session_id, prompt=[acp.text_block("deploy beta")])
        await conn.prompt(session_id=two.session_id, prompt=[acp.text_block("alpha report")])
        with pytest.raises(acp.RequestError) as info:  # beta has one turn only
            await conn.prompt(session_id=one.session_id, prompt=[acp.text_block("again")])
        assert info.value.code == -32600
    assert [u["content"]["text"] for u in client.updates] == ["beta", "alpha"]


async def test_client_misuse_gets_acp_error_codes(tmp_path: Path) -> None:
    path = write_scenario(tmp_path, """\
        name: err
        timeline:
          - userInputs: [[0, "hi"]]
          - llmResponse:
              - error: {errorType: overloaded_error, statusCode: 529, message: "busy"}
        """)
    client = Recorder(tmp_path)
    async with agent(client, "--scenario", str(path), misuse=True) as (conn, _):
        with pytest.raises(acp.RequestError) as info:
            await conn.new_session(cwd=str(tmp_path), mcp_servers=[])
        assert info.value.code == -32600 and "initialize" in str(info.value.data)
        await conn.initialize(protocol_version=1)
        with pytest.raises(acp.RequestError) as info:
            await conn.prompt(session_id="nope", prompt=[acp.text_block("hi")])
        assert info.value.code == -32002
        raw = conn._conn  # a request the typed client cannot build: no cwd
        with pytest.raises(acp.RequestError) as info:
            await raw.send_request("session/new", {"mcpServers": []})
        assert info.value.code == -32602
        with pytest.raises(acp.RequestError) as info:
            await raw.send_request("session/nonsense", {})
        assert info.value.code == -32601
        session = await conn.new_session(cwd=str(tmp_path), mcp_servers=[])
        with pytest.raises(acp.RequestError) as info:
            await conn.set_session_mode(session_id=session.session_id, mode_id="turbo")
        assert info.value.code == -32602
        with pytest.raises(acp.RequestError) as info:  # the scenario's error element
            await conn.prompt(session_id=session.session_id, prompt=[acp.text_block("hi")])
    assert info.value.code == -32603
    assert info.value.data["errorType"] == "overloaded_error"
    assert info.value.data["statusCode"] == 529


@pytest.mark.parametrize("mid_turn", [False, True])
def test_agent_exits_cleanly_when_the_client_goes_away(tmp_path: Path, mid_turn: bool) -> None:
    path = write_scenario(tmp_path, """\
        name: slow
        timeline:
          - userInputs: [[0, "go"]]
          - runCmd: {cmd: "sleep 100"}
          - llmResponse: [{assistant: [[100000, "never shown"]]}]
        """)
    requests = [{"method": "initialize", "params": {"protocolVersion": 1}}]
    if mid_turn:
        requests += [{"method": "session/new", "params": {"cwd": str(tmp_path), "mcpServers": []}},
                     {"method": "session/prompt", "params": {
                         "sessionId": "scenarist-1", "prompt": [{"type": "text", "text": "go"}]}}]
    process = subprocess.Popen(agent_command("--scenario", str(path)), env=child_env(),
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE)
    try:
        assert process.stdin is not None and process.stdout is not None
        for n, request in enumerate(requests):
            process.stdin.write(json.dumps({"jsonrpc": "2.0", "id": n, **request}).encode() + b"\n")
        process.stdin.flush()
        assert b'"protocolVersion":1' in process.stdout.readline()
        if mid_turn:
            assert b'"sessionId":"scenarist-1"' in process.stdout.readline()
        process.stdin.close()
        assert process.wait(timeout=60) == 0
        rest = [json.loads(line) for line in process.stdout.read().splitlines()]
        assert all(m.get("method") == "session/update" for m in rest)  # no answer, no crash
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def test_usage_errors_exit_2(tmp_path: Path) -> None:
    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "scenarist", "acp", *args], env=child_env(),
                              capture_output=True, text=True, timeout=60, check=False)

    missing = run("--scenario", str(tmp_path / "none.yaml"))
    assert missing.returncode == 2 and "no such file" in missing.stderr
    bad = run("--scenario", str(EXAMPLES / "load-session.yaml"), "--speed", "0")
    assert bad.returncode == 2 and "--speed" in bad.stderr
    unknown = run("--scenario", str(EXAMPLES), "--scenario-name", "no-such")
    assert unknown.returncode == 2 and "no scenario is named" in unknown.stderr
    mcp = run("--scenario", str(EXAMPLES / "load-session.yaml"), "--mcp-servers", "{")
    assert mcp.returncode == 2 and "not JSON" in mcp.stderr
    with (tmp_path / "out.txt").open("w") as out:
        to_file = subprocess.run([sys.executable, "-m", "scenarist", "acp", "--scenario",
                                  str(EXAMPLES / "load-session.yaml")], env=child_env(),
                                 stdin=subprocess.PIPE, stdout=out, stderr=subprocess.PIPE,
                                 text=True, timeout=60, check=False)
    assert to_file.returncode == 2 and "stdout is a file" in to_file.stderr
