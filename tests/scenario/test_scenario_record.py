"""``@record`` behaves as ``@dataclass(frozen=True, slots=True)`` does, side by side."""

from __future__ import annotations

import copy
import dataclasses
import inspect
import pickle
from typing import Any, ClassVar

import pytest

from scenarist.scenario import model
from scenarist.scenario.record import field, record


@dataclasses.dataclass(frozen=True, slots=True)
class DBase:
    a: int
    b: str = "x"
    tags: tuple[str, ...] = ()
    extra: dict[str, Any] = dataclasses.field(default_factory=dict)
    note: str | None = dataclasses.field(default=None, repr=False, compare=False)
    kind: ClassVar[str] = "base"


@dataclasses.dataclass(frozen=True, slots=True)
class DChild(DBase):
    c: float = 1.5
    kind: ClassVar[str] = "child"


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class DEvent:
    index: int
    meta: dict[str, Any] | None = None


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class DLog(DEvent):
    message: str
    level: str = "info"


@record
class RBase:
    a: int
    b: str = "x"
    tags: tuple[str, ...] = ()
    extra: dict[str, Any] = field(default_factory=dict)
    note: str | None = field(default=None, repr=False, compare=False)
    kind: ClassVar[str] = "base"


@record
class RChild(RBase):
    c: float = 1.5
    kind: ClassVar[str] = "child"


@record(kw_only=True)
class REvent:
    index: int
    meta: dict[str, Any] | None = None


@record(kw_only=True)
class RLog(REvent):
    message: str
    level: str = "info"


PAIRS: list[tuple[type, type, dict[str, Any]]] = [
    (DBase, RBase, {"a": 1, "tags": ("t",), "note": "n"}),
    (DChild, RChild, {"a": 2, "b": "y", "c": 3.0}),
    (DEvent, REvent, {"index": 4}),
    (DLog, RLog, {"index": 5, "message": "hello", "meta": {"k": 1}}),
]


def hashes(obj: object) -> bool:
    """Whether ``obj`` hashes (dict fields make it fail, as in dataclasses), consistently."""
    try:
        return hash(obj) == hash(copy.deepcopy(obj))
    except TypeError as exc:
        assert "unhashable" in str(exc)
        return False


def names(rendered: str, cls: type) -> str:
    return rendered.replace(cls.__qualname__, "X")


@pytest.mark.parametrize(("dc", "rec", "kwargs"), PAIRS)
def test_same_signature_fields_repr_and_match_args(dc: type, rec: type,
                                                   kwargs: dict[str, Any]) -> None:
    assert str(inspect.signature(rec)) == str(inspect.signature(dc))
    assert dataclasses.is_dataclass(rec) and dataclasses.is_dataclass(rec(**kwargs))
    view = [(f.name, f.default, f.default_factory, f.kw_only, f.repr, f.compare)
            for f in dataclasses.fields(rec)]
    assert view == [(f.name, f.default, f.default_factory, f.kw_only, f.repr, f.compare)
                    for f in dataclasses.fields(dc)]
    assert rec.__match_args__ == dc.__match_args__  # type: ignore[attr-defined]
    assert names(repr(rec(**kwargs)), rec) == names(repr(dc(**kwargs)), dc)
    assert getattr(rec, "kind", None) == getattr(dc, "kind", None)


@pytest.mark.parametrize(("dc", "rec", "kwargs"), PAIRS)
def test_frozen_slotted_equal_hashable_and_picklable(dc: type, rec: type,
                                                     kwargs: dict[str, Any]) -> None:
    one, two = rec(**kwargs), rec(**kwargs)
    assert one == two and one is not two and not hasattr(one, "__dict__")
    assert (one != dc(**kwargs)) and one.__eq__(dc(**kwargs)) is NotImplemented
    assert hashes(rec(**kwargs)) == hashes(dc(**kwargs))
    first = dataclasses.fields(rec)[0].name
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(one, first, 9)
    with pytest.raises(dataclasses.FrozenInstanceError):
        delattr(one, first)
    with pytest.raises(dataclasses.FrozenInstanceError):
        one.undeclared = 1
    for clone in (pickle.loads(pickle.dumps(one)), copy.copy(one), copy.deepcopy(one)):
        assert clone == one and type(clone) is rec
    assert dataclasses.asdict(one) == dataclasses.asdict(dc(**kwargs))
    assert dataclasses.astuple(one) == dataclasses.astuple(dc(**kwargs))
    changed = dataclasses.replace(one, **{first: 7})
    assert getattr(changed, first) == 7 and type(changed) is rec


def test_fields_with_compare_false_or_unhashable_values_behave_as_in_dataclasses() -> None:
    assert RBase(1, note="a") == RBase(1, note="b")

    @record
    class Noted:
        a: int
        note: str = field(default="", compare=False)

    assert Noted(1, "x") == Noted(1, "y") and hash(Noted(1, "x")) == hash(Noted(1, "y"))
    assert hash(REvent(index=1)) == hash(REvent(index=1)) != hash(REvent(index=2))
    assert RLog(index=1, message="m", meta=None) == RLog(index=1, message="m")
    assert RChild(1) != RBase(1)  # other class: never equal, as dataclasses
    assert RBase(1).extra is not RBase(1).extra  # a fresh dict from the factory
    with pytest.raises(TypeError, match="unhashable"):
        hash(RBase(1, extra={"a": 1}))
    assert "note" not in repr(RBase(1, note="secret"))


def test_definition_errors_match_dataclasses() -> None:
    with pytest.raises(ValueError, match="mutable default list"):
        @record
        class Bad:
            items: list[int] = []  # noqa: RUF012
    with pytest.raises(TypeError, match="non-default argument 'b' follows default argument"):
        @record
        class Order:
            a: int = 0
            b: int  # type: ignore[misc]
    with pytest.raises(TypeError):
        RLog(1, message="positional index is refused")  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        RBase()  # type: ignore[call-arg]
    with pytest.raises(ValueError, match="not both"):
        field(default=1, default_factory=int)  # type: ignore[call-overload]


def test_a_field_named_self_and_a_class_without_fields() -> None:
    @record
    class Odd:
        self: int

    @record
    class Empty:
        pass

    assert Odd(self=3).self == 3 and Empty() == Empty() and hash(Empty()) == hash(Empty())


def test_every_model_class_is_a_frozen_dataclass_to_the_dataclasses_module() -> None:
    classes: list[Any] = [getattr(model, n) for n in model.__all__
                          if isinstance(getattr(model, n), type)]
    assert len(classes) >= 50
    for cls in classes:
        is_dataclass = dataclasses.is_dataclass(cls)
        assert is_dataclass, cls
        assert [f.name for f in dataclasses.fields(cls)] == [f.name for f in cls.__record_fields__]
        assert cls.__dictoffset__ == 0, cls  # slots all the way: no instance __dict__
    event = model.Log(index=0, key_path="timeline[0].log", line=1, col=3, message="m")
    assert dataclasses.replace(event, message="n").message == "n"
    assert repr(event) == ("Log(index=0, key_path='timeline[0].log', line=1, col=3, meta=None, "
                           "message='m', level='info')")


def test_init_is_compiled_on_first_use_only() -> None:
    @record
    class Lazy:
        a: int
        b: int = 2

    assert not inspect.isfunction(Lazy.__dict__["__init__"])  # nothing compiled yet
    assert str(inspect.signature(Lazy)) == "(a: 'int', b: 'int' = 2) -> None"
    assert inspect.isfunction(Lazy.__dict__["__init__"])  # the lookup compiled it

    @record
    class Fresh:
        a: int

    class Plain(Fresh):  # a plain subclass: the record's __init__ still serves it
        pass

    assert Plain(1).a == 1 and Fresh(2).a == 2 and inspect.isfunction(Fresh.__dict__["__init__"])
