"""A scenario's faults played by the mock agent on each output format (real processes, and
one run in this process on a virtual clock)."""

from __future__ import annotations

import io
import json
import signal
from pathlib import Path
from typing import IO, cast

import pytest
from agentkit import agent

from scenarist.agent import Workspace
from scenarist.agent import play as play_in_process
from scenarist.agent.render import make_renderer
from scenarist.fault_output import FaultedOutput, FaultedText
from scenarist.play import VirtualClock
from scenarist.scenario import load_scenario_text

SCENARIO = """\
name: faulty-agent
timeline:
  - userInputs:
      - relativeTime: 0
        input: "go"
  - llmResponse:
      - assistant: [[0, "Working on it"]]
{fault}
      - assistant: [[0, "...and done."]]
  - runCmd:
      cmd: "echo hi"
      result: "hi"
{event}
  - llmResponse:
      - assistant: [[0, "Finished."]]
"""


def play(tmp_path: Path, fmt: str, fault: str = "", event: str = "") -> tuple[int, str, str]:
    path = tmp_path / f"s{len(list(tmp_path.glob('*.yaml')))}.yaml"
    path.write_text(SCENARIO.format(
        fault=f"      - fault: {fault}" if fault else "",
        event=f"  - fault: {event}" if event else ""))
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    result = agent("--scenario", path, "--workspace", work, "--speed", "0.01", "--format", fmt)
    assert "Traceback" not in result.stderr
    return result.returncode, result.stdout, result.stderr


@pytest.fixture
def whole(tmp_path: Path) -> str:
    code, out, _ = play(tmp_path, "codex-jsonl")
    assert code == 0
    return out


def upto(out: str, text: str) -> str:
    """``out`` up to and including the codex-jsonl line of the agent message ``text``."""
    lines = out.splitlines(keepends=True)
    at = next(n for n, line in enumerate(lines) if f'"text":"{text}"' in line)
    return "".join(lines[: at + 1])


def test_exit_mid_stream_keeps_every_line_before_it(tmp_path: Path, whole: str) -> None:
    code, out, _ = play(tmp_path, "codex-jsonl", "{kind: exit, code: 3}")
    assert code == 3 and out == upto(whole, "Working on it")
    assert "turn.completed" not in out


def test_exit_by_signal_in_claude_jsonl_has_no_result_line(tmp_path: Path) -> None:
    code, out, _ = play(tmp_path, "claude-jsonl", event="{kind: exit, signal: SIGKILL}")
    assert code == -signal.SIGKILL
    lines = [json.loads(line) for line in out.splitlines()]
    assert lines[-1]["type"] == "user"  # the command's tool_result, then nothing
    assert "result" not in [line["type"] for line in lines]


def test_exit_in_text_format_ends_the_terminal_output(tmp_path: Path) -> None:
    code, out, _ = play(tmp_path, "text", "{kind: exit, code: 42}")
    assert code == 42
    assert out.rstrip().endswith("Working on it") and "every real result" not in out


def test_truncate_exits_0_without_the_closing_lines(tmp_path: Path, whole: str) -> None:
    code, out, _ = play(tmp_path, "codex-jsonl", event="{kind: truncate}")
    assert code == 0 and whole.startswith(out) and "turn.completed" not in out


def test_stderr_noise_leaves_stdout_as_it_was(tmp_path: Path, whole: str) -> None:
    code, out, err = play(tmp_path, "codex-jsonl", '{kind: stderr, text: "warning: noise"}')
    assert code == 0 and out == whole
    assert "warning: noise\n" in err


def test_malformed_duplicate_and_reorder_in_jsonl(tmp_path: Path, whole: str) -> None:
    lines = whole.splitlines(keepends=True)
    at = len(upto(whole, "Working on it").splitlines())
    _, out, _ = play(tmp_path, "codex-jsonl", "{kind: malformed}")
    got = out.splitlines(keepends=True)
    assert got[:at] + got[at + 1:] == lines
    with pytest.raises(json.JSONDecodeError):
        json.loads(got[at])
    _, out, _ = play(tmp_path, "codex-jsonl", "{kind: duplicate}")
    assert out.splitlines(keepends=True) == [*lines[: at + 1], *lines[at:]]
    _, out, _ = play(tmp_path, "codex-jsonl", "{kind: reorder}")
    assert out.splitlines(keepends=True) == [*lines[:at], lines[at + 1], lines[at],
                                             *lines[at + 2:]]


def test_after_bytes_cuts_a_line(tmp_path: Path, whole: str) -> None:
    start = len(upto(whole, "Working on it")) - len(upto(whole, "Working on it").splitlines(
        keepends=True)[-1])  # the response's first line starts here
    code, out, _ = play(tmp_path, "codex-jsonl", "{kind: exit, code: 5, afterBytes: 10}")
    assert code == 5 and out == whole[: start + 10]


def test_kinds_the_agent_cannot_play_are_warned_about(tmp_path: Path, whole: str) -> None:
    code, out, err = play(tmp_path, "codex-jsonl", "{kind: httpStatus, statusCode: 529}")
    assert code == 0 and out == whole
    assert "scenarist agent: " in err and ": warning: " in err and "httpStatus" in err


STALL = """\
name: stall-shift
timeline:
  - userInputs: [[0, "go"]]
  - llmResponse:
      - assistant: [[100, "one"]]
      - fault: {kind: stall, ms: 1000}
  - llmResponse:
      - assistant: [[500, "two"]]
"""


def test_a_stall_delays_what_follows_and_keeps_its_spacing(tmp_path: Path) -> None:
    """On a virtual clock: "two" comes 500 ms after the stall ends, not in a burst."""
    clock = VirtualClock()
    written: list[tuple[float, bytes]] = []

    class Stamped(io.BytesIO):
        def write(self, data: bytes) -> int:  # type: ignore[override]
            written.append((clock.now_ms(), bytes(data)))
            return super().write(data)

    def pause(ms: int) -> None:
        clock.advance(ms)

    faults = FaultedOutput(Stamped(), io.StringIO(), pause)
    out = cast("IO[str]", FaultedText(faults, io.StringIO()))
    renderer = make_renderer("codex-jsonl", out, io.StringIO())
    (tmp_path / "work").mkdir()
    play_in_process(load_scenario_text(STALL), Workspace(str(tmp_path / "work")), renderer,
                    clock=clock, faults=faults)
    when = {text: at for at, line in written for text in ("one", "two")
            if f'"text":"{text}"'.encode() in line}
    assert when["one"] == 100
    assert when["two"] >= 100 + 1000 + 500
    assert faults.paused_ms == 1000
