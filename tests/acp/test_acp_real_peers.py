"""Real ACP peers from the npm registry (pinned in tests/node/package.json).

- the official TypeScript SDK's client side (tests/node/acp_sdk_client.mjs) drives
  ``scenarist acp``;
- ``scenarist acp-test`` drives an agent built on the TypeScript SDK
  (tests/node/acp_sdk_agent.mjs; the SDK's own example agent is not in its npm package);
- ``scenarist acp-test`` drives claude-agent-acp (Claude Code's ACP adapter) whose model API
  is ``scenarist llm`` playing the same scenario: a whole session offline.
Every message ``acp-test`` exchanges is validated against the ACP JSON Schema.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from acpkit import EXAMPLES, REPO, agent_command, child_env, validate_messages, write_scenario

from scenarist.acp.client import AcpTestOptions, format_report, run_report
from scenarist.llm.process import run_server
from scenarist.scenario import load_scenario

NODE_DIR = REPO / "tests" / "node"
SDK = NODE_DIR / "node_modules" / "@agentclientprotocol" / "sdk"
SCENARIOS = Path(__file__).parent / "scenarios"


def node() -> str:
    found = shutil.which("node")
    assert found, "node is required (scripts/test installs the npm packages with it)"
    assert (SDK / "package.json").exists(), "run `npm ci` in tests/node (scripts/test does)"
    return found


def sdk_client(cwd: Path, prompts: list[str], agent: list[str]) -> dict[str, Any]:
    done = subprocess.run([node(), str(NODE_DIR / "acp_sdk_client.mjs"), str(cwd), *prompts,
                           "--", *agent], capture_output=True, text=True, timeout=120,
                          env=child_env(), stdin=subprocess.DEVNULL, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


@pytest.mark.real_agent
def test_typescript_sdk_client_drives_scenarist_acp(tmp_path: Path) -> None:
    path = write_scenario(tmp_path, """\
        name: ts-client
        timeline:
          - userInputs: [[0, "add a note"]]
          - llmResponse: [{think: [[10, "A note file."]]}, {assistant: [[10, "Adding it."]]}]
          - agentPermissionRequest:
              toolCall: {toolCallId: w1, title: Write note.md, kind: edit}
              options: [{id: yes, label: Allow, kind: allow_once}]
              granted: true
          - writeFile: {path: note.md, content: "# Note\\n", toolCallId: w1}
          - agentFileReads: {files: [{path: /etc/hostname}]}
          - userInputs: [[500, "thanks"]]
          - llmResponse: [{assistant: [[10, "You're welcome."]]}]
        """)
    seen = sdk_client(tmp_path, ["add a note", "thanks"],
                      agent_command("--speed", "0.01", "--scenario", str(path)))
    assert seen["exitCode"] == 0
    assert seen["initialize"]["protocolVersion"] == 1
    assert [a["stopReason"] for a in seen["answers"]] == ["end_turn", "end_turn"]
    kinds = [u["sessionUpdate"] for u in seen["updates"]]
    assert kinds == ["agent_thought_chunk", "agent_message_chunk", "tool_call",
                     "tool_call_update", "agent_message_chunk"]
    assert seen["permissions"][0]["toolCall"]["toolCallId"] == "w1"
    assert seen["written"] == {str(tmp_path / "note.md"): "# Note\n"}


@pytest.mark.real_agent
def test_typescript_sdk_client_plays_every_acp_example(tmp_path: Path) -> None:
    for name, prompts in [("rich-content", ["Fix the README title"]),
                          ("tool-tour", ["go"])]:
        seen = sdk_client(tmp_path, prompts, agent_command(
            "--speed", "0.01", "--scenario", str(EXAMPLES / f"{name}.yaml")))
        assert seen["exitCode"] == 0 and seen["answers"][0]["stopReason"] == "end_turn", name
        assert len(seen["updates"]) > 5, name


@pytest.mark.real_agent
async def test_acp_test_drives_a_typescript_sdk_agent(tmp_path: Path) -> None:
    scenario = load_scenario(SCENARIOS / "sdk-agent.yaml")
    report = await run_report(scenario, AcpTestOptions(
        command=(node(), str(NODE_DIR / "acp_sdk_agent.mjs")), cwd=tmp_path, speed=0.01,
        timeout=60, env=child_env()))
    assert report.ok, format_report(report)
    assert validate_messages(report.transcript) > 5
    assert (tmp_path / "notes.txt").read_text() == "written by the TS agent\n"
    texts = [u["content"]["text"] for u in report.updates
             if u["sessionUpdate"] == "agent_message_chunk"]
    assert texts == ["chunk 1 ", "chunk 2 ", "chunk 3 ", "done."]


@pytest.mark.real_agent
async def test_acp_test_reports_a_typescript_agent_that_differs(tmp_path: Path) -> None:
    path = write_scenario(tmp_path, """\
        name: differs
        timeline:
          - userInputs:
              - relativeTime: 0
                input: "write the notes"
                expectedResponse: {stopReason: refusal}
        """)
    report = await run_report(load_scenario(path), AcpTestOptions(
        command=(node(), str(NODE_DIR / "acp_sdk_agent.mjs")), cwd=tmp_path / "ws",
        speed=0.01, timeout=60, env=child_env()))
    text = format_report(report)
    assert not report.ok
    assert "stopReason: expected 'refusal', got 'end_turn'" in text
    assert "does not script" in text  # its permission request is not in this scenario


CLAUDE_ACP = NODE_DIR / "node_modules" / "@agentclientprotocol" / "claude-agent-acp"


@pytest.mark.real_agent
async def test_acp_test_drives_claude_agent_acp_on_scenarist_llm(tmp_path: Path) -> None:
    scenario_file = SCENARIOS / "claude-acp.yaml"
    work, config = tmp_path / "work", tmp_path / "config"
    work.mkdir()
    config.mkdir()
    with run_server(scenario_file, "--scenario-speed", "0.01") as server:
        env = {**child_env(), "ANTHROPIC_BASE_URL": server.base_url,
               "ANTHROPIC_API_KEY": "sk-test", "CLAUDE_CONFIG_DIR": str(config),
               "IS_SANDBOX": "1",  # the adapter runs Claude Code as root in CI
               "DISABLE_TELEMETRY": "1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
               "DISABLE_AUTOUPDATER": "1", "DISABLE_ERROR_REPORTING": "1",
               "CLAUDE_CODE_MAX_RETRIES": "0"}
        report = await run_report(load_scenario(scenario_file), AcpTestOptions(
            command=(node(), str(CLAUDE_ACP / "dist" / "index.js")), cwd=work, speed=0.01,
            timeout=180, env=env))
        journal = server.journal()
    assert report.ok, format_report(report)
    assert (work / "hello.txt").read_text() == "hello from scenarist\n"  # written for real
    asked = [m["message"]["params"] for m in report.transcript
             if m["message"].get("method") == "session/request_permission"]
    assert [a["toolCall"]["kind"] for a in asked] == ["edit"]
    answer = next(m["message"]["result"] for m in report.transcript
                  if m["direction"] == "client->agent" and "result" in m["message"]
                  and "outcome" in m["message"]["result"])
    assert answer["outcome"]["optionId"] == next(
        o["optionId"] for o in asked[0]["options"] if o["kind"] == "allow_once")
    texts = "".join(u["content"]["text"] for u in report.updates
                    if u["sessionUpdate"] == "agent_message_chunk")
    assert "Creating hello.txt." in texts and "hello.txt is in place." in texts
    assert [e["calls"] for e in journal if e["cwd"]][:2] == [["Write"], []]
    validate_messages(report.transcript)
