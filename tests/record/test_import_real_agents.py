"""``scenarist import`` of real sessions: the pinned Codex CLI and Claude Code play a scenario
with a command, a new file and an edit against ``scenarist llm``; their own session files
import to scenarios that validate and, replayed by ``scenarist llm`` to the same agent in a
fresh folder, make the same files."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

sys.path.append(str(Path(__file__).resolve().parents[1] / "llm"))
from llm_agents import SCENARIOS, claude, codex, dirs

from scenarist.llm.process import run_server
from scenarist.scenario import AgentToolUse, EditFile, RunCmd, WriteFile, load_scenario

pytestmark = pytest.mark.real_agent

PROMPT = "Create the greeting files"
FILES = {"greeting.txt": "hello from scenarist\n",
         "notes/todo.md": "# Todo\n- greet\n- wave back\n- smile\n"}

Agent = Callable[[str, Path, Path], subprocess.CompletedProcess[str]]
AGENTS: dict[str, tuple[Agent, str]] = {
    "codex": (lambda url, work, home: codex(url, PROMPT, work, home), "sessions/*/*/*/rollout-*.jsonl"),
    "codex-code-mode": (lambda url, work, home: codex(url, PROMPT, work, home, model=None),
                        "sessions/*/*/*/rollout-*.jsonl"),
    "claude-code": (lambda url, work, config: claude(url, PROMPT, work, config),
                    "projects/*/*.jsonl"),
}


def play(agent: Agent, scenario: Path, root: Path) -> tuple[Path, Path]:
    """Run ``agent`` on ``scenario`` served by ``scenarist llm``; its workdir and home."""
    root.mkdir()
    work, home = dirs(root)
    with run_server(scenario, "--scenario-speed", "0.01") as server:
        result = agent(server.base_url, work, home)
    assert result.returncode == 0, result.stderr[-2000:]
    return work, home


def files(work: Path) -> dict[str, str]:
    return {str(p.relative_to(work)): p.read_text() for p in sorted(work.rglob("*"))
            if p.is_file()}


SRC = str(Path(__file__).resolve().parents[2] / "src")


def scenarist(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        p for p in (SRC, os.environ.get("PYTHONPATH")) if p)}
    return subprocess.run([sys.executable, "-m", "scenarist", *args], cwd=cwd, text=True,
                          capture_output=True, timeout=60, check=False, env=env)


@pytest.mark.parametrize("name", list(AGENTS))
def test_a_real_session_imports_to_a_scenario_that_replays_to_the_same_files(
        name: str, tmp_path: Path) -> None:
    agent, pattern = AGENTS[name]
    work, home = play(agent, SCENARIOS / "shell_and_patch.yaml", tmp_path / "first")
    assert files(work) == FILES
    (session,) = home.glob(pattern)

    imported = tmp_path / "imported.yaml"
    done = scenarist("import", str(session), "-o", str(imported), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert imported.stat().st_mode & 0o777 == 0o600
    assert scenarist("validate", "--strict", str(imported), cwd=tmp_path).returncode == 0
    text = imported.read_text()
    assert str(work) not in text  # the workspace is relative or a placeholder
    tools = [e.tool for e in load_scenario(imported).timeline if isinstance(e, AgentToolUse)]
    assert [type(t) for t in tools] == [RunCmd, WriteFile, EditFile]
    assert tools[0] == RunCmd("echo hello from scenarist > greeting.txt")
    assert tools[1] == WriteFile("notes/todo.md", "# Todo\n- greet\n- wave\n")

    again, _ = play(agent, imported, tmp_path / "replay")
    assert files(again) == FILES


def test_an_acp_transcript_imports(tmp_path: Path) -> None:
    example = Path(__file__).resolve().parents[2] / "examples" / "claude-write-edit.yaml"
    agent = f"{sys.executable} -m scenarist acp --speed 0.01 --scenario {example}"
    log = tmp_path / "acp.jsonl"
    played = scenarist("acp-test", "--agent", agent, "--scenario", str(example), "--speed",
                       "0.01", "--transcript", str(log), "--cwd", str(tmp_path / "ws"),
                       cwd=tmp_path)
    assert played.returncode == 0, played.stdout + played.stderr
    done = scenarist("import", str(log), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    scenario = load_scenario_from(done.stdout, tmp_path)
    tools = [e.tool for e in scenario.timeline if isinstance(e, AgentToolUse)]
    assert tools == [WriteFile("notes/todo.md", "# Todo\n- write tests\n"),
                     EditFile("notes/todo.md", "- write tests\n", "- write tests\n- ship it\n"),
                     RunCmd("grep -c '^- ' notes/todo.md", description="count the todo items")]
    results = [e.result for e in scenario.timeline if isinstance(e, AgentToolUse)]
    assert results[-1] == "2"


def load_scenario_from(text: str, folder: Path) -> Any:
    path = folder / "from-stdout.yaml"
    path.write_text(text)
    return load_scenario(path, strict=True)
