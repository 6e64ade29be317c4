"""Multi-prompt scenarios over the official SDKs, and the asserts after the last model turn.

A tiny agent loop per SDK runs the scenario's tool calls for real in a workspace, then sends
the scenario's second prompt with the whole history; the server continues at that user turn
because the prompt matches the second ``userInputs``. A different second prompt is a 409
naming both. ``POST /_scenarist/check`` evaluates the scenario's final asserts.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

import anthropic
import httpx
import openai
import pytest
from llm_agents import SCENARIOS

from scenarist.llm.cli import load_scripts

PROMPTS = ["Start the changelog", "Add an entry for version 1.0"]
CHANGELOG = "# Changelog\n- 1.0: first release\n"


def _run(command: str, workspace: Path) -> str:
    done = subprocess.run(
        command, shell=True, cwd=workspace, capture_output=True, text=True, timeout=30
    )
    return done.stdout + done.stderr


def _server(serve: Any, workspace: Path) -> Any:
    return serve(load_scripts([str(SCENARIOS / "two_prompts.yaml")], []), workspace=workspace)


SCHEMA = {"type": "object", "properties": {"cmd": {"type": "string"}}}
Step = Callable[[list[Any]], tuple[str, bool]]


def drive(prompts: list[str], step: Step) -> list[str]:
    """Each prompt, then model turns until one makes no tool call; the answers' texts.
    ``step(messages)`` makes one model turn, appends it (and tool results) to ``messages``
    and says whether it called tools."""
    messages: list[Any] = []
    texts: list[str] = []
    for prompt in prompts:
        messages.append({"role": "user", "content": prompt})
        for _ in range(5):
            text, called = step(messages)
            texts.append(text)
            if not called:
                break
    return texts


def chat_agent(
    client: openai.OpenAI, prompts: list[str], workspace: Path, stream: bool
) -> list[str]:
    """Chat Completions: tool calls run in ``workspace``, results sent back as tool messages."""
    tools: Any = [{"type": "function", "function": {"name": "runCmd", "parameters": SCHEMA}}]

    def step(messages: list[Any]) -> tuple[str, bool]:
        if stream:
            with client.chat.completions.stream(
                model="mock-model", messages=messages, tools=tools
            ) as s:
                message: Any = s.get_final_completion().choices[0].message
        else:
            answer = client.chat.completions.create(
                model="mock-model", messages=messages, tools=tools
            )
            message = answer.choices[0].message
        messages.append(message.model_dump(exclude_none=True))
        for call in message.tool_calls or []:
            output = _run(json.loads(call.function.arguments)["cmd"], workspace)
            messages.append({"role": "tool", "tool_call_id": call.id, "content": output})
        return message.content or "", bool(message.tool_calls)

    return drive(prompts, step)


def messages_agent(
    client: anthropic.Anthropic, prompts: list[str], workspace: Path, stream: bool
) -> list[str]:
    """Anthropic Messages: tool_use blocks run in ``workspace``, tool_result blocks back."""
    tools: Any = [{"name": "runCmd", "input_schema": SCHEMA}]

    def step(messages: list[Any]) -> tuple[str, bool]:
        kw: Any = {"model": "mock-model", "max_tokens": 1000, "messages": messages, "tools": tools}
        if stream:
            with client.messages.stream(**kw) as s:
                message = s.get_final_message()
        else:
            message = client.messages.create(**kw)
        blocks = message.content
        messages.append({"role": "assistant", "content": [b.model_dump() for b in blocks]})
        uses = [b for b in blocks if b.type == "tool_use"]
        if uses:
            results = [
                {
                    "type": "tool_result",
                    "tool_use_id": u.id,
                    "content": _run(cast(dict[str, str], u.input)["cmd"], workspace),
                }
                for u in uses
            ]
            messages.append({"role": "user", "content": results})
        return "".join(b.text for b in blocks if b.type == "text"), bool(uses)

    return drive(prompts, step)


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize("sdk", ["openai", "anthropic"])
def test_second_prompt_continues_at_its_user_turn(
    serve: Any, tmp_path: Path, sdk: str, stream: bool
) -> None:
    srv = _server(serve, tmp_path)
    if sdk == "openai":
        oa = openai.OpenAI(base_url=f"{srv.url}/v1", api_key="x", max_retries=0)
        texts = chat_agent(oa, PROMPTS, tmp_path, stream)
    else:
        an = anthropic.Anthropic(base_url=srv.url, api_key="x", max_retries=0)
        texts = messages_agent(an, PROMPTS, tmp_path, stream)
    assert texts == [
        "Creating CHANGELOG.md.",
        "The changelog is started.",
        "Adding the 1.0 entry.",
        "CHANGELOG.md has the 1.0 entry.",
    ]
    assert (tmp_path / "CHANGELOG.md").read_text() == CHANGELOG
    model = [e for e in srv.journal if e["path"].startswith("/v1/")]
    assert [(e["segment"], e["turn"], e["user_turns"]) for e in model] == [
        (0, 0, 1),
        (0, 1, 1),
        (1, 2, 2),
        (1, 3, 2),
    ]
    assert "final_checks" in model[-1] and "final_checks" not in model[-2]


def test_a_second_prompt_that_is_not_the_scenarios_is_a_409_naming_both(
    serve: Any, tmp_path: Path
) -> None:
    srv = _server(serve, tmp_path)
    client = openai.OpenAI(base_url=f"{srv.url}/v1", api_key="x", max_retries=0)
    with pytest.raises(openai.ConflictError) as info:
        chat_agent(client, [PROMPTS[0], "Delete the whole repository"], tmp_path, False)
    message = str(info.value)
    assert "user prompt 2 of the conversation, 'Delete the whole repository'" in message
    assert "userInputs 2 of scenario 'two_prompts', 'Add an entry for version 1.0'" in message
    assert srv.journal[-1]["expected"] == "user prompt 2: 'Add an entry for version 1.0'"
    # close enough is the same prompt (the selection's rule): a typo still continues
    texts = chat_agent(client, [PROMPTS[0], "add an entry for version 1.0!"], tmp_path, False)
    assert texts[-1] == "CHANGELOG.md has the 1.0 entry."


def test_check_evaluates_the_asserts_after_the_last_turn(serve: Any, tmp_path: Path) -> None:
    srv = _server(serve, tmp_path)
    check = f"{srv.url}/_scenarist/check"
    before = httpx.post(check, json={"scenario": "two_prompts"}, timeout=30)
    assert before.status_code == 422  # the agent has not run yet
    report = before.json()
    assert report["ok"] is False and report["workspace_from"] == "--workspace"
    assert report["results"][0]["assert"] == "fs.exists CHANGELOG.md"
    assert report["results"][0]["outcome"] == "failed"

    client = openai.OpenAI(base_url=f"{srv.url}/v1", api_key="x", max_retries=0)
    chat_agent(client, PROMPTS, tmp_path, True)
    after = httpx.post(check, timeout=30)  # one scenario loaded: no name needed
    assert after.status_code == 200, after.text
    assert after.json()["ok"] is True and after.json()["checked"] == 2
    assert srv.journal[-1]["path"] == "/_scenarist/check" and srv.journal[-1]["status"] == 200

    (tmp_path / "CHANGELOG.md.orig").write_text("left over\n")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    failed = httpx.post(check, params={"workspace": str(tmp_path)}, timeout=30)
    assert failed.status_code == 422
    assert [r["outcome"] for r in failed.json()["results"]] == ["ok", "failed"]
    moved = httpx.post(check, json={"workspace": str(elsewhere)}, timeout=30).json()
    assert moved["workspace"] == str(elsewhere) and moved["workspace_from"] == "request"

    unknown = httpx.post(check, json={"scenario": "nope"}, timeout=30)
    assert unknown.status_code == 404 and "two_prompts" in unknown.json()["error"]["message"]
    bad = httpx.post(check, content=b"[1", headers={"content-type": "application/json"})
    assert bad.status_code == 400 and "not valid JSON" in bad.json()["error"]["message"]
