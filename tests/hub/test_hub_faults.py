"""An agent that breaks mid-output, through the hub: fake-codex playing a scenario's faults.

The hub must report an agent that exits (with a code, or killed by a signal) after every byte
it wrote, restart it on request, and pass lines that are not JSON and stderr noise on as
written. What the hub delivers is compared with what the same fake-codex run writes when it
is read directly from a pipe.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hubkit import WAIT_S, client, make_config, running_hub, text_of

from scenarist.hub.config import FAKE_CODEX_DONE, AgentSpec

LOOPS = ("asyncio", "uvloop")  # see conftest.py
CLIENT = "a WebSocket client of the hub"
Verdict = Callable[[str, str, str, str], None]

LONG = "x" * 60_000  # ~6,000 delta lines, more than a pipe and a read hold at once
SCENARIO = f"""\
name: faulty
timeline:
  - userInputs:
      - relativeTime: 0
        input: "go"
  - llmResponse:
      - assistant: [[0, "{LONG}"]]
      - fault: {{fault}}
      - assistant: [[0, "...and done."]]
"""


def faulty(tmp_path: Path, fault: str, name: str = "faulty") -> AgentSpec:
    path = tmp_path / f"{name}.yaml"
    path.write_text(SCENARIO.replace("{fault}", fault))
    return AgentSpec(name, argv(path), done_marker=FAKE_CODEX_DONE)


def argv(path: Path) -> tuple[str, ...]:
    return (sys.executable, "-m", "scenarist", "codex", "--interactive", "--seed", "1",
            "--cwd", "/repo", "--scenario", str(path))


def direct(spec: AgentSpec) -> subprocess.CompletedProcess[str]:
    """The same agent, its prompt on stdin, read straight from its pipes."""
    return subprocess.run(spec.argv, input="go\n", capture_output=True, text=True,
                          timeout=WAIT_S, check=False)


def controls(frames: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [f for f in frames if f["type"] not in ("stdout", "stderr")]


async def exits(spec: AgentSpec) -> tuple[int, dict[str, Any], list[str]]:
    """Play ``spec`` through the hub to its exit: how many bytes came before the ``exit``
    frame if they were all the agent wrote, unchanged (else -1); that frame; the control
    frames' types."""
    expected = direct(spec)
    async with running_hub(make_config(spec)) as hub, client(hub) as c:
        await c.send(type="command", agent=spec.name, text="go")
        await c.until(lambda m: m["type"] == "status" and m["state"] == "exited")
        kinds = [f["type"] for f in controls(c.seen)]
        exit_at = next(n for n, f in enumerate(c.seen) if f["type"] == "exit")
        whole = (text_of(c.seen[:exit_at]) == expected.stdout
                 and text_of(c.seen[:exit_at], "stderr") == expected.stderr)
        return len(expected.stdout) if whole else -1, c.seen[exit_at], kinds


async def test_an_exit_mid_output_comes_after_every_byte_with_its_code_or_signal(
        tmp_path: Path, fault_verdict: Verdict) -> None:
    whole, frame, kinds = await exits(faulty(tmp_path, "{kind: exit, code: 3}"))
    assert whole > 500_000  # more than a pipe and a read hold at once
    assert frame == {"type": "exit", "agent": "faulty", "code": 3, "signal": None}
    assert kinds == ["hello", "status", "status", "exit", "status"]
    by_signal, signalled, kinds = await exits(faulty(tmp_path, "{kind: exit, signal: SIGKILL}"))
    assert by_signal > 0 and "killed" not in kinds
    assert signalled == {"type": "exit", "agent": "faulty", "code": None, "signal": "SIGKILL"}
    fault_verdict("hub", CLIENT, "exit", "gets every byte the agent wrote, then `exit` with its "
                  "code or signal (no `killed`); `restart` starts a new process")


async def test_a_truncated_output_ends_with_a_clean_exit(
        tmp_path: Path, fault_verdict: Verdict) -> None:
    whole, frame, kinds = await exits(faulty(tmp_path, "{kind: truncate}"))
    assert whole > 0 and frame["code"] == 0 and "killed" not in kinds
    fault_verdict("hub", CLIENT, "truncate", "gets every byte the agent wrote, then `exit` 0")


async def test_after_the_exit_a_restart_gives_a_new_process_whose_output_streams(
        tmp_path: Path) -> None:
    spec = faulty(tmp_path, "{kind: exit, code: 3}")
    one_run = direct(spec).stdout
    async with running_hub(make_config(spec)) as hub, client(hub) as c:
        await c.send(type="command", agent="faulty", text="go")
        await c.until(lambda m: m["type"] == "status" and m["state"] == "exited")
        assert hub.hub.sessions["faulty"].last_exit == (3, None)
        await c.send(type="restart", agent="faulty")
        frames = await c.until(lambda m: m["type"] == "status" and m["state"] == "running")
        assert [f["state"] for f in controls(frames) if f["type"] == "status"] == [
            "starting", "running"]
        await c.send(type="command", agent="faulty", text="go")
        await c.until_type("exit", "faulty")
        assert text_of(c.seen) == one_run + one_run
        # a subscriber that comes later replays what the ring holds of both runs
        async with client(hub) as late:
            await late.send(type="subscribe", agent="faulty")
            frames = await late.until_type("exit", "faulty")
            assert (one_run + one_run).endswith(text_of(frames))
            assert frames[-1]["code"] == 3


#: faults after which the agent goes on: what a client gets of each, compared with a direct read
PASSED_ON = {
    "malformed": ('{kind: malformed, text: "<html>502 Bad Gateway</html>"}',
                  "gets the line as the agent wrote it, in a `stdout` frame"),
    "stderr": ('{kind: stderr, text: "warning: disk almost full"}',
               "gets the text in a `stderr` frame; stdout frames unchanged"),
    "fragment": ("{kind: fragment, bytes: 7}",
                 "gets the same text, in frames that may split where the agent's writes did"),
    "duplicate": ("{kind: duplicate}", "gets both copies of the line, as the agent wrote them"),
    "reorder": ("{kind: reorder}", "gets the two lines in the order the agent wrote them"),
    "stall": ("{kind: stall, ms: 150}", "gets the output after the pause, nothing lost"),
}


async def test_what_the_agent_writes_after_a_fault_is_passed_on_as_written(
        tmp_path: Path, fault_verdict: Verdict) -> None:
    specs = [faulty(tmp_path, fault, kind) for kind, (fault, _) in PASSED_ON.items()]
    expected_runs = {spec.name: direct(spec) for spec in specs}
    async with running_hub(make_config(*specs)) as hub, client(hub) as c:
        for spec in specs:
            expected = expected_runs[spec.name]
            await c.send(type="command", agent=spec.name, text="go")
            await c.until_type("done", spec.name)
            await c.send(type="kill", agent=spec.name)
            frames = await c.until_type("exit", spec.name)
            mine = [f for f in c.seen if f.get("agent") == spec.name]
            assert text_of(mine) == expected.stdout
            assert text_of(mine, "stderr") == expected.stderr
            assert frames[-1]["signal"] == "SIGTERM"
            fault_verdict("hub", CLIENT, spec.name, PASSED_ON[spec.name][1])
        assert "<html>502 Bad Gateway</html>\n" in text_of(
            [f for f in c.seen if f.get("agent") == "malformed"])
        assert text_of([f for f in c.seen if f.get("agent") == "stderr"], "stderr") == (
            "warning: disk almost full\n")
