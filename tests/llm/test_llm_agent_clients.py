"""Clients our other tests do not run, each pinned, each with the behaviour that showed a bug:
tools exactly as declared, side requests without tools, context before the prompt (issue 16).

- the OpenAI Agents SDK declares ``write_file``: the call must arrive as ``write_file``
  (it failed with "Tool writeFile not found"), with both of its model classes;
- opencode (``opencode run``) declares ``bash``/``write``/``edit``/``read``; its title request
  declares none and must get text, not a ``write`` call;
- aider declares no tools, sends few-shot pairs before the prompt and takes edits as
  *SEARCH/REPLACE* blocks.
"""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest
from llm_agents import AIDER_VENV, aider, dirs, opencode

from installs import missing_install
from scenarist.llm.process import run_server

pytestmark = pytest.mark.real_agent
CLIENTS = Path(__file__).resolve().parent / "client_scenarios"


@pytest.mark.parametrize("model_class", ["responses", "chat"])
def test_the_agents_sdk_gets_write_file_as_it_declared_it(model_class: str,
                                                          tmp_path: Path) -> None:
    from agents import (
        Agent,
        OpenAIChatCompletionsModel,
        OpenAIResponsesModel,
        Runner,
        function_tool,
        set_tracing_disabled,
    )
    from openai import AsyncOpenAI

    set_tracing_disabled(True)
    written: list[str] = []

    @function_tool
    def write_file(path: str, content: str) -> str:
        """Write content to a file in the working directory."""
        (tmp_path / path).write_text(content)
        written.append(path)
        return f"wrote {path}"

    with run_server(CLIENTS / "agents_write_file.yaml", "--scenario-speed", "0.01") as srv:
        client = AsyncOpenAI(base_url=f"{srv.base_url}/v1", api_key="sk-test", max_retries=0)
        model: Any = (OpenAIResponsesModel(model="m", openai_client=client)
                      if model_class == "responses"
                      else OpenAIChatCompletionsModel(model="m", openai_client=client))
        agent = Agent(name="writer", instructions="Write files.", tools=[write_file],
                      model=model)
        result = Runner.run_sync(agent, "Save the greeting to greeting.txt")
        journal = srv.journal()
    assert result.final_output == "Saved greeting.txt."
    assert written == ["greeting.txt"]
    assert (tmp_path / "greeting.txt").read_text() == "hello from the scenario\n"
    assert [e["calls"] for e in journal] == [["write_file"], []]


def test_opencode_writes_a_file_and_runs_a_command(tmp_path: Path) -> None:
    work, home = dirs(tmp_path)
    subprocess.run(["git", "init", "-q", str(work)], check=True)
    prompt = "Create hello.txt, then record that a command ran"
    with run_server(CLIENTS / "opencode_write_run.yaml", "--scenario-speed", "0.01") as srv:
        result = opencode(srv.base_url, prompt, work, home)
        journal = srv.journal()
    assert result.returncode == 0, result.stderr[-2000:]
    assert (work / "hello.txt").read_text() == "hello from the scenario\n"
    assert (work / "ran.txt").read_text() == "ran\n"
    main = [e for e in journal if not e.get("side_request")]
    assert [e["calls"] for e in main] == [["write"], ["bash"], []]
    assert {e["profile"] for e in main} == {"opencode"}
    # the title request declares no tools: the turn's text, no call, nothing moved
    side = [e for e in journal if e.get("side_request")]
    assert side and all(e["calls"] == [] and e["status"] == 200 for e in side)
    assert "Done: hello.txt written and the command ran." in result.stdout


@pytest.fixture
def aider_installed() -> None:
    missing_install(AIDER_VENV / "bin" / "aider", "aider-chat (.venv-aider)")


needs_aider = pytest.mark.usefixtures("aider_installed")


def _greeting_repo(tmp_path: Path) -> tuple[Path, Path]:
    work, home = dirs(tmp_path)
    git = ["git", "-C", str(work)]
    subprocess.run([*git, "init", "-q"], check=True)
    (work / "hello.py").write_text('def greet(name):\n    print(f"Hello {name}")\n')
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit",
                    "-qm", "init"], check=True)
    return work, home


@needs_aider
def test_aider_applies_a_search_replace_edit_after_its_few_shot_context(tmp_path: Path) -> None:
    work, home = _greeting_repo(tmp_path)
    prompt = "Make the greeting in hello.py casual"
    with run_server(CLIENTS / "aider_casual_greeting.yaml", "--scenario-speed", "0.01") as srv:
        result = aider(srv.base_url, prompt, work, home, "hello.py")
        journal = srv.journal()
    assert result.returncode == 0, result.stdout[-2000:]
    assert (work / "hello.py").read_text() == 'def greet(name):\n    print(f"Hey {name}")\n'
    edit = journal[0]
    assert edit["profile"] == "aider" and edit["status"] == 200
    assert edit["context_prompts"] >= 1 and edit["user_turns"] == 1
    # aider's commit-message request declares no tools: a side request
    assert all(e.get("side_request") for e in journal[1:])


@needs_aider
def test_aider_with_its_default_whole_file_format_gets_the_whole_new_file(
        tmp_path: Path) -> None:
    """For a model it does not know, aider asks for whole *file listings*: the scenario's
    editFile goes out as the file's entire new content, which aider writes. aider reports no
    folder, so the server reads the file in --workspace. Its few-shot example ("Change the
    greeting to be more casual") resembles the prompt: the closest prompt is the real one."""
    work, home = _greeting_repo(tmp_path)
    prompt = "Make the greeting in hello.py casual"
    with run_server(CLIENTS / "aider_casual_greeting.yaml", "--scenario-speed", "0.01",
                    "--workspace", str(work)) as srv:
        result = aider(srv.base_url, prompt, work, home, "hello.py", edit_format=None)
        journal = srv.journal()
    assert result.returncode == 0, result.stdout[-2000:]
    assert (work / "hello.py").read_text() == 'def greet(name):\n    print(f"Hey {name}")\n'
    edit = journal[0]
    assert (edit["profile"], edit["client"], edit["status"], edit["user_turns"]) == (
        "aider", "aider-whole", 200, 1)
    assert edit["context_prompts"] >= 1
