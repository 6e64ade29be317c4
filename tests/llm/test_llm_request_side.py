"""The request side made cheaper (issue 28): errors whose paths are made only when raised say
what they said before, and what is kept per distinct text or value is bounded and keyed by it.

The history items below sit deep in a long history (item 40 of 41), where the readers used
to make each item's field path before looking at it; the message and ``param`` are the API's
own, as the readers gave them then.

The differential check at the end reads ~12,000 mutants of captured agent bodies and compares
each verdict with the one recorded from the readers before this work (``reader-verdicts.json``).
"""

from __future__ import annotations

import copy
import hashlib
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

from scenarist.errors import WireError
from scenarist.llm import conversation
from scenarist.llm.answer import ModelRequest, parse, read
from scenarist.llm.conversation import RequestError, detect_profile, find_cwd, read_request
from scenarist.llm.request_body import BodyReader
from scenarist.llm.request_fields import check_optional_fields
from scenarist.llm.tool_choice import AUTO, read_tool_choice

DEEP = 40


def _chat(bad: Any) -> dict[str, Any]:
    history: list[Any] = []
    for i in range(DEEP // 2):
        history += [{"role": "user", "content": [{"type": "text", "text": f"q{i}"}]},
                    {"role": "assistant", "content": f"a{i}"}]
    return {"model": "m", "messages": [*history, bad]}


def _responses(bad: Any) -> dict[str, Any]:
    history: list[Any] = []
    for i in range(DEEP // 2):
        history += [{"type": "message", "role": "user",
                     "content": [{"type": "input_text", "text": f"q{i}"}]},
                    {"type": "function_call", "name": "f", "call_id": f"c{i}", "arguments": "{}"}]
    return {"model": "m", "input": [*history, bad]}


def _messages(bad: Any) -> dict[str, Any]:
    history: list[Any] = []
    for i in range(DEEP // 2):
        history += [{"role": "user", "content": [{"type": "text", "text": f"q{i}"}]},
                    {"role": "assistant", "content": [{"type": "text", "text": f"a{i}"}]}]
    return {"model": "m", "max_tokens": 5, "messages": [*history, bad]}


BUILD = {"chat": _chat, "responses": _responses, "messages": _messages}


@pytest.mark.parametrize(
    ("api", "bad", "message"),
    [
        ("chat", 7, "messages[40]: expected an object, got a number"),
        ("chat", {"content": "x"}, "messages[40].role: Field required"),
        ("chat", {"role": None}, "messages[40].role: expected a string, got null"),
        ("chat", {"role": "user", "content": {}},
         "messages[40].content: expected an array, got an object"),
        ("chat", {"role": "user", "content": [{"type": "text", "text": "x"}, "y"]},
         "messages[40].content[1]: expected an object, got a string"),
        ("chat", {"role": "assistant", "content": None, "tool_calls": [{}, 3]},
         "messages[40].tool_calls[1]: expected an object, got a number"),
        ("chat", {"role": "wizard"},
         "messages[40].role: unknown role 'wizard' (expected system, developer, user, "
         "assistant or tool)"),
        ("responses", [], "input[40]: expected an object, got an array"),
        ("responses", {"type": 5}, "input[40].type: expected a string, got a number"),
        ("responses", {"content": "x"}, "input[40].type: Field required"),
        ("responses", {"type": "message", "content": "x"}, "input[40].role: Field required"),
        ("responses", {"type": "message", "role": ["user"]},
         "input[40].role: expected a string, got an array"),
        ("responses", {"type": "message", "role": "user", "content": 3},
         "input[40].content: expected an array, got a number"),
        ("responses", {"type": "message", "role": "user", "content": [None]},
         "input[40].content[0]: expected an object, got null"),
        ("responses", {"role": "wizard", "content": "x"},
         "input[40].role: unknown role 'wizard' (expected user, assistant, system or "
         "developer)"),
        ("responses", {"type": "additional_tools", "tools": [1]},
         "input[40].tools[0]: expected an object, got a number"),
        ("messages", "hi", "messages[40]: expected an object, got a string"),
        ("messages", {"content": "x"}, "messages[40].role: Field required"),
        ("messages", {"role": 1, "content": "x"}, "messages[40].role: expected a string, got a number"),
        ("messages", {"role": "user"}, "messages[40].content: Field required"),
        ("messages", {"role": "user", "content": None},
         "messages[40].content: expected a string or an array of content blocks, got null"),
        ("messages", {"role": "user", "content": [{"type": "tool_result"}, 2]},
         "messages[40].content[1]: expected an object, got a number"),
        ("messages", {"role": "assistant", "content": [{"type": "text", "text": "a"}, []]},
         "messages[40].content[1]: expected an object, got an array"),
        ("messages", {"role": "system", "content": [True]},
         "messages[40].content[0]: expected an object, got a boolean"),
        ("messages", {"role": "tool", "content": "x"},
         "messages[40].role: unknown role 'tool' (expected user or assistant)"),
    ],
)
def test_a_bad_item_deep_in_a_history_is_named_as_before(api: str, bad: Any,
                                                         message: str) -> None:
    with pytest.raises(RequestError) as info:
        read_request(api, BUILD[api](bad))  # type: ignore[arg-type]
    assert info.value.message == message
    assert info.value.param == message.split(":")[0]
    assert info.value.status == 400


@pytest.mark.parametrize(
    ("api", "field", "value", "message"),
    [
        ("messages", "system", [{"type": "text", "text": "a"}] * 9 + [{"type": "text"}],
         "system[9].text: Field required"),
        ("messages", "system", [{"type": "text", "text": "a"}] * 9 + [4],
         "system[9]: expected an object, got a number"),
        ("messages", "system", [{"type": "text", "text": "a"}] * 9 + [{"text": 4}],
         "system[9].text: expected a string, got a number"),
        ("messages", "stop_sequences", ["a"] * 7 + [1], "stop_sequences[7]: expected a string, got a number"),
        ("responses", "include", ["a"] * 7 + [None], "include[7]: expected a string, got null"),
        ("responses", "tool_choice", "sometimes",
         "tool_choice: expected one of 'none', 'auto', 'required', got 'sometimes'"),
        ("messages", "tool_choice", {"type": "all"},
         "tool_choice.type: expected one of 'auto', 'any', 'tool', 'none', got 'all'"),
    ],
)
def test_optional_fields_name_the_bad_item_as_before(api: str, field: str, value: Any,
                                                     message: str) -> None:
    with pytest.raises(RequestError) as info:
        check_optional_fields(api, {field: value})  # type: ignore[arg-type]
    assert (info.value.message, info.value.param) == (message, message.split(":")[0])


def test_the_cwd_found_in_a_text_is_kept_by_the_text_and_bounded() -> None:
    """Two requests that differ only in the text naming the directory read two directories;
    one text read again reads the same; the texts kept stay bounded."""
    conversation._CWD_FOUND.clear()
    system = "You are an agent.\n" * 30
    env = "# Environment\n - Primary working directory: {}\n - Platform: linux\n"
    assert find_cwd([system, env.format("/a")]) == "/a"
    assert find_cwd([system, env.format("/b")]) == "/b"
    assert find_cwd([system, env.format("/a")]) == "/a"
    codex = "<environment_context>\n  <cwd>{}</cwd>\n</environment_context>"
    assert find_cwd([env.format("/a"), codex.format("/c")]) == "/c"  # Codex's wins
    assert find_cwd([env.format("/a"), codex.format(" ")]) == "/a"  # an empty <cwd> does not
    for i in range(3 * conversation._TYPED_LIMIT):
        assert find_cwd([env.format(f"/w{i}")]) == f"/w{i}"
        assert len(conversation._CWD_FOUND) <= conversation._TYPED_LIMIT
    big = env.format("/big") + "x" * conversation._TYPED_TEXT_LIMIT
    assert find_cwd([big]) == find_cwd([big]) == "/big"
    assert big not in conversation._CWD_FOUND


def test_which_agent_reports_the_cwd_depends_on_the_texts_before() -> None:
    """A text naming both Claude Code's working directory and Gemini CLI's workspace counts as
    Claude Code's when no text before named one, else as Gemini CLI's (read from the kept
    findings as from the text)."""
    both = "Working directory: /claude\nWorkspace Directories:\n  - /gemini\n"
    claude = "Primary working directory: /first\n"
    for _ in range(2):  # found, then kept
        assert find_cwd([both]) == "/claude"
        assert find_cwd([claude, both]) == "/first"
        assert find_cwd(["Workspace Directories:\n  - /g0\n", both]) == "/claude"


def test_a_tool_choice_string_is_noted_as_before() -> None:
    """``"auto"`` sent is noted in the journal (``tool_choice: auto``); none sent is not."""
    body = {"model": "m", "input": "hi"}
    request = ModelRequest.of("responses", {}, b"", 0)
    notes: dict[str, Any] = {}
    assert read(request, notes, dict(body, tool_choice="auto")).choice == ("auto", None)
    assert notes["tool_choice"] == "auto"
    notes = {}
    assert read(request, notes, body).choice is AUTO
    assert "tool_choice" not in notes
    assert read_tool_choice("chat", "required", frozenset()).must_call
    assert read_tool_choice("chat", "whatever", frozenset()) == ("auto", None)


def test_tool_names_are_kept_per_list_for_two_agents_taking_turns() -> None:
    """Two agents' tool lists served in turn each get their own names (kept by the list
    itself, not by what it equals or by the last list asked), and the lists kept are few."""
    claude = conversation._declared([{"name": "Bash", "input_schema": {}},
                                     {"name": "Read", "input_schema": {}}], "tools")
    codex = conversation._declared([{"type": "function", "name": "exec_command"}], "tools")
    for _ in range(3):
        assert conversation._names(claude) == {"Bash", "Read"}
        assert conversation._names(codex) == {"exec_command"}
    lists = [tuple(conversation.ToolDecl(f"t{i}") for _ in range(2)) for i in range(40)]
    for i, tools in enumerate(lists):
        assert conversation._names(tools) == {f"t{i}"}
        assert len(conversation._NAMES) <= conversation._NAMES_LIMIT
    assert [conversation._names(t) for t in lists] == [{f"t{i}"} for i in range(40)]


def test_the_profile_is_kept_per_tool_list_and_client() -> None:
    """The profile detected for a tool list is kept by the list itself and the client: the
    same list from another client (aider's instructions), or another list equal to none
    before, is detected afresh."""
    claude = conversation._declared([{"name": n, "input_schema": {}} for n in
                                     ("Bash", "Read", "Write")], "tools")
    opencode = tuple(conversation.ToolDecl(n) for n in ("bash", "read", "write", "edit"))
    empty: tuple[conversation.ToolDecl, ...] = ()
    plain = conversation.Conversation("chat", "m", False, ("hi",), None, empty, (), 0, 0, 0)
    for _ in range(2):
        assert detect_profile(plain._replace(tools=claude)) == "claude"
        assert detect_profile(plain._replace(tools=opencode)) == "opencode"
        assert detect_profile(plain) == "openai"
        assert detect_profile(plain._replace(client="aider")) == "aider"
        assert detect_profile(plain._replace(tools=claude, client="aider")) == "claude"
    for i in range(40):
        tools = (conversation.ToolDecl("exec_command" if i % 2 else f"t{i}"),)
        assert detect_profile(plain._replace(tools=tools)) == ("codex" if i % 2 else "openai")
        assert len(conversation._PROFILES) <= conversation._NAMES_LIMIT


# --------------------------------------------------------------------------- differential

DATA = Path(__file__).resolve().parents[1] / "data" / "real-agent-requests"
VERDICTS = Path(__file__).resolve().parent / "requests" / "reader-verdicts.json"
CODE_MODE_ITEM = Path(__file__).resolve().parent / "requests" / "codex_0.171.0_additional_tools.json"
APIS = {"/v1/chat/completions": "chat", "/v1/responses": "responses", "/v1/messages": "messages"}
#: what each place of a body is replaced by in turn (besides being removed)
OTHERS: list[Any] = [None, True, False, 0, -1, 1.5, 2048.0, "", "x", "user", "assistant",
                     "text", "message", "function_call", [], {}, [{}], {"type": 5}]


def _bodies() -> Iterator[tuple[str, str, dict[str, Any]]]:
    """``(name, api, body)`` of every captured request of the three APIs, its tools last as
    the agents send them, and a Codex code-mode body (its tools in an input item)."""
    for path in sorted(DATA.glob("*.json")):
        data = json.loads(path.read_text())
        api = APIS.get(data.get("path", "").split("?")[0])
        if api is None or "body" not in data:
            continue
        body = dict(data["body"])
        if data.get("tools"):
            body["tools"] = data["tools"]
        yield path.stem, api, body
        if path.stem == "codex_turn2_followup_request":
            code_mode = copy.deepcopy(body)
            code_mode["input"].insert(1, json.loads(CODE_MODE_ITEM.read_text()))
            yield "codex_code_mode", api, code_mode


def _places(value: Any, path: tuple[Any, ...] = (), depth: int = 99) -> Iterator[tuple[Any, ...]]:
    """Every key and item of a body, but only two levels into a tool list (its schemas are
    read once per list, and are most of the places)."""
    if path:
        yield path
    if depth == 0:
        return
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _places(item, (*path, key), 2 if key == "tools" else depth - 1)
    elif isinstance(value, list):
        for i, item in enumerate(value[:12]):
            yield from _places(item, (*path, i), depth - 1)


def _variants(body: dict[str, Any], place: tuple[Any, ...]) -> Iterator[dict[str, Any]]:
    """``body`` with ``place`` removed, then replaced by each of :data:`OTHERS`."""
    for other in [_ABSENT, *OTHERS]:
        mutant = copy.deepcopy(body)
        parent = mutant
        for key in place[:-1]:
            parent = parent[key]
        if other is _ABSENT:
            del parent[place[-1]]
        else:
            parent[place[-1]] = copy.deepcopy(other)
        yield mutant


_ABSENT = object()


def _verdict(api: str, raw: bytes, bodies: BodyReader) -> Any:
    """What the server's reading step makes of a body: the conversation, the notes and the
    profile, or the refusal (status, message, param, type)."""
    request = ModelRequest.of(api, {}, raw, 0)  # type: ignore[arg-type]
    notes: dict[str, Any] = {}
    try:
        conv = read(request, notes, parse(request, bodies))
    except WireError as exc:
        return ["refused", exc.status, str(exc), getattr(exc, "param", None),
                getattr(exc, "type", None)]
    return [repr(conv), repr(sorted(notes.items())), detect_profile(conv)]


def reader_verdicts() -> dict[str, str]:
    """A digest of the verdicts on every variant of every place of every body, by body and
    place (one BodyReader throughout: most variants keep the tools, and are read with the
    tool list seen before)."""
    bodies = BodyReader()
    found: dict[str, str] = {}
    for name, api, body in _bodies():
        bodies.parse(orjson.dumps(body))
        for place in _places(body):
            verdicts = [_verdict(api, orjson.dumps(mutant), bodies)
                        for mutant in _variants(body, place)]
            digest = hashlib.sha256(repr(verdicts).encode()).hexdigest()[:16]
            found[f"{name} {'/'.join(map(str, place))}"] = digest
    return found


@pytest.mark.fuzz
def test_every_mutant_body_reads_as_the_readers_before_read_it() -> None:
    """Each captured body with each place removed or replaced by each of 18 values gets the
    verdict the readers gave before issue 28's third step (recorded from ``main`` at 0bde64a):
    the same conversation, notes and profile, or the same status, message and ``param``.
    Re-record (``SCENARIST_RECORD_VERDICTS=1``) only for a change of what a body means."""
    found = reader_verdicts()
    if os.environ.get("SCENARIST_RECORD_VERDICTS"):
        VERDICTS.write_text(json.dumps(found, indent=0, sort_keys=True) + "\n")
    recorded = json.loads(VERDICTS.read_text())
    assert len(found) > 500
    assert found.keys() == recorded.keys()
    assert [k for k in found if found[k] != recorded[k]] == []
