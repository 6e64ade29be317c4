"""Which program runs in the terminal, and the agent it talks to.

- Mode 1, ``--agent mock`` (the default): the mock agent ``scenarist agent`` plays the
  scenario's agent side (model output, real tools in the workspace). Without an ``ah``
  section the mock agent itself is the program under test and reads the prompts typed into
  its terminal; with one, the program ``ah.cmd`` + ``ah.flags`` runs and finds the mock
  agent's command line in ``$SCENARIST_AGENT_CMD``.
- Mode 2, ``--agent codex|claude|gemini``: a real agent CLI's interactive TUI talks to a
  ``scenarist llm`` that the runner starts for the run (``scenarist.llm.process.run_server``);
  with an ``ah`` section that program runs instead and finds the server in
  ``$SCENARIST_LLM_URL`` (and ``$OPENAI_BASE_URL``/``$ANTHROPIC_BASE_URL``/
  ``$GOOGLE_GEMINI_BASE_URL``).

The program's environment is built from scratch (PATH, a HOME of its own, TERM, locale,
``ah.env``), so the user's shell configuration cannot change what a screen shows.
"""

from __future__ import annotations

import dataclasses
import json
import os
import shlex
import shutil
import sys
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from scenarist.llm.process import RunningServer, run_server
from scenarist.runner.errors import RunnerError
from scenarist.runner.profile import TerminalProfile
from scenarist.scenario import Scenario

__all__ = ["AGENTS", "GEMINI_SETTINGS", "Launch", "base_env", "gemini_env", "keep_server_logs",
           "launch"]

AGENTS = ("mock", "codex", "claude", "gemini")
_API_KEY = "sk-scenarist-test-key-0000"
_AGENT_KINDS = frozenset({"llmResponse", "agentToolUse", "agentEdits", "agentPlan"})


@dataclass(frozen=True, slots=True)
class Launch:
    """The program to start in the terminal: argv, its environment, and what it is."""

    argv: tuple[str, ...]
    env: Mapping[str, str]
    cwd: Path
    description: str
    turns_served: Callable[[], int] | None = None  # mode 2: model turns the server answered
    model_requests: Callable[[], int] | None = None  # mode 2: model requests it has received


def base_env(home: Path, profile: TerminalProfile) -> dict[str, str]:
    """The environment every program under test starts from."""
    return {
        "PATH": os.environ.get("PATH", os.defpath),
        "HOME": str(home),
        "TERM": "xterm-256color",
        "COLORTERM": "truecolor",
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "COLUMNS": str(profile.width),
        "LINES": str(profile.height),
        "TMPDIR": os.environ.get("TMPDIR", "/tmp"),
    }


def _scenario_path(scenario: Scenario) -> Path:
    if scenario.source_path is None:
        raise RunnerError(f"scenario {scenario.name!r} has no file; the runner needs one to "
                          "hand to the agent")
    return scenario.source_path


def _package_root() -> str:
    """The folder this ``scenarist`` is imported from, so the mock agent runs the same code."""
    import scenarist

    return str(Path(scenarist.__file__).resolve().parents[1])


def mock_agent_argv(scenario: Scenario, workspace: Path, speed: float,
                    defines: Mapping[str, bool | int | str]) -> list[str]:
    """``env PYTHONPATH=… python -m scenarist agent …`` for this scenario and workspace."""
    argv = ["env", f"PYTHONPATH={_package_root()}", sys.executable, "-m", "scenarist",
            "agent", "--scenario",
            str(_scenario_path(scenario).resolve()), "--scenario-name", scenario.name,
            "--workspace", str(workspace.resolve()), "--speed", repr(speed)]
    for key, value in defines.items():
        argv += ["--define", f"{key}={str(value).lower() if isinstance(value, bool) else value}"]
    return argv


def _program(scenario: Scenario) -> list[str] | None:
    ah = scenario.ah
    if ah is None or ah.cmd is None:
        return None
    return [ah.cmd, *ah.flags]


def _which(name: str, env: Mapping[str, str], given: str | None) -> str:
    """The agent's executable, as an absolute path when it was given as one relative to the
    caller (the program runs in the workspace, where a relative path means nothing)."""
    if given is not None and os.sep in given:
        if not os.access(given, os.X_OK):
            raise RunnerError(f"--agent-bin {given}: no executable there; give the path of "
                              f"the {name!r} CLI")
        return os.path.abspath(given)
    found = shutil.which(given or name, path=env.get("PATH"))
    if found is None:
        raise RunnerError(f"the {given or name!r} CLI is not on PATH; install it or give its "
                          "path with --agent-bin")
    return found


@contextmanager
def launch(scenario: Scenario, *, agent: str, workspace: Path, home: Path,
           profile: TerminalProfile, speed: float, defines: Mapping[str, bool | int | str],
           agent_bin: str | None = None, logs: Path | None = None) -> Iterator[Launch]:
    """The program to run for ``scenario``, with its agent wired (a server is stopped on exit;
    with ``logs``, what it saw is kept there first: :func:`keep_server_logs`)."""
    if agent not in AGENTS:
        raise RunnerError(f"unknown agent {agent!r}; choose from {', '.join(AGENTS)}")
    env = base_env(home, profile)
    program = _program(scenario)
    extra = dict(scenario.ah.env) if scenario.ah is not None else {}
    if agent == "mock":
        mock = mock_agent_argv(scenario, workspace, speed, defines)
        if program is None:
            if not any(e.kind in _AGENT_KINDS for e in scenario.timeline):
                raise RunnerError(f"{scenario.source_path}: nothing to run: the scenario has no "
                                  "`ah` section (the program under test) and no agent events; "
                                  "add ah: {cmd: PROGRAM, flags: [...]}")
            yield Launch(tuple(mock), {**env, **extra}, workspace, "mock agent (scenarist agent)")
            return
        agent_env = {"SCENARIST_AGENT_CMD": shlex.join(mock),
                     "SCENARIST_SCENARIO": str(_scenario_path(scenario).resolve()),
                     "SCENARIST_WORKSPACE": str(workspace.resolve())}
        yield Launch(tuple(program), {**env, **agent_env, **extra}, workspace, shlex.join(program))
        return
    with run_server(_scenario_path(scenario).resolve(), "--scenario-speed", repr(speed),
                    *[f"--define={k}={v}" for k, v in defines.items()],
                    workspace=workspace.resolve()) as server:
        url = server.base_url

        def model_entries() -> list[dict[str, object]]:
            # /v1/ (OpenAI, Anthropic), /v1beta/ (Gemini)
            return [e for e in server.journal() if str(e.get("path", "")).startswith("/v1")]

        def served() -> int:
            turns = [int(str(e.get("turn", -1))) for e in model_entries()
                     if e.get("status") == 200]
            return max(turns, default=-1) + 1

        llm_env = {"SCENARIST_LLM_URL": url, "OPENAI_BASE_URL": f"{url}/v1",
                   "ANTHROPIC_BASE_URL": url, "GOOGLE_GEMINI_BASE_URL": url,
                   "OPENAI_API_KEY": _API_KEY, "ANTHROPIC_API_KEY": _API_KEY,
                   "GEMINI_API_KEY": _API_KEY}
        if program is not None:
            how = Launch(tuple(program), {**env, **llm_env, **extra}, workspace,
                         shlex.join(program))
        elif agent == "codex":
            how = _codex(url, workspace, home, {**env, **extra}, agent_bin)
        elif agent == "gemini":
            how = _gemini(url, workspace, home, {**env, **extra}, agent_bin)
        else:
            how = _claude(url, workspace, home, {**env, **extra}, agent_bin)
        try:
            # only the agent CLIs are known to ask the model on Enter (see play._submit)
            yield dataclasses.replace(how, turns_served=served, model_requests=None if (
                program is not None) else lambda: len(model_entries()))
        finally:
            if logs is not None:
                keep_server_logs(server, logs)


def keep_server_logs(server: RunningServer, folder: Path) -> None:
    """Write the model server's journal (``llm-journal.jsonl``, one request a line) and its
    stderr (``llm.log``) into the run's folder: with a real agent, what the agent asked for
    and what it got is the first thing to read when a step waited in vain. A server that no
    longer answers leaves a note in place of the journal, never an error of the run."""
    try:
        lines = "".join(json.dumps(entry) + "\n" for entry in server.journal(timeout_s=5.0))
    except (OSError, ValueError) as exc:
        lines = json.dumps({"error": f"the journal could not be read: {exc}"}) + "\n"
    (folder / "llm-journal.jsonl").write_text(lines, encoding="utf-8")
    (folder / "llm.log").write_text(server.stderr, encoding="utf-8")


def model_divergence(folder: Path) -> dict[str, Any] | None:
    """The first request the model server refused because it left the scenario, from the
    journal :func:`keep_server_logs` wrote: its ``divergence`` (step, file:line, field,
    expected vs got, masked), the status and the refusal's message; a 409 (the agent's
    conversation strayed) before a 404 (a request no scenario matched). None without one."""
    try:
        lines = (folder / "llm-journal.jsonl").read_text(encoding="utf-8").splitlines()
    except OSError:
        return None
    refused = []
    for line in lines:
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if isinstance(entry, dict) and isinstance(entry.get("divergence"), dict):
            refused.append(entry)
    if not refused:
        return None
    first = min(refused, key=lambda e: e.get("status") != 409)
    return {**first["divergence"], "status": first.get("status"),
            "message": str(first.get("error", ""))}


def _codex(url: str, workspace: Path, home: Path, env: dict[str, str],
           agent_bin: str | None) -> Launch:
    """Codex CLI's TUI with a Responses provider at ``url``; the workspace trusted up front
    (no trust prompt) and the approval/sandbox bypassed, as ``codex exec`` tests do."""
    codex_home = home / ".codex"
    codex_home.mkdir(parents=True, exist_ok=True)
    trusted = "".join(f'[projects."{path}"]\ntrust_level = "trusted"\n'
                      for path in dict.fromkeys((str(workspace), str(workspace.resolve()))))
    # disable_paste_burst: Codex takes keys that arrive close together for a paste and reads
    # Enter as a newline; on a loaded machine the pty hands over the typed prompt in clumps,
    # and in CI three Enters 3 s apart all became newlines (nothing was asked). Its setting
    # for "paste handling conflicts with your terminal workflow" turns that guess off.
    (codex_home / "config.toml").write_text(
        "disable_paste_burst = true\n" + trusted
        + "[notice]\nhide_full_access_warning = true\n", encoding="utf-8")
    provider = (f'model_providers.mock={{name="mock",base_url="{url}/v1",'
                'wire_api="responses",env_key="OPENAI_API_KEY"}')
    argv = [_which("codex", env, agent_bin), "--dangerously-bypass-approvals-and-sandbox",
            "-c", "model_provider=mock", "-c", "model=mock-model", "-c", provider,
            "-c", "check_for_update_on_startup=false"]
    run_env = {**env, "CODEX_HOME": str(codex_home), "OPENAI_API_KEY": _API_KEY}
    return Launch(tuple(argv), run_env, workspace, "Codex CLI (interactive) via scenarist llm")


def _claude(url: str, workspace: Path, home: Path, env: dict[str, str],
            agent_bin: str | None) -> Launch:
    """Claude Code's TUI against ``url``, with onboarding, the folder-trust question and the
    custom-key question answered in its config up front."""
    config = home / ".claude"
    config.mkdir(parents=True, exist_ok=True)
    trusted = {"hasTrustDialogAccepted": True, "hasCompletedProjectOnboarding": True}
    state = {
        "hasCompletedOnboarding": True, "theme": "dark", "numStartups": 5,
        "customApiKeyResponses": {"approved": [_API_KEY[-20:]], "rejected": []},
        "projects": {str(workspace): trusted, str(workspace.resolve()): trusted},
        "bypassPermissionsModeAccepted": True,
    }
    (config / ".claude.json").write_text(json.dumps(state), encoding="utf-8")
    argv = [_which("claude", env, agent_bin), "--permission-mode", "acceptEdits",
            "--allowedTools", "Bash"]
    run_env = {**env, "CLAUDE_CONFIG_DIR": str(config), "ANTHROPIC_BASE_URL": url,
               "ANTHROPIC_API_KEY": _API_KEY, "DISABLE_TELEMETRY": "1",
               "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_AUTOUPDATER": "1",
               "DISABLE_ERROR_REPORTING": "1", "CLAUDE_CODE_MAX_RETRIES": "0"}
    return Launch(tuple(argv), run_env, workspace, "Claude Code (interactive) via scenarist llm")


#: Gemini CLI's user settings for a run against a local model: API-key auth chosen (no
#: sign-in dialog), folder trust off (no trust dialog), no usage statistics or update checks
GEMINI_SETTINGS = {
    "security": {"auth": {"selectedType": "gemini-api-key"}, "folderTrust": {"enabled": False}},
    "privacy": {"usageStatisticsEnabled": False},
    "general": {"disableAutoUpdate": True, "disableUpdateNag": True},
    "telemetry": {"enabled": False},
}


def gemini_env(url: str, home: Path) -> dict[str, str]:
    """Gemini CLI against ``url``: :data:`GEMINI_SETTINGS` in ``home``'s ``.gemini`` (the
    HOME it runs with) and the environment that points it at the server (one process:
    ``GEMINI_CLI_NO_RELAUNCH`` keeps it from re-spawning itself with a larger heap)."""
    config = home / ".gemini"
    config.mkdir(parents=True, exist_ok=True)
    (config / "settings.json").write_text(json.dumps(GEMINI_SETTINGS, indent=2) + "\n",
                                          encoding="utf-8")
    return {"HOME": str(home), "GOOGLE_GEMINI_BASE_URL": url, "GEMINI_API_KEY": _API_KEY,
            "GEMINI_CLI_NO_RELAUNCH": "true"}


def _gemini(url: str, workspace: Path, home: Path, env: dict[str, str],
            agent_bin: str | None) -> Launch:
    """Gemini CLI's TUI against ``url`` with its tools approved (``--yolo``), as a CI user
    runs it (:func:`gemini_env`)."""
    argv = [_which("gemini", env, agent_bin), "--yolo"]
    run_env = {**env, **gemini_env(url, home)}
    return Launch(tuple(argv), run_env, workspace, "Gemini CLI (interactive) via scenarist llm")
