"""``Record``: the one ``__eq__`` and ``__repr__`` of the scenario model's dataclasses.

The model (:mod:`scenarist.scenario.model`) and the tool vocabulary
(:mod:`scenarist.scenario.tools`) declare ~75 dataclasses that ``scenarist validate`` creates
at every start, and that command has a start-up budget (docs/architecture.md, "Start-up
budgets and ordinary code"). CPython 3.11 compiles each generated method of each dataclass
separately; ``__eq__`` and ``__repr__`` are two of the three. Declared
``@dataclass(slots=True, eq=False, repr=False)`` on this base, a record inherits these two
instead, which behave as the generated ones do (same class and equal compared fields; the
class name and the fields shown), and ``validate`` of one file runs ~15 % fewer instructions
(callgrind: 509 M -> 433 M; ~10 ms of its ~100 ms wall, ``bench/bench_startup.py``).
"""

from __future__ import annotations

from dataclasses import fields

__all__ = ["Record"]


class Record:
    """Base of a model dataclass: equality and repr read off ``dataclasses.fields``."""

    __slots__ = ()

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        compared = [f.name for f in fields(self) if f.compare]  # type: ignore[arg-type]
        return tuple(getattr(self, name) for name in compared) == tuple(
            getattr(other, name) for name in compared
        )

    __hash__ = None  # type: ignore[assignment]  # mutable by type, like a dataclass with eq

    def __repr__(self) -> str:
        shown = ", ".join(
            f"{f.name}={getattr(self, f.name)!r}"
            for f in fields(self)  # type: ignore[arg-type]
            if f.repr
        )
        return f"{self.__class__.__qualname__}({shown})"
