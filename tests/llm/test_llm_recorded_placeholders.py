"""A recorded scenario replays in another run: its placeholders match what changed.

``scenarist record``/``import`` write ``<WORKSPACE>``, ``<TMP>``, ``<UUID>``,
``<TIMESTAMP>`` and ``<DATE>`` for what differs between two runs of the same session. The
model server matches prompts (selection and position) and tool results against them, so the
next run, in another folder with another session id, is the same conversation. Over the
official anthropic SDK; a scenario without placeholders is matched as before.
"""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

import anthropic
import pytest

from scenarist.llm.cli import load_scripts
from scenarist.llm.divergence import result_matches
from scenarist.llm.selection import is_match
from scenarist.record.normalise import normaliser

BASH = {"name": "Bash", "description": "Run a shell command",
        "input_schema": {"type": "object", "properties": {"command": {"type": "string"}},
                         "required": ["command"]}}


def _scenario(prompt: str, result: str) -> str:
    return f"""\
name: recorded
timeline:
  - userInputs:
      - [0, {json.dumps(prompt)}]
  - runCmd:
      cmd: "ls"
      result: {json.dumps(result)}
      status: ok
  - llmResponse:
      - assistant:
          - [0, "Listed."]
"""


def _run(workspace: str) -> tuple[str, str]:
    """One run's prompt and tool result: its folder, a session id, a time."""
    session = uuid.uuid4()
    prompt = f"List {workspace}/src for session {session}, started 2026-11-26T10:00:00Z"
    return prompt, f"{workspace}/src/app.py\nsession {session}"


@pytest.fixture
def recorded(tmp_path: Path) -> Path:
    """A scenario as the recorder writes it: the first run's texts normalised."""
    workspace = str(tmp_path / "first-run")
    normalise = normaliser(workspace)
    prompt, result = _run(workspace)
    path = tmp_path / "recorded.yaml"
    path.write_text(_scenario(normalise(prompt), normalise(result)))
    return path


def _replay(server: Any, prompt: str, result: str) -> Any:
    client = anthropic.Anthropic(base_url=server.url, api_key="sk-test", max_retries=0)
    messages: list[Any] = [{"role": "user", "content": prompt}]
    first = client.messages.create(model="m", max_tokens=100, tools=[BASH], messages=messages)
    call = next(b for b in first.content if b.type == "tool_use")
    assert call.input == {"command": "ls"}
    messages += [{"role": "assistant", "content": first.content},
                 {"role": "user", "content": [{"type": "tool_result", "tool_use_id": call.id,
                                               "content": result}]}]
    return client.messages.create(model="m", max_tokens=100, tools=[BASH], messages=messages)


def test_the_recorded_placeholders_are_in_the_scenario(recorded: Path) -> None:
    text = recorded.read_text()
    for placeholder in ("<WORKSPACE>", "<UUID>", "<TIMESTAMP>"):
        assert placeholder in text


def test_a_later_run_in_another_folder_with_another_session_replays(
        serve: Any, recorded: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    server = serve(load_scripts([str(recorded)], []))
    workspace = str(tmp_path_factory.mktemp("second-run"))
    prompt, result = _run(workspace)
    prompt = prompt.replace("2026-11-26T10:00:00Z", "2027-01-02T03:04:05Z")
    final = _replay(server, prompt, result)
    assert [b.text for b in final.content if b.type == "text"] == ["Listed."]
    assert [entry["status"] for entry in server.journal] == [200, 200]


def test_a_placeholder_stands_only_for_what_it_replaced(
        serve: Any, recorded: Path, tmp_path: Path) -> None:
    server = serve(load_scripts([str(recorded)], []))
    prompt, _ = _run(str(tmp_path / "second-run"))
    with pytest.raises(anthropic.ConflictError) as refused:
        _replay(server, prompt, f"{tmp_path}/src/app.py\nsession not-a-uuid")
    assert "tool result of runCmd 'ls'" in refused.value.message


@pytest.mark.parametrize(("scripted", "typed", "matches"), [
    ("Open <TMP>/notes.txt", "open /tmp/pytest-of-ci/pytest-3/notes.txt", True),
    ("Report for <DATE>", "Report for 2031-12-24", True),
    ("Render <b>bold</b>", "Render <b>bold</b> please", True),  # no placeholder: as before
    ("Render <b>bold</b>", "Delete the whole repository", False),
])
def test_prompt_matching_with_and_without_placeholders(
        scripted: str, typed: str, matches: bool) -> None:
    assert is_match(typed, scripted) is matches


def test_result_matching_with_placeholders() -> None:
    assert result_matches("wrote <TMP>/out.txt\n", "wrote /tmp/abc/out.txt")
    assert result_matches("id <UUID>", f"Output:\nid {uuid.uuid4()}\n")
    assert not result_matches("id <UUID>", "id 42")
