"""What the official ACP SDK's client does with each fault ``scenarist acp`` plays (issue 25):
observed against the real agent process, recorded as docs/faults.md's ACP rows.

The client is the ACP Python SDK's own (``acp.spawn_agent_process``: its stdio transport, not
``acp-test``'s checked one). Each test plays one fault and classifies what the caller of
``conn.prompt`` sees: the turn completes (and what arrived), an exception, or no answer at
all (a hang, ended by this test's bound, never by the SDK).
"""

from __future__ import annotations

import asyncio
import subprocess
from pathlib import Path
from typing import Any

import acp
import pytest
from acp import schema as s
from acpkit import agent_command, child_env, write_scenario

HANG_S = 3.0  # how long a prompt may go unanswered before the verdict is "hangs"

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
    seen = _Seen()
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
            return f"hangs: session/prompt is never answered (after {len(seen.texts)} updates)"
        if prompt.exception() is not None:
            exc = prompt.exception()
            return f"raises {type(exc).__name__}: {exc}"
        await asyncio.sleep(0.2)  # anything still on its way
        text = f"completes ({prompt.result().stop_reason}); text {''.join(seen.texts)!r}"
        late = len(seen.wire) - seen.wire.index("answer") - 1
        if late:
            text += f"; {late} update(s) read after the answer, handed on all the same"
        return text


@pytest.mark.parametrize(("fault", "where", "verdict"), [
    ("fragment", {"before": "- fault: {kind: fragment, bytes: 1}"},
     "completes (end_turn); text 'one two'"),
    ("malformed", {"inside": "- fault: {kind: malformed}"},
     "completes (end_turn); text 'one two'"),
    ("exit", {"inside": "- fault: {kind: exit, code: 3}"},
     "raises ConnectionError: Connection closed"),
    ("disconnect", {"inside": "- fault: {kind: disconnect}"},
     "raises ConnectionError: Connection closed"),
    ("stall", {"inside": "- fault: {kind: stall, ms: 200}"},
     "completes (end_turn); text 'one two'"),
    ("truncate", {"inside": "- fault: {kind: truncate}"},
     "hangs: session/prompt is never answered (after 1 updates)"),
    ("duplicate", {"inside": "- fault: {kind: duplicate}"},
     "completes (end_turn); text 'one twotwo'"),
    ("reorder", {"inside": "- fault: {kind: reorder}"},
     "completes (end_turn); text 'one two'; 1 update(s) read after the answer, handed on "
     "all the same"),
    ("stderr", {"inside": "- fault: {kind: stderr, text: noise}"},
     "completes (end_turn); text 'one two'"),
])
async def test_python_sdk_client(tmp_path: Path, fault: str, where: dict[str, str],
                                 verdict: str) -> None:
    assert await python_sdk(tmp_path, **where) == verdict


async def test_python_sdk_client_waits_for_a_late_answer_after_cancel(tmp_path: Path) -> None:
    verdict = await python_sdk(tmp_path, inside="", after="- userCancelSession\n"
                               "      - llmResponse: [{assistant: [[10, ' late']]}]\n"
                               "      - fault: {kind: lateResponse, ms: 300}", cancel=True)
    assert verdict == "completes (cancelled); text 'one two late'"
