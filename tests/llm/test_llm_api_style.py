"""Thinking only when asked, within ``server.llmApiStyle`` / ``coalesceThinkingWithToolUse``
from a scenario file, and the answers to wrong paths and methods, over real HTTP.

The spec: ``llmApiStyle`` (default ``openai``) picks the coalescing rules, and the ``openai``
style never includes thinking in responses; ``coalesceThinkingWithToolUse`` (default true) is
only read for ``anthropic``, where ``false`` keeps a turn's thinking out of a response that
makes tool calls. The real APIs send thinking only when the request asks for it.
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


THINK = {"type": "enabled", "budget_tokens": 1024}
REASON = {"effort": "medium", "summary": "auto"}
ENCRYPTED = ["reasoning.encrypted_content"]
ANTHROPIC = "server:\n  llmApiStyle: anthropic"


def _messages(url: str, *history: dict[str, Any], thinking: Any = THINK) -> dict[str, Any]:
    body: dict[str, Any] = {
        "model": "m",
        "max_tokens": 2048,
        "messages": [{"role": "user", "content": PROMPT}, *history],
        "tools": [{"name": "Bash", "input_schema": BASH_SCHEMA}],
    }
    if thinking is not None:
        body["thinking"] = thinking
    resp = httpx.post(f"{url}/v1/messages", json=body, timeout=10)
    assert resp.status_code == 200, resp.text
    result: dict[str, Any] = resp.json()
    return result


def _responses(url: str, reasoning: Any = REASON, include: Any = ENCRYPTED) -> dict[str, Any]:
    body: dict[str, Any] = {
        "model": "m", "input": [{"role": "user", "content": PROMPT}],
        "tools": [{"type": "function", "name": "Bash", "parameters": BASH_SCHEMA}]}
    if reasoning is not None:
        body["reasoning"] = reasoning
    if include is not None:
        body["include"] = include
    resp = httpx.post(f"{url}/v1/responses", json=body, timeout=10)
    assert resp.status_code == 200, resp.text
    result: dict[str, Any] = resp.json()
    return result


def _answer_after_tool(url: str, first: dict[str, Any], thinking: Any = THINK) -> dict[str, Any]:
    """Send the tool round of ``first`` back (Messages) and return the next answer."""
    use = next(b for b in first["content"] if b["type"] == "tool_use")
    return _messages(
        url,
        {"role": "assistant", "content": first["content"]},
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": use["id"], "content": "a.txt"}],
        },
        thinking=thinking,
    )


def _kinds(message: dict[str, Any]) -> list[str]:
    return [block["type"] for block in message["content"]]


def test_anthropic_style_thinking_travels_with_tool_calls_when_asked(
    serve: Any, tmp_path: Path
) -> None:
    srv = serve(load_scripts([_scenario(tmp_path, ANTHROPIC)], []), speed=0.01)
    first = _messages(srv.url)
    assert _kinds(first) == ["thinking", "text", "tool_use"]
    assert first["content"][0]["thinking"] == "I should look first."
    assert first["content"][0]["signature"].startswith("sig_")
    assert first["stop_reason"] == "tool_use"
    output = _responses(srv.url)["output"]
    assert [item["type"] for item in output] == ["reasoning", "message", "function_call"]
    assert output[0]["summary"] == [{"type": "summary_text", "text": "I should look first."}]
    assert output[0]["encrypted_content"].startswith("sig_")
    assert _kinds(_answer_after_tool(srv.url, first)) == ["thinking", "text"]


@pytest.mark.parametrize("thinking", [None, {"type": "disabled"}])
def test_no_thinking_block_unless_the_request_enables_thinking(
    serve: Any, tmp_path: Path, thinking: Any
) -> None:
    srv = serve(load_scripts([_scenario(tmp_path, ANTHROPIC)], []), speed=0.01)
    first = _messages(srv.url, thinking=thinking)
    assert _kinds(first) == ["text", "tool_use"]
    assert first["usage"]["output_tokens"] > 0
    assert _kinds(_answer_after_tool(srv.url, first, thinking=thinking)) == ["text"]


def test_adaptive_thinking_is_asked_for_and_display_omitted_empties_the_text(
    serve: Any, tmp_path: Path
) -> None:
    srv = serve(load_scripts([_scenario(tmp_path, ANTHROPIC)], []), speed=0.01)
    shown = _messages(srv.url, thinking={"type": "adaptive"})
    assert shown["content"][0]["thinking"] == "I should look first."
    omitted = _messages(srv.url, thinking={"type": "adaptive", "display": "omitted"})
    assert _kinds(omitted) == ["thinking", "text", "tool_use"]
    assert omitted["content"][0]["thinking"] == ""
    assert omitted["content"][0]["signature"] == shown["content"][0]["signature"]


@pytest.mark.parametrize(
    ("reasoning", "include", "items", "summary", "encrypted"),
    [
        (None, None, ["message", "function_call"], None, False),
        (None, ENCRYPTED, ["message", "function_call"], None, False),
        ({"effort": "none"}, None, ["message", "function_call"], None, False),
        ({"effort": "low"}, None, ["reasoning", "message", "function_call"], [], False),
        ({"summary": "auto"}, None, ["reasoning", "message", "function_call"], True, False),
        (REASON, ENCRYPTED, ["reasoning", "message", "function_call"], True, True),
    ],
)
def test_responses_reasoning_items_only_as_asked(
    serve: Any,
    tmp_path: Path,
    reasoning: Any,
    include: Any,
    items: list[str],
    summary: Any,
    encrypted: bool,
) -> None:
    srv = serve(load_scripts([_scenario(tmp_path, ANTHROPIC)], []), speed=0.01)
    output = _responses(srv.url, reasoning=reasoning, include=include)["output"]
    assert [item["type"] for item in output] == items
    if summary is not None:
        assert output[0]["summary"] == (
            [{"type": "summary_text", "text": "I should look first."}] if summary else []
        )
        assert ("encrypted_content" in output[0]) is encrypted


@pytest.mark.parametrize(
    "server",
    [
        "",  # the default style is openai
        "server:\n  llmApiStyle: openai\n  coalesceThinkingWithToolUse: false",  # not read
    ],
)
def test_openai_style_never_exposes_thinking(serve: Any, tmp_path: Path, server: str) -> None:
    """The spec: for the OpenAI API style thinking is processed internally, never included.
    Asked-for reasoning still gets its Responses item, empty, as OpenAI's reasoning models
    send it (Codex round-trips it): no summary text, the encrypted content when included."""
    srv = serve(load_scripts([_scenario(tmp_path, server)], []), speed=0.01)
    first = _messages(srv.url, thinking={"type": "adaptive"})
    assert _kinds(first) == ["text", "tool_use"]
    assert _kinds(_answer_after_tool(srv.url, first)) == ["text"]
    output = _responses(srv.url)["output"]
    assert [item["type"] for item in output] == ["reasoning", "message", "function_call"]
    assert output[0]["summary"] == [] and output[0]["encrypted_content"].startswith("sig_")
    assert output[0]["id"].startswith("rs_")


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
