"""scenarist.processes: a child and everything it starts, found and stopped, in every mode."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from daemonkit import Daemons
from scenarist.processes import ProcessTree

MODES = ["cgroup", "subreaper", "session"]


def _spawn(tree: ProcessTree, argv: list[str]) -> subprocess.Popen[bytes]:
    proc = subprocess.Popen(
        argv,
        env=tree.environ(),
        preexec_fn=tree.enter,
        start_new_session=True,
        stdin=subprocess.DEVNULL,
    )
    tree.adopt(proc.pid)
    return proc


@pytest.fixture(params=MODES)
def mode(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("SCENARIST_PROCESS_TRACKING", request.param)
    return str(request.param)


def test_a_double_forked_setsid_daemon_is_found_and_killed(mode: str, daemons: Daemons) -> None:
    tree = ProcessTree()
    assert tree.mode in MODES[MODES.index(mode) :]
    proc = _spawn(tree, daemons.argv)
    assert proc.wait(timeout=60) == 0  # the program itself has ended; its daemon has not
    (daemon,) = daemons.alive()
    assert tree.members() == [daemon]
    stopped = tree.stop()
    assert [p.pid for p in stopped] == [daemon]
    assert daemons.marker in stopped[0].cmdline
    assert daemons.alive() == []
    assert tree.cgroup is None and tree.members() == []


def test_a_running_leader_and_its_children_are_stopped(mode: str, daemons: Daemons) -> None:
    tree = ProcessTree()
    script = f"{daemons.command}; sleep 60 & sleep 60"
    proc = _spawn(tree, ["sh", "-c", script])
    deadline = time.monotonic() + 60
    while len(tree.members()) < 4 and time.monotonic() < deadline:  # sh, 2 sleeps, daemon
        time.sleep(0.01)
    stopped = tree.stop()
    assert proc.wait(timeout=60) == -signal.SIGTERM
    assert proc.pid in [p.pid for p in stopped] and len(stopped) == 4
    assert daemons.alive() == [] and tree.members() == []


async def _spawn_async(tree: ProcessTree, argv: list[str], how: str) -> int:
    """Start ``argv`` through one of the tree's asyncio spawners; its exit code."""
    if how == "create_subprocess_exec":
        process = await tree.create_subprocess_exec(*argv, stdin=asyncio.subprocess.DEVNULL)
        return await process.wait()
    done: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    class Exit(asyncio.SubprocessProtocol):
        def process_exited(self) -> None:
            done.set_result(None)

    transport, _ = await tree.subprocess_exec(Exit, *argv, stdin=asyncio.subprocess.DEVNULL)
    await done
    code = transport.get_returncode()
    transport.close()
    assert code is not None
    return code


@pytest.mark.parametrize("how", ["create_subprocess_exec", "subprocess_exec"])
def test_an_asyncio_child_is_in_the_tree_as_a_popen_one_is(how: str, daemons: Daemons) -> None:
    tree = ProcessTree()
    assert asyncio.run(_spawn_async(tree, daemons.argv, how)) == 0
    (daemon,) = daemons.alive()
    assert tree.members() == [daemon]
    assert [p.pid for p in tree.stop()] == [daemon] and daemons.alive() == []


@pytest.mark.parametrize("how", ["create_subprocess_exec", "subprocess_exec"])
def test_an_asyncio_child_that_cannot_start_closes_its_tree(how: str, tmp_path: Path) -> None:
    tree = ProcessTree()
    with pytest.raises(FileNotFoundError):
        asyncio.run(_spawn_async(tree, [str(tmp_path / "missing")], how))
    assert tree.cgroup is None and tree.members() == []


def test_a_tree_that_ended_cleanly_reports_nothing(mode: str) -> None:
    tree = ProcessTree()
    proc = _spawn(tree, [sys.executable, "-c", "pass"])
    proc.wait(timeout=60)
    assert tree.stop() == ()


def test_the_marker_is_in_the_childs_environment() -> None:
    tree = ProcessTree()
    out = subprocess.run(
        [sys.executable, "-c", "import os; print(os.environ['SCENARIST_PROCESS_TREE'])"],
        env=tree.environ(),
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    assert out.stdout.strip() == tree.tag
    tree.stop()
    assert os.environ.get("SCENARIST_PROCESS_TREE") != tree.tag


def test_a_cgroup_that_refuses_the_child_falls_back_to_the_search(
    daemons: Daemons, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where cgroups work, one that refuses the move is made to; elsewhere the fallback is
    what runs anyway."""
    from scenarist import processes

    tree = ProcessTree()
    if tree.mode == "cgroup":
        monkeypatch.setitem(processes._state, "cgroup_root", processes._state["cgroup_root"])
        monkeypatch.setattr(tree, "_procs", b"/nonexistent/cgroup.procs")  # the move fails
    proc = _spawn(tree, daemons.argv)
    assert tree.mode in ("subreaper", "session") and tree.cgroup is None
    proc.wait(timeout=60)
    (daemon,) = tree.stop()
    assert daemons.marker in daemon.cmdline and daemons.alive() == []
