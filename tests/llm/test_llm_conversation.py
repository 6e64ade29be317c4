"""Reading real captured agent requests: prompt as typed, cwd, tools, profile, position."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from scenarist.llm import conversation
from scenarist.llm.conversation import (
    Mark,
    RequestError,
    detect_profile,
    find_cwd,
    read_chat,
    read_messages,
    read_request,
    read_responses,
    strip_wrappers,
)

Load = Callable[[str], dict[str, Any]]
HOSTILE = Path(__file__).parent / "hostile"


@pytest.mark.parametrize(
    ("name", "prompt"),
    [
        ("claude_turn1_request.json", "create hi.txt"),
        ("claude_turn2_followup_request.json", "create hi.txt"),
        ("claude_nonstream_fallback_request.json", "say hello"),
        ("claude_no_experimental_betas_request.json", "say hello"),
    ],
)
def test_claude_code_prompt_cwd_profile(name: str, prompt: str, captured: Load) -> None:
    conv = read_messages(captured(name)["body"])
    assert conv.first_prompt == prompt
    assert conv.prompts == (prompt,)
    assert conv.cwd == "/home/dev/project"
    assert detect_profile(conv) == "claude"
    assert {"Bash", "Write", "Edit", "Read"} <= conv.tool_names


def test_claude_code_turn_positions(captured: Load) -> None:
    first = read_messages(captured("claude_turn1_request.json")["body"])
    assert (first.assistant_turns, first.tool_calls, first.tool_results) == (0, 0, 0)
    assert first.stream and first.max_tokens
    follow = read_messages(captured("claude_turn2_followup_request.json")["body"])
    assert (follow.assistant_turns, follow.tool_calls, follow.tool_results) == (1, 1, 1)
    assert follow.marks == (Mark("call", "Write"),)
    assert follow.user_turns == 1  # the tool_result message is not a user turn
    fallback = read_messages(captured("claude_nonstream_fallback_request.json")["body"])
    assert fallback.stream is False


@pytest.mark.parametrize(
    ("name", "prompt", "profile"),
    [
        ("codex_turn1_request.json", "create hi.txt", "codex"),
        ("codex_turn2_followup_request.json", "create hi.txt", "codex"),
        ("codex_gpt55_apply_patch_followup_request.json", "create hi.txt", "codex"),
        ("codex_builtin_provider_default_model_request.json", "say hello", "openai"),
    ],
)
def test_codex_prompt_cwd(name: str, prompt: str, profile: str, captured: Load) -> None:
    conv = read_responses(captured(name)["body"])
    assert conv.prompts == (prompt,)
    assert conv.cwd == "/home/dev/project"
    assert detect_profile(conv) == profile


def test_codex_tools_and_positions(captured: Load) -> None:
    turn1 = read_responses(captured("codex_turn1_request.json")["body"])
    assert "exec_command" in turn1.tool_names
    assert (turn1.assistant_turns, turn1.tool_calls, turn1.tool_results) == (0, 0, 0)
    follow = read_responses(captured("codex_turn2_followup_request.json")["body"])
    assert (follow.assistant_turns, follow.tool_calls, follow.tool_results) == (1, 1, 1)
    assert follow.marks == (Mark("call", "exec_command"),)
    patch = read_responses(captured("codex_gpt55_apply_patch_followup_request.json")["body"])
    kinds = {t.name: t.kind for t in patch.tools}
    assert kinds["apply_patch"] == "custom" and kinds["exec_command"] == "function"
    assert patch.marks == (Mark("call", "apply_patch"),)


def test_codex_code_mode_tools_come_from_additional_tools_item(captured: Load) -> None:
    conv = read_responses(captured("codex_builtin_provider_default_model_request.json")["body"])
    kinds = {t.name: t.kind for t in conv.tools}
    assert kinds["exec"] == "custom" and kinds["wait"] == "function"


def test_chat_clients(captured: Load) -> None:
    llm = read_chat(captured("llm_tool_followup_request.json")["body"])
    assert llm.prompts == ("what time is it",)
    assert (llm.assistant_turns, llm.tool_calls, llm.tool_results) == (1, 1, 1)
    assert llm.include_usage and llm.stream
    assert detect_profile(llm) == "openai" and llm.tool_names == {"llm_time"}
    aider = read_chat(captured("aider_request.json")["body"])
    assert aider.user_turns == 4 and aider.assistant_turns == 3


def test_multi_prompt_position_resets_marks_per_user_turn() -> None:
    body = {
        "model": "m",
        "messages": [
            {"role": "user", "content": "first"},
            {"role": "assistant", "content": "one"},
            {"role": "user", "content": [{"type": "text", "text": "second"}]},
        ],
    }
    conv = read_chat(body)
    assert conv.prompts == ("first", "second") and conv.marks == ()
    assert conv.assistant_turns == 1


def test_strip_wrappers() -> None:
    text = "<system-reminder>\nx\n</system-reminder>\n  do it  <system-reminder>y</system-reminder>"
    assert strip_wrappers(text) == "do it"
    assert strip_wrappers("<environment_context>\n<cwd>/a</cwd>\n</environment_context>") == ""
    agents = "# AGENTS.md instructions for /p\n\n<INSTRUCTIONS>\nbe nice\n</INSTRUCTIONS>"
    assert strip_wrappers(agents) == ""
    assert strip_wrappers("plain <b>tag</b>") == "plain <b>tag</b>"


@pytest.mark.parametrize(
    ("api", "body", "param"),
    [
        ("chat", {"messages": []}, "model"),
        ("chat", {"model": "m", "messages": []}, "messages"),
        ("chat", {"model": "m", "messages": "hi"}, "messages"),
        ("chat", {"model": "m", "messages": [{"content": "x"}]}, "messages[0].role"),
        ("chat", {"model": 3, "messages": [{"role": "user", "content": "x"}]}, "model"),
        (
            "chat",
            {"model": "m", "messages": [{"role": "user", "content": "x"}], "stream": "y"},
            "stream",
        ),
        ("responses", {"model": "m"}, "input"),
        (
            "responses",
            {"model": "m", "input": [{"role": "wizard", "content": "x"}]},
            "input[0].role",
        ),
        ("messages", {"model": "m", "messages": [{"role": "user", "content": "x"}]}, "max_tokens"),
        (
            "messages",
            {"model": "m", "max_tokens": 5, "messages": [{"role": "user"}]},
            "messages[0].content",
        ),
        ("messages", {"model": "m", "max_tokens": 0, "messages": []}, "max_tokens"),
    ],
)
def test_bad_bodies_name_the_field(api: str, body: object, param: str) -> None:
    with pytest.raises(RequestError) as info:
        read_request(api, body)  # type: ignore[arg-type]
    assert info.value.param == param
    assert info.value.status == 400
    assert param.split("[")[0] in info.value.message


def test_body_must_be_an_object() -> None:
    with pytest.raises(RequestError, match="expected an object"):
        read_request("chat", [1, 2])


def test_stripped_texts_are_kept_bounded_and_read_the_same() -> None:
    """A wrapped text is stripped once and looked up after (every request resends the
    history); what comes back is what stripping gives, and the texts kept stay bounded."""
    texts = [f"<system-reminder>{i}</system-reminder> do {i} <cwd>x</cwd>" for i in range(600)]
    fresh = [strip_wrappers(t) for t in texts]
    assert fresh == [f"do {i} <cwd>x</cwd>" for i in range(600)]
    assert [strip_wrappers(t) for t in texts] == fresh  # kept ones, and ones forgotten
    assert len(conversation._TYPED) <= conversation._TYPED_LIMIT
    big = "<system-reminder>" + "x" * conversation._TYPED_TEXT_LIMIT + "</system-reminder>ok"
    assert strip_wrappers(big) == strip_wrappers(big) == "ok"
    assert big not in conversation._TYPED
    unclosed = "<environment_context>never closed"
    assert strip_wrappers(unclosed) == strip_wrappers(unclosed) == ""


def test_wrapper_removal_keeps_what_is_not_a_closed_block() -> None:
    text = "<system-reminder>a</system-reminder>keep<system-reminder x='1'>b</system-reminder>"
    assert strip_wrappers(text) == "keep"
    # an unclosed opener stays; a later closed block of another tag is still removed
    assert strip_wrappers("x <system-reminder> y <INSTRUCTIONS>z</INSTRUCTIONS>") == \
        "x <system-reminder> y"
    # blocks do not nest: the first closing tag ends the block, as before
    assert strip_wrappers("<turn_aborted>1<turn_aborted>2</turn_aborted>3</turn_aborted>ok") == \
        "3</turn_aborted>ok"


@pytest.mark.timeout(60)  # a hang detector: the quadratic version needed hours for this
def test_hostile_unclosed_wrappers_are_linear() -> None:
    """Issue 12: 136 KB of unclosed <system-reminder> stalled every client for 9.7 s."""
    body = (HOSTILE / "unclosed-wrappers.txt").read_text() * 40  # ~5.4 MB
    assert strip_wrappers(body) == ""  # an unclosed wrapper at the start swallows its part
    assert strip_wrappers("typed " + body) == ("typed " + body).strip()
    assert find_cwd(["<cwd>" + " " * 2_000_000 + "x"]) is None
    assert find_cwd(["<cwd>  /w  </cwd>"]) == "/w"


def test_an_anthropic_client_tool_typed_custom_is_a_function_with_its_schema() -> None:
    """The Anthropic SDK's tool runner declares ``type: custom`` with an ``input_schema``;
    OpenAI's freeform custom tools have no schema and stay ``custom``."""
    schema = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
    conv = read_messages({"model": "m", "max_tokens": 10,
                          "messages": [{"role": "user", "content": "hi"}],
                          "tools": [{"type": "custom", "name": "get_weather",
                                     "input_schema": schema}]})
    (decl,) = conv.tools
    assert (decl.name, decl.kind, decl.params, decl.required) == (
        "get_weather", "function", (("city", "string"),), ("city",))
