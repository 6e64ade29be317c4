"""A real consumer: the TypeScript @openai/codex-sdk (pinned in tests/node) drives fake-codex.

The SDK spawns ``<codexPathOverride> exec --experimental-json ...`` with its own
flags, writes the prompt to stdin and parses the JSONL it gets back; a second
turn resumes the thread (``... resume <thread id>``).
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from codexkit import FAKE_CODEX, REPO, subprocess_env

SCRIPT = Path(__file__).parent / "sdk_thread.mjs"
SDK = REPO / "tests" / "node" / "node_modules" / "@openai" / "codex-sdk"


def _run_thread(*prompts: str) -> dict:
    node = shutil.which("node")
    assert node, "node is required (scripts/test installs the npm packages with it)"
    assert (SDK / "dist" / "index.js").exists(), "run `npm ci` in tests/node (scripts/test does)"
    proc = subprocess.run(
        [node, str(SCRIPT), str(FAKE_CODEX), str(SDK), *prompts],
        capture_output=True,
        timeout=120,
        env=subprocess_env(),
        stdin=subprocess.DEVNULL,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr.decode()[-3000:]
    result: dict = json.loads(proc.stdout.decode().strip().splitlines()[-1])
    return result


@pytest.mark.real_agent
def test_codex_sdk_runs_a_thread_on_fake_codex() -> None:
    prompt = "help reasoning plan it; exec ls; patch; mcp; web q; plan a|b; message all done"
    result = _run_thread(prompt, "Now explain the change")
    first, second = result["turns"]
    assert first["finalResponse"] == "all done"
    kinds = [item["type"] for item in first["items"]]
    assert kinds == [
        "reasoning",
        "command_execution",
        "file_change",
        "mcp_tool_call",
        "web_search",
        "agent_message",
        "todo_list",
    ]
    by_kind = {item["type"]: item for item in first["items"]}
    assert by_kind["command_execution"]["command"] == "/bin/bash -lc ls"  # as Codex prints it
    assert by_kind["command_execution"]["exit_code"] == 0
    assert by_kind["file_change"]["changes"] == [
        {"path": "/repo/fake_agent_notes.md", "kind": "add"}
    ]
    assert by_kind["web_search"]["query"] == "q"
    assert first["usage"]["output_tokens"] > 0
    assert first["usage"]["cache_write_input_tokens"] == 0  # filled in by the SDK
    # the second turn resumed the same thread (the SDK passed `resume <id>`)
    assert result["threadId"] and result["secondThreadId"] == result["threadId"]
    assert result["streamed"][0] == "thread.started" and result["streamed"][-1] == "turn.completed"
    assert second["items"][-1]["type"] == "agent_message"
    assert "Now explain the change" in second["items"][-1]["text"]


@pytest.mark.real_agent
def test_codex_sdk_sees_a_failed_turn() -> None:
    node = shutil.which("node")
    assert node
    script = (
        "import path from 'node:path'; import {pathToFileURL} from 'node:url';"
        "const [fake, dir] = process.argv.slice(1);"
        "const sdk = await import(pathToFileURL(path.join(dir, 'dist', 'index.js')).href);"
        "const t = new sdk.Codex({codexPathOverride: fake}).startThread();"
        "try { await t.run('help error the model is overloaded'); console.log('no error'); }"
        "catch (e) { console.log('thrown: ' + e.message); }"
    )
    proc = subprocess.run(
        [node, "--input-type=module", "-e", script, str(FAKE_CODEX), str(SDK)],
        capture_output=True,
        timeout=120,
        env=subprocess_env(),
        stdin=subprocess.DEVNULL,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr.decode()[-3000:]
    assert proc.stdout.decode().strip() == "thrown: the model is overloaded"
