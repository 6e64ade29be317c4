"""Codex CLI and Claude Code (pinned in tests/node) run through ``scenarist record`` against an
upstream ``scenarist llm`` that plays a scenario with a command, a new file and an edit: the
recorded scenario validates, equals the upstream's one up to ids and timing within 10%, and
replayed by ``scenarist llm`` to the same agent makes the same files."""

from __future__ import annotations

import statistics
import subprocess
from pathlib import Path
from typing import Any

import pytest
from llm_agents import claude, codex
from recordkit import KEY, SCENARIOS, assert_private, recorded, upstream_and_proxy

from scenarist.llm.process import run_server
from scenarist.scenario import load_scenario
from scenarist.scenario.model import AgentToolUse, LlmResponse, TextStep, UserInputs
from scenarist.scenario.tools import EditFile

pytestmark = pytest.mark.real_agent

UPSTREAM = SCENARIOS / "greeting_files.yaml"
PROMPT = "Create the greeting files"
TODO_AFTER = "# Todo\n- greet\n- wave back\n- smile\n"


def run_agent(agent: str, url: str, root: Path) -> tuple[subprocess.CompletedProcess[str], Path]:
    work, home = root / "work", root / "home"
    work.mkdir(parents=True)
    home.mkdir()
    if agent == "claude":
        return claude(url, PROMPT, work, home), work
    provider = "builtin" if agent == "codex-websocket" else "custom"  # builtin: a WebSocket
    return codex(url, PROMPT, work, home, provider=provider), work


def made(work: Path) -> dict[str, str]:
    return {str(p.relative_to(work)): p.read_text() for p in sorted(work.rglob("*"))
            if p.is_file()}


def shape(path: Path) -> list[tuple[Any, ...]]:
    """A scenario's conversation without ids and timing: prompts, texts, tool actions (the
    tool record with its arguments, the result left out: an agent words it its own way)."""
    out: list[tuple[Any, ...]] = []
    for event in load_scenario(path).timeline:
        if isinstance(event, UserInputs):
            out += [("prompt", i.content[0].text) for i in event.inputs]  # type: ignore[union-attr]
        elif isinstance(event, LlmResponse):
            out += [(s.kind, s.text) if isinstance(s, TextStep) else ("error", s.status_code)
                    for s in event.steps]
        elif isinstance(event, AgentToolUse):
            out.append(("tool", _edit(event.tool) if isinstance(event.tool, EditFile)
                        else event.tool))
    return out


def _edit(tool: EditFile) -> tuple[str, str, str]:
    """An edit without the unchanged lines around it (a Codex patch hunk carries context
    lines; Claude Code's ``Edit`` and the scenario only what changes: the same edit)."""
    old, new = tool.old_string.splitlines(True), tool.new_string.splitlines(True)
    while old and new and old[0] == new[0]:
        old, new = old[1:], new[1:]
    while old and new and old[-1] == new[-1]:
        old, new = old[:-1], new[:-1]
    return tool.path, "".join(old), "".join(new)


def delays(path: Path) -> list[int]:
    """The delay of every step the scenario's model answers with."""
    return [s.delay_ms for e in load_scenario(path).timeline if isinstance(e, LlmResponse)
            for s in e.steps if isinstance(s, TextStep)]


@pytest.mark.parametrize("agent", ["claude", "codex", "codex-websocket"])
def test_an_agent_session_records_and_replays(tmp_path: Path, agent: str) -> None:
    out = tmp_path / "out"
    with upstream_and_proxy(UPSTREAM, out) as (_, proxy):
        first, work = run_agent(agent, proxy.base_url, tmp_path / "recorded")
    assert first.returncode == 0, first.stderr
    assert (work / "notes" / "todo.md").read_text() == TODO_AFTER
    [path] = recorded(out)
    assert path.name == "create-the-greeting-files.yaml"
    assert_private(path)
    text = path.read_text()
    assert KEY not in text and "sk-test" not in text and str(work) not in text
    assert shape(path) == shape(UPSTREAM)
    timing = list(zip(delays(path), delays(UPSTREAM), strict=True))
    assert all(got >= want * 0.9 for got, want in timing), timing  # a recording never hurries
    # the upstream's pace within 10% (the median step: its first answer pays a cold start)
    assert statistics.median((got - 15) / want for got, want in timing) <= 1.1, timing
    with run_server(path, "--scenario-speed", "0.05") as replay:
        again, work_again = run_agent(agent, replay.base_url, tmp_path / "replayed")
    assert again.returncode == 0, again.stderr
    assert made(work_again) == made(work)
