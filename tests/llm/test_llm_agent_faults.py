"""The pinned Codex CLI and Claude Code against model-API faults (issue 25), each in its
default configuration: no retry or timeout setting changed, so what they do here is what
they do against the real APIs. Each test plays one fault on the first response of a short
scenario (a file written by the agent's own tool, then a closing message) and records
what the agent did as its row in docs/faults.md: how many times it asked again, what it
showed, and how it ended (finished the files, failed, or hung until the bound).
"""

from __future__ import annotations

import json
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import pytest
from llm_agents import REPO, claude, codex, dirs, jsonl

from scenarist.llm.process import run_server

pytestmark = pytest.mark.real_agent

Agent = Literal["codex", "claude"]
PROMPT = "Write the release notes"
NOTES = "# Notes\n- retries work\n"
# the first response: a sentence, then the agent's own tool writes NOTES.md
SCENARIO = """\
name: fault-{name}
timeline:
  - userInputs: [[0, "{prompt}"]]
  - llmResponse:
{steps}
  - writeFile: {{path: NOTES.md, content: {notes}}}
  - llmResponse:
      - assistant: [[20, "NOTES.md is written."]]
"""
SAY = '      - assistant: [[20, "Writing NOTES.md."]]'


def client(agent: Agent) -> str:
    """The table's client column: the CLI and its version pinned in tests/node."""
    package = {"codex": "@openai/codex", "claude": "@anthropic-ai/claude-code"}[agent]
    meta = json.loads((REPO / "tests/node/node_modules" / package / "package.json").read_text())
    name = {"codex": "Codex CLI", "claude": "Claude Code"}[agent]
    return f"{name} {meta['version']}"


@dataclass(frozen=True)
class Run:
    """What one agent run left: its exit (``None``: still running at the bound), its output,
    the requests the model API saw, and the file it was to write."""

    code: int | None
    stdout: str
    stderr: str
    journal: list[dict[str, Any]]
    notes: str | None


def play(agent: Agent, steps: str, tmp_path: Path, name: str, timeout: float = 90) -> Run:
    """``steps`` (YAML list items of the first llmResponse) played to ``agent``."""
    scenario = tmp_path / f"{name}.yaml"
    scenario.write_text(
        SCENARIO.format(name=name, prompt=PROMPT, steps=steps, notes=json.dumps(NOTES)))
    work, home = dirs(tmp_path)
    with run_server(scenario, "--scenario-speed", "0.01") as srv:
        try:
            if agent == "codex":
                done = codex(srv.base_url, PROMPT, work, home, timeout=timeout)
            else:
                done = claude(srv.base_url, PROMPT, work, home, max_retries=None,
                              timeout=timeout)
        except subprocess.TimeoutExpired as hung:
            done = subprocess.CompletedProcess(hung.cmd, None, _text(hung.stdout),
                                               _text(hung.stderr))  # type: ignore[arg-type]
        journal = [e for e in srv.journal() if e["path"].startswith("/v1/")]
    notes = work / "NOTES.md"
    return Run(done.returncode, done.stdout, done.stderr, journal,
               notes.read_text() if notes.exists() else None)


def _text(data: str | bytes | None) -> str:
    return data.decode(errors="replace") if isinstance(data, bytes) else data or ""


def shown(agent: Agent, run: Run) -> list[str]:
    """What the agent told its user about the fault, without what differs between runs
    (ports, delays): Codex's ``error`` lines (its "Reconnecting... n/5"), Claude Code's
    ``api_retry`` lines as ``attempt/max_retries status``."""
    lines = jsonl(run.stdout)
    if agent == "codex":
        return [e["message"].split(", url: ")[0] for e in lines if e["type"] == "error"]
    return [f"api_retry {e['attempt']}/{e['max_retries']} {e['error_status'] or e['error']}"
            for e in lines if e["type"] == "system" and e.get("subtype") == "api_retry"]


def verdict(agent: Agent, run: Run) -> str:
    """One line for the table: how often the faulted request was sent again (and how), what
    was shown, and how the run ended."""
    first = [e for e in run.journal if e["turn"] == 0]
    again = len(first) - 1
    parts = []
    if again:
        how = "streamed" if all(e["stream"] for e in first) else "not streamed"
        parts.append(f"asks again {again}x ({how})")
    else:
        parts.append("does not ask again")
    told = shown(agent, run)
    if told:
        parts.append(f"shows {told[0]!r}" + (f" (+{len(told) - 1} more)" if len(told) > 1 else ""))
    if run.code is None:
        parts.append("hangs")
    elif run.code == 0 and run.notes == NOTES:
        parts.append("finishes")
    else:
        parts.append(f"exits {run.code}, NOTES.md {'written' if run.notes else 'missing'}")
    return ", ".join(parts)
