"""Agent processes: output, exit codes, and whole-process-group kills that leave no orphans."""

from __future__ import annotations

import asyncio
import sys

from hubkit import agent, kill_leftover, process_gone, wait_gone

from daemonkit import Daemons
from scenarist.hub.config import AgentSpec
from scenarist.hub.process import READ_BYTES, AgentProcess, StdinError
from scenarist.hub.protocol import OutputStream

LOOPS = ("asyncio", "uvloop")  # see conftest.py


class Recorder:
    def __init__(self) -> None:
        self.out: list[tuple[OutputStream, str]] = []
        self.exits: list[tuple[int | None, str | None]] = []
        self.line = asyncio.Event()

    def output(self, stream: OutputStream, text: str) -> None:
        self.out.append((stream, text))
        if "\n" in text:
            self.line.set()

    def exit(self, code: int | None, signal: str | None) -> None:
        self.exits.append((code, signal))

    def text(self, stream: OutputStream = "stdout") -> str:
        return "".join(t for s, t in self.out if s == stream)

    async def wait_for(self, fragment: str) -> None:
        while fragment not in self.text():
            self.line.clear()
            await asyncio.wait_for(self.line.wait(), 20)


async def start(spec: AgentSpec, rec: Recorder, grace_s: float = 1.0) -> AgentProcess:
    return await AgentProcess.start(spec, rec.output, rec.exit, grace_s=grace_s)


async def test_streams_stdout_and_stderr_and_reports_the_exit_code() -> None:
    rec = Recorder()
    proc = await start(agent("echo"), rec)
    proc.write("hello\n")
    proc.write("exit\n")
    await asyncio.wait_for(proc.finished.wait(), 20)
    assert rec.text() == "echo: hello\necho: exit\n"
    assert rec.text("stderr") == "err: hello\nerr: exit\n"
    assert rec.exits == [(3, None)]
    assert not proc.tree.alive()
    try:
        proc.write("late\n")
    except StdinError as exc:
        assert "stdin is closed" in str(exc)
    else:
        raise AssertionError("writing to a finished agent must fail")


async def test_utf8_split_across_reads_is_decoded_whole() -> None:
    code = ("import sys,time; b='\u20ac'.encode(); o=sys.stdout.buffer; o.write(b[:1]); o.flush();"
            " time.sleep(0.05); o.write(b[1:]+b'\\xff\\n'); o.flush()")
    rec = Recorder()
    proc = await start(AgentSpec("u", (sys.executable, "-c", code)), rec)
    await asyncio.wait_for(proc.finished.wait(), 20)
    assert rec.text() == "\u20ac\ufffd\n"


async def test_bulk_output_larger_than_a_read_keeps_every_character_across_read_boundaries(
) -> None:
    # A 1-byte offset then 2-, 3- and 4-byte characters: read-buffer boundaries (READ_BYTES)
    # fall inside characters, so each split must be held back and joined with the next read.
    text = "x" + "\u00e9\u20ac\U0001f600 line\n" * 40_000
    code = ("import sys; t=sys.stdin.readline(); o=sys.stdout.buffer; "
            "o.write(('x' + '\u00e9\u20ac\U0001f600 line\\n' * 40000).encode()); o.flush()")
    assert len(text.encode()) > 4 * READ_BYTES
    rec = Recorder()
    proc = await start(AgentSpec("bulk", (sys.executable, "-c", code)), rec)
    proc.write("go\n")
    await asyncio.wait_for(proc.finished.wait(), 20)
    assert rec.text() == text
    assert len(rec.out) > 1 and "\ufffd" not in rec.text()


async def test_kill_takes_down_the_grandchild_that_ignores_sigterm() -> None:
    rec = Recorder()
    proc = await start(agent("fork"), rec, grace_s=0.5)
    await rec.wait_for("grandchild ")
    grandchild = int(rec.text().split()[1])
    try:
        assert not process_gone(grandchild)
        await asyncio.wait_for(proc.kill(), 20)
        assert proc.killed
        assert await wait_gone(grandchild)
        assert rec.exits == [(None, "SIGTERM")]  # the leader obeyed SIGTERM
        assert not proc.tree.alive()
    finally:
        kill_leftover(grandchild)


async def test_a_leader_that_exits_leaves_no_orphan_behind() -> None:
    rec = Recorder()
    proc = await start(agent("fork", "exit"), rec, grace_s=0.3)
    await asyncio.wait_for(proc.finished.wait(), 20)
    grandchild = int(rec.text().split()[1])
    try:
        assert rec.exits == [(0, None)]
        assert process_gone(grandchild)
    finally:
        kill_leftover(grandchild)


async def test_sigterm_ignoring_agent_is_sigkilled_after_the_grace_period() -> None:
    rec = Recorder()
    proc = await start(agent("hang"), rec, grace_s=0.3)
    await rec.wait_for("ready")
    await asyncio.wait_for(proc.kill(), 20)
    assert rec.exits == [(None, "SIGKILL")]
    await proc.kill()  # idempotent
    assert rec.exits == [(None, "SIGKILL")]


async def test_missing_program_raises_file_not_found() -> None:
    rec = Recorder()
    try:
        await start(AgentSpec("x", ("scenarist-no-such-program-xyz",)), rec)
    except FileNotFoundError:
        pass
    else:
        raise AssertionError("expected FileNotFoundError")


async def test_a_daemon_left_by_an_agent_that_exits_is_stopped_and_listed(daemons: Daemons) -> None:
    rec = Recorder()
    spec = AgentSpec("daemon", ("sh", "-c", f"{daemons.command}; echo ready"))
    proc = await start(spec, rec, grace_s=5.0)
    await asyncio.wait_for(proc.finished.wait(), 20)  # the leader's grace is not waited out
    assert rec.exits == [(0, None)]
    assert daemons.alive() == []
    (daemon,) = proc.stopped
    assert daemons.marker in daemon.cmdline


async def test_kill_stops_a_daemon_the_agent_started(daemons: Daemons) -> None:
    rec = Recorder()
    spec = AgentSpec("daemon", ("sh", "-c", f"{daemons.command}; echo ready; exec cat"))
    proc = await start(spec, rec, grace_s=0.5)
    await rec.wait_for("ready")
    await asyncio.wait_for(proc.kill(), 20)
    assert daemons.alive() == []
    assert len(proc.stopped) == 2  # cat and the daemon
