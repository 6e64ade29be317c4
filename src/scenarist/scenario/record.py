"""Frozen, slotted record classes that cost little to define.

``@record`` gives a class what ``@dataclass(frozen=True, slots=True)`` gives it: an
``__init__`` (positional, or keyword-only with ``@record(kw_only=True)``; defaults and
``field(default_factory=...)``), ``__repr__``, ``__eq__`` and ``__hash__`` over the compared
fields, ``__match_args__``, ``__slots__``, pickling, and assignment or deletion raising
``dataclasses.FrozenInstanceError``. To the ``dataclasses`` module it *is* a dataclass:
``fields``, ``replace``, ``asdict`` and ``is_dataclass`` work on it. Type checkers see a
frozen dataclass (``typing.dataclass_transform``).

Why not ``@dataclass``: on Python 3.11 it compiles six generated methods for every class,
about half a millisecond each class; the scenario model's 54 classes cost ~28 ms on every
start of ``scenarist validate``, more than reading and checking a file (and importing
``dataclasses`` brings ``inspect``: ~6 ms more). Here only ``__init__`` is compiled (it is
the hot one: one call per loaded object, as fast as the dataclass one), and only when the
class is first used; the other methods are shared functions reading per-class tuples of
field names, and the ``dataclasses`` view (``__dataclass_fields__``) is built on first use.
"""

from __future__ import annotations

from collections.abc import Callable
from operator import attrgetter
from typing import Any, ClassVar, TypeVar, dataclass_transform, overload

__all__ = ["field", "record"]

T = TypeVar("T")
C = TypeVar("C", bound=type)


class _Missing:
    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()


class _Factory:
    def __repr__(self) -> str:
        return "<factory>"


_FACTORY: Any = _Factory()  # an __init__ default meaning "call the field's factory"


class _Spec:
    """What ``field(...)`` returns: read by ``@record`` from the class body."""

    __slots__ = ("compare", "default", "default_factory", "repr")

    def __init__(self, default: Any, default_factory: Any, repr: bool,
                 compare: bool) -> None:
        self.default, self.default_factory = default, default_factory
        self.repr, self.compare = repr, compare


@overload
def field(*, default: T, repr: bool = True, compare: bool = True) -> T: ...
@overload
def field(*, default_factory: Callable[[], T], repr: bool = True, compare: bool = True) -> T: ...
def field(*, default: Any = MISSING, default_factory: Any = MISSING, repr: bool = True,
          compare: bool = True) -> Any:
    """A field with a default (or a factory for mutable ones) and repr/compare switches."""
    if default is not MISSING and default_factory is not MISSING:
        raise ValueError("field(): give default or default_factory, not both")
    return _Spec(default, default_factory, repr, compare)


class _Field:
    __slots__ = ("compare", "default", "factory", "kw_only", "name", "repr", "type")

    def __init__(self, name: str, type_: Any, spec: _Spec, kw_only: bool) -> None:
        self.name, self.type, self.kw_only = name, type_, kw_only
        self.default, self.factory = spec.default, spec.default_factory
        self.repr, self.compare = spec.repr, spec.compare


def _is_classvar(annotation: Any) -> bool:
    if isinstance(annotation, str):  # ``from __future__ import annotations``
        return annotation.startswith(("ClassVar", "typing.ClassVar"))
    return annotation is ClassVar or getattr(annotation, "__origin__", None) is ClassVar


def _fields(cls: type, kw_only: bool) -> dict[str, _Field]:
    """Inherited record fields (base order), then this class's annotated ones."""
    found: dict[str, _Field] = {}
    for base in reversed(cls.__mro__[1:]):
        for f in base.__dict__.get("__record_fields__", ()):
            found[f.name] = f
    # not inspect.get_annotations: importing inspect costs ~6 ms of start-up
    for name, annotation in cls.__dict__.get("__annotations__", {}).items():  # noqa: RUF063
        if _is_classvar(annotation):
            continue
        value = cls.__dict__.get(name, MISSING)
        spec = value if isinstance(value, _Spec) else _Spec(value, MISSING, True, True)
        if spec.default is not MISSING and type(spec.default).__hash__ is None:
            raise ValueError(f"{cls.__qualname__}.{name}: mutable default "
                             f"{type(spec.default).__name__} is not allowed: use "
                             "field(default_factory=...)")
        found[name] = _Field(name, annotation, spec, kw_only)
    return found


def _init(cls: type, fields: list[_Field]) -> Callable[..., None]:
    """Compile ``__init__`` (the one method worth compiling: it runs per object)."""
    env: dict[str, Any] = {"_record_set_": object.__setattr__, "_record_factory_": _FACTORY}
    positional: list[str] = []
    keyword: list[str] = []
    body: list[str] = []
    self_name = "__record_self__" if any(f.name == "self" for f in fields) else "self"
    for f in fields:
        value = f.name
        if f.factory is not MISSING:
            env[f"_record_f_{f.name}"] = f.factory
            param = f"{f.name}=_record_factory_"
            value = f"_record_f_{f.name}() if {f.name} is _record_factory_ else {f.name}"
        elif f.default is not MISSING:
            env[f"_record_d_{f.name}"] = f.default
            param = f"{f.name}=_record_d_{f.name}"
        else:
            param = f.name
        (keyword if f.kw_only else positional).append(param)
        body.append(f"    _record_set_({self_name}, {f.name!r}, {value})")
    params = [self_name, *positional, *(["*", *keyword] if keyword else [])]
    source = f"def __init__({', '.join(params)}):\n" + ("\n".join(body) or "    pass") + "\n"
    namespace: dict[str, Any] = {}
    exec(source, env, namespace)  # our own generated source, as dataclasses does
    init: Callable[..., None] = namespace["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__annotations__ = {**{f.name: f.type for f in fields}, "return": None}
    return init


class _LazyInit:
    """A record's ``__init__`` until first use: then compiled and put in its place.

    Any lookup (instantiation, ``inspect.signature``, ``help``) goes through ``__get__``,
    which compiles the real method, installs it on the class and returns it, so no caller
    ever sees this stand-in; classes a program never instantiates never pay the compile.
    """

    __slots__ = ("fields", "owner")

    def __init__(self, fields: list[_Field]) -> None:
        self.fields = fields
        self.owner: type | None = None  # set once the class exists

    def __get__(self, obj: Any, owner: type | None = None) -> Any:
        assert self.owner is not None
        init = _init(self.owner, self.fields)
        type.__setattr__(self.owner, "__init__", init)
        return init if obj is None else init.__get__(obj, owner)


def _repr(self: Any) -> str:
    shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__record_repr__)
    return f"{type(self).__qualname__}({shown})"


def _eq(self: Any, other: Any) -> Any:
    if other.__class__ is self.__class__:
        key = self.__record_key__
        return bool(key(self) == key(other))
    return NotImplemented


def _hash(self: Any) -> int:
    return hash(self.__record_key__(self))


def _frozen(self: Any, name: str, *_: Any) -> None:
    from dataclasses import FrozenInstanceError

    raise FrozenInstanceError(f"cannot assign to field {name!r}")


def _getstate(self: Any) -> list[Any]:
    return [getattr(self, f.name) for f in self.__record_fields__]


def _setstate(self: Any, state: list[Any]) -> None:
    for f, value in zip(self.__record_fields__, state, strict=True):
        object.__setattr__(self, f.name, value)


def _no_key(_obj: Any) -> tuple[()]:
    return ()


class _DataclassView:
    """``__dataclass_fields__`` / ``__dataclass_params__``, built on first access from a
    real (frozen) dataclass with the same fields, so the ``dataclasses`` functions work."""

    def __init__(self, attribute: str) -> None:
        self.attribute = attribute

    def __get__(self, obj: Any, owner: type) -> Any:
        import dataclasses

        specs = []
        for f in owner.__record_fields__:  # type: ignore[attr-defined]
            extra: dict[str, Any] = {}
            if f.default is not MISSING:
                extra["default"] = f.default
            if f.factory is not MISSING:
                extra["default_factory"] = f.factory
            specs.append((f.name, f.type, dataclasses.field(
                repr=f.repr, compare=f.compare, kw_only=f.kw_only, **extra)))
        mirror = dataclasses.make_dataclass(owner.__name__, specs, frozen=True)
        for attribute in ("__dataclass_fields__", "__dataclass_params__"):
            setattr(owner, attribute, getattr(mirror, attribute))  # cached on the class
        return getattr(owner, self.attribute)


def _check_order(cls: type, fields: list[_Field]) -> None:
    """A positional field without a default may not follow one with a default."""
    seen_default = False
    for f in fields:
        if f.kw_only:
            continue
        if f.default is MISSING and f.factory is MISSING:
            if seen_default:
                raise TypeError(f"{cls.__qualname__}: non-default argument {f.name!r} follows "
                                "default argument")
        else:
            seen_default = True


def _build(cls: C, kw_only: bool) -> C:
    fields = list(_fields(cls, kw_only).values())
    _check_order(cls, fields)
    inherited = {name for base in cls.__mro__[1:] for name in base.__dict__.get("__slots__", ())}
    namespace = dict(cls.__dict__)
    for name in ("__dict__", "__weakref__", *(f.name for f in fields)):
        namespace.pop(name, None)
    namespace["__slots__"] = tuple(f.name for f in fields if f.name not in inherited)
    compared = [f.name for f in fields if f.compare]
    namespace.update(
        __record_fields__=tuple(fields),
        __record_repr__=tuple(f.name for f in fields if f.repr),
        __record_key__=attrgetter(*compared) if compared else staticmethod(_no_key),
        __match_args__=tuple(f.name for f in fields if not f.kw_only),
        __repr__=_repr, __eq__=_eq, __hash__=_hash, __setattr__=_frozen, __delattr__=_frozen,
        __getstate__=_getstate, __setstate__=_setstate,
        __dataclass_fields__=_DataclassView("__dataclass_fields__"),
        __dataclass_params__=_DataclassView("__dataclass_params__"),
        __init__=(init := _LazyInit(fields)),
    )
    built: C = type(cls)(cls.__name__, cls.__bases__, namespace)
    built.__qualname__ = cls.__qualname__
    init.owner = built
    return built


@overload
def record(cls: C, /) -> C: ...
@overload
def record(*, kw_only: bool = False) -> Callable[[C], C]: ...
@dataclass_transform(frozen_default=True, field_specifiers=(field,))
def record(cls: C | None = None, /, *, kw_only: bool = False) -> C | Callable[[C], C]:
    """Make ``cls`` a frozen, slotted record (see the module docstring)."""
    if cls is None:
        return lambda c: _build(c, kw_only)
    return _build(cls, kw_only)
