"""A tool declared once reaches the loader, the JSON Schema and both renderers.

The test declares ``frobnicate`` as a front-end author would (a frozen dataclass and
``register``) and checks every consumer without telling any of them about it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, ClassVar

import jsonschema
import pytest

from scenarist.codex.play_scenario import scenario_steps
from scenarist.codex.rng import Rng
from scenarist.codex.turn import CodexTurn
from scenarist.llm.conversation import Profile, ToolDecl
from scenarist.llm.plan import build_script
from scenarist.llm.profiles import Context, render_action
from scenarist.llm.script import ToolAction
from scenarist.scenario import (
    TOOLS,
    AgentToolUse,
    ScenarioError,
    compile_timeline,
    load_scenario_text,
    register,
    spelling,
)
from scenarist.scenario.schema import scenario_schema


@dataclass(slots=True)
class Frobnicate:
    """Frobnicate a target (a tool only this test knows)."""

    name: ClassVar[str] = "frobnicate"
    aliases: ClassVar[tuple[str, ...]] = ("frob",)
    target: str = field(metadata=spelling(aliases=("object",)))
    times: int = 1
    loud: bool = field(default=False, metadata=spelling("--loud"))


SCENARIO = """\
name: frob
timeline:
  - userInputs: [[0, "frobnicate the widget"]]
  - llmResponse:
      - assistant: [[10, "On it."]]
  - frobnicate: {object: widget, times: 3, --loud: true}
  - agentToolUse: {toolName: frob, args: {target: gadget}, result: done}
"""
WIDGET = {"target": "widget", "times": 3, "--loud": True}


@pytest.fixture
def frobnicate() -> Iterator[type[Frobnicate]]:
    register(Frobnicate)
    yield Frobnicate
    del TOOLS[Frobnicate.name]


def uses(text: str) -> list[AgentToolUse]:
    return [e for e in load_scenario_text(text).timeline if isinstance(e, AgentToolUse)]


def test_unknown_until_declared() -> None:
    scenario = load_scenario_text(SCENARIO)
    assert "unknown timeline event 'frobnicate' is ignored" in scenario.warnings[0].message


def test_loader_accepts_checks_and_resolves_aliases(frobnicate: type[Frobnicate]) -> None:
    scenario = load_scenario_text(SCENARIO)
    first, second = [e.tool for e in scenario.timeline if isinstance(e, AgentToolUse)]
    assert first == Frobnicate("widget", 3, loud=True) and second == Frobnicate("gadget")
    assert [w.message for w in scenario.warnings] == [
        "frobnicate argument 'object' is read as 'target'",
        "toolName 'frob' is read as 'frobnicate'",
    ]
    assert uses("name: x\ntimeline:\n  - frobnicate: gizmo\n")[0].tool == Frobnicate("gizmo")
    with pytest.raises(ScenarioError) as info:
        load_scenario_text("name: x\ntimeline:\n  - frobnicate: {times: many}\n")
    assert [(i.line, i.path, i.message) for i in info.value.errors] == [
        (3, "timeline[0].frobnicate", "frobnicate needs argument 'target'"),
        (3, "timeline[0].frobnicate.times", "expected a whole number, got a string ('many')"),
    ]


def test_schema_describes_it(frobnicate: type[Frobnicate]) -> None:
    validator = jsonschema.Draft7Validator(scenario_schema())

    def problems(item: dict[str, Any]) -> list[str]:
        return [e.message for e in validator.iter_errors({"name": "x", "timeline": [item]})]

    assert problems({"frobnicate": {"target": "w", "times": 2, "--loud": True}}) == []
    assert problems({"frobnicate": "w"}) == []
    assert problems({"frobnicate": {"target": "w", "times": "many"}})
    assert problems({"frobnicate": {"times": 2}})
    definitions = scenario_schema()["definitions"]
    event = next(e for e in definitions["timelineItem"]["anyOf"]
                 if "frobnicate" in e.get("properties", {}))
    assert {"$ref": "#/definitions/frobnicateArgs"} in \
        event["properties"]["frobnicate"]["anyOf"][1]["allOf"]
    assert definitions["frobnicateArgs"]["required"] == ["target"]


@pytest.mark.parametrize("profile", ["claude", "codex", "openai"])
def test_model_api_renders_it_in_every_profile(frobnicate: type[Frobnicate],
                                               profile: Profile) -> None:
    turn = build_script(load_scenario_text(SCENARIO)).segments[0].turns[0]
    ctx = Context(profile, "/work", frozenset({"frobnicate"}), lambda path: None,
                  decls=(ToolDecl("frobnicate"),))
    calls = [render_action(action, ctx) for action in turn.actions]
    assert [(c.name, json.loads(c.arguments)) for c in calls] == [
        ("frobnicate", WIDGET), ("frobnicate", {"target": "gadget"})]
    assert isinstance(turn.actions[0], ToolAction) and turn.actions[0].call == Frobnicate(
        "widget", 3, loud=True)


def test_fake_codex_plays_it_as_a_tool_call(frobnicate: type[Frobnicate]) -> None:
    beats = compile_timeline(load_scenario_text(SCENARIO)).beats
    events = [e for e in scenario_steps(beats, CodexTurn(Rng(1)), time_scale=0) if isinstance(e, dict)]
    ends = [e for e in events if e["type"] == "mcp_tool_call_end"]
    assert [(e["invocation"]["tool"], e["invocation"]["arguments"]) for e in ends] == [
        ("frobnicate", WIDGET), ("frobnicate", {"target": "gadget"})]
    assert ends[1]["result"]["Ok"]["content"][0]["text"] == "done"


def test_a_clashing_declaration_fails_at_once() -> None:
    @dataclass(slots=True)
    class Shell:
        name: ClassVar[str] = "shell"
        aliases: ClassVar[tuple[str, ...]] = ("run_cmd",)
        cmd: str

    with pytest.raises(ValueError, match="'run_cmd' is already RunCmd's"):
        register(Shell)

    @dataclass(slots=True)
    class Odd:
        name: ClassVar[str] = "odd"
        when: complex

    with pytest.raises(TypeError, match=r"Odd\.when: argument type"):
        register(Odd)
    assert "shell" not in TOOLS and "odd" not in TOOLS
