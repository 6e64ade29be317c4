"""Run the ``scenarist llm`` CLI and the real agent CLIs (pinned in tests/node) for tests.

Every process is started in its own process group and the whole group is killed afterwards,
so an agent's native children never outlive a test.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

from scenarist.processes import stop_group
from scenarist.runner.agents import gemini_env

REPO = Path(__file__).resolve().parents[2]
BIN = REPO / "tests" / "node" / "node_modules" / ".bin"
SCENARIOS = Path(__file__).resolve().parent / "scenarios"


def kill_group(proc: subprocess.Popen[Any]) -> None:
    """Stop ``proc`` and everything in its process group."""
    stop_group(proc)


def run_agent(
    argv: Sequence[str], cwd: Path, env: dict[str, str], timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    """Run an agent CLI with stdin /dev/null in its own process group; past ``timeout`` the
    group is stopped and :class:`subprocess.TimeoutExpired` carries what it had written."""
    proc = subprocess.Popen(
        list(argv),
        cwd=cwd,
        env={**os.environ, **env},
        text=True,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        kill_group(proc)
        out, err = proc.communicate()  # what it wrote before the bound, for the caller
        raise subprocess.TimeoutExpired(list(argv), timeout, out, err) from None
    finally:
        kill_group(proc)
    return subprocess.CompletedProcess(list(argv), proc.returncode, out, err)


def codex(
    url: str,
    prompt: str,
    workdir: Path,
    home: Path,
    model: str | None = "gpt-5.5",
    resume: bool = False,
    config: Sequence[str] = (),
    provider: Literal["custom", "builtin"] = "custom",
    timeout: float = 120,
) -> subprocess.CompletedProcess[str]:
    """Codex CLI against ``url``: through a custom Responses provider, or (``builtin``) the
    built-in OpenAI provider's ``openai_base_url`` (``model=None``: Codex's default model,
    which runs in code mode; ``resume``: ``codex exec resume --last``, the most recent
    session in ``home``; ``config``: more ``-c`` settings, e.g.
    ``model_reasoning_summary=auto``)."""
    if provider == "custom":
        endpoint = [
            "model_provider=mock",
            f'model_providers.mock={{name="mock",base_url="{url}/v1",'
            'wire_api="responses",env_key="OPENAI_API_KEY"}',
        ]
    else:
        endpoint = [f'openai_base_url="{url}/v1"']
    settings = [*endpoint, *([f"model={model}"] if model else []), *config]
    argv = [
        str(node_bin("codex")),
        "exec",
        *(["resume", "--last"] if resume else []),
        "--json",
        "--skip-git-repo-check",
        "--dangerously-bypass-approvals-and-sandbox",
        *[arg for setting in settings for arg in ("-c", setting)],
        prompt,
    ]
    return run_agent(argv, workdir, {"CODEX_HOME": str(home), "OPENAI_API_KEY": "sk-test"},
                     timeout)


def claude(
    url: str, prompt: str, workdir: Path, config: Path, *flags: str,
    max_retries: int | None = 0, timeout: float = 120,
) -> subprocess.CompletedProcess[str]:
    """Claude Code in print mode against ``url``, allowed to run Bash and edit files
    (``flags``: more options, e.g. ``--continue``; ``max_retries``: its
    ``CLAUDE_CODE_MAX_RETRIES``, none by default so that an error shows at once; ``None``:
    Claude Code's own retries, as a user runs it)."""
    argv = [
        str(node_bin("claude")),
        "-p",
        prompt,
        "--output-format",
        "stream-json",
        "--verbose",
        "--permission-mode",
        "acceptEdits",
        "--allowedTools",
        "Bash",
        *flags,
    ]
    env = {
        "CLAUDE_CONFIG_DIR": str(config),
        "ANTHROPIC_BASE_URL": url,
        "ANTHROPIC_API_KEY": "sk-test",
        "DISABLE_TELEMETRY": "1",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_AUTOUPDATER": "1",
        "DISABLE_ERROR_REPORTING": "1",
        **({} if max_retries is None else {"CLAUDE_CODE_MAX_RETRIES": str(max_retries)}),
    }
    return run_agent(argv, workdir, env, timeout)


def gemini(
    url: str, prompt: str, workdir: Path, home: Path, *flags: str
) -> subprocess.CompletedProcess[str]:
    """Gemini CLI headless (``-p``) against ``url``, its tools approved (``--yolo``), with
    the settings a CI user sets (:func:`scenarist.runner.agents.gemini_env`); ``flags``:
    more options, e.g. ``--output-format stream-json``."""
    argv = [str(node_bin("gemini")), "-p", prompt, "--yolo", *flags]
    return run_agent(argv, workdir, gemini_env(url, home))


def dirs(tmp_path: Path) -> tuple[Path, Path]:
    """A working directory for the agent and a home/config directory for it."""
    work, home = tmp_path / "work", tmp_path / "home"
    work.mkdir()
    home.mkdir()
    return work, home


def comparable(line: dict[str, Any]) -> dict[str, Any]:
    """A ``codex exec --json`` line without what differs by nature between two runs of the
    same scenario: the thread id and the token figures (for line-by-line comparisons)."""
    if line["type"] == "thread.started":
        return {"type": "thread.started", "thread_id": type(line["thread_id"]).__name__}
    if line["type"] == "turn.completed":
        return {"type": "turn.completed", "usage": sorted(line["usage"])}
    return line


def jsonl(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.splitlines() if line.startswith("{")]


def node_bin(name: str) -> Path:
    """A pinned npm CLI: tests/node's, or one in ``$SCENARIST_NODE_BIN`` when that folder has
    it (a private install: the newest releases, ``SCENARIST_AGENTS=latest bash scripts/test``,
    or a new pin tried before tests/node has it)."""
    override = os.environ.get("SCENARIST_NODE_BIN")
    if override and (Path(override) / name).exists():
        return Path(override) / name
    return BIN / name


AIDER_VENV = REPO / ".venv-aider"  # aider-chat's pins conflict with ours: scripts/test makes it


def opencode(url: str, prompt: str, workdir: Path, home: Path) -> subprocess.CompletedProcess[str]:
    """``opencode run`` with a config in a private HOME/XDG tree whose only provider is
    ``scenarist llm`` at ``url`` (an OpenAI-compatible provider, base URL ending in /v1).
    opencode takes its directory from ``$PWD``, not from the process's working directory."""
    config = {
        "$schema": "https://opencode.ai/config.json",
        "provider": {
            "scenarist": {
                "npm": "@ai-sdk/openai-compatible",
                "name": "scenarist",
                "options": {"baseURL": f"{url}/v1", "apiKey": "sk-test"},
                "models": {"mock-model": {"name": "mock-model"}},
            }
        },
        "model": "scenarist/mock-model",
        "autoupdate": False,
        "share": "disabled",
    }
    (home / "config" / "opencode").mkdir(parents=True, exist_ok=True)
    (home / "config" / "opencode" / "opencode.json").write_text(json.dumps(config))
    env = {"HOME": str(home), "PWD": str(workdir), "OPENCODE_DISABLE_MODELS_FETCH": "1",
           **{f"XDG_{kind}_HOME": str(home / kind.lower())
              for kind in ("CONFIG", "DATA", "CACHE", "STATE")}}
    return run_agent([str(node_bin("opencode")), "run", prompt], workdir, env)


def aider(url: str, prompt: str, workdir: Path, home: Path, *files: str,
          edit_format: str | None = "diff") -> subprocess.CompletedProcess[str]:
    """aider against ``url`` with the *SEARCH/REPLACE* edit format (``--edit-format diff``;
    ``edit_format=None``: aider's own choice, ``whole`` for a model it does not know), once
    (``--message``), saying yes to everything, with ``files`` in the chat."""
    chosen = ["--edit-format", edit_format] if edit_format else []
    argv = [str(AIDER_VENV / "bin" / "aider"), "--model", "openai/mock-model", *chosen,
            "--message", prompt, "--yes-always", "--no-check-update",
            "--no-show-model-warnings", "--no-analytics", "--no-pretty", "--no-stream", *files]
    env = {"HOME": str(home), "OPENAI_API_BASE": f"{url}/v1", "OPENAI_API_KEY": "sk-test"}
    return run_agent(argv, workdir, env)
