"""Each tool run for real in a workspace (in-process), and how it is described."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from agentkit import gone

from daemonkit import Daemons
from scenarist.agent.compare import check_edit, check_tool, normalise
from scenarist.agent.tools import MAX_OUTPUT, Outcome, Tools, describe, describe_edit
from scenarist.agent.workspace import Workspace
from scenarist.scenario import AgentEdits, AgentToolUse, load_scenario_text
from scenarist.vocabulary import AgentCall
from scenarist.vocabulary.codex import ApplyPatch, ExecCommand


def events(yaml_items: str) -> list[AgentToolUse | AgentEdits]:
    """The tool events of a timeline written as YAML items (indented two spaces)."""
    scenario = load_scenario_text("name: t\ntimeline:\n" + yaml_items)
    return [e for e in scenario.timeline if isinstance(e, AgentToolUse | AgentEdits)]


def one(yaml_item: str) -> AgentToolUse:
    (use,) = events(yaml_item)
    assert isinstance(use, AgentToolUse)
    return use


@pytest.fixture
def tools(tmp_path: Path) -> Tools:
    (tmp_path / "src" / "pkg").mkdir(parents=True)
    (tmp_path / "src" / "app.py").write_text("def main():\n    x = 1\n    return x\n\n"
                                             "def other():\n    return 2\n")
    (tmp_path / "src" / "pkg" / "mod.py").write_text("DEF = 'upper'\n")
    (tmp_path / "src" / "notes.md").write_text("def in markdown\n")
    (tmp_path / "latin.txt").write_bytes("café\n".encode("latin-1"))
    (tmp_path / "nb.ipynb").write_text(json.dumps({
        "cells": [{"id": "c1", "cell_type": "code", "source": ["a = 1"], "metadata": {},
                   "outputs": [], "execution_count": None}],
        "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    with Tools(Workspace(tmp_path)) as t:
        yield t


def run(tools: Tools, yaml_item: str) -> Outcome:
    return tools.run(one(yaml_item))


def test_grep_modes(tools: Tools) -> None:
    files = run(tools, "  - grep: {pattern: 'def ', path: src}")
    assert files.output == "src/app.py\nsrc/notes.md\n"
    typed = run(tools, "  - grep: {pattern: 'def ', path: src, type: py}")
    assert typed.output == "src/app.py\n"
    count = run(tools, "  - grep: {pattern: 'return', path: src, output_mode: count}")
    assert count.output == "src/app.py:2\n"
    content = run(tools, "  - grep: {pattern: 'x = 1', path: src/app.py, output_mode: content,"
                         " '-n': true, '-A': 1}")
    assert content.output == "src/app.py:2:    x = 1\nsrc/app.py-3-    return x\n"
    spaced = run(tools, "  - grep: {pattern: return, path: src, glob: '*.py', "
                        "output_mode: content, '-B': 1, '-n': true}")
    assert spaced.output == ("src/app.py-2-    x = 1\nsrc/app.py:3:    return x\n--\n"
                             "src/app.py-5-def other():\nsrc/app.py:6:    return 2\n")
    nocase = run(tools, "  - grep: {pattern: '^def', path: src, '-i': true, head_limit: 2}")
    assert nocase.output == "src/app.py\nsrc/notes.md\n"
    multi = run(tools, "  - grep: {pattern: '1\\n    return', path: src, multiline: true, "
                       "output_mode: content}")
    assert multi.output == "src/app.py:    x = 1\n"
    bad = run(tools, "  - grep: {pattern: '(', path: src}")
    assert not bad.ok and "bad regular expression" in bad.output


def test_list_dir_and_find(tools: Tools) -> None:
    flat = run(tools, "  - listDir: {path: src}")
    assert flat.output == "app.py\nnotes.md\npkg/\n"
    deep = run(tools, "  - listDir: {path: src, recursive: true, pattern: '*.py'}")
    assert deep.output == "app.py\npkg/mod.py\n"
    found = run(tools, "  - find: {path: ., name: '*.py', type: file}")
    assert found.output == "./src/app.py\n./src/pkg/mod.py\n"
    dirs = run(tools, "  - find: {path: src, name: 'p*', type: dir}")
    assert dirs.output == "src/pkg\n"


def test_read_file_lines_and_encodings(tools: Tools) -> None:
    assert run(tools, "  - readFile: {path: src/app.py, offset: 2, limit: 2}").output == (
        "    x = 1\n    return x\n")
    assert run(tools, "  - readFile: {path: latin.txt, encoding: latin-1}").output == "café\n"
    assert "is not utf-8 text" in run(tools, "  - readFile: {path: latin.txt}").output
    assert "unknown encoding" in run(tools, "  - readFile: {path: latin.txt, encoding: x}").output
    assert "no such file" in run(tools, "  - readFile: {path: nope.txt}").output


def test_edit_file_needs_one_match_or_replace_all(tools: Tools) -> None:
    missing = run(tools, "  - editFile: {path: src/app.py, old_string: zzz, new_string: y}")
    assert not missing.ok and "old_string is not in src/app.py" in missing.output
    twice = run(tools, "  - editFile: {path: src/app.py, old_string: return, new_string: r}")
    assert not twice.ok and "occurs 2 times" in twice.output
    both = run(tools, "  - editFile: {path: src/app.py, old_string: return, new_string: yield,"
                      " replace_all: true}")
    assert both.ok and both.change is not None and both.change.counts == (2, 2)
    assert "2 replacements" in both.output


def test_write_file_reports_created_or_updated(tools: Tools, tmp_path: Path) -> None:
    created = run(tools, "  - writeFile: {path: new/dir/a.txt, content: \"a\\n\"}")
    assert created.ok and created.output == "created new/dir/a.txt"
    updated = run(tools, "  - writeFile: {path: new/dir/a.txt, content: \"b\\n\"}")
    assert updated.output == "updated new/dir/a.txt"
    assert updated.change is not None and updated.change.before == "a\n"
    assert (tmp_path / "new" / "dir" / "a.txt").read_text() == "b\n"


def test_sed_runs_sandboxed(tools: Tools, tmp_path: Path) -> None:
    shown = run(tools, "  - sed: {expression: 's/x = 1/x = 9/', path: src/app.py}")
    assert "x = 9" in shown.output and "x = 1" in (tmp_path / "src" / "app.py").read_text()
    inplace = run(tools, "  - sed: {expression: 's/x = 1/x = 9/', path: src/app.py, "
                         "inplace: true}")
    assert inplace.ok and "x = 9" in (tmp_path / "src" / "app.py").read_text()
    assert inplace.change is not None and inplace.change.counts == (1, 1)
    escape = tmp_path.parent / f"{tmp_path.name}-sed-escape.txt"
    writer = run(tools, f"  - sed: {{expression: 'w {escape}', path: src/app.py}}")
    assert not writer.ok and "disabled in sandbox mode" in writer.output
    assert not escape.exists()


def test_notebook_edit(tools: Tools, tmp_path: Path) -> None:
    def cells() -> list[dict[str, object]]:
        return json.loads((tmp_path / "nb.ipynb").read_text())["cells"]  # type: ignore[no-any-return]

    assert run(tools, "  - notebookEdit: {notebook_path: nb.ipynb, cell_id: c1, "
                      "new_source: 'b = 2'}").ok
    assert cells()[0]["source"] == ["b = 2"]
    assert run(tools, "  - notebookEdit: {notebook_path: nb.ipynb, cell_id: c1, "
                      "new_source: '# hi', cell_type: markdown, edit_mode: insert}").ok
    assert [c["cell_type"] for c in cells()] == ["code", "markdown"]
    assert run(tools, "  - notebookEdit: {notebook_path: nb.ipynb, cell_id: c1, "
                      "new_source: '', edit_mode: delete}").ok
    assert [c["cell_type"] for c in cells()] == ["markdown"]
    bad = run(tools, "  - notebookEdit: {notebook_path: nb.ipynb, cell_id: zz, new_source: x}")
    assert not bad.ok and "no cell with id 'zz'" in bad.output


def test_run_cmd_exit_code_cwd_and_background_shells(tools: Tools, tmp_path: Path) -> None:
    failed = run(tools, "  - runCmd: {cmd: 'echo out; echo err >&2; exit 5', cwd: src}")
    assert not failed.ok and failed.exit_code == 5 and failed.output == "out\nerr\n"
    assert run(tools, "  - runCmd: {cmd: pwd, cwd: src/pkg}").output.strip() == str(
        (tmp_path / "src" / "pkg").resolve())
    started = run(tools, "  - runCmd: {cmd: 'echo one; echo two; touch ready; sleep 60', "
                         "run_in_background: true}")
    assert started.background and started.output == "started in the background as shell-1"
    assert run(tools, "  - runCmd: {cmd: 'while [ ! -e ready ]; do sleep 0.01; done'}").ok
    output = run(tools, "  - bashOutput: {bash_id: shell-1, filter: 'tw'}")
    assert output.output == "two\n" and output.exit_code is None  # still running
    assert run(tools, "  - killShell: {shell_id: shell-1}").ok
    again = run(tools, "  - bashOutput: {bash_id: shell-1}")
    assert again.output == "" and again.exit_code == -15  # nothing new; stopped (SIGTERM)
    unknown = run(tools, "  - bashOutput: {bash_id: shell-9}")
    assert not unknown.ok and "no background shell 'shell-9' (running: shell-1)" in unknown.output


def test_simulated_tools_answer_the_scripted_result(tools: Tools) -> None:
    fetched = run(tools, "  - webFetch: {url: 'https://example.com', result: 'Example page'}")
    assert fetched.simulated and fetched.ok and fetched.output == "Example page"
    assert not fetched.executed
    failed = run(tools, "  - webSearch: {query: q, result: 'offline', status: error}")
    assert failed.simulated and not failed.ok
    generic = run(tools, "  - agentToolUse: {toolName: customThing, args: {x: 1}}")
    assert generic.simulated and generic.output == "(no scripted result)"


def test_agent_edits_make_exactly_the_declared_lines(tools: Tools, tmp_path: Path) -> None:
    grow, shrink, too_many = events(
        "  - agentEdits: {path: report.txt, linesAdded: 4}\n"
        "  - agentEdits: {path: report.txt, linesAdded: 1, linesRemoved: 2}\n"
        "  - agentEdits: {path: report.txt, linesRemoved: 9}\n")
    assert isinstance(grow, AgentEdits) and isinstance(shrink, AgentEdits)
    assert isinstance(too_many, AgentEdits)
    first = tools.edit(grow)
    assert first.change is not None and first.change.counts == (4, 0)
    assert check_edit(first, lines_added=4, lines_removed=0, has_texts=False) == ()
    second = tools.edit(shrink)
    assert second.change is not None and second.change.counts == (1, 2)
    assert len((tmp_path / "report.txt").read_text().splitlines()) == 3
    third = tools.edit(too_many)
    assert not third.ok and "linesRemoved is 9" in third.output
    assert "the edit failed" in check_edit(third, lines_added=0, lines_removed=9,
                                           has_texts=False)[0].what


def test_descriptions_for_the_formats(tools: Tools) -> None:
    root = tools.workspace.root
    bash = describe(one("  - runCmd: {cmd: ls, cwd: src, timeout: 5}"), tools.workspace)
    assert bash.claude == AgentCall("Bash", {"command": f"cd {root}/src && ls", "timeout": 5})
    assert bash.codex == ExecCommand("ls", f"{root}/src") and bash.title == "cd src && ls"
    assert bash.compares_output and not bash.simulated
    read = describe(one("  - readFile: {path: src/app.py, limit: 3}"), tools.workspace)
    assert read.claude == AgentCall("Read", {"file_path": f"{root}/src/app.py", "limit": 3})
    assert read.codex == ExecCommand(f"sed -n '1,3p' {root}/src/app.py", root)
    write = describe(one("  - writeFile: {path: a.txt, content: x}"), tools.workspace)
    assert write.codex == ApplyPatch("a.txt", f"{root}/a.txt") and write.claude.name == "Write"
    assert not write.compares_output
    glob = describe(one("  - listDir: {path: src, recursive: true, pattern: '*.py'}"),
                    tools.workspace)
    assert glob.claude == AgentCall("Glob", {"pattern": "**/*.py", "path": f"{root}/src"})
    web = describe(one("  - webSearch: {query: python}"), tools.workspace)
    assert web.simulated and web.claude.name == "WebSearch" and web.title == "python"
    (edit,) = events("  - agentEdits: {path: new.txt, linesAdded: 1}\n")
    assert isinstance(edit, AgentEdits)
    assert describe_edit(edit, tools.workspace).claude.name == "Edit"


def test_compare_rules() -> None:
    ok = Outcome(True, "hello  \r\nworld\n\n", exit_code=0)
    assert normalise(ok.output) == "hello\nworld"
    assert check_tool(ok, result="hello\nworld", status="ok", compares_output=True) == ()
    (diff,) = check_tool(ok, result="hello", status=None, compares_output=True)
    assert "+world" in diff.diff
    assert check_tool(ok, result="anything", status=None, compares_output=False) == ()
    failed = Outcome(False, "boom", exit_code=2)
    (status,) = check_tool(failed, result=None, status="completed", compares_output=True)
    assert status.what == "status: the scenario expects completed, but it exited with code 2"
    assert check_tool(failed, result=None, status="failed", compares_output=True) == ()
    (wrong,) = check_tool(ok, result=None, status="error", compares_output=True)
    assert "expects error, but it succeeded" in wrong.what
    (fg,) = check_tool(ok, result=None, status="pending", compares_output=True)
    assert "run_in_background" in fg.what
    refused = Outcome(False, "refused: x is outside", refused=True, executed=False)
    assert check_tool(refused, result=None, status=None, compares_output=True)[0].what == (
        "refused: x is outside")
    assert check_tool(Outcome(True, "7"), result=7, status=None, compares_output=True) == ()


def test_a_command_is_done_when_it_exits_even_if_a_child_keeps_its_output(
        tools: Tools, tmp_path: Path) -> None:
    # the child inherits stdout; waiting for the end of the output would wait 60 s
    done = run(tools, "  - runCmd: {cmd: 'sleep 60 & echo $! > child; echo started', "
                      "timeout: 30000}")
    assert done.ok and not done.timed_out and done.output == "started\n"
    child = int((tmp_path / "child").read_text())
    assert gone(child)  # killed with the command's group
    assert [p.pid for p in done.stopped] == [child]


def test_a_double_forked_daemon_of_a_command_is_stopped_and_reported(
        tools: Tools, daemons: Daemons) -> None:
    done = run(tools, f"  - runCmd: {{cmd: '{daemons.command}; echo started'}}")
    assert done.ok and done.output == "started\n"
    assert daemons.alive() == []
    (daemon,) = done.stopped
    assert daemons.marker in daemon.cmdline



def test_a_command_output_is_bounded(tools: Tools) -> None:
    big = run(tools, "  - runCmd: {cmd: 'head -c 5000000 /dev/zero | tr \"\\\\0\" a'}")
    assert big.ok and big.output.endswith(f"\n(output cut at {MAX_OUTPUT} bytes)")
    assert len(big.output) < MAX_OUTPUT + 100
