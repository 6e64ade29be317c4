"""Optional request fields are checked as the real APIs check them: 400 naming the field.

Issue 12: 276 of 593 wrong-type mutations of optional fields, and malformed tool entries, were
answered 200. Every mutation below must be refused with the field's path, and the agents'
real captured requests must still pass.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import pytest

from scenarist.llm.conversation import RequestError, read_request

Load = Callable[[str], dict[str, Any]]

CHAT = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
RESPONSES = {"model": "m", "input": "hi"}
MESSAGES = {"model": "m", "max_tokens": 10, "messages": [{"role": "user", "content": "hi"}]}
BASE = {"chat": CHAT, "responses": RESPONSES, "messages": MESSAGES}

REFUSED: list[tuple[str, dict[str, Any], str]] = [
    ("chat", {"temperature": "hot"}, "temperature"),
    ("chat", {"temperature": 3}, "temperature"),
    ("chat", {"temperature": True}, "temperature"),
    ("chat", {"n": 0}, "n"),
    ("chat", {"n": 1.5}, "n"),
    ("chat", {"metadata": [1]}, "metadata"),
    ("chat", {"metadata": {"k": 1}}, "metadata.k"),
    ("chat", {"tool_choice": "sometimes"}, "tool_choice"),
    ("chat", {"tool_choice": 3}, "tool_choice"),
    ("chat", {"tool_choice": {}}, "tool_choice.type"),
    ("chat", {"stop": 7}, "stop"),
    ("chat", {"stop": ["a", "b", "c", "d", "e"]}, "stop"),
    ("chat", {"stream_options": "yes"}, "stream_options"),
    ("chat", {"stream_options": {"include_usage": "yes"}}, "stream_options.include_usage"),
    ("chat", {"parallel_tool_calls": "no"}, "parallel_tool_calls"),
    ("chat", {"tools": {}}, "tools"),
    ("chat", {"tools": [{}]}, "tools[0].function"),
    ("chat", {"tools": [{"type": "function"}]}, "tools[0].function"),
    ("chat", {"tools": [{"type": "function", "function": {"name": 5}}]}, "tools[0].function.name"),
    ("chat", {"tools": [{"type": "function", "function": {}}]}, "tools[0].function.name"),
    ("chat", {"tools": [{"type": "wat"}]}, "tools[0].type"),
    ("chat", {"tools": [5]}, "tools[0]"),
    ("responses", {"instructions": 5}, "instructions"),
    ("responses", {"input": [{"type": {"a": 1}}]}, "input[0].type"),  # found by the fuzz tier
    ("chat", {"messages": [{"role": "assistant", "tool_calls": 1.5}]}, "messages[0].tool_calls"),
    ("responses", {"reasoning": "high"}, "reasoning"),
    ("responses", {"reasoning": {"effort": 1}}, "reasoning.effort"),
    ("responses", {"include": "reasoning.encrypted_content"}, "include"),
    ("responses", {"include": [1]}, "include[0]"),
    ("responses", {"max_output_tokens": -1}, "max_output_tokens"),
    ("responses", {"truncation": "sometimes"}, "truncation"),
    ("responses", {"tools": [{}]}, "tools[0].type"),
    ("responses", {"tools": [{"type": "function"}]}, "tools[0].name"),
    ("responses", {"tools": [{"type": "function", "name": 3}]}, "tools[0].name"),
    ("messages", {"temperature": 1.5}, "temperature"),
    ("messages", {"stop_sequences": "END"}, "stop_sequences"),
    ("messages", {"metadata": {"user_id": 5}}, "metadata.user_id"),
    ("messages", {"thinking": True}, "thinking"),
    ("messages", {"thinking": {"type": "enabled"}}, "thinking.budget_tokens"),
    ("messages", {"thinking": {"type": "enabled", "budget_tokens": 10}}, "thinking.budget_tokens"),
    ("messages", {"tool_choice": "auto"}, "tool_choice"),
    ("messages", {"tool_choice": {"type": "tool"}}, "tool_choice.name"),
    ("messages", {"tool_choice": {"type": "maybe"}}, "tool_choice.type"),
    ("messages", {"system": 5}, "system"),
    ("messages", {"tools": [{}]}, "tools[0].name"),
    ("messages", {"tools": [{"name": "Bash"}]}, "tools[0].input_schema"),
    ("messages", {"tools": [{"name": 1, "input_schema": {}}]}, "tools[0].name"),
]


@pytest.mark.parametrize(("api", "extra", "field"), REFUSED,
                         ids=[f"{a}-{f}-{i}" for i, (a, _, f) in enumerate(REFUSED)])
def test_wrong_optional_field_is_refused_naming_it(api: str, extra: dict[str, Any],
                                                   field: str) -> None:
    with pytest.raises(RequestError) as info:
        read_request(api, {**BASE[api], **extra})  # type: ignore[arg-type]
    assert info.value.param == field, info.value.message
    assert info.value.message.startswith(f"{field}: ") and info.value.status == 400


ACCEPTED: list[tuple[str, dict[str, Any]]] = [
    ("chat", {"temperature": 0, "top_p": 1, "n": 1, "stop": "x", "metadata": {"k": "v"},
              "tool_choice": {"type": "function", "function": {"name": "f"}}, "seed": 3,
              "stream_options": {"include_usage": True}, "parallel_tool_calls": False,
              "tools": [{"type": "function", "function": {"name": "f", "parameters": {}}}]}),
    ("chat", {"temperature": None, "tools": None, "stop": ["a"], "tool_choice": "required"}),
    ("responses", {"instructions": "be brief", "reasoning": {"effort": "low", "summary": "auto"},
                   "include": ["reasoning.encrypted_content"], "store": False,
                   "tools": [{"type": "web_search"}, {"type": "function", "name": "f"}],
                   "prompt_cache_key": "anything: fields we do not know pass"}),
    ("messages", {"temperature": 1, "stop_sequences": ["END"], "metadata": {"user_id": "u"},
                  "thinking": {"type": "enabled", "budget_tokens": 2048},
                  "tool_choice": {"type": "any", "disable_parallel_tool_use": True},
                  "system": [{"type": "text", "text": "sys"}],
                  "tools": [{"name": "Bash", "input_schema": {"type": "object"}},
                            {"type": "web_search_20250305", "name": "web_search"}]}),
    ("messages", {"thinking": {"type": "adaptive", "display": "updates"}}),  # Claude Code 2.1
]


@pytest.mark.parametrize(("api", "extra"), ACCEPTED)
def test_valid_optional_fields_pass(api: str, extra: dict[str, Any]) -> None:
    read_request(api, {**BASE[api], **extra})  # type: ignore[arg-type]


@pytest.mark.parametrize("name", [
    "aider_request.json", "claude_turn1_request.json", "claude_nonstream_fallback_request.json",
    "codex_turn1_request.json", "codex_gpt55_apply_patch_followup_request.json",
    "llm_tool_followup_request.json",
])
def test_real_agents_requests_still_pass(name: str, captured: Load) -> None:
    request = captured(name)
    api = {"/v1/chat/completions": "chat", "/v1/responses": "responses"}.get(
        request["path"].split("?")[0], "messages")
    read_request(api, request["body"])  # type: ignore[arg-type]


def test_the_server_answers_400_in_each_apis_format(serve: Any) -> None:
    from test_llm_server import ALPHA

    srv = serve([ALPHA], speed=0.01)
    chat = httpx.post(f"{srv.url}/v1/chat/completions", json={**CHAT, "temperature": "hot"})
    assert chat.status_code == 400
    assert chat.json()["error"]["param"] == "temperature"
    anthropic = httpx.post(f"{srv.url}/v1/messages", json={**MESSAGES, "tools": [{}]})
    assert anthropic.status_code == 400
    error = anthropic.json()
    assert error["type"] == "error" and error["error"]["type"] == "invalid_request_error"
    assert error["error"]["message"].startswith("tools[0].name: ")


@pytest.mark.parametrize("kind", ["function_call", "function_call_output",
                                  "local_shell_call_output"])
def test_a_call_id_that_is_no_string_is_a_400_naming_it(serve: Any, kind: str) -> None:
    """Call ids are kept in a set (Codex's code-mode waits): a list there once crashed the
    answer with a bare 500; the API itself refuses it as a 400 naming the field."""
    from test_llm_server import ALPHA

    srv = serve([ALPHA], speed=0.01)
    item = {"type": kind, "call_id": ["c1"], "name": "f", "arguments": "{}", "output": "ok"}
    body = {"model": "m", "input": [{"role": "user", "content": "hi"}, item]}
    reply = httpx.post(f"{srv.url}/v1/responses", json=body)
    assert reply.status_code == 400
    error = reply.json()["error"]
    assert error["param"] == "input[1].call_id"
    assert error["message"] == "input[1].call_id: expected a string, got an array"
