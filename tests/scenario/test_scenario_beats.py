"""Typed beats and the one turn structure: every event kind has its beat, front ends match on
beat types exhaustively, and a new kind fails mypy exactly where docs/architecture.md says.

What really catches a forgotten kind is the type checker: every front end that plays a set
of kinds ends its ``match`` with ``case _: assert_never(beat)``, so a kind added to a union
is an error there until the front end handles it. The syntax-tree tests keep that shape (and
no string comparison of kinds) in ``src/``; the slow test adds a kind to a copy of the
package and runs mypy on it, so the promise is checked, not just the pattern.
"""

from __future__ import annotations

import ast
import inspect
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import get_args, get_type_hints

import pytest

from scenarist.scenario import (
    BEATS,
    AgentBeat,
    AgentEditsBeat,
    AssistantBeat,
    Beat,
    ErrorBeat,
    LogBeat,
    PromptBeat,
    SessionStartBeat,
    ThinkBeat,
    ToolExecutionBeat,
    ToolResultBeat,
    ToolStartBeat,
    Turn,
    compile_timeline,
    load_scenario,
    load_scenario_text,
    model,
    turns_of,
)
from scenarist.scenario.beats import EVENT_BEATS
from scenarist.scenario.record import Record

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src" / "scenarist"
ARCHITECTURE = ROOT / "docs" / "architecture.md"

#: The front ends whose match covers every beat kind: a new kind fails mypy in each.
EVERY_KIND = ("scenario/cli.py", "acp/updates.py", "codex/play_scenario.py", "agent/play.py",
              "llm/plan.py", "rest/events.py")
#: ... and, for a new agent kind (``AgentBeat``), the ACP agent's turn player too.
AGENT_KINDS = (*EVERY_KIND, "acp/agent.py")


def _events() -> list[type[model.Event]]:
    """Every event record of the model, found by walking it (not a list kept by hand)."""
    return [c for _, c in inspect.getmembers(model, inspect.isclass)
            if issubclass(c, model.Event) and c is not model.Event]


def test_every_event_kind_has_its_beat() -> None:
    """Found by walking the model: each event has its beat types, and one that happens at
    one moment has exactly one, of its own kind, which the compiler builds by that kind."""
    assert len({b.kind for b in BEATS}) == len(BEATS), "two beat types share a kind"
    of: dict[type[model.Event], list[type[Beat]]] = {}
    for beat in BEATS:
        event_type = get_type_hints(beat)["event"]
        for event in get_args(event_type) or (event_type,):  # a fault's: a response's or its own
            of.setdefault(event, []).append(beat)
    timed_only = {model.BaseTimeDelta}  # moves the cursor; never a beat
    stepped = {model.LlmResponse: 4, model.AgentToolUse: 4, model.UserInputs: 1}
    carried = {model.FaultEvent}  # one beat, built with its step (the Fault) by the compiler
    for event in _events():
        beats = of.pop(event, [])
        if event in timed_only:
            assert not beats
        elif event in stepped:  # timed step by step in timeline.py
            assert len(beats) == stepped[event], (event, beats)
        elif event in carried:
            assert [b.kind for b in beats] == [event.kind] and event.kind not in EVENT_BEATS
        else:
            assert [b.kind for b in beats] == [event.kind], f"{event.__name__} has no beat"
            assert EVENT_BEATS[event.kind] is beats[0]
    assert not of, f"beats of no model event: {of}"


def test_beats_are_frozen_and_the_unions_closed() -> None:
    for beat in BEATS:
        assert issubclass(beat, Record) and beat.__record_frozen__
    assert set(get_args(AgentBeat)) < set(BEATS)


SCENARIO = """\
name: typed
timeline:
  - log: before any prompt
  - llmResponse:
      - think: [[100, "lead-in"]]
  - userInputs:
      - [200, "first"]
      - [300, "second"]
  - llmResponse:
      - assistant: [[50, "an answer"]]
  - agentToolUse:
      toolName: runCmd
      args: {cmd: ls}
      result: "a b"
      toolExecution:
        startTimeMs: 0
        events:
          - {type: stdout, timeMs: 100, content: "a b\\n"}
          - {type: completion, timeMs: 900, exitCode: 0}
  - userInputs:
      - [500, "concurrent"]
  - agentEdits: {path: a.txt, linesAdded: 1}
  - llmResponse:
      - error: {errorType: rate_limit_error, message: slow down, statusCode: 429}
"""


def test_the_compiled_beats_are_typed() -> None:
    beats = compile_timeline(load_scenario_text(SCENARIO)).beats
    assert [type(b) for b in beats] == [
        LogBeat, ThinkBeat, PromptBeat, PromptBeat, AssistantBeat, ToolStartBeat,
        ToolExecutionBeat, PromptBeat, ToolExecutionBeat, ToolResultBeat, AgentEditsBeat,
        ErrorBeat]
    think, error = beats[1], beats[-1]
    assert isinstance(think, ThinkBeat) and think.step.text == "lead-in"
    assert isinstance(error, ErrorBeat) and error.step.error_type == "rate_limit_error"
    assert all(isinstance(b, Beat) for b in beats)


def test_every_compiled_beat_holds_what_its_type_says() -> None:
    """The compiler is the one place beats are built (with the shared ``__init__``): check
    every beat of every example against its record's annotations."""
    hints = {b: get_type_hints(b) for b in BEATS}
    seen = set()
    for path in sorted((ROOT / "examples").glob("*.yaml")):
        for beat in compile_timeline(load_scenario(path)).beats:
            seen.add(type(beat))
            assert isinstance(beat.event, hints[type(beat)]["event"]), (path, beat)
            step = getattr(beat, "step", None)  # only the per-step kinds have one
            assert isinstance(step, hints[type(beat)].get("step", type(None))), (path, beat)
    assert len(seen) >= 20  # the examples show most kinds


def test_turns_are_cut_in_file_order() -> None:
    """A prompt typed while the tool still runs (at 500 ms, the tool ends at 1250 ms) does not
    take the tool's end away from the turn that started it."""
    turns = turns_of(compile_timeline(load_scenario_text(SCENARIO)))
    assert turns.history == ()
    assert [type(b) for b in turns.lead_in] == [LogBeat, ThinkBeat]
    first, second = turns.turns
    assert [p.step.text for p in first.prompts] == ["first", "second"]
    assert [type(b) for b in first.beats] == [
        AssistantBeat, ToolStartBeat, ToolExecutionBeat, ToolExecutionBeat, ToolResultBeat]
    assert [p.step.text for p in second.prompts] == ["concurrent"]
    assert [type(b) for b in second.beats] == [AgentEditsBeat, ErrorBeat]
    assert first.origin_ms == 200 and second.origin_ms == 500
    assert list(turns) == [Turn((), turns.lead_in), first, second]  # the lead-in first


def test_history_stays_out_of_the_turns() -> None:
    scenario = load_scenario_text("""\
name: loaded
acp: {capabilities: {loadSession: true}}
timeline:
  - userInputs: [[0, "old"]]
  - llmResponse: {assistant: [[10, "old answer"]]}
  - sessionStart: {sessionId: s1}
  - llmResponse: {assistant: [[10, "resumed"]]}
  - userInputs: [[100, "new"]]
""")
    turns = turns_of(compile_timeline(scenario))
    assert [type(b) for b in turns.history] == [PromptBeat, AssistantBeat]
    assert [type(b) for b in turns.lead_in] == [SessionStartBeat, AssistantBeat]
    assert [[p.step.text for p in t.prompts] for t in turns.turns] == [["new"]]


# -- the front ends, on their syntax trees ------------------------------------------------


def _modules() -> dict[str, ast.Module]:
    return {str(p.relative_to(SRC)): ast.parse(p.read_text(), str(p))
            for p in sorted(SRC.rglob("*.py"))}


def _names_beat(pattern: ast.pattern) -> bool:
    return any(isinstance(node, ast.MatchClass)
               and (node.cls.id if isinstance(node.cls, ast.Name) else
                    node.cls.attr if isinstance(node.cls, ast.Attribute) else "").endswith("Beat")
               for node in ast.walk(pattern))


def _assert_never(case: ast.match_case) -> bool:
    wildcard = isinstance(case.pattern, ast.MatchAs) and case.pattern.pattern is None \
        and case.pattern.name is None
    call = case.body[0] if len(case.body) == 1 else None
    return wildcard and isinstance(call, ast.Expr) and isinstance(call.value, ast.Call) \
        and isinstance(call.value.func, ast.Name) and call.value.func.id == "assert_never"


def test_every_match_on_beats_ends_in_assert_never() -> None:
    """A ``match`` on beat types that ends without ``assert_never`` would let a new kind fall
    through unseen; each such front end states the kinds it leaves alone instead."""
    found, loose = set(), []
    for name, tree in _modules().items():
        for node in ast.walk(tree):
            if isinstance(node, ast.Match) and any(_names_beat(c.pattern) for c in node.cases):
                found.add(name)
                if not _assert_never(node.cases[-1]):
                    loose.append(f"{name}:{node.lineno}")
    assert not loose, f"a match on beats without `case _: assert_never(...)`: {loose}"
    assert set(AGENT_KINDS) <= found


def _beat_kind(node: ast.AST) -> bool:
    """``beat.kind``, ``b.kind``, ``self.beat.kind``, ``first_beat.kind``: a beat's kind."""
    if not isinstance(node, ast.Attribute) or node.attr != "kind":
        return False
    owner = node.value
    name = owner.id if isinstance(owner, ast.Name) else \
        owner.attr if isinstance(owner, ast.Attribute) else ""
    return name == "b" or name.lower().endswith("beat")


def test_no_front_end_compares_kinds_as_strings() -> None:
    """Kinds are types: ``beat.kind == "think"`` or ``kind = beat.kind`` (then compared)
    would pass mypy with a typo. ``kind`` stays for output and messages only."""
    kinds = {b.kind for b in BEATS}
    compared = []
    for name, tree in _modules().items():
        for node in ast.walk(tree):
            if isinstance(node, ast.Compare):
                sides = [node.left, *node.comparators]
                strings = {c.value for s in sides for c in ast.walk(s)
                           if isinstance(c, ast.Constant) and isinstance(c.value, str)}
                if any(_beat_kind(s) for s in sides) and strings & kinds:
                    compared.append(f"{name}:{node.lineno} {ast.unparse(node)}")
            elif isinstance(node, ast.Assign):
                values = node.value.elts if isinstance(node.value, ast.Tuple) else [node.value]
                if any(_beat_kind(v) for v in values):
                    compared.append(f"{name}:{node.lineno} {ast.unparse(node)}")
    assert not compared, f"beat kinds compared as strings: {compared}"


def test_architecture_names_the_files_a_new_event_touches() -> None:
    text = ARCHITECTURE.read_text()
    section = text[text.index("### Adding a timeline event"):]
    section = section[:section.index("\n## ")]
    for path in (*AGENT_KINDS, "scenario/model.py", "scenario/beats.py", "scenario/schema.py",
                 "scenario/events/", "acp/client.py", "runner/play.py"):
        assert f"{path}" in section, f"docs/architecture.md does not name {path}"


@pytest.mark.slow
def test_a_new_kind_fails_mypy_in_every_front_end_that_claims_it(tmp_path: Path) -> None:
    """Add two kinds to a copy of the package (one to ``Beat``, one to ``AgentBeat``) and
    run mypy: each front end that claims all kinds (or all agent kinds) must fail, at its
    ``assert_never``, and nothing else may."""
    copy = tmp_path / "src" / "scenarist"
    shutil.copytree(SRC, copy, ignore=shutil.ignore_patterns("__pycache__"))
    beats = copy / "scenario" / "beats.py"
    text = beats.read_text()
    new = '''

class NewBeat(_Beat):
    """A kind no front end knows yet."""

    __slots__ = ()
    event: Log
    kind: ClassVar[str] = "newKind"


class NewAgentBeat(_Beat):
    """An agent kind no front end knows yet."""

    __slots__ = ()
    event: Log
    kind: ClassVar[str] = "newAgentKind"
'''
    text = text.replace("\n\n# -- the unions", new + "\n\n# -- the unions", 1)
    text = text.replace("| AgentPermissionRequestBeat)", "| AgentPermissionRequestBeat | NewAgentBeat)")
    text = text.replace("| CompleteBeat | MergeBeat)", "| CompleteBeat | MergeBeat | NewBeat)")
    assert text.count("NewBeat") == 2 and text.count("NewAgentBeat") == 2
    beats.write_text(text)
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--cache-dir", str(tmp_path / "cache"), "--config-file",
         str(ROOT / "pyproject.toml"), "-p", "scenarist"],
        cwd=tmp_path, env={"MYPYPATH": str(tmp_path / "src"), "PATH": "/usr/bin:/bin"},
        capture_output=True, text=True, timeout=600)
    errors = [line for line in done.stdout.splitlines() if ": error:" in line]
    where: dict[str, set[str]] = {}
    for line in errors:
        path = line.split(":", 1)[0].removeprefix("src/scenarist/")
        for kind in re.findall(r"\bNew\w*Beat\b", line):
            where.setdefault(kind, set()).add(path)
    assert all("assert_never" in line for line in errors), errors
    assert where.get("NewBeat") == set(EVERY_KIND), errors
    assert where.get("NewAgentBeat") == set(AGENT_KINDS), errors
