"""Gemini CLI's requests, as 0.61.0 sent them (tests/data/real-agent-requests/gemini_cli_*),
answered by the model API: its tools pick the ``gemini`` profile, its session context gives
the working directory, and its router's classification (no tools, a JSON schema) is a side
request whose answer is JSON of that schema (:mod:`scenarist.llm.json_answer`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from scenarist.llm.answer import Answer, Answerer, ModelRequest
from scenarist.llm.gemini_request import Route, route_of, sse_asked
from scenarist.llm.json_answer import schema_answer
from scenarist.llm.plan import build_script
from scenarist.llm.selection import Selector
from scenarist.scenario import load_scenario

#: the conversation the captured requests come from (the capture server's prompt and call)
SCENARIO = """\
name: make-hi
timeline:
  - userInputs: [[0, make hi.txt]]
  - llmResponse: [{assistant: [[0, Writing it.]]}]
  - runCmd: {cmd: echo hi > hi.txt, description: say hi}
  - llmResponse: [{assistant: [[0, And a note.]]}]
  - writeFile: {path: notes/todo.md, content: "# Todo\\n- greet\\n"}
  - llmResponse: [{assistant: [[0, Done.]]}]
"""


def answered(captured: Any, name: str, tmp_path: Path) -> tuple[Answer, list[dict[str, Any]]]:
    request = captured(name)
    (tmp_path / "make-hi.yaml").write_text(SCENARIO)
    path, _, query = request["path"].partition("?")
    found = route_of(path, query)
    assert found is not None
    model, method = found
    route = Route(model, method == "streamGenerateContent", sse_asked(query)).key()
    answerer = Answerer(Selector([build_script(load_scenario(tmp_path / "make-hi.yaml"))]))
    result = answerer.answer(ModelRequest("gemini", {}, json.dumps(request["body"]).encode(),
                                          1_700_000_000, route), lambda _key: False)
    assert isinstance(result, Answer)
    encoded = result.encoded
    if encoded.body is None:  # streamed: SSE frames
        sent = b"".join(b.data for b in encoded.batches).decode()
        chunks = [json.loads(line[6:]) for line in sent.splitlines() if line.startswith("data: ")]
    else:
        chunks = [json.loads(encoded.body)]
    parts = [p for c in chunks for cand in c.get("candidates", ())
             for p in cand["content"].get("parts", ())]
    return result, parts


def test_the_router_s_classification_is_a_side_request_answered_with_its_schema(
        captured: Any, tmp_path: Path) -> None:
    result, parts = answered(captured, "gemini_cli_router_request.json", tmp_path)
    assert result.notes["side_request"] is True and result.notes["calls"] == []
    verdict = json.loads("".join(p["text"] for p in parts if not p.get("thought")))
    assert set(verdict) == {"complexity_reasoning", "complexity_score"}
    assert isinstance(verdict["complexity_reasoning"], str)
    assert isinstance(verdict["complexity_score"], int)


def test_a_follow_up_gets_gemini_cli_s_next_call_in_its_folder(captured: Any,
                                                               tmp_path: Path) -> None:
    result, parts = answered(captured, "gemini_cli_turn2_followup_request.json", tmp_path)
    assert result.notes["profile"] == "gemini" and result.notes["cwd"] == "/tmp/gcap/work"
    assert result.notes["turn"] == 1 and result.notes["calls"] == ["write_file"]
    (call,) = [p["functionCall"] for p in parts if "functionCall" in p]
    assert call["args"] == {"file_path": "/tmp/gcap/work/notes/todo.md",
                            "content": "# Todo\n- greet\n"}


SCHEMA = {
    "type": "OBJECT",  # Gemini's responseSchema spells types in capitals
    "properties": {
        "why": {"type": "STRING"},
        "score": {"type": "INTEGER", "minimum": 5},
        "kind": {"type": "string", "enum": ["easy", "hard"]},
        "tags": {"type": "array", "items": {"type": "string"}, "minItems": 2},
        "maybe": {"anyOf": [{"type": "boolean"}, {"type": "null"}]},
        "either": {"type": ["null", "number"]},
        "extra": {"type": "string"},
    },
    "required": ["why", "score", "kind", "tags", "maybe", "either"],
}


@pytest.mark.parametrize(("text", "expected"), [
    ("not json", {"why": "not json", "score": 5, "kind": "easy",
                  "tags": ["not json", "not json"], "maybe": False, "either": 1}),
    ('{"why": "as scripted"}', {"why": "as scripted"}),  # the scenario's own JSON stays
])
def test_a_json_schema_answer_is_the_text_or_an_instance(text: str, expected: Any) -> None:
    assert json.loads(schema_answer(text, json.dumps(SCHEMA))) == expected


def test_a_schema_without_required_fills_every_property_and_recursion_ends() -> None:
    loop: dict[str, Any] = {"type": "object", "properties": {}}
    loop["properties"]["next"] = {"$comment": "deeper"}
    nested: dict[str, Any] = {"type": "object", "properties": {"a": {"type": "string"}}}
    for _ in range(40):
        nested = {"type": "object", "properties": {"n": nested}}
    assert json.loads(schema_answer("t", json.dumps({"properties": {"a": {}, "b": {
        "type": "boolean"}}}))) == {"a": "t", "b": False}
    deep = json.loads(schema_answer("t", json.dumps(nested)))
    depth = 0
    while isinstance(deep, dict):
        deep, depth = deep.get("n"), depth + 1
    assert deep is None and depth == 17


def test_common_tool_names_alone_do_not_make_a_client_gemini_cli(tmp_path: Path) -> None:
    """A generic client that declares ``read_file`` and ``write_file`` (and a shell) is
    fitted by its own schemas, not sent Gemini CLI's argument names."""
    (tmp_path / "make-hi.yaml").write_text(SCENARIO)
    decls = [{"name": "read_file", "parameters": {"type": "object", "properties": {
                  "path": {"type": "string"}}, "required": ["path"]}},
             {"name": "write_file", "parameters": {"type": "object", "properties": {
                  "path": {"type": "string"}, "text": {"type": "string"}},
                  "required": ["path", "text"]}},
             {"name": "run_shell_command", "parameters": {"type": "object", "properties": {
                  "command": {"type": "string"}}, "required": ["command"]}}]
    body = {"contents": [
        {"role": "user", "parts": [{"text": "make hi.txt"}]},
        {"role": "model", "parts": [{"functionCall": {"name": "run_shell_command",
                                                      "args": {"command": "x"}}}]},
        {"role": "user", "parts": [{"functionResponse": {"name": "run_shell_command",
                                                         "response": {"output": ""}}}]}],
        "tools": [{"functionDeclarations": decls}]}
    answerer = Answerer(Selector([build_script(load_scenario(tmp_path / "make-hi.yaml"))]))
    result = answerer.answer(ModelRequest("gemini", {}, json.dumps(body).encode(), 1_700_000_000,
                                          Route("m", False, False).key()), lambda _key: False)
    assert isinstance(result, Answer) and result.encoded.body is not None
    assert result.notes["profile"] == "openai"
    parts = json.loads(result.encoded.body)["candidates"][0]["content"]["parts"]
    (call,) = [p["functionCall"] for p in parts if "functionCall" in p]
    assert (call["name"], call["args"]) == ("write_file", {"path": "notes/todo.md",
                                                           "text": "# Todo\n- greet\n"})
