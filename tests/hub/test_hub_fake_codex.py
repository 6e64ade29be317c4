"""The default ``fake-codex`` agent (our fake Codex CLI in interactive mode) through the hub."""

from __future__ import annotations

import json

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
