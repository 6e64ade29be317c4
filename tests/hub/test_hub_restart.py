"""``restart``: a fresh process for an agent, whether it runs, hangs or has exited."""

from __future__ import annotations

from typing import Any

from hubkit import agent, client, make_config, running_hub, text_of

LOOPS = ("asyncio", "uvloop")  # see conftest.py


def of(frames: list[dict[str, Any]], name: str) -> list[dict[str, Any]]:
    return [f for f in frames if f.get("agent") == name and f["type"] not in ("stdout", "stderr")]


async def test_restart_stops_the_running_process_and_starts_a_new_one() -> None:
    async with running_hub(make_config(agent("echo"))) as hub, client(hub) as c:
        await c.send(type="command", agent="echo", text="first")
        await c.until(lambda m: "echo: first\n" in text_of(c.seen))
        session = hub.hub.sessions["echo"]
        assert session.process is not None
        old_pid = session.process.pid
        start = len(c.seen)
        await c.send(type="restart", agent="echo")
        await c.until(lambda m: m["type"] == "status" and m["state"] == "running")
        assert of(c.seen[start:], "echo") == [
            {"type": "killed", "agent": "echo"},
            {"type": "exit", "agent": "echo", "code": None, "signal": "SIGTERM"},
            {"type": "status", "agent": "echo", "state": "exited"},
            {"type": "status", "agent": "echo", "state": "starting"},
            {"type": "status", "agent": "echo", "state": "running"},
        ]
        assert session.process is not None and session.process.pid != old_pid
        await c.send(type="command", agent="echo", text="second")
        await c.until(lambda m: "echo: second\n" in text_of(c.seen))
        assert text_of(c.seen) == "echo: first\necho: second\n"


async def test_restart_after_an_exit_reports_no_kill_and_an_idle_agent_just_starts() -> None:
    async with running_hub(make_config(agent("echo"))) as hub, client(hub) as c:
        await c.send(type="restart", agent="echo")  # never started: it starts, reads nothing
        await c.until(lambda m: m["type"] == "status" and m["state"] == "running")
        assert [f["state"] for f in of(c.seen, "echo")] == ["starting", "running"]
        await c.send(type="command", agent="echo", text="exit")
        await c.until_type("exit", "echo")
        start = len(c.seen)
        await c.send(type="restart", agent="echo")
        await c.until(lambda m: m["type"] == "status" and m["state"] == "running")
        assert [f["type"] for f in of(c.seen[start:], "echo")] == ["status", "status", "status"]
        assert "killed" not in [f["type"] for f in c.seen]
        # a second client sees the new run's output, and the replay keeps the old run's
        await c.send(type="command", agent="echo", text="after")
        await c.until(lambda m: "echo: after\n" in text_of(c.seen))
        async with client(hub) as late:
            await late.send(type="subscribe", agent="echo")
            await late.until_type("status", "echo")
            assert text_of(late.seen) == "echo: exit\necho: after\n"


async def test_restart_of_an_unknown_agent_is_an_error() -> None:
    async with running_hub(make_config(agent("echo"))) as hub, client(hub) as c:
        await c.send(type="restart", agent="nope")
        err = await c.until_type("error")
        assert "unknown agent 'nope'" in err[-1]["message"]
        assert hub.hub.sessions["echo"].process is None
