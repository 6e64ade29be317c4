"""What the official ACP SDKs' clients do with each fault ``scenarist acp`` plays (issue 25):
observed against the real agent process, recorded as docs/faults.md's ACP rows.

The clients are the SDKs' own: the Python SDK's ``acp.spawn_agent_process`` (its stdio
transport, not ``acp-test``'s checked one) and the TypeScript SDK's ``ndJsonStream``
(tests/node/acp_sdk_fault_client.mjs). Each test plays one fault and classifies what the
caller of the prompt sees: the turn completes (and what arrived), an error, or no answer at
all (a hang, ended by this test's bound, never by the SDK).
"""

from __future__ import annotations

import asyncio
import json
import logging
import shutil
import subprocess
from collections.abc import Callable
from importlib.metadata import version
from pathlib import Path
from typing import Any

import acp
import pytest
from acp import schema as s
from acpkit import REPO, agent_command, child_env, write_scenario

HANG_S = 3.0  # how long a prompt may go unanswered before the verdict is "hangs"
PYTHON_SDK = f"ACP Python SDK {version('agent-client-protocol')} (spawn_agent_process)"
NODE_DIR = REPO / "tests" / "node"
TS_SDK_PACKAGE = NODE_DIR / "node_modules" / "@agentclientprotocol" / "sdk" / "package.json"

BASE = """\
    name: verdict
    timeline:
      - userInputs: [[0, "go"]]
      {before}
      - llmResponse:
          - assistant: [[10, "one "]]
          {inside}
          - assistant: [[10, "two"]]
      {after}
    """


class _Errors(logging.Handler):
    """The messages of the error records the SDK logs meanwhile."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


class _Seen(acp.Client):
    """Records the updates the SDK hands over, in order."""

    def __init__(self) -> None:
        self.texts: list[str] = []
        self.wire: list[str] = []  # "update" / "answer", in the order they were read

    def observe(self, event: Any) -> None:
        message = event.message
        if event.direction.value == "incoming":
            if message.get("method") == "session/update":
                self.wire.append("update")
            elif "stopReason" in (message.get("result") or {}):
                self.wire.append("answer")

    def on_connect(self, conn: Any) -> None:
        return None

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        if isinstance(update, s.AgentMessageChunk) and isinstance(update.content,
                                                                  s.TextContentBlock):
            self.texts.append(update.content.text)

    async def request_permission(self, *args: Any, **kwargs: Any) -> Any:
        raise acp.RequestError.method_not_found("session/request_permission")


async def python_sdk(tmp_path: Path, *, before: str = "", inside: str = "",
                     after: str = "", cancel: bool = False) -> str:
    """Play the fault to the Python SDK's client; its verdict in a few words."""
    path = write_scenario(tmp_path, BASE.format(before=before, inside=inside, after=after))
    seen, errors = _Seen(), _Errors()
    logging.getLogger().addHandler(errors)
    try:
        verdict = await _play(tmp_path, path, seen, cancel)
    finally:
        logging.getLogger().removeHandler(errors)
    if errors.messages:
        verdict += f"; it logs {', '.join(sorted(set(errors.messages)))!r}"
    return verdict


async def _play(tmp_path: Path, path: Path, seen: _Seen, cancel: bool) -> str:
    command, *rest = agent_command("--speed", "0.01", "--scenario", str(path))
    async with acp.spawn_agent_process(seen, command, *rest, env=child_env(), cwd=str(tmp_path),
                                       transport_kwargs={"stderr": subprocess.DEVNULL,
                                                         "shutdown_timeout": 5},
                                       observers=[seen.observe]) as (conn, _process):
        await conn.initialize(protocol_version=1)
        session = await conn.new_session(cwd=str(tmp_path), mcp_servers=[])
        prompt = asyncio.create_task(conn.prompt(session_id=session.session_id,
                                                 prompt=[s.TextContentBlock(type="text",
                                                                            text="go")]))
        if cancel:
            while not seen.texts and not prompt.done():
                await asyncio.sleep(0.01)
            await conn.cancel(session_id=session.session_id)
        done, _ = await asyncio.wait({prompt}, timeout=HANG_S)
        if not done:
            prompt.cancel()
            return (f"waits for ever: session/prompt is never answered (after "
                    f"{len(seen.texts)} update(s)); only the caller's own timeout ends it")
        exc = prompt.exception()
        if exc is not None:
            return f"the pending session/prompt raises {type(exc).__name__}: {exc} (no hang)"
        await asyncio.sleep(0.2)  # anything still on its way
        text = (f"session/prompt answers {prompt.result().stop_reason}; session_update saw "
                f"the text {''.join(seen.texts)!r}")
        late = len(seen.wire) - seen.wire.index("answer") - 1
        if late:
            text += f", {late} update(s) of it read after the answer and handed on all the same"
        return text


CASES: list[tuple[str, dict[str, str]]] = [
    ("fragment", {"before": "- fault: {kind: fragment, bytes: 1}"}),
    ("malformed", {"inside": "- fault: {kind: malformed}"}),
    ("exit", {"inside": "- fault: {kind: exit, code: 3}"}),
    ("disconnect", {"inside": "- fault: {kind: disconnect}"}),
    ("stall", {"inside": "- fault: {kind: stall, ms: 200}"}),
    ("truncate", {"inside": "- fault: {kind: truncate}"}),
    ("duplicate", {"inside": "- fault: {kind: duplicate}"}),
    ("reorder", {"inside": "- fault: {kind: reorder}"}),
    ("stderr", {"inside": "- fault: {kind: stderr, text: noise}"}),
    ("lateResponse", {"after": "- userCancelSession\n"
                               "      - llmResponse: [{assistant: [[10, ' late']]}]\n"
                               "      - fault: {kind: lateResponse, ms: 300}",
                      "cancel": "yes"}),
]


@pytest.mark.parametrize(("kind", "where"), CASES, ids=[c[0] for c in CASES])
async def test_python_sdk_client(tmp_path: Path, kind: str, where: dict[str, str],
                                 fault_verdict: Callable[[str, str, str, str], None]) -> None:
    observed = await python_sdk(tmp_path, before=where.get("before", ""),
                                inside=where.get("inside", ""), after=where.get("after", ""),
                                cancel="cancel" in where)
    fault_verdict("acp", PYTHON_SDK, kind, observed)


def _ts_sdk() -> str:
    found = shutil.which("node")
    assert found, "node is required (scripts/test installs the npm packages with it)"
    assert TS_SDK_PACKAGE.exists(), "run `npm ci` in tests/node (scripts/test does)"
    return found


def typescript_sdk(tmp_path: Path, *, before: str = "", inside: str = "", after: str = "",
                   cancel: bool = False) -> str:
    """Play the fault to the TypeScript SDK's client; its verdict in a few words."""
    path = write_scenario(tmp_path, BASE.format(before=before, inside=inside, after=after))
    done = subprocess.run(
        [_ts_sdk(), str(NODE_DIR / "acp_sdk_fault_client.mjs"), str(tmp_path),
         str(int(HANG_S * 1000)), "1" if cancel else "0", "--",
         *agent_command("--speed", "0.01", "--scenario", str(path))],
        capture_output=True, text=True, timeout=60, env=child_env(), stdin=subprocess.DEVNULL,
        check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    text = "".join(seen["texts"])
    if seen["outcome"] == "pending":
        verdict = (f"waits for ever: session/prompt is never answered (after "
                   f"{len(seen['texts'])} update(s)); only the caller's own timeout ends it")
    elif seen["outcome"] == "rejected":
        verdict = f"the pending session/prompt rejects: {seen['error']} (no hang)"
    else:
        verdict = (f"session/prompt answers {seen['stopReason']}; the update handler saw the "
                   f"text {text!r}")
    if seen["logged"]:
        verdict += f"; it logs {', '.join(sorted(set(seen['logged'])))!r}"
    return verdict


@pytest.mark.real_agent
@pytest.mark.parametrize(("kind", "where"), CASES, ids=[c[0] for c in CASES])
def test_typescript_sdk_client(tmp_path: Path, kind: str, where: dict[str, str],
                               fault_verdict: Callable[[str, str, str, str], None]) -> None:
    observed = typescript_sdk(tmp_path, before=where.get("before", ""),
                              inside=where.get("inside", ""), after=where.get("after", ""),
                              cancel="cancel" in where)
    sdk_version = json.loads(TS_SDK_PACKAGE.read_text())["version"]
    fault_verdict("acp", f"ACP TypeScript SDK {sdk_version} (ndJsonStream)", kind, observed)
