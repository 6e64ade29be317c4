"""The hub end to end over a real WebSocket: spawn, stream, exit, kill, timeout, fan-out, replay."""

from __future__ import annotations

import asyncio
import sys
from typing import Any

import pytest
from hubkit import (
    AGENTS,
    Client,
    agent,
    client,
    kill_leftover,
    make_config,
    process_gone,
    running_hub,
    text_of,
    wait_gone,
)
from websockets.asyncio.client import connect

from daemonkit import Daemons
from scenarist.hub.config import AgentSpec, Limits

LOOPS = ("asyncio", "uvloop")  # see conftest.py


def flood_text(total: int) -> str:
    """What flood_agent.py writes for ``total`` bytes."""
    block = "".join(f"{i:063d}\n" for i in range(1024))
    return (block * (total // len(block) + 1))[:total]


def states(frames: list[dict[str, Any]], name: str) -> list[str]:
    return [f["state"] for f in frames if f["type"] == "status" and f["agent"] == name]


async def test_first_command_spawns_the_agent_then_stdin_gets_each_command() -> None:
    async with running_hub(make_config(agent("echo"))) as hub, client(hub) as c:
        await c.send(type="command", agent="echo", text="hello")
        await c.until(lambda m: "err: hello\n" in text_of(c.seen, "stderr"))
        assert states(c.seen, "echo") == ["starting", "running"]
        pid = hub.hub.sessions["echo"].process.pid  # type: ignore[union-attr]
        await c.send(type="command", agent="echo", text="second line")
        await c.until(lambda m: "echo: second line\n" in text_of(c.seen))
        assert hub.hub.sessions["echo"].process.pid == pid  # type: ignore[union-attr]
        assert text_of(c.seen) == "echo: hello\necho: second line\n"
        await c.send(type="command", agent="echo", text="exit")
        frames = await c.until_type("status")
        assert [f for f in frames if f["type"] == "exit"] == [
            {"type": "exit", "agent": "echo", "code": 3, "signal": None}]
        assert frames[-1]["state"] == "exited"
        # The next command starts a new process.
        await c.send(type="command", agent="echo", text="again")
        await c.until(lambda m: "echo: again\n" in text_of(c.seen))
        assert states(c.seen, "echo")[-2:] == ["starting", "running"]
        assert hub.hub.sessions["echo"].process.pid != pid  # type: ignore[union-attr]


async def test_a_trickle_is_forwarded_line_by_line_not_held_for_a_large_read() -> None:
    # Reads ask for up to 1 MiB; each line must still go out at once, as its own frame, while
    # the agent waits for the next command (nothing else will ever fill that read).
    async with running_hub(make_config(agent("echo"))) as hub, client(hub) as c:
        for i in range(20):
            await c.send(type="command", agent="echo", text=str(i))
            frames = await c.until_type("stdout", "echo")
            assert frames[-1]["data"] == f"echo: {i}\n"


async def test_a_flood_arrives_whole_and_in_order() -> None:
    total = 8 * 1024 * 1024  # several 1 MiB pipe fills and reads
    async with running_hub(make_config(agent("flood", str(total)))) as hub, client(hub) as c:
        await c.send(type="command", agent="flood", text="go")
        frames = await c.until_type("exit", "flood")
        assert text_of(frames) == flood_text(total)


async def test_several_clients_watch_one_agent() -> None:
    async with running_hub(make_config(agent("echo"))) as hub, \
            client(hub) as a, client(hub) as b:
        await b.send(type="subscribe", agent="echo")
        await b.until_type("status", "echo")  # subscribed: replay (empty) then the state
        await a.send(type="command", agent="echo", text="to all")
        for c in (a, b):
            await c.until(lambda m, c=c: "echo: to all\n" in text_of(c.seen))


async def test_a_late_subscriber_first_gets_the_last_megabyte() -> None:
    total = 3 * 1024 * 1024
    async with running_hub(make_config(agent("flood", str(total)))) as hub:
        async with client(hub) as a:
            await a.send(type="command", agent="flood", text="go")
            await a.until_type("exit", "flood")
            assert text_of(a.seen) == flood_text(total)
        async with client(hub) as late:
            await late.send(type="subscribe", agent="flood")
            frames = await late.until_type("exit", "flood")
        replay = text_of(frames)
        assert len(replay) == 1024 * 1024
        assert replay == flood_text(total)[-1024 * 1024:]
        assert [f for f in frames if f["type"] == "status"][-1]["state"] == "exited"
        assert frames[-1]["code"] == 0


def delivered(frames: list[dict[str, Any]]) -> tuple[int, int]:
    """(bytes of output received, bytes reported skipped) for one client."""
    return (len(text_of(frames)), sum(f["bytes"] for f in frames if f["type"] == "skipped"))


async def test_a_slow_client_skips_output_and_never_stalls_the_agent_or_others() -> None:
    total = 32 * 1024 * 1024
    async with running_hub(make_config(agent("flood", str(total)))) as hub:
        # max_queue=1: the slow client's library stops reading the socket after one frame, so
        # TCP back-pressure reaches the hub: a client that does not read at all.
        async with connect(hub.ws_url(), max_size=None, max_queue=1) as slow_ws, \
                client(hub) as fast:
            slow = Client(slow_ws)
            await slow.send(type="subscribe", agent="flood")
            await asyncio.sleep(0.2)  # let the subscription land before the flood starts
            await fast.send(type="command", agent="flood", text="go")
            await fast.until_type("exit", "flood")  # the agent finished while `slow` read nothing
            assert sum(delivered(fast.seen)) == total
            assert len(slow.seen) == 0
            frames = await slow.until(lambda m: m.get("state") == "exited")
        got, skipped = delivered(frames)
        assert skipped > 0
        assert got + skipped == total  # every byte was either delivered or reported skipped
        assert {"type": "exit", "agent": "flood", "code": 0, "signal": None} in frames


async def test_kill_stops_the_whole_group_and_reports_killed_then_exit() -> None:
    async with running_hub(make_config(agent("fork"))) as hub, client(hub) as c:
        await c.send(type="command", agent="fork", text="hi")
        await c.until(lambda m: "forker got hi" in text_of(c.seen))
        grandchild = int(text_of(c.seen).split()[1])
        try:
            await c.send(type="kill", agent="fork")
            frames = await c.until_type("status", "fork")
            kinds = [f["type"] for f in frames]
            assert kinds.index("killed") < kinds.index("exit")
            exit_frame = next(f for f in frames if f["type"] == "exit")
            assert exit_frame == {"type": "exit", "agent": "fork", "code": None, "signal": "SIGTERM"}
            assert frames[-1]["state"] == "exited"
            assert await wait_gone(grandchild)
        finally:
            kill_leftover(grandchild)
        await c.send(type="kill", agent="fork")
        err = (await c.until_type("error"))[-1]
        assert "is not running" in err["message"]


async def test_kill_applies_in_message_order() -> None:
    """A kill sent before a command finds nothing to kill; it must not stop the agent that
    the later command starts. A kill right after a command stops the agent it started."""
    async with running_hub(make_config(agent("echo"))) as hub, client(hub) as c:
        await c.send(type="kill", agent="echo")
        await c.send(type="command", agent="echo", text="first")
        await c.until(lambda m: "echo: first\n" in text_of(c.seen))
        kinds = [f["type"] for f in c.seen if f.get("agent") == "echo"]
        assert kinds[:3] == ["error", "status", "status"]
        await c.send(type="command", agent="echo", text="second")
        await c.until(lambda m: "echo: second\n" in text_of(c.seen))
        assert "killed" not in [f["type"] for f in c.seen]
        assert hub.hub.sessions["echo"].state == "running"
        await c.send(type="kill", agent="echo")
        await c.until_type("status", "echo")
        # in one burst: the kill stops the agent the command before it started
        await c.send(type="command", agent="echo", text="third")
        await c.send(type="kill", agent="echo")
        frames = await c.until_type("exit", "echo")
        assert frames[-1] == {"type": "exit", "agent": "echo", "code": None, "signal": "SIGTERM"}
        assert [f["type"] for f in c.seen].count("killed") == 2


async def test_timeout_is_reported_and_the_agent_keeps_running_unless_configured() -> None:
    spec = agent("echo", timeout_s=0.2)
    async with running_hub(make_config(spec)) as hub, client(hub) as c:
        await c.send(type="command", agent="echo", text="slow")
        frames = await c.until_type("timeout", "echo")
        assert frames[-1] == {"type": "timeout", "agent": "echo", "after_s": 0.2}
        await c.send(type="command", agent="echo", text="still here")
        await c.until(lambda m: "echo: still here\n" in text_of(c.seen))
        assert hub.hub.sessions["echo"].state == "running"


async def test_done_marker_finishes_queued_commands_in_order_and_times_only_running_ones() -> None:
    spec = agent("echo", timeout_s=0.3, done_marker=r"^echo: ")
    async with running_hub(make_config(spec)) as hub, client(hub) as c:
        for text in ("one", "two", "three"):
            await c.send(type="command", agent="echo", text=text)
        frames = await c.until(lambda m: [f["type"] for f in c.seen].count("done") == 3)
        assert "timeout" not in [f["type"] for f in c.seen]
        outputs = [f["data"] for f in c.seen if f["type"] == "stdout"]
        assert "".join(outputs) == "echo: one\necho: two\necho: three\n"
        assert frames[-1]["type"] == "done"
        assert not hub.hub.sessions["echo"].commands.sent_at
        with pytest.raises(TimeoutError):  # nothing is running: no timeout comes
            await asyncio.wait_for(c.until_type("timeout", "echo"), 0.6)


async def test_timeout_kills_when_kill_on_timeout_is_set() -> None:
    spec = agent("hang", timeout_s=0.2, kill_on_timeout=True)
    async with running_hub(make_config(spec, limits=Limits(kill_grace_s=0.3))) as hub, \
            client(hub) as c:
        await c.send(type="command", agent="hang", text="anything")
        frames = await c.until_type("exit", "hang")
        kinds = [f["type"] for f in frames]
        assert kinds.index("timeout") < kinds.index("killed") < kinds.index("exit")
        assert frames[-1]["signal"] == "SIGKILL"  # it ignores SIGTERM


async def test_missing_binary_is_an_error_and_an_exit_not_a_crash() -> None:
    missing = AgentSpec("ghost", ("scenarist-no-such-agent-binary",))
    async with running_hub(make_config(missing, agent("echo"))) as hub, client(hub) as c:
        await c.send(type="command", agent="ghost", text="boo")
        frames = await c.until_type("status", "ghost")
        frames += await c.until_type("status", "ghost")
        error = next(f for f in frames if f["type"] == "error")
        assert "scenarist-no-such-agent-binary" in error["message"]
        assert "[agents.ghost] argv" in error["message"]
        assert {"type": "exit", "agent": "ghost", "code": 127, "signal": None} in frames
        assert states(frames, "ghost") == ["starting", "error"]
        await c.send(type="command", agent="echo", text="alive")
        await c.until(lambda m: "echo: alive\n" in text_of(c.seen))


async def test_malformed_frames_get_errors_and_the_connection_stays_usable() -> None:
    async with running_hub(make_config(agent("echo"))) as hub, client(hub) as c:
        await c.ws.send("{nope")
        assert "not JSON" in (await c.until_type("error"))[-1]["message"]
        await c.ws.send(b"\x00\x01")
        assert "binary frames" in (await c.until_type("error"))[-1]["message"]
        await c.send(type="command", agent="echo")
        assert '"text" must be a string' in (await c.until_type("error"))[-1]["message"]
        await c.send(type="command", agent="echo", text="fine")
        await c.until(lambda m: "echo: fine\n" in text_of(c.seen))


async def test_hub_shutdown_kills_every_agent_and_their_children() -> None:
    async with running_hub(make_config(agent("fork"))) as hub, client(hub) as c:
        await c.send(type="command", agent="fork", text="x")
        await c.until(lambda m: "grandchild" in text_of(c.seen))
        grandchild = int(text_of(c.seen).split()[1])
        leader = hub.hub.sessions["fork"].process.pid  # type: ignore[union-attr]
    try:
        assert await wait_gone(grandchild)
        assert process_gone(leader)
    finally:
        kill_leftover(grandchild)


def test_test_agents_exist() -> None:
    assert (AGENTS / "fork_agent.py").is_file() and sys.executable


async def test_nothing_an_agent_started_outlives_the_hub(daemons: Daemons) -> None:
    # "ready" comes after the exec, so no shell whose command line names the daemon is left
    spec = AgentSpec("daemon", ("sh", "-c", f"{daemons.command}; exec sh -c 'echo ready; exec cat'"))
    async with running_hub(make_config(spec)) as hub, client(hub) as c:
        await c.send(type="command", agent="daemon", text="hi")
        await c.until(lambda m: "ready" in text_of(c.seen))
        assert len(daemons.alive()) == 1
    assert daemons.alive() == []
