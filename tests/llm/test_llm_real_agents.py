"""Real agents (pinned Codex CLI and Claude Code) run scenarios through ``scenarist llm`` and
really create the files; the journal proves every turn went through the streaming path."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from llm_agents import SCENARIOS, claude, codex, dirs, gemini, jsonl

from scenarist.llm.process import run_server

pytestmark = pytest.mark.real_agent

TODO_AFTER = "# Todo\n- greet\n- wave back\n- smile\n"


def _all_streamed(journal: list[dict[str, Any]], turns: int) -> None:
    model = [e for e in journal if e["path"].startswith("/v1/")]
    assert [e["turn"] for e in model] == list(range(turns)), model
    assert all(e["stream"] is True and e["status"] == 200 and e.get("completed") for e in model)


def test_codex_runs_a_shell_command_and_patches(tmp_path: Path) -> None:
    work, home = dirs(tmp_path)
    with run_server(SCENARIOS / "shell_and_patch.yaml", "--scenario-speed", "0.01") as srv:
        result = codex(srv.base_url, "Create the greeting files", work, home)
        journal = srv.journal()
    assert result.returncode == 0, result.stderr
    assert (work / "greeting.txt").read_text() == "hello from scenarist\n"
    assert (work / "notes" / "todo.md").read_text() == TODO_AFTER
    _all_streamed(journal, 4)
    assert [e["calls"] for e in journal] == [["exec_command"], ["apply_patch"], ["apply_patch"], []]
    assert journal[2]["assertions"][0]["outcome"] == "ok"
    assert all(e["cwd"] == str(work) and e["profile"] == "codex" for e in journal)
    events = jsonl(result.stdout)
    kinds = [e["item"]["type"] for e in events if e["type"] == "item.completed"]
    assert "command_execution" in kinds and "file_change" in kinds
    assert events[-1]["type"] == "turn.completed"


def test_codex_without_apply_patch_edits_through_the_shell(tmp_path: Path) -> None:
    work, home = dirs(tmp_path)
    with run_server(SCENARIOS / "generated_edit.yaml", "--scenario-speed", "0.01") as srv:
        result = codex(srv.base_url, "Grow the report", work, home, model="mock-model")
        journal = srv.journal()
    assert result.returncode == 0, result.stderr
    lines = (work / "report.txt").read_text().splitlines()
    assert len(lines) == 3  # 4 added, then 2 removed and 1 added
    assert lines[:2] == ["scenarist line 1 of report.txt", "scenarist line 2 of report.txt"]
    _all_streamed(journal, 3)
    assert [e["calls"] for e in journal] == [["exec_command"], ["exec_command"], []]


def test_claude_code_runs_bash_write_and_edit(tmp_path: Path) -> None:
    work, config = dirs(tmp_path)
    with run_server(SCENARIOS / "shell_and_patch.yaml", "--scenario-speed", "0.01") as srv:
        result = claude(srv.base_url, "Create the greeting files", work, config)
        journal = srv.journal()
    assert result.returncode == 0, result.stderr
    assert (work / "greeting.txt").read_text() == "hello from scenarist\n"
    assert (work / "notes" / "todo.md").read_text() == TODO_AFTER
    _all_streamed(journal, 4)  # no silent non-streamed retry
    assert [e["calls"] for e in journal] == [["Bash"], ["Write"], ["Edit"], []]
    assert all(e["cwd"] == str(work) and e["profile"] == "claude" for e in journal)
    final = jsonl(result.stdout)[-1]
    assert final["type"] == "result" and final["is_error"] is False
    assert final["result"] == "Done: greeting.txt and notes/todo.md are in place."


def test_claude_code_generated_edits_have_exact_line_counts(tmp_path: Path) -> None:
    work, config = dirs(tmp_path)
    with run_server(SCENARIOS / "generated_edit.yaml", "--scenario-speed", "0.01") as srv:
        result = claude(srv.base_url, "Grow the report", work, config)
        journal = srv.journal()
    assert result.returncode == 0, result.stderr
    assert len((work / "report.txt").read_text().splitlines()) == 3
    _all_streamed(journal, 3)
    assert [e["calls"] for e in journal] == [["Write"], ["Edit"], []]


@pytest.mark.parametrize("agent", ["claude", "codex", "gemini"])
def test_agents_continue_a_multi_prompt_scenario(tmp_path: Path, agent: str) -> None:
    """The first prompt, then the second in the same session (``claude -p --continue``,
    ``codex exec resume --last``, ``gemini -p --resume latest``): the resumed conversation
    carries the first prompt and its turns, the server continues at the second
    ``userInputs``, and the asserts after the last turn hold (POST /_scenarist/check).
    Gemini CLI's router asks before each prompt: side requests, set aside here."""
    work, home = dirs(tmp_path)

    def run(url: str, prompt: str, resume: bool) -> Any:
        if agent == "claude":
            return claude(url, prompt, work, home, *(["--continue"] if resume else []))
        if agent == "gemini":
            return gemini(url, prompt, work, home, *(["--resume", "latest"] if resume else []))
        return codex(url, prompt, work, home, resume=resume)

    with run_server(SCENARIOS / "two_prompts.yaml", "--scenario-speed", "0.01") as srv:
        first = run(srv.base_url, "Start the changelog", False)
        assert first.returncode == 0, first.stderr
        second = run(srv.base_url, "Add an entry for version 1.0", True)
        assert second.returncode == 0, second.stderr
        journal = [e for e in srv.journal() if not e.get("side_request")]
        report = srv.check(workspace=work)
    assert (work / "CHANGELOG.md").read_text() == "# Changelog\n- 1.0: first release\n"
    assert [(e["segment"], e["turn"], e["user_turns"]) for e in journal] == [
        (0, 0, 1),
        (0, 1, 1),
        (1, 2, 2),
        (1, 3, 2),
    ]
    assert all(e["status"] == 200 and e["stream"] for e in journal)
    assert report["ok"] is True and report["checked"] == 2


def test_claude_code_runs_the_table_s_reads_searches_and_listings(tmp_path: Path) -> None:
    """Read, then Grep/Glob as Bash: the pinned Claude Code declares neither, so the model
    API sends the table's shell stand-ins; the command's ``cwd`` is an absolute ``cd``."""
    work, config = dirs(tmp_path)
    with run_server(SCENARIOS / "read_search_list.yaml", "--scenario-speed", "0.01") as srv:
        result = claude(srv.base_url, "Look around the project", work, config)
        journal = srv.journal()
    assert result.returncode == 0, result.stderr
    _all_streamed(journal, 6)
    assert [e["calls"] for e in journal] == [["Bash"], ["Read"], ["Bash"], ["Bash"], ["Bash"], []]
    results = [b for line in jsonl(result.stdout) if line["type"] == "user"
               for b in line["message"]["content"] if b.get("type") == "tool_result"]
    assert not any(b.get("is_error") for b in results)
    assert [b["content"] for b in results[1:]] == [
        "2\tTwo", f"{work}/src/a.txt:2:Two", f"{work}/src/deep/b.md", "2"]


def test_codex_runs_the_table_s_reads_searches_and_listings(tmp_path: Path) -> None:
    """Codex has no read, search or list tools: the table's shell commands, each run by the
    real Codex in its workdir (the command's ``cwd`` as ``workdir``)."""
    work, home = dirs(tmp_path)
    with run_server(SCENARIOS / "read_search_list.yaml", "--scenario-speed", "0.01") as srv:
        result = codex(srv.base_url, "Look around the project", work, home)
        journal = srv.journal()
    assert result.returncode == 0, result.stderr
    _all_streamed(journal, 6)
    assert [e["calls"] for e in journal] == [["exec_command"]] * 5 + [[]]
    runs = [e["item"] for e in jsonl(result.stdout) if e["type"] == "item.completed"
            and e["item"]["type"] == "command_execution"]
    assert all(r["exit_code"] == 0 for r in runs)
    assert [r["aggregated_output"] for r in runs[1:]] == [
        "Two\n", f"{work}/src/a.txt:2:Two\n", f"{work}/src/deep/b.md\n", "2\n"]


def _gemini_turns(journal: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The Gemini CLI conversation's requests (its router's classification set aside): each
    streamed over SSE and answered in full."""
    side = [e for e in journal if e.get("side_request")]
    assert all(e["calls"] == [] and e["status"] == 200 and not e["stream"] for e in side), side
    turns = [e for e in journal if not e.get("side_request")]
    assert all(e["api"] == "gemini" and e["query"] == "alt=sse" and e["stream"] is True
               and e["status"] == 200 and e.get("completed") for e in turns), turns
    return turns


def test_gemini_cli_runs_a_shell_command_writes_and_edits(tmp_path: Path) -> None:
    """Gemini CLI 0.61 headless: ``run_shell_command``, ``write_file`` and ``replace`` run
    for real, in the scenario's order; its router's side request (no tools, a JSON schema)
    gets JSON and moves nothing."""
    work, home = dirs(tmp_path)
    with run_server(SCENARIOS / "shell_and_patch.yaml", "--scenario-speed", "0.01") as srv:
        result = gemini(srv.base_url, "Create the greeting files", work, home,
                        "--output-format", "json")
        journal = srv.journal()
    assert result.returncode == 0, result.stderr
    assert (work / "greeting.txt").read_text() == "hello from scenarist\n"
    assert (work / "notes" / "todo.md").read_text() == TODO_AFTER
    turns = _gemini_turns(journal)
    assert journal[0]["side_request"] is True and journal[0]["turn"] == 0  # the router
    assert [e["turn"] for e in turns] == [0, 1, 2, 3]
    assert [e["calls"] for e in turns] == [["run_shell_command"], ["write_file"], ["replace"], []]
    assert all(e["cwd"] == str(work) and e["profile"] == "gemini" for e in turns)
    assert [a["outcome"] for a in turns[2]["assertions"]] == ["ok", "ok"]
    output = json.loads(result.stdout)
    assert output["response"] == "Done: greeting.txt and notes/todo.md are in place."
    assert output["stats"]["tools"]["totalSuccess"] == 3


def test_gemini_cli_runs_the_table_s_reads_searches_and_listings(tmp_path: Path) -> None:
    """``read_file`` with a line range, ``glob``, and the shell for what ``grep_search``
    cannot say (``-i``) and a command's ``cwd`` (``dir_path``), each run by Gemini CLI."""
    work, home = dirs(tmp_path)
    with run_server(SCENARIOS / "read_search_list.yaml", "--scenario-speed", "0.01") as srv:
        result = gemini(srv.base_url, "Look around the project", work, home,
                        "--output-format", "stream-json")
        journal = srv.journal()
    assert result.returncode == 0, result.stderr
    turns = _gemini_turns(journal)
    assert [e["calls"] for e in turns] == [
        ["run_shell_command"], ["read_file"], ["run_shell_command"], ["glob"],
        ["run_shell_command"], []]
    lines = jsonl(result.stdout)
    uses = [e["parameters"] for e in lines if e["type"] == "tool_use"]
    assert uses[1] == {"file_path": f"{work}/src/a.txt", "start_line": 2, "end_line": 2}
    assert uses[3] == {"pattern": "**/*.md", "dir_path": f"{work}/src"}
    results = [e for e in lines if e["type"] == "tool_result"]
    assert [r["status"] for r in results] == ["success"] * 5
    assert [results[i]["output"] for i in (2, 3, 4)] == [
        f"{work}/src/a.txt:2:Two", "Found 1 matching file(s)", "2"]
