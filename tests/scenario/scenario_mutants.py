"""Seeded mutants of scenario files for the fuzz tier: text edits (byte flips, deletions,
duplicated lines, deep nesting) and data edits (a value swapped for one of another type,
a subtree shared by anchors), each reproducible from its seed."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from typing import Any

import yaml

from scenarist.scenario.source import parse_yaml

_Dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
_NOISE = "-:[]{}&*!|>'\"#%@`,?\t\n \\x0~"
_VALUES: tuple[Callable[[random.Random], Any], ...] = (
    lambda r: None, lambda r: True, lambda r: r.randint(-3, 10**6), lambda r: -1.5,
    lambda r: float("nan"), lambda r: "", lambda r: "text", lambda r: [], lambda r: {},
    lambda r: [r.choice(["a", 1, None])], lambda r: {"type": [1]}, lambda r: {"k": {"k": [{}]}},
    lambda r: "/etc/passwd", lambda r: "../" * 8 + "etc/passwd", lambda r: "x" * 5000,
)


def _flip(r: random.Random, text: str) -> str:
    i = r.randrange(len(text))
    return text[:i] + r.choice(_NOISE) + text[i + 1:]


def _delete(r: random.Random, text: str) -> str:
    i = r.randrange(len(text))
    return text[:i] + text[i + r.randint(1, 40):]


def _duplicate_line(r: random.Random, text: str) -> str:
    lines = text.splitlines(keepends=True)
    i = r.randrange(len(lines))
    return "".join(lines[:i + 1] + [lines[i]] * r.randint(1, 3) + lines[i + 1:])


def _nest(r: random.Random, text: str) -> str:
    depth = r.choice([20, 99, 101, 500, 30_000])
    i = text.find(": ", r.randrange(len(text)))
    if i < 0:
        return text
    end = text.find("\n", i)
    end = len(text) if end < 0 else end
    return text[:i + 2] + "[" * depth + text[i + 2:end] + "]" * depth + text[end:]


def _paths(data: Any, prefix: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    yield prefix
    if isinstance(data, dict):
        for k, v in data.items():
            yield from _paths(v, (*prefix, k))
    elif isinstance(data, list):
        for i, v in enumerate(data):
            yield from _paths(v, (*prefix, i))


def _replace(data: Any, path: tuple[Any, ...], value: Any) -> Any:
    if not path:
        return value
    head, rest = path[0], path[1:]
    if isinstance(data, dict):
        return {**data, head: _replace(data[head], rest, value)}
    copy = list(data)
    copy[head] = _replace(data[head], rest, value)
    return copy


def _get(data: Any, path: tuple[Any, ...]) -> Any:
    for key in path:
        data = data[key]
    return data


def _swap_type(r: random.Random, data: Any) -> Any:
    paths = list(_paths(data))
    return _replace(data, r.choice(paths[1:] or paths), r.choice(_VALUES)(r))


def _share(r: random.Random, data: Any) -> Any:
    """Put one subtree in several places; the dump writes it once with an anchor."""
    shared = _get(data, r.choice(list(_paths(data))))
    for _ in range(r.randint(1, 12)):
        paths = list(_paths(data))
        data = _replace(data, r.choice(paths[1:] or paths), [shared] * r.randint(1, 10))
        if r.random() < 0.5:
            shared = _get(data, r.choice(list(_paths(data))))
    return data


_TEXT_EDITS = (_flip, _delete, _duplicate_line, _nest)
_DATA_EDITS = (_swap_type, _share)


def mutant(seed: int, text: str) -> str:
    """One mutant of ``text``: 1-3 edits chosen by ``seed``."""
    r = random.Random(seed)
    for _ in range(r.randint(1, 3)):
        edit = r.choice(_TEXT_EDITS + _DATA_EDITS)
        if edit in _DATA_EDITS:
            data = parse_yaml(text, "m.yaml").root
            if not isinstance(data, (dict, list)):
                continue
            try:
                text = yaml.dump(edit(r, data), Dumper=_Dumper, sort_keys=False, allow_unicode=True)
            except (yaml.YAMLError, RecursionError, ValueError):
                continue
        elif text:
            text = edit(r, text)
    return text
