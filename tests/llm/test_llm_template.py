"""Answers made once per shape and filled with each conversation's ids (issue 28).

The render memo keeps one template per answer shape (``answer.Memo``, ``llm.template``); every
answer it gives must be the one a server without it gives, byte for byte, on agent-shaped
traffic (several conversations, both turns, every API, streamed and not), its ids unique per
conversation and the same on a replay. A shape whose scripted text holds a sentinel's value
fails the template's check and is answered afresh; another conversation's id in the text is
just text.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from scenarist.llm.answer import Answer, Answerer, Memo, ModelRequest
from scenarist.llm.conversation import Api
from scenarist.llm.gemini_request import Route
from scenarist.llm.ids import TurnRef, encode_ref
from scenarist.llm.plan import build_script
from scenarist.llm.script import Script
from scenarist.llm.selection import Selector
from scenarist.llm.template import SENTINEL_A, SENTINEL_B, Fill, make
from scenarist.scenario import load_scenario_text

PROMPT = "Run the test suite and tell me what fails"
LINE = "I'll run the tests first."
FINAL = " ".join(["The suite passes: 42 tests, no failures, coverage 91%."] * 8)
CREATED = 1_764_000_000


def scenario(name: str = "agent", line: str = LINE, final: str = FINAL, extra: str = "") -> Script:
    return build_script(load_scenario_text(
        f"name: {name}\n"
        "timeline:\n"
        f"  - userInputs: [[0, {json.dumps(PROMPT)}]]\n"
        f"  - llmResponse: [{{assistant: [[0, {json.dumps(line)}]]}}{extra}]\n"
        "  - agentActions: [{runCmd: {cmd: pytest -q}}]\n"
        f"  - llmResponse: [{{assistant: [[0, {json.dumps(final)}]]}}]\n"))


def never(_key: object) -> bool:
    return False


# --- bodies shaped like the agents' (a system prompt, the agent's tools, the history) ---------

CLAUDE_TOOLS = [{"name": n, "description": f"the {n} tool",
                 "input_schema": {"type": "object", "properties": {"command": {"type": "string"}}}}
                for n in ("Bash", "Read", "Write", "Edit")]
CODEX_TOOLS = [{"type": "function", "name": "exec_command", "description": "run",
                "parameters": {"type": "object", "properties": {"cmd": {"type": "string"}}}}]
CHAT_TOOLS = [{"type": "function", "function": {"name": t["name"], "parameters": t["input_schema"]}}
              for t in CLAUDE_TOOLS]
GEMINI_TOOLS = [{"functionDeclarations": [{"name": "run_shell_command"}, {"name": "replace"},
                                          {"name": "list_directory"}, {"name": "read_file"}]}]


def prompt_of(conv: int) -> str:
    return f"{PROMPT} (ticket {conv:04d})"


def body(api: Api, conv: int, turn: int, stream: bool) -> dict[str, Any]:
    """Conversation ``conv``'s request for its ``turn`` (1: the prompt, 2: with the call's
    result), in ``api``'s own shape."""
    prompt, call = prompt_of(conv), f"call_{conv:04d}"
    result = f"42 passed in 0.{conv:04d}s"
    if api == "messages":
        history: list[Any] = [{"role": "user", "content": prompt}]
        if turn == 2:
            history += [
                {"role": "assistant", "content": [
                    {"type": "text", "text": LINE},
                    {"type": "tool_use", "id": call, "name": "Bash",
                     "input": {"command": "pytest -q"}}]},
                {"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": call, "content": result}]}]
        return {"model": "claude-sonnet-4-5", "max_tokens": 4096, "stream": stream,
                "system": "You are Claude Code.", "messages": history, "tools": CLAUDE_TOOLS}
    if api == "responses":
        items: list[Any] = [{"type": "message", "role": "user",
                             "content": [{"type": "input_text", "text": prompt}]}]
        if turn == 2:
            items += [
                {"type": "message", "role": "assistant",
                 "content": [{"type": "output_text", "text": LINE}]},
                {"type": "function_call", "name": "exec_command", "call_id": call,
                 "arguments": json.dumps({"cmd": "pytest -q"})},
                {"type": "function_call_output", "call_id": call, "output": result}]
        return {"model": "gpt-5-codex", "stream": stream, "instructions": "You are Codex.",
                "input": items, "tools": CODEX_TOOLS, "store": False}
    if api == "chat":
        messages: list[Any] = [{"role": "system", "content": "You are a coding agent."},
                               {"role": "user", "content": prompt}]
        if turn == 2:
            messages += [
                {"role": "assistant", "content": LINE, "tool_calls": [
                    {"id": call, "type": "function",
                     "function": {"name": "Bash", "arguments": '{"command": "pytest -q"}'}}]},
                {"role": "tool", "tool_call_id": call, "content": result}]
        return {"model": "gpt-4.1", "stream": stream, "messages": messages, "tools": CHAT_TOOLS,
                **({"stream_options": {"include_usage": True}} if stream else {})}
    contents: list[Any] = [{"role": "user", "parts": [{"text": prompt}]}]
    if turn == 2:
        contents += [
            {"role": "model", "parts": [{"text": LINE}, {"functionCall": {
                "name": "run_shell_command", "args": {"command": "pytest -q"}}}]},
            {"role": "user", "parts": [{"functionResponse": {
                "name": "run_shell_command", "response": {"output": result}}}]}]
    return {"contents": contents, "tools": GEMINI_TOOLS}


def request(api: Api, conv: int, turn: int, stream: bool, *, session: bool = True,
            created: int = CREATED, sse: bool = True) -> ModelRequest:
    """The request; ``session``: with the agent's session header (else the conversation is
    told apart by its first prompt); ``sse``: Gemini's stream as SSE (else a JSON array)."""
    headers = {"x-claude-code-session-id" if api == "messages" else "session-id":
               f"session-{conv:04d}"} if session else {}
    route = Route("gemini-2.5-pro", stream, stream and sse).key() if api == "gemini" else ""
    raw = json.dumps(body(api, conv, turn, stream)).encode()
    return ModelRequest(api, headers, raw, created, route)


APIS: tuple[Api, ...] = ("messages", "responses", "chat", "gemini")
IDS = re.compile(rb"(?:toolu|call)_[0-9a-f]{24}|(?:msg|resp|chatcmpl)[_-][A-Za-z0-9_-]{40,}"
                 rb'|"responseId":"[A-Za-z0-9_-]{40,}"')


def ids_of(encoded: Any) -> set[bytes]:
    data = encoded.body if encoded.body is not None else b"".join(b.data for b in encoded.batches)
    return set(IDS.findall(data))


def answered(answerer: Answerer, req: ModelRequest) -> Answer:
    result = answerer.answer(req, never)
    assert isinstance(result, Answer), result
    return result


def test_agent_traffic_is_answered_from_templates_exactly_as_afresh() -> None:
    script = scenario()
    memo = Memo()
    cached, fresh = Answerer(Selector([script]), encode=memo), Answerer(Selector([script]))
    ids: dict[tuple[Api, bool, int, int], set[bytes]] = {}
    for conv in range(6):
        for turn in (1, 2):
            for api in APIS:
                for stream in (False, True):
                    # a conversation with a session id, and one told apart by its prompt
                    req = request(api, conv, turn, stream, session=conv % 2 == 0,
                                  created=CREATED + conv)
                    got = answered(cached, req)
                    want = answered(fresh, req)
                    assert got.encoded == want.encoded, (api, conv, turn, stream)
                    assert got.notes == want.notes
                    ids[(api, stream, turn, conv)] = ids_of(got.encoded)
    # every shape (API × stream × turn) answered from a template once it came again
    assert memo.templates == len(memo) == len(APIS) * 2 * 2
    for (api, stream, turn, conv), found in ids.items():
        assert found, (api, stream, turn)
        # ids differ between conversations ...
        others = [ids[(api, stream, turn, c)] for c in range(6) if c != conv]
        assert all(not found & other for other in others), (api, stream, turn, conv)
    # Gemini's stream as one JSON array (no ?alt=sse) is another shape, filled the same way
    for conv in range(4):
        req = request("gemini", conv, 1, True, sse=False, created=CREATED + conv)
        got, want = answered(cached, req), answered(fresh, req)
        assert not got.encoded.sse and got.encoded == want.encoded, conv
    assert memo.templates == len(memo) == len(APIS) * 2 * 2 + 1
    # ... and are the same on a replay of the same conversation (here in another second)
    for api in APIS:
        again = answered(cached, request(api, 3, 1, True, session=False, created=CREATED + 60))
        assert ids_of(again.encoded) == ids[(api, True, 1, 3)]
        assert again.encoded == answered(
            fresh, request(api, 3, 1, True, session=False, created=CREATED + 60)).encoded


def test_a_repeated_request_gets_the_same_answer_without_a_fill() -> None:
    memo = Memo()
    cached = Answerer(Selector([scenario()]), encode=memo)
    first, second, third = (answered(cached, request("responses", 1, 1, True)) for _ in range(3))
    assert third.encoded is second.encoded and first.encoded == second.encoded
    other = answered(cached, request("responses", 2, 1, True))
    assert other.encoded != second.encoded and memo.templates == 1


def sentinel_token(script: Script, model: str, one_call: bool = False) -> str:
    return encode_ref(TurnRef(script.name, SENTINEL_A.conversation, 0, 0, one_call, False, model))


def test_a_shape_whose_text_holds_a_sentinel_value_is_answered_afresh() -> None:
    # the scripted line holds what a template would cut out: never made from a template
    plain = scenario("agent")
    texts = [
        f"Ids: resp_{sentinel_token(plain, 'gpt-5-codex')}.",  # the sentinel id token
        f"Build {SENTINEL_A.created} started.",  # the sentinel created second
        f"Read {SENTINEL_A.input_tokens} tokens.",  # the sentinel input size
    ]
    for line in texts:
        script = scenario("agent", line=line)
        memo = Memo()
        cached, fresh = Answerer(Selector([script]), encode=memo), Answerer(Selector([script]))
        for conv in range(4):
            for stream in (False, True):
                req = request("responses", conv, 1, stream, created=CREATED + conv)
                got, want = answered(cached, req), answered(fresh, req)
                assert got.encoded == want.encoded, (line, conv, stream)
        # both shapes of turn 1 came again, and neither became a template
        assert len(memo) == 2 and memo.templates == 0, line


def test_another_conversation_s_id_in_the_scripted_text_is_just_text() -> None:
    # conversation 1's id token in the scenario's text: conversation 2's answer keeps it as
    # text and gets its own ids (only the sentinels' text is filled in)
    probe = scenario("agent")
    first = answered(Answerer(Selector([probe])), request("messages", 1, 1, False))
    token = next(i for i in ids_of(first.encoded) if i.startswith(b"msg_")).decode()
    calls = [i.decode() for i in ids_of(first.encoded) if i.startswith(b"toolu_")]
    script = scenario("agent", line=f"See {token} and {calls[0]}, {CREATED}.")
    memo = Memo()
    cached, fresh = Answerer(Selector([script]), encode=memo), Answerer(Selector([script]))
    for conv in (1, 2, 3, 1):
        for stream in (False, True):
            req = request("messages", conv, 1, stream)
            got, want = answered(cached, req), answered(fresh, req)
            assert got.encoded == want.encoded, (conv, stream)
    assert memo.templates == 2


def test_a_faulted_stream_keeps_its_frames_and_strike() -> None:
    script = scenario("agent", extra=", {fault: {kind: disconnect}}, {assistant: [[0, more]]}")
    memo = Memo()
    cached, fresh = Answerer(Selector([script]), encode=memo), Answerer(Selector([script]))
    for conv in range(4):
        for api in APIS:
            req = request(api, conv, 1, True, created=CREATED + conv)
            got, want = answered(cached, req), answered(fresh, req)
            assert got.encoded.frames and got.encoded == want.encoded, (api, conv)
    assert memo.templates == len(APIS)


def test_the_memo_is_bounded_by_shapes_and_bytes() -> None:
    script = scenario()
    few = Memo(limit=2)
    cached = Answerer(Selector([script]), encode=few)
    for api in ("messages", "responses", "chat"):
        for _ in range(2):
            answered(cached, request(api, 1, 1, False))
    assert len(few) == 1  # the third shape started the memo afresh
    small = Memo(byte_limit=3000)
    cached = Answerer(Selector([script]), encode=small)
    for stream in (False, True):
        for _ in range(2):
            answered(cached, request("responses", 1, 2, stream))
    assert len(small) == 1  # the streamed template would have passed 3,000 bytes


def test_a_turn_that_reads_files_is_never_memoised(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("one\n")
    script = build_script(load_scenario_text(
        "name: edit\n"
        "timeline:\n"
        f"  - userInputs: [[0, {json.dumps(PROMPT)}]]\n"
        "  - llmResponse: [{assistant: [[0, editing]]}]\n"
        "  - agentEdits: {path: notes.txt, linesAdded: 1}\n"))
    memo = Memo()
    cached = Answerer(Selector([script]), workspace=tmp_path, encode=memo)
    fresh = Answerer(Selector([script]), workspace=tmp_path)
    for conv in range(3):
        req = request("messages", conv, 1, False)
        assert answered(cached, req).encoded == answered(fresh, req).encoded
    assert len(memo) == 0


def test_make_refuses_a_template_that_filling_does_not_reproduce() -> None:
    a = Fill("tokenA", ("call_a",), SENTINEL_A.created, SENTINEL_A.input_tokens, 5)
    b = Fill("tokenB-longer", ("call_b",), SENTINEL_B.created, SENTINEL_B.input_tokens, 5)

    def encode(fill: Fill, text: str) -> list[bytes]:
        return [json.dumps({"id": fill.token, "call": fill.calls[0], "created": fill.created,
                            "usage": [fill.input_tokens, fill.input_tokens + 5],
                            "text": text}).encode()]

    formats = make(encode(a, "100% done"), a, encode(b, "100% done"), b)
    assert formats is not None and b"100%% done" in formats[0]
    real = Fill("tokenR", ("call_r",), CREATED, 1234, 5)
    assert formats[0] % real.table() == encode(real, "100% done")[0]
    # the sentinel's own text in the scripted text: filling would change the text too
    assert make(encode(a, "tokenA"), a, encode(b, "tokenA"), b) is None
    # a layout that depends on a value (here the id's length): refused
    assert make([b"x" * len(a.token)], a, [b"x" * len(b.token)], b) is None


def test_tool_lists_share_a_token_exactly_when_equal() -> None:
    """The shape key's token of a tool list: the same for an equal list read afresh (a body
    that is not compact JSON), another for a list that differs in any declaration, and
    bounded (tables started afresh still give equal lists one token)."""
    from scenarist.llm.answer import _TOOLS_BY_ID, _TOOLS_BY_VALUE, _TOOLS_LIMIT, _tools_token
    from scenarist.llm.conversation import ToolDecl

    def decls(required: tuple[str, ...]) -> tuple[ToolDecl, ...]:
        return tuple([ToolDecl("Bash", params=(("command", "string"),), required=required),
                      ToolDecl("Read")])

    first, again, other = decls(("command",)), decls(("command",)), decls(())
    assert first is not again
    assert _tools_token(first) is _tools_token(again) is _tools_token(first)
    assert _tools_token(other) is not _tools_token(first)
    for k in range(3 * _TOOLS_LIMIT):
        _tools_token((ToolDecl(f"tool{k}"),))
    assert len(_TOOLS_BY_ID) <= _TOOLS_LIMIT and len(_TOOLS_BY_VALUE) <= _TOOLS_LIMIT
    assert _tools_token(decls(("command",))) is _tools_token(first)
    assert _tools_token(other) is not _tools_token(first)
