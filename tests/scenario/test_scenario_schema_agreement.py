"""The JSON Schema and the loader give the same verdict (schema_agreement.py says what agreeing
means): on every bundled example, every scenario fixture under tests/, each shorthand the
loader reads and each shape it rejects, and (fuzz tier) seeded one-value mutants of the
examples.
"""

from __future__ import annotations

import random
import textwrap
from pathlib import Path
from typing import Any

import pytest
import yaml
from scenario_mutants import _paths, _replace
from scenario_testutil import EXAMPLES, REPO, one_error, timeline
from schema_agreement import Verdicts, verdicts

from scenarist.scenario.source import parse_yaml


def _scenario_files() -> list[Path]:
    """Every YAML file of examples/ and tests/ that is a scenario (a mapping with a timeline,
    well-formed YAML: a file that is not is the YAML reader's to reject, not the schema's)."""
    out = []
    for path in sorted([*EXAMPLES.rglob("*.yaml"), *(REPO / "tests").rglob("*.y*ml")]):
        if "node_modules" in path.parts:
            continue
        source = parse_yaml(path.read_text(encoding="utf-8", errors="replace"), str(path))
        if any(i.severity == "error" for i in source.issues):
            continue
        if isinstance(source.root, dict) and "timeline" in source.root:
            out.append(path)
    return out


def _check(text: str, path: Path) -> Verdicts:
    return verdicts(parse_yaml(text, str(path)).root, text, path)


def test_every_example_and_fixture_gets_one_verdict() -> None:
    files = _scenario_files()
    assert len(files) >= 50, len(files)  # the examples and the fixtures of several suites
    found = {p.relative_to(REPO).as_posix(): _check(p.read_text(encoding="utf-8"), p)
             for p in files}
    assert {v.loader for v in found.values()} >= {"clean", "rejected"}
    assert all(v.loader != "rejected" for p, v in found.items() if p.startswith("examples/"))
    disagree = {p: v for p, v in found.items() if not v.agree}
    assert not disagree, disagree


#: one timeline item each (YAML), and the loader's verdict on a scenario holding it
SHORTHANDS = [
    # bare strings where the format allows them
    ("- merge", "clean"),
    ("- complete", "clean"),
    ("- runCmd: ls -la", "clean"),
    ("- setMode: code", "clean"),
    ("- userCommand: git status", "clean"),
    ("- log: started", "clean"),
    ("- status: running", "clean"),
    ("- screenshot: after-edit", "clean"),
    # step forms: pair, object, object with its aliases
    ("- llmResponse: [{assistant: [[10, hi]]}]", "clean"),
    ("- llmResponse: [{assistant: [{relativeTime: 10, content: hi}]}]", "clean"),
    ("- llmResponse: [{think: [{timestamp: 10, text: hmm}]}]", "clean"),
    ("- llmResponse: {think: [[1, hmm]], assistant: [[2, hi]]}", "clean"),
    ("- llmResponse: [{think: [[1, {type: text, text: hmm}]]}]", "clean"),
    ("- llmResponse: [{error: {errorType: overloaded, statusCode: 529}}]", "clean"),
    # a number where text is wanted is text
    ("- llmResponse: [{assistant: [[0, 42]]}]", "clean"),
    ("- runCmd: {cmd: 7}", "clean"),
    ("- userInputs: [[0, 12]]", "clean"),
    # null is a key left out
    ("- runCmd: {cmd: ls, cwd: ~, description: null}", "clean"),
    ("- agentToolUse: {toolName: runCmd, args: {cmd: ls}, toolCallId: ~}", "clean"),
    ("- llmResponse: [{assistant: [[1, hi]], _meta: ~}]", "clean"),
    # one string is a list of one
    ("- assert: {fs: {exists: hello.py}, text: {contains: done}}", "clean"),
    ("- webSearch: {query: x, allowed_domains: example.com}", "clean"),
    # prompts: text, a block, a list of blocks, the pair form
    ("- userInputs: [{relativeTime: 0, input: {type: text, text: hi}}]", "clean"),
    ("- userInputs: [[0, [{type: text, text: hi}]]]", "clean"),
    ("- agentFileReads: [/etc/hosts]", "clean"),
    ("- agentToolUse: {toolName: runCmd, args: {cmd: ls}}", "clean"),
    ("- agentToolUse: {toolName: myTool, args: {any: thing}}", "clean"),
    # warned: unknown keys (the schema may flag them, as an editor should)
    ("- frobnicate: 1", "warned"),
    ("- runCmd: {cmd: ls, colour: red}", "warned"),
    # rejected
    ("- llmResponse: [{assistant: [hi]}]", "rejected"),  # a bare string is no step
    ("- llmResponse: [{think: ['']}]", "rejected"),
    ("- llmResponse: [{assistant: []}]", "rejected"),
    ("- llmResponse: []", "rejected"),
    ("- llmResponse: [{assistant: [[1, hi]], think: [[1, hm]]}]", "rejected"),
    ("- llmResponse: [{assistant: [[1, hi]], runCmd: ls}]", "rejected"),
    ("- llmResponse: [{assistant: [[1, 2, 3]]}]", "rejected"),
    ("- llmResponse: [{assistant: [{relativeTime: ~, content: hi}]}]", "rejected"),
    ("- llmResponse: [{error: {errorType: x, statusCode: 0}}]", "rejected"),
    ("- llmResponse: [{error: ~}]", "rejected"),
    ("- llmResponse: [{assistant: [[1, {type: text}]]}]", "rejected"),
    ("- log: ' '", "rejected"),
    ("- log: 7", "rejected"),
    ("- runCmd: {}", "rejected"),
    ("- runCmd: {cmd: ~}", "rejected"),
    ("- writeFile: notes.md", "rejected"),  # two required arguments: no bare string
    ("- listDir: src", "rejected"),  # no required argument: no bare string
    ("- agentToolUse: {toolName: runCmd}", "rejected"),
    ("- agentToolUse: {toolName: runCmd, args: {cmd: [ls]}}", "rejected"),
    ("- agentToolUse: {toolName: runCmd, args: {cmd: ls}, toolExecution: "
     "{events: [{type: ~}]}}", "rejected"),
    ("- userInputs: []", "rejected"),
    ("- userInputs: [[0, {k: 1}]]", "rejected"),
    ("- agentFileReads: [relative.txt]", "rejected"),
    ("- agentPermissionRequest: {options: [{id: a, kind: ~}], granted: true}", "rejected"),
    ("- agentPermissionRequest: {options: [{id: a, kind: allow_once}], "
     "decision: {outcome: ~}}", "rejected"),
    ("- agentPermissionRequest: {options: [{id: a, kind: allow_once}], "
     "decision: {outcome: selected}}", "rejected"),
    ("- fault: {kind: stderr}", "rejected"),
    ("- fault: {kind: stderr, text: ~}", "rejected"),
    ("- fault: {kind: exit, code: 1, signal: SIGKILL}", "rejected"),
    ("- assert: {fs: {exists: 7}}", "rejected"),
    ("- assert: {git: {commit: [{}]}}", "rejected"),
    ("- baseTimeDelta: ~", "rejected"),
    ("- 42", "rejected"),
]


SECTIONS = [
    ("tags: one-tag", "clean"),
    ("tags: [a, 7]", "clean"),
    ("description: ~", "clean"),
    ("ah: {cmd: ah, flags: --fast, env: {A: 1, B: true, C: ~}}", "clean"),
    ("acp: {mcpServers: [{name: fs, command: mcp-fs, env: {A: b}}]}", "clean"),
    ("acp: {mcpServers: [{name: fs, command: mcp-fs, env: [{name: A, value: ~}]}]}", "clean"),
    ("acp: {mcpServers: [{name: fs, command: mcp-fs, env: [{name: A}]}]}", "rejected"),
    ("acp: {mcpServers: [{name: fs}]}", "rejected"),
    ("acp: {mcpServers: [{name: ' ', command: x}]}", "rejected"),
    ("repo: {files: [{path: a.txt, contents: 7}]}", "rejected"),
    ("tags: 7", "rejected"),
    ("server: {rules: ~}", "rejected"),
]


def _item(item: str) -> str:
    return "name: t\ntimeline:\n  - userInputs: [[0, go]]\n" + textwrap.indent(item, "  ") + "\n"


def _section(section: str) -> str:
    return f"name: t\n{section}\ntimeline:\n  - userInputs: [[0, go]]\n"


CASES = [(_item(i), e) for i, e in SHORTHANDS] + [(_section(s), e) for s, e in SECTIONS]


@pytest.mark.parametrize(("text", "expected"), CASES,
                         ids=[s for s, _ in SHORTHANDS] + [s for s, _ in SECTIONS])
def test_each_shorthand_and_rejection_gets_one_verdict(text: str, expected: str) -> None:
    found = _check(text, EXAMPLES / "t.yaml")
    assert found.loader == expected, found
    assert found.agree, found


def test_no_timeline_is_rejected_by_both() -> None:
    found = _check("name: t\n", EXAMPLES / "t.yaml")
    assert found.loader == "rejected" and found.agree, found


_VALUES: tuple[Any, ...] = (
    None, True, False, 0, 7, -1, 1.5, 600, "", " ", "text", "/abs/x", [], {}, ["a"], [1],
    {"k": 1}, [[0, "x"]], {"type": "text", "text": "x"}, {"relativeTime": 5}, [{"k": None}],
)
MUTANTS = 1200  # about 15 s on a shared 2-core machine


@pytest.mark.fuzz
def test_one_value_mutants_of_the_examples_get_one_verdict() -> None:
    """A value anywhere in an example swapped for one of another shape or type (seeded).
    Values under ``rules`` are left alone: the loader checks a rule's config only when the
    rule applies, the schema whatever the symbols."""
    r = random.Random(20261127)
    bases = []
    for path in sorted(EXAMPLES.glob("*.yaml")):
        base = parse_yaml(path.read_text(encoding="utf-8"), str(path)).root
        bases.append((path, base, [p for p in list(_paths(base))[1:] if "rules" not in p]))
    disagree = []
    for n in range(MUTANTS):
        path, base, places = bases[n % len(bases)]
        where = r.choice(places)
        data = _replace(base, where, r.choice(_VALUES))
        found = verdicts(data, yaml.safe_dump(data, sort_keys=False), path)
        if not found.agree:
            disagree.append((path.name, where, found))
    assert not disagree, disagree[:5]


def test_a_bare_string_step_is_a_located_error_with_the_pair_as_its_fix() -> None:
    issue = one_error(timeline("""\
        - userInputs: [[0, hi]]
        - llmResponse:
            - assistant:
                - "Hello there"
        """), "expected a step")
    assert (issue.line, issue.col, issue.path) == (6, 13, "timeline[1].llmResponse[0].assistant[0]")
    assert "[0, 'Hello there']" in issue.hint
