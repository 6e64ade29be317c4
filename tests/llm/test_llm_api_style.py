"""``server.llmApiStyle`` / ``coalesceThinkingWithToolUse`` from a scenario file, and the
answers to wrong paths and methods, over real HTTP.

The spec: ``llmApiStyle`` (default ``openai``) picks the coalescing rules;
``coalesceThinkingWithToolUse`` (default true) is only read for ``anthropic``, where ``false``
keeps a turn's thinking out of a response that makes tool calls.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

from scenarist.llm.cli import load_scripts

PROMPT = "List the files, then say what you saw"


BASH_SCHEMA = {"type": "object", "properties": {"command": {"type": "string"}},
               "required": ["command"]}


def _scenario(tmp_path: Path, server: str) -> str:
    path = tmp_path / "styled.yaml"
    path.write_text(
        f"""name: styled
{server}
timeline:
  - userInputs:
      - relativeTime: 0
        input: "{PROMPT}"
  - llmResponse:
      - think:
          - [10, "I should look first."]
      - assistant:
          - [10, "Listing."]
  - runCmd:
      cmd: "ls"
  - llmResponse:
      - think:
          - [10, "Now summarise."]
      - assistant:
          - [10, "I saw the files."]
"""
    )
    return str(path)


def _messages(url: str, *history: dict[str, Any]) -> dict[str, Any]:
    body = {
        "model": "m",
        "max_tokens": 100,
        "messages": [{"role": "user", "content": PROMPT}, *history],
        "tools": [{"name": "Bash", "input_schema": BASH_SCHEMA}],
    }
    resp = httpx.post(f"{url}/v1/messages", json=body, timeout=10)
    assert resp.status_code == 200, resp.text
    result: dict[str, Any] = resp.json()
    return result


def _responses(url: str, *history: dict[str, Any]) -> dict[str, Any]:
    body = {"model": "m", "input": [{"role": "user", "content": PROMPT}, *history],
            "tools": [{"type": "function", "name": "Bash", "parameters": BASH_SCHEMA}]}
    resp = httpx.post(f"{url}/v1/responses", json=body, timeout=10)
    assert resp.status_code == 200, resp.text
    result: dict[str, Any] = resp.json()
    return result


def _answer_after_tool(url: str, first: dict[str, Any]) -> dict[str, Any]:
    """Send the tool round of ``first`` back (Messages) and return the next answer."""
    use = next(b for b in first["content"] if b["type"] == "tool_use")
    return _messages(
        url,
        {"role": "assistant", "content": first["content"]},
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": use["id"], "content": "a.txt"}],
        },
    )


def _kinds(message: dict[str, Any]) -> list[str]:
    return [block["type"] for block in message["content"]]


@pytest.mark.parametrize(
    "server",
    [
        "",  # defaults: openai style
        "server:\n  llmApiStyle: openai\n  coalesceThinkingWithToolUse: false",  # not read
        "server:\n  llmApiStyle: anthropic",  # coalesce defaults to true
    ],
)
def test_thinking_travels_with_tool_calls_when_coalesced(
    serve: Any, tmp_path: Path, server: str
) -> None:
    srv = serve(load_scripts([_scenario(tmp_path, server)], []), speed=0.01)
    first = _messages(srv.url)
    assert _kinds(first) == ["thinking", "text", "tool_use"]
    assert first["content"][0]["thinking"] == "I should look first."
    assert first["stop_reason"] == "tool_use"
    reasoning = _responses(srv.url)["output"]
    assert [item["type"] for item in reasoning] == ["reasoning", "message", "function_call"]
    assert _kinds(_answer_after_tool(srv.url, first)) == ["thinking", "text"]


def test_anthropic_style_without_coalescing_keeps_thinking_off_tool_use(
    serve: Any, tmp_path: Path
) -> None:
    server = "server:\n  llmApiStyle: anthropic\n  coalesceThinkingWithToolUse: false"
    srv = serve(load_scripts([_scenario(tmp_path, server)], []), speed=0.01)
    first = _messages(srv.url)
    assert _kinds(first) == ["text", "tool_use"] and first["stop_reason"] == "tool_use"
    assert [item["type"] for item in _responses(srv.url)["output"]] == [
        "message",
        "function_call",
    ]
    # an answer without tool use still shows its thinking
    last = _answer_after_tool(srv.url, first)
    assert _kinds(last) == ["thinking", "text"]
    assert last["content"][0]["thinking"] == "Now summarise."
    assert last["stop_reason"] == "end_turn"


@pytest.mark.parametrize(
    ("method", "path", "status", "allow"),
    [
        ("GET", "/v1/chat/completions", 405, "POST"),
        ("GET", "/v1/responses", 405, "POST"),
        ("GET", "/v1/messages", 405, "POST"),
        ("PUT", "/v1/messages/count_tokens", 405, "POST"),
        ("POST", "/health", 405, "GET"),
        ("POST", "/v1/completions", 404, None),
        ("GET", "/nowhere", 404, None),
    ],
)
def test_wrong_paths_and_methods_answer_in_the_apis_error_format(
    serve: Any, tmp_path: Path, method: str, path: str, status: int, allow: str | None
) -> None:
    srv = serve(load_scripts([_scenario(tmp_path, "")], []))
    resp = httpx.request(method, f"{srv.url}{path}", json={}, timeout=10)
    assert resp.status_code == status
    assert resp.headers["content-type"] == "application/json"
    body = resp.json()
    if path.startswith("/v1/messages"):
        assert body["type"] == "error"
        message = body["error"]["message"]
    else:
        assert body["error"]["type"] == "invalid_request_error"
        message = body["error"]["message"]
    assert method in message and path in message
    if allow is None:
        assert "/v1/chat/completions" in message  # names what is served
    else:
        assert allow in resp.headers["allow"] and f"use {resp.headers['allow']}" in message
    assert httpx.get(f"{srv.url}/health", timeout=10).json()["status"] == "ok"
