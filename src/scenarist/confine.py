"""Path confinement: where a path that a scenario or an agent names may lead, one rule per
purpose, stated once.

A path in a scenario (or sent by an agent under test) is input. Each front end that touches
files keeps it inside one folder, the root, and the rule differs only where the purpose does:

| purpose | front end | an absolute path | ``..`` | a symbolic link | here |
| --- | --- | --- | --- | --- | --- |
| *read* what an agent made: asserts, the file an edit is rendered against | model API (``llm.workspace``) | must resolve inside the root | allowed while the result stays inside | followed; its target must be inside | :func:`resolve_inside` |
| *stand in* for a whole filesystem: ``acp-test``'s files and terminals | ACP client (``acp.workspace``) | re-rooted beneath the root (``/tmp/x`` → ``ROOT/tmp/x``) unless already inside | resolved as text; cannot climb above the root | followed; its target must be inside | :func:`reroot`, then :func:`resolve_inside` |
| *act* for real on a scenario's word: the mock agent's file tools | mock agent (``agent.workspace``) | only under the root or one of its aliases | refused outright | never followed: each component is opened ``O_NOFOLLOW`` from its parent's descriptor (``agent.workspace``) | :func:`components` |

Reading follows links because agents and projects make them (a ``node_modules/.bin`` entry,
a ``current`` release link) and a read through one inside the root is harmless; acting never
does, because a link swapped in between a check and a write is how a write escapes. Every
refusal here is an :class:`Escape` saying why; each front end words it for its own users and
wire (a 403 in the model API's error format, a JSON-RPC error, one line of the mock agent).
"""

from __future__ import annotations

import os
import posixpath
from pathlib import Path
from typing import Literal

from scenarist.errors import ScenaristError

__all__ = ["Escape", "components", "inside", "reroot", "resolve_inside"]

Reason = Literal["outside", "parent", "empty", "nul"]


class Escape(ScenaristError, ValueError):
    """A path that would leave its root; ``reason`` says how (``outside``: it leads
    elsewhere; ``parent``: a ``..`` where none is allowed; ``empty``; ``nul``: a NUL byte).
    Front ends turn it into their own error, so its message is only a fallback."""

    def __init__(self, path: str, root: str, reason: Reason) -> None:
        super().__init__(f"{path[:300]!r} leaves {root} ({reason})")
        self.path, self.root, self.reason = path, root, reason


def inside(root: str, path: str) -> bool:
    """Whether the normalised absolute ``path`` is ``root`` or below it."""
    return path == root or path.startswith(root.rstrip("/") + "/")


def resolve_inside(root: str | os.PathLike[str], path: str | os.PathLike[str]) -> Path:
    """``path`` (a relative one from ``root``) with ``..`` and symbolic links resolved, if it
    stays inside ``root`` (itself resolved); else :class:`Escape`."""
    base = os.path.realpath(root)
    target = os.path.realpath(os.path.join(base, path))
    if not inside(base, target):
        raise Escape(os.fspath(path), base, "outside")
    return Path(target)


def reroot(root: str, path: str) -> str:
    """Where ``path`` lives when ``root`` stands for the whole filesystem, as text: a relative
    path from ``root``, an absolute one inside ``root`` as it is, any other beneath ``root``
    (``/tmp/x`` → ``ROOT/tmp/x``); ``..`` cannot climb above ``root``."""
    if posixpath.isabs(path):
        clean = posixpath.normpath("/" + path.lstrip("/"))
    else:
        clean = posixpath.normpath(posixpath.join(root, path))
    return clean if inside(root, clean) else root.rstrip("/") + clean


def components(path: str, roots: tuple[str, ...], cwd: tuple[str, ...] = ()) -> tuple[str, ...]:
    """The names of ``path`` below the root, to be opened one at a time (``()``: the root).

    A relative ``path`` is taken from ``cwd`` (names below the root); an absolute one must lie
    under one of ``roots`` (the root's names: as given, resolved, aliases; normalised, no
    trailing ``/``). Any ``..`` is refused, even one that would stay inside: the rule is easier
    to trust than the arithmetic. :class:`Escape` otherwise."""
    root = roots[0] if roots else "/"
    if not path:
        raise Escape(path, root, "empty")
    if "\0" in path:
        raise Escape(path, root, "nul")
    if ".." in path.split("/"):
        raise Escape(path, root, "parent")
    base: tuple[str, ...] = ()
    if path.startswith("/"):
        clean = posixpath.normpath(path)
        for prefix in roots:
            if inside(prefix or "/", clean):
                rel = clean[len(prefix):]
                break
        else:
            raise Escape(path, root, "outside")
    else:
        rel, base = path, cwd
    return (*base, *(name for name in rel.split("/") if name not in ("", ".")))
