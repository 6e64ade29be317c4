"""``Record``: a slotted value class declared like a dataclass, but cheap to create.

The scenario model (:mod:`scenarist.scenario.model`), the tool vocabulary
(:mod:`scenarist.scenario.tools`), the beats and ``Issue`` declare ~110 record classes that
``scenarist validate`` creates at every start, and that command has a start-up budget (<= 5x
``python -c pass``, docs/architecture.md, "Start-up budgets and ordinary code"). On CPython
3.11 ``@dataclass(slots=True)`` compiles ``__init__`` with ``exec`` for every class and builds
each slotted class twice; a frozen one also compiles ``__setattr__``, ``__delattr__`` and
``__hash__``. A ``Record`` subclass is one class statement: its metaclass reads the
annotations once and puts the fields in ``__slots__``, the other methods are shared by every
record, and ``__init__`` is compiled the first time a class is instantiated, so a class that
is never built (most tools and events, in a one-file validate) never pays for it. Measured in
one run (``class`` statements of a five-field class): a ``Record`` ~1/6 of
``@dataclass(slots=True)``, ~1/12 of ``@dataclass(frozen=True, slots=True)``; with its first
instance ~1/2 and ~1/4. For ``validate -q examples/tool-tour.yaml`` (callgrind) the records,
and with them not importing ``dataclasses`` (nor ``inspect``), took 426 M -> 342 M
instructions (``python -c pass``: 39 M).

A record is declared as a dataclass is, and mypy reads it as one (``dataclass_transform``)::

    class PlanEntry(Record):
        content: str
        priority: Literal["high", "medium", "low"] = "medium"
        tags: tuple[str, ...] = field(default=(), repr=False)

    class SetMode(Event, kw_only=True): ...   # keyword-only fields, as @dataclass(kw_only=True)
    class Tally(Record, frozen=False): ...    # assignable fields (the default is frozen)

What it gives, as the dataclass with the same options would: ``__init__`` (positional fields
first, then keyword-only ones), ``__eq__`` (same class, equal compared fields), ``__repr__``,
``__match_args__``, ``__hash__`` from the compared fields when frozen (else unhashable),
assignment refused when frozen (:class:`FrozenRecordError`), pickling and copying. Field
defaults are values or ``field(default=..., default_factory=..., repr=..., compare=...,
metadata=...)``; :func:`fields` and :func:`replace` stand in for the ``dataclasses`` ones.
Not supported (no record needs it): ``init=False`` fields, ``__post_init__``, ordering.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, ClassVar, TypeVar, dataclass_transform

from scenarist.errors import ScenaristError

__all__ = ["MISSING", "Field", "FrozenRecordError", "Record", "field", "fields", "replace"]


class _Missing:
    __slots__ = ()

    def __repr__(self) -> str:
        return "MISSING"


#: the default of a field that has none
MISSING: Any = _Missing()


class FrozenRecordError(ScenaristError, AttributeError):
    """A field of a frozen record was assigned or deleted (as ``dataclasses.FrozenInstanceError``)."""


class Field:
    """One field of a record: its name, annotation (as written), default and options."""

    __slots__ = ("compare", "default", "default_factory", "kw_only", "metadata", "name", "repr",
                 "type")

    def __init__(self, default: Any = MISSING, default_factory: Any = MISSING, *,
                 repr: bool = True, compare: bool = True,  # dataclasses' names
                 metadata: Mapping[str, Any] | None = None) -> None:
        if default is not MISSING and default_factory is not MISSING:
            raise ValueError("a field has a default or a default_factory, not both")
        self.name = ""
        self.type: Any = None
        self.default = default
        self.default_factory: Callable[[], Any] | Any = default_factory
        self.repr = repr
        self.compare = compare
        self.kw_only = False
        self.metadata: Mapping[str, Any] = metadata or {}

    def __repr__(self) -> str:
        return f"Field(name={self.name!r}, default={self.default!r}, kw_only={self.kw_only})"


def field(*, default: Any = MISSING, default_factory: Callable[[], Any] | Any = MISSING,
          repr: bool = True, compare: bool = True,  # dataclasses' names
          metadata: Mapping[str, Any] | None = None) -> Any:
    """A field's default and options, as ``dataclasses.field`` (for a :class:`Record`)."""
    return Field(default, default_factory, repr=repr, compare=compare, metadata=metadata)


def _is_classvar(annotation: Any) -> bool:
    if isinstance(annotation, str):  # postponed annotations: as written
        return annotation.startswith(("ClassVar", "typing.ClassVar"))
    return annotation is ClassVar or getattr(annotation, "__origin__", None) is ClassVar


class _RecordType(type):
    """Builds a record class in one go: fields from the annotations, slots, shared methods."""

    def __new__(mcls, name: str, bases: tuple[type, ...], namespace: dict[str, Any],
                *, frozen: bool = True, kw_only: bool = False) -> _RecordType:
        if not any(isinstance(base, _RecordType) for base in bases):  # Record itself
            return super().__new__(mcls, name, bases, namespace)
        inherited: dict[str, Field] = {}
        for base in reversed(bases):
            inherited.update(getattr(base, "__record_fields__", {}))
        if any(getattr(base, "__record_frozen__", frozen) != frozen for base in bases
               if getattr(base, "__record_fields__", None)):  # Record itself has none
            raise TypeError(f"{name}: a frozen record derives only from frozen ones, and an "
                            "unfrozen one from unfrozen ones")
        own: dict[str, Field] = {}
        for key, annotation in namespace.get("__annotations__", {}).items():
            if _is_classvar(annotation):
                continue
            value = namespace.pop(key, MISSING)  # a class attribute would shadow the slot
            declared = value if isinstance(value, Field) else Field(value)
            declared.name, declared.type = key, annotation
            declared.kw_only = kw_only
            own[key] = declared
        every = {**inherited, **own}
        _check_order(name, every.values())
        namespace["__slots__"] = tuple(key for key in own if key not in inherited)
        namespace["__record_fields__"] = every
        namespace["__record_frozen__"] = frozen
        namespace["__record_compared__"] = tuple(f.name for f in every.values() if f.compare)
        namespace["__record_shown__"] = tuple(f.name for f in every.values() if f.repr)
        namespace["__match_args__"] = tuple(f.name for f in every.values() if not f.kw_only)
        namespace.setdefault("__init__", _first_init)
        namespace["__hash__"] = _hash if frozen else None
        if frozen:
            namespace.setdefault("__setattr__", _refuse_setattr)
            namespace.setdefault("__delattr__", _refuse_delattr)
        return super().__new__(mcls, name, bases, namespace)


def _check_order(name: str, every: Any) -> None:
    defaulted = None
    for f in every:
        if f.kw_only:
            continue
        if f.default is not MISSING or f.default_factory is not MISSING:
            defaulted = f.name
        elif defaulted is not None:
            raise TypeError(f"{name}: field {f.name!r} without a default follows {defaulted!r}, "
                            "which has one")


def _first_init(self: Record, *args: Any, **kwargs: Any) -> None:
    """The ``__init__`` of a record class until its first instance: compiles the real one."""
    cls = type(self)
    cls.__init__ = _compile_init(cls)  # type: ignore[method-assign]
    cls.__init__(self, *args, **kwargs)


def _compile_init(cls: type[Record]) -> Callable[..., None]:
    """``cls.__init__`` as ``@dataclass`` writes it: one parameter per field, positional
    ones first. A frozen record's fields are set through their slots' setters (~30 % faster
    than ``object.__setattr__``, which frozen dataclasses call)."""
    every = list(cls.__record_fields__.values())
    scope: dict[str, Any] = {"MISSING": MISSING}
    params: list[str] = []
    lines: list[str] = []
    for f in sorted(every, key=lambda f: f.kw_only):  # stable: positional fields first
        if f.kw_only and "*" not in params:
            params.append("*")
        if f.default_factory is not MISSING:
            scope[f"factory_{f.name}"] = f.default_factory
            params.append(f"{f.name}=MISSING")
            lines.append(f"if {f.name} is MISSING: {f.name} = factory_{f.name}()")
        elif f.default is not MISSING:
            scope[f"default_{f.name}"] = f.default
            params.append(f"{f.name}=default_{f.name}")
        else:
            params.append(f.name)
        if cls.__record_frozen__:  # past __setattr__, which refuses: the slot's own setter
            scope[f"set_{f.name}"] = getattr(cls, f.name).__set__
            lines.append(f"set_{f.name}(self, {f.name})")
        else:
            lines.append(f"self.{f.name} = {f.name}")
    source = f"def __init__(self, {', '.join(params)}):\n    " + "\n    ".join(lines or ["pass"])
    exec(source, scope)  # the source is made of the class's field names
    init: Callable[..., None] = scope["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    return init


def _hash(self: Record) -> int:
    return hash(tuple(getattr(self, name) for name in self.__record_compared__))


def _refuse_setattr(self: Record, name: str, value: Any) -> None:
    raise FrozenRecordError(f"cannot assign to field {name!r} of a {type(self).__name__}")


def _refuse_delattr(self: Record, name: str) -> None:
    raise FrozenRecordError(f"cannot delete field {name!r} of a {type(self).__name__}")


@dataclass_transform(frozen_default=True, field_specifiers=(field, Field))
class Record(metaclass=_RecordType):
    """Base of a record class: declare fields as annotations (see the module docstring)."""

    __slots__ = ()
    __record_fields__: ClassVar[dict[str, Field]]
    __record_frozen__: ClassVar[bool]
    __record_compared__: ClassVar[tuple[str, ...]]
    __record_shown__: ClassVar[tuple[str, ...]]

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        compared = self.__record_compared__
        return tuple(getattr(self, name) for name in compared) == tuple(
            getattr(other, name) for name in compared)

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__record_shown__)
        return f"{self.__class__.__qualname__}({shown})"

    def __getstate__(self) -> tuple[Any, ...]:
        return tuple(getattr(self, name) for name in self.__record_fields__)

    def __setstate__(self, state: tuple[Any, ...]) -> None:
        for name, value in zip(self.__record_fields__, state, strict=True):
            object.__setattr__(self, name, value)


R = TypeVar("R", bound=Record)


def fields(record: Record | type[Record]) -> tuple[Field, ...]:
    """The fields of a record or record class, in declaration order (bases' first)."""
    return tuple(record.__record_fields__.values())


def replace(record: R, /, **changes: Any) -> R:
    """A copy of ``record`` with ``changes`` (as ``dataclasses.replace``)."""
    values = {name: getattr(record, name) for name in record.__record_fields__}
    unknown = changes.keys() - values.keys()
    if unknown:
        raise TypeError(f"{type(record).__name__} has no field {sorted(unknown)[0]!r}")
    return type(record)(**{**values, **changes})
