"""The model's and the tool vocabulary's records compare and print as generated dataclasses do.

They inherit ``__eq__`` and ``__repr__`` from :class:`scenarist.scenario.record.Record`
instead of compiling their own (a start-up saving, see that module); these tests hold the
behaviour a dataclass user expects.
"""

from __future__ import annotations

import dataclasses
import inspect
from pathlib import Path

import pytest

from scenarist.scenario import model, tools
from scenarist.scenario.load import load_scenario, load_scenario_text
from scenarist.scenario.model import AudioContent, ImageContent, PlanEntry, TextContent
from scenarist.scenario.record import Record
from scenarist.scenario.tools import GenericTool, ReadFile, RunCmd

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

TEXT = """name: twice
timeline:
  - userInputs:
      - relativeTime: 0
        input: "hi"
  - llmResponse:
      - assistant:
          - [100, "ok"]
"""


def records() -> list[type]:
    found = [cls for module in (model, tools)
             for _, cls in inspect.getmembers(module, inspect.isclass)
             if dataclasses.is_dataclass(cls) and cls.__module__ == module.__name__]
    assert len(found) > 70
    return found


@pytest.mark.parametrize("cls", records(), ids=lambda cls: cls.__name__)
def test_every_record_shares_the_one_eq_and_repr(cls: type) -> None:
    assert issubclass(cls, Record)
    assert cls.__eq__ is Record.__eq__ and cls.__repr__ is Record.__repr__
    assert cls.__hash__ is None  # mutable by type: unhashable, as a dataclass with eq
    assert cls.__dictoffset__ == 0  # slotted all the way up: instances have no __dict__


def test_repr_names_the_class_and_every_shown_field() -> None:
    assert repr(RunCmd("ls")) == ("RunCmd(cmd='ls', cwd=None, timeout=None, description=None, "
                                  "run_in_background=False)")
    assert repr(TextContent("hi")) == "TextContent(text='hi', annotations=None, type='text')"
    scenario = load_scenario_text(TEXT)
    assert scenario.compiled is not None
    assert "compiled=" not in repr(scenario)  # field(repr=False)
    assert repr(scenario).startswith("Scenario(name='twice', timeline=(UserInputs(index=0, ")


def test_equal_when_the_same_class_has_equal_compared_fields() -> None:
    assert RunCmd("ls") == RunCmd("ls")
    assert RunCmd("ls") != RunCmd("ls", cwd="src")
    assert ImageContent("image/png", data="AA==") != AudioContent("image/png", data="AA==")
    assert RunCmd("ls") != "ls" and GenericTool("x") != ReadFile("x")
    assert PlanEntry("a") in [PlanEntry("b"), PlanEntry("a")]
    nan = float("nan")  # compared as a tuple of fields, as dataclasses do: identity first
    assert GenericTool("x", {"n": nan}) == GenericTool("x", {"n": nan})


def test_loaded_scenarios_compare_equal_and_ignore_uncompared_fields() -> None:
    path = EXAMPLES / "tool-tour.yaml"
    first, second = load_scenario(path), load_scenario(path)
    assert first == second and first.timeline == second.timeline
    assert dataclasses.replace(first, warnings=["a warning"]) == second  # compare=False
    assert dataclasses.replace(first, name="other") != second
    with pytest.raises(TypeError, match="unhashable"):
        hash(first.timeline[0])
