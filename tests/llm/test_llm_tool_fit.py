"""Tool fitting: every action goes to a tool the request declares, spelled as declared."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import httpx
import pytest

from scenarist.llm.aider import edit_format, fence_for, search_replace
from scenarist.llm.conversation import ToolDecl, client_hint, read_request, schema_params
from scenarist.llm.process import run_server
from scenarist.llm.profiles import Context, EditError, render_action
from scenarist.llm.script import EditAction, ToolAction
from scenarist.llm.tool_fit import FitError


def decl(name: str, required: tuple[str, ...] = (), **props: str) -> ToolDecl:
    """A declared tool with ``props`` (name → JSON type) and ``required``."""
    schema = {"type": "object", "properties": {k: {"type": v} for k, v in props.items()},
              "required": list(required)}
    return ToolDecl(name, "function", *schema_params(schema))


def ctx(*decls: ToolDecl, profile: Any = "openai", files: dict[str, str] | None = None,
        cwd: str = "/w") -> Context:
    texts = files or {}
    return Context(profile=profile, cwd=cwd, tools=frozenset(d.name for d in decls),
                   read_text=texts.get, decls=decls)


def call(action: ToolAction | EditAction, context: Context) -> tuple[str, dict[str, Any]]:
    rendered = render_action(action, context)
    return rendered.name, json.loads(rendered.arguments)


WRITE = ToolAction("writeFile", {"path": "a.txt", "content": "hi\n"})
RUN = ToolAction("runCmd", {"cmd": "ls -la"})


@pytest.mark.parametrize("name", ["write_file", "writeFile", "WriteFile", "write-file"])
def test_the_scenario_s_tool_goes_out_under_the_declared_spelling(name: str) -> None:
    got = call(WRITE, ctx(decl(name, ("path", "content"), path="string", content="string")))
    assert got == (name, {"path": "a.txt", "content": "hi\n"})


@pytest.mark.parametrize(
    ("tool", "param"),
    [("Bash", "command"), ("bash", "command"), ("shell", "command"), ("run_shell", "cmd"),
     ("run_command", "command"), ("execute_command", "command"), ("exec_command", "cmd"),
     ("runner", "script")],
)
def test_a_command_goes_to_the_declared_shell_tool_and_its_command_parameter(
        tool: str, param: str) -> None:
    schema = decl(tool, (param,), **{param: "string"})
    if tool == "runner":  # no shell name and no hint: nothing carries it
        with pytest.raises(FitError, match="declared: runner"):
            call(RUN, ctx(schema))
        return
    assert call(RUN, ctx(schema)) == (tool, {param: "ls -la"})


def test_a_shell_tool_named_only_by_a_hint_fits_by_its_schema() -> None:
    tool = decl("terminal_run", ("cmd",), cmd="string")
    assert call(RUN, ctx(tool)) == ("terminal_run", {"cmd": "ls -la"})


def test_old_codex_shell_takes_the_command_as_an_argv_array() -> None:
    assert call(RUN, ctx(decl("shell", ("command",), command="array"))) == (
        "shell", {"command": ["bash", "-lc", "ls -la"]})


def test_a_required_description_is_filled_deterministically() -> None:
    bash = decl("bash", ("command", "description"), command="string", description="string",
                timeout="number")
    assert call(RUN, ctx(bash)) == ("bash", {"command": "ls -la", "description": "Run ls -la"})


def test_a_required_parameter_that_cannot_be_filled_means_no_fit() -> None:
    bash = decl("bash", ("command", "sandbox"), command="string", sandbox="boolean")
    with pytest.raises(FitError, match="runCmd"):
        call(RUN, ctx(bash))


def test_opencode_s_tools_get_absolute_paths_and_camel_case_parameters() -> None:
    # opencode 1.18.33's own schemas (captured from its request)
    bash = decl("bash", ("command",), command="string", timeout="integer", workdir="string")
    write = decl("write", ("content", "filePath"), content="string", filePath="string")
    edit = decl("edit", ("filePath", "oldString", "newString"), filePath="string",
                oldString="string", newString="string", replaceAll="boolean")
    read = decl("read", ("filePath",), filePath="string", offset="number", limit="number")
    context = ctx(bash, write, edit, read, profile="opencode",
                  files={"/w/b.txt": "one\ntwo\nthree\n"})
    assert call(WRITE, context) == ("write", {"filePath": "/w/a.txt", "content": "hi\n"})
    assert call(RUN, context) == ("bash", {"command": "ls -la"})
    change = ToolAction("editFile", {"path": "b.txt", "old_string": "two", "new_string": "2"})
    assert call(change, context) == (
        "edit", {"filePath": "/w/b.txt", "oldString": "two", "newString": "2"})
    assert call(ToolAction("readFile", {"path": "b.txt"}), context) == (
        "read", {"filePath": "/w/b.txt"})
    edits = EditAction("b.txt", old_text="three", new_text="3")
    assert call(edits, context) == (
        "edit", {"filePath": "/w/b.txt", "oldString": "three", "newString": "3"})


def test_a_write_falls_back_to_a_here_document_through_the_only_shell_tool(
        tmp_path: Path) -> None:
    name, args = call(WRITE, ctx(decl("Bash", ("command",), command="string"),
                                 cwd=str(tmp_path)))
    assert name == "Bash"
    subprocess.run(["bash", "-c", args["command"]], check=True)
    assert (tmp_path / "a.txt").read_text() == "hi\n"


def test_an_edit_falls_back_to_writing_the_whole_file() -> None:
    write = decl("write_file", ("path", "content"), path="string", content="string")
    change = ToolAction("editFile", {"path": "b.txt", "old_string": "two", "new_string": "2"})
    got = call(change, ctx(write, files={"/w/b.txt": "one\ntwo\n"}))
    assert got == ("write_file", {"path": "b.txt", "content": "one\n2\n"})


def test_read_and_list_fall_back_to_shell_commands() -> None:
    shell = ctx(decl("run_command", ("command",), command="string"))
    assert call(ToolAction("readFile", {"path": "b.txt"}), shell) == (
        "run_command", {"command": "cat /w/b.txt"})
    assert call(ToolAction("listDir", {"path": "src"}), shell) == (
        "run_command", {"command": "ls -la /w/src"})


def test_nothing_declared_can_carry_it_names_the_action_and_the_declared_tools() -> None:
    with pytest.raises(FitError) as info:
        call(ToolAction("webSearch", {"query": "x"}), ctx(decl("get_weather", ("city",),
                                                                city="string")))
    message = str(info.value)
    assert "it calls webSearch" in message and "declared: get_weather" in message


def test_generic_tools_keep_their_name_and_take_the_declared_argument_spelling() -> None:
    todo = decl("todo_write", ("todos",), todos="array")
    todos = [{"content": "a", "status": "pending"}]
    assert call(ToolAction("todoWrite", {"todos": todos}), ctx(todo)) == (
        "todo_write", {"todos": todos})
    custom = ToolDecl("lookup")  # declared without a schema: arguments as written
    assert call(ToolAction("lookup", {"q": 1}), ctx(custom)) == ("lookup", {"q": 1})


def test_claude_and_codex_vocabularies_hold_only_while_declared() -> None:
    bash = decl("Bash", ("command",), command="string")
    read = decl("Read", ("file_path",), file_path="string")
    assert call(RUN, ctx(bash, read, profile="claude")) == ("Bash", {"command": "ls -la"})
    # Claude's Write is not declared here: the write goes through the declared Bash
    name, args = call(WRITE, ctx(bash, read, profile="claude"))
    assert name == "Bash" and "cat > /w/a.txt" in args["command"]


def test_declared_schemas_are_read_from_all_three_apis() -> None:
    schema = {"type": "object", "properties": {"filePath": {"type": "string"},
                                               "n": {"type": ["integer", "null"]}},
              "required": ["filePath"]}
    bodies = {
        "chat": {"model": "m", "messages": [{"role": "user", "content": "x"}],
                 "tools": [{"type": "function", "function": {"name": "read",
                                                             "parameters": schema}}]},
        "responses": {"model": "m", "input": "x",
                      "tools": [{"type": "function", "name": "read", "parameters": schema}]},
        "messages": {"model": "m", "max_tokens": 5, "messages": [{"role": "user",
                                                                 "content": "x"}],
                     "tools": [{"name": "read", "input_schema": schema}]},
    }
    for api, body in bodies.items():
        (tool,) = read_request(api, body).tools  # type: ignore[arg-type]
        assert tool == ToolDecl("read", "function", (("filePath", "string"), ("n", "integer")),
                                ("filePath",))


# ---- aider ---------------------------------------------------------------------------------


def test_aider_gets_search_replace_blocks_in_the_text() -> None:
    context = ctx(profile="aider", files={"/w/hello.py": "def hi():\n    print('hi')\n"})
    edit = render_action(ToolAction("editFile", {"path": "hello.py",
                                                 "old_string": "    print('hi')",
                                                 "new_string": "    print('hey')"}), context)
    assert edit.kind == "text"
    assert edit.arguments == ("hello.py\n```\n<<<<<<< SEARCH\n    print('hi')\n=======\n"
                              "    print('hey')\n>>>>>>> REPLACE\n```\n")
    new = render_action(WRITE, context)
    assert new.arguments == "a.txt\n```\n<<<<<<< SEARCH\n=======\nhi\n>>>>>>> REPLACE\n```\n"


def test_aider_fences_outgrow_the_backticks_in_the_content() -> None:
    assert fence_for("plain") == "```"
    assert fence_for("```python\nx\n```") == "````"
    block = search_replace("README.md", "", "```sh\nls\n```\n")
    assert block.startswith("README.md\n````\n") and block.endswith(">>>>>>> REPLACE\n````\n")


def test_aider_whole_format_gets_file_listings_and_never_an_empty_file() -> None:
    files = {"/w/hello.py": "def hi():\n    print('hi')\n"}
    context = ctx(profile="aider", files=files)._replace(whole_files=True)
    edit = render_action(ToolAction("editFile", {"path": "hello.py",
                                                 "old_string": "    print('hi')",
                                                 "new_string": "    print('hey')"}), context)
    assert (edit.kind, edit.arguments) == (
        "text", "hello.py\n```\ndef hi():\n    print('hey')\n```\n")
    assert render_action(WRITE, context).arguments == "a.txt\n```\nhi\n```\n"
    unread = context._replace(read_text=lambda _path: None)
    with pytest.raises(EditError, match="start scenarist llm with --workspace"):
        render_action(ToolAction("editFile", {"path": "gone.py", "old_string": "a",
                                              "new_string": "b"}), unread)


def test_aider_says_which_edit_format_it_wants() -> None:
    assert edit_format(["... a *SEARCH/REPLACE block* ..."]) == "diff"
    assert edit_format(["You MUST use this *file listing* format:"]) == "whole"
    assert edit_format(["You are a helpful assistant."]) is None
    assert client_hint(["You MUST use this *file listing* format:"]) == "aider-whole"


def test_aider_cannot_be_asked_for_a_web_search() -> None:
    with pytest.raises(FitError, match="aider declares no tools"):
        render_action(ToolAction("webSearch", {"query": "x"}), ctx(profile="aider"))


# ---- the server: start-up note, journal, 400 ----------------------------------------------


def write_scenario(tmp_path: Path, action: str) -> Path:
    """A scenario whose one turn says "Writing." and makes ``action`` (a timeline item)."""
    scenario = tmp_path / "write.yaml"
    scenario.write_text(f"""name: write
timeline:
  - userInputs: [[0, "write the file"]]
  - llmResponse: [{{assistant: [[10, "Writing."]]}}]
  - {action}
""")
    return scenario


def test_a_renamed_tool_name_is_said_at_start_up_and_in_the_journal(tmp_path: Path) -> None:
    scenario = write_scenario(
        tmp_path, 'agentToolUse: {toolName: write_file, args: {path: a.txt, content: "hi"}}')
    tools = [{"type": "function", "function": {"name": "write_file", "parameters": {
        "type": "object", "properties": {"path": {"type": "string"},
                                         "content": {"type": "string"}}}}}]
    body = {"model": "m", "messages": [{"role": "user", "content": "write the file"}],
            "tools": tools}
    with run_server(scenario) as srv:
        answer = httpx.post(f"{srv.base_url}/v1/chat/completions", json=body, timeout=10)
        journal = srv.journal()
        stderr = srv.stderr
    (tool_call,) = answer.json()["choices"][0]["message"]["tool_calls"]
    assert tool_call["function"]["name"] == "write_file"
    assert json.loads(tool_call["function"]["arguments"]) == {"path": "a.txt", "content": "hi"}
    assert journal[0]["renamed"] == {"writeFile": "write_file"}
    assert "toolName 'write_file' is read as 'writeFile'; requests get it as the tool" in stderr


def test_no_fit_is_a_400_in_the_anthropic_format(tmp_path: Path) -> None:
    scenario = write_scenario(tmp_path, 'writeFile: {path: a.txt, content: "hi"}')
    body = {"model": "m", "max_tokens": 100,
            "messages": [{"role": "user", "content": "write the file"}],
            "tools": [{"name": "get_weather", "input_schema": {
                "type": "object", "properties": {"city": {"type": "string"}},
                "required": ["city"]}}]}
    with run_server(scenario) as srv:
        answer = httpx.post(f"{srv.base_url}/v1/messages", json=body, timeout=10)
    assert answer.status_code == 400
    error = answer.json()
    assert error["type"] == "error"
    assert "turn 0" in error["error"]["message"]
    assert "it calls writeFile a.txt, but the request declares no tool that can carry it" in (
        error["error"]["message"])
    assert "declared: get_weather" in error["error"]["message"]
