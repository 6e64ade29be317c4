"""Records behave as the frozen dataclasses they are declared like.

:class:`scenarist.scenario.record.Record` replaces ``@dataclass`` for the scenario model and
the tool vocabulary (a start-up saving, see that module); these tests hold the behaviour a
dataclass user expects: the constructor, equality, repr, hashing, frozenness, ``replace``,
pickling, and the declaration errors.
"""

from __future__ import annotations

import copy
import inspect
import pickle
from pathlib import Path
from typing import ClassVar

import pytest

from scenarist.errors import ScenaristError
from scenarist.scenario import model, tools
from scenarist.scenario.load import load_scenario, load_scenario_text
from scenarist.scenario.model import (
    AudioContent,
    ImageContent,
    PlanEntry,
    Scenario,
    SetMode,
    TextContent,
)
from scenarist.scenario.record import FrozenRecordError, Record, field, fields, replace
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


class Point(Record):
    """A test record: two positional fields, one with a default, one uncompared."""

    x: int
    y: int = 0
    tags: list[str] = field(default_factory=list, compare=False, repr=False)
    unit: ClassVar[str] = "px"


class Tally(Record, frozen=False):
    """A test record that may be assigned."""

    count: int = 0


#: records filled field by field after they are made (the fault reader, seeded chaos)
ASSIGNABLE = {"Fault"}


def records() -> list[type]:
    found = [cls for module in (model, tools)
             for _, cls in inspect.getmembers(module, inspect.isclass)
             if issubclass(cls, Record) and cls.__module__ == module.__name__]
    assert len(found) > 70
    return found


@pytest.mark.parametrize("cls", records(), ids=lambda cls: cls.__name__)
def test_every_record_is_a_frozen_slotted_value(cls: type[Record]) -> None:
    assert cls.__eq__ is Record.__eq__ and cls.__repr__ is Record.__repr__
    assert cls.__record_frozen__ or cls.__name__ in ASSIGNABLE
    assert cls.__dictoffset__ == 0  # slotted all the way up: instances have no __dict__


def test_the_constructor_takes_positional_then_keyword_only_fields() -> None:
    assert (Point(1).x, Point(1).y, Point(1, 2).y, Point(x=3, y=4).x) == (1, 0, 2, 3)
    event = SetMode(index=0, key_path="timeline[0].setMode", line=1, col=1, mode_id="plan")
    assert (event.mode_id, event.meta, event.kind) == ("plan", None, "setMode")
    with pytest.raises(TypeError):
        SetMode(0, "timeline[0].setMode", 1, 1, mode_id="plan")  # type: ignore[misc]
    with pytest.raises(TypeError, match="missing 1 required positional argument: 'x'"):
        Point()  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="unexpected keyword argument 'z'"):
        Point(1, z=2)  # type: ignore[call-arg]
    first, second = Point(1), Point(1)
    assert first.tags == [] and first.tags is not second.tags  # a fresh default each time
    assert Point.__match_args__ == ("x", "y", "tags") and SetMode.__match_args__ == ()
    assert Point.unit == "px" and "unit" not in Point.__record_fields__


def test_frozen_records_refuse_assignment_and_hash_by_value() -> None:
    point = Point(1)
    with pytest.raises(FrozenRecordError, match="cannot assign to field 'x' of a Point"):
        point.x = 2  # type: ignore[misc]
    with pytest.raises(FrozenRecordError, match="cannot delete"):
        del point.x  # type: ignore[misc]
    assert isinstance(FrozenRecordError("x"), ScenaristError | AttributeError)
    assert hash(Point(1, tags=["a"])) == hash(Point(1)) and len({Point(1), Point(1)}) == 1
    with pytest.raises(TypeError, match="unhashable"):
        hash(GenericTool("x", {"a": 1}))  # as a frozen dataclass holding a dict
    tally = Tally()
    tally.count += 1
    assert tally.count == 1 and Tally.__hash__ is None


def test_repr_names_the_class_and_every_shown_field() -> None:
    assert repr(RunCmd("ls")) == ("RunCmd(cmd='ls', cwd=None, timeout=None, description=None, "
                                  "run_in_background=False)")
    assert repr(TextContent("hi")) == "TextContent(text='hi', annotations=None, type='text')"
    assert repr(Point(1, tags=["a"])) == "Point(x=1, y=0)"
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
    assert Point(1, tags=["a"]) == Point(1)  # field(compare=False)
    nan = float("nan")  # compared as a tuple of fields, as dataclasses do: identity first
    assert GenericTool("x", {"n": nan}) == GenericTool("x", {"n": nan})


def test_loaded_scenarios_compare_equal_and_ignore_uncompared_fields() -> None:
    path = EXAMPLES / "tool-tour.yaml"
    first, second = load_scenario(path), load_scenario(path)
    assert first == second and first.timeline == second.timeline
    assert replace(first, warnings=[]) == second  # compare=False
    assert replace(first, name="other") != second
    assert replace(first, name="other").timeline is first.timeline
    with pytest.raises(TypeError, match="Scenario has no field 'nmae'"):
        replace(first, nmae="other")
    assert [f.name for f in fields(Scenario)][:2] == ["name", "timeline"]


def test_records_pickle_and_copy() -> None:
    scenario = load_scenario(EXAMPLES / "tool-tour.yaml")
    assert pickle.loads(pickle.dumps(scenario)) == scenario
    assert copy.deepcopy(scenario) == scenario and copy.copy(Point(1, 2)) == Point(1, 2)


def test_declaration_mistakes_fail_when_the_class_is_created() -> None:
    with pytest.raises(TypeError, match="field 'y' without a default follows 'x'"):
        class Bad(Record):
            x: int = 0
            y: int

    with pytest.raises(TypeError, match="a frozen record derives only from frozen ones"):
        class Mixed(Point, frozen=False):
            z: int = 0

    with pytest.raises(ValueError, match="not both"):
        field(default=1, default_factory=int)


@pytest.mark.slow  # a cold mypy run: ~40-60 s on a shared machine
def test_mypy_reads_records_as_frozen_dataclasses(tmp_path: Path) -> None:
    mypy = pytest.importorskip("mypy.api")
    snippet = (
        "from scenarist.scenario.record import Record, field\n"
        "class P(Record):\n"
        "    x: int\n"
        "    y: str = field(default='a')\n"
        "class K(P, kw_only=True):\n"
        "    z: int\n"
        "P(1, 'b')\n"
        "K(1, z=2)\n"
        "P('no')\n"
        "K(1, 'b', 2)\n"
        "P(1).x = 3\n"
    )
    out, _, status = mypy.run(["--strict", "--no-error-summary", "--config-file=",
                               f"--cache-dir={tmp_path}", "-c", snippet])
    assert status == 1
    assert [line.split(": error: ")[0] for line in out.splitlines()] == [
        "<string>:9", "<string>:10", "<string>:11"]
    assert 'Argument 1 to "P" has incompatible type "str"; expected "int"' in out
    assert 'Too many positional arguments for "K"' in out and '"x" defined in "P" is read-only' in out
