"""The default ``fake-codex`` agent (our fake Codex CLI in interactive mode) through the hub."""

from __future__ import annotations

import asyncio
import json
from dataclasses import replace

import pytest
from hubkit import TOKEN, client, running_hub, text_of

from scenarist.hub.config import HubConfig, Limits, default_agents


def events(text: str) -> list[dict[str, object]]:
    return [json.loads(line)["params"]["msg"] for line in text.splitlines() if line.strip()]


async def test_default_fake_codex_runs_turns_per_line_and_can_be_killed() -> None:
    config = HubConfig(agents=default_agents(), token=TOKEN, limits=Limits(kill_grace_s=2.0))
    async with running_hub(config) as hub, client(hub) as c:
        await c.send(type="command", agent="fake-codex", text="hello hub")
        await c.until(lambda m: '"task_complete"' in text_of(c.seen))
        await c.send(type="command", agent="fake-codex", text="second prompt")
        await c.until(lambda m: text_of(c.seen).count('"task_complete"') == 2)
        kinds = [e["type"] for e in events(text_of(c.seen))]
        assert kinds[0] == "session_configured"
        assert kinds.count("task_started") == 2 and kinds[-1] == "task_complete"
        messages = [e["message"] for e in events(text_of(c.seen)) if e["type"] == "agent_message"]
        assert len(messages) == 2
        await c.send(type="kill", agent="fake-codex")
        frames = await c.until_type("exit", "fake-codex")
        assert [f["type"] for f in frames][-2:] == ["killed", "exit"]
        assert frames[-1]["signal"] == "SIGTERM"


async def test_a_finished_command_is_done_and_not_timed_out() -> None:
    """Seed 004: the timeout must not fire for a command that fake-codex already finished."""
    agents = default_agents()
    agents["fake-codex"] = replace(agents["fake-codex"], timeout_s=0.5)
    config = HubConfig(agents=agents, token=TOKEN, limits=Limits(kill_grace_s=2.0))
    async with running_hub(config) as hub, client(hub) as c:
        await c.send(type="command", agent="fake-codex", text="hello hub")
        frames = await c.until_type("done", "fake-codex")
        assert '"task_complete"' in text_of(frames)  # done comes after the turn's last event
        assert 0 <= frames[-1]["after_s"] < 60
        with pytest.raises(TimeoutError):  # twice the timeout passes without a "timeout"
            await asyncio.wait_for(c.until_type("timeout", "fake-codex"), 1.0)
        assert hub.hub.sessions["fake-codex"].state == "running"
