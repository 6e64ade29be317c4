"""Collecting problems while typing raw data, and the small typed getters that report them.

Every getter takes the container, the key and the container's key path, and builds the
full path string only when something is wrong (the common case costs a dict lookup
and an ``isinstance``).
"""

from __future__ import annotations

from collections.abc import Collection, Iterator
from pathlib import Path
from typing import Any

from scenarist.scenario.errors import Issue, Severity
from scenarist.scenario.source import MISSING, Source

__all__ = ["OUTSIDE_HINT", "Report", "join"]


def join(path: str, key: Any) -> str:
    """``path`` extended by ``key`` the way a user reads it: ``a.b[3].c``."""
    if isinstance(key, int) and not isinstance(key, bool):
        return f"{path}[{key}]"
    return f"{path}.{key}" if path else str(key)


def _kind(value: Any) -> str:
    if value is None:
        return "nothing (null)"
    if isinstance(value, bool):
        return f"a boolean ({str(value).lower()})"
    if isinstance(value, (int, float)):
        return f"a number ({value})"
    if isinstance(value, str):
        shown = value if len(value) <= 40 else value[:37] + "..."
        return f"a string ({shown!r})"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return type(value).__name__


OUTSIDE_HINT = ("keep the files a scenario names in its folder or below; to allow others, "
                "load with allow_outside_paths=True (--allow-outside-paths on the command line)")


class Report:
    """Issues of one file, located through its :class:`Source`.

    ``base_dir`` is the scenario's folder: media, patches and ``repo.dir`` are read from it
    and, unless ``allow_outside`` is set, only from inside it (see :meth:`local_path`).
    """

    __slots__ = ("_folder", "allow_outside", "base_dir", "issues", "source")

    def __init__(self, source: Source, base_dir: Path, allow_outside: bool = False) -> None:
        self.source = source
        self.issues: list[Issue] = source.issues
        self.base_dir = base_dir
        self.allow_outside = allow_outside
        self._folder: Path | None = None

    def outside(self, resolved: Path) -> bool:
        """Whether a resolved path lies outside the scenario's folder (and that is refused)."""
        if self.allow_outside:
            return False
        if self._folder is None:
            self._folder = self.base_dir.resolve()
        return not resolved.is_relative_to(self._folder)

    def local_path(self, holder: Any, key: Any, path: str, rel: str, what: str, *,
                   folder: bool = False) -> Path | None:
        """``rel`` (written at ``holder[key]``) resolved against the scenario's folder, or None
        after an error: the path leaves the folder (symlinks followed), or names no file (no
        folder, with ``folder``). Nothing is looked up outside the folder, and the message for
        such a path is the same whether or not something exists there."""
        where = join(path, key)
        try:
            resolved = (self.base_dir / rel).resolve()
        except (OSError, RuntimeError, ValueError):  # NUL byte, symlink loop, name too long
            self.error(holder, key, where, f"{what} {rel!r} is not a usable path",
                       "write a relative path such as 'media/example.png'")
            return None
        if self.outside(resolved):
            self.error(holder, key, where, f"{what} {rel!r} is outside the scenario's folder",
                       OUTSIDE_HINT)
            return None
        try:
            found = resolved.is_dir() if folder else resolved.is_file()
        except OSError:  # a name too long for the filesystem (Python 3.11 raises it here)
            found = False
        if not found:
            self.error(holder, key, where,
                       f"{what} {rel!r} " + ("is not a folder" if folder else "not found")
                       + f" (looked at {resolved})",
                       "paths are relative to the scenario file's folder; fix the path or add "
                       "the " + ("folder" if folder else "file"))
            return None
        return resolved

    # -- reporting -----------------------------------------------------------------
    def add(self, container: Any, key: Any, path: str, message: str, hint: str,
            severity: Severity, on_key: bool = False) -> None:
        line, col = self.source.where(container, key, on_key=on_key)
        self.issues.append(Issue(self.source.file, line, col, path, message, hint, severity))

    def error(self, container: Any, key: Any, path: str, message: str, hint: str = "", *,
              on_key: bool = False) -> None:
        self.add(container, key, path, message, hint, "error", on_key)

    def warn(self, container: Any, key: Any, path: str, message: str, hint: str = "", *,
             on_key: bool = False) -> None:
        self.add(container, key, path, message, hint, "warning", on_key)

    def at(self, line: int, col: int, path: str, message: str, hint: str = "",
           severity: Severity = "error") -> None:
        self.issues.append(Issue(self.source.file, line, col, path, message, hint, severity))

    def unknown_keys(self, d: dict[Any, Any], allowed: Collection[str], path: str) -> None:
        for key in d:
            if key not in allowed:
                hint = ("ACP meta is written '_meta'" if key == "meta" else
                        "known keys here: " + ", ".join(sorted(k for k in allowed if k != "_meta")))
                self.warn(d, key, join(path, key), f"unknown key {key!r} is ignored", hint,
                          on_key=True)

    def wrong_type(self, d: Any, key: Any, path: str, want: str, example: str = "") -> None:
        got = d[key] if key is not MISSING else d
        hint = f"for example: {example}" if example else f"write {want} here"
        self.error(d, key, join(path, key) if key is not MISSING else path,
                   f"expected {want}, got {_kind(got)}", hint)

    # -- typed getters -------------------------------------------------------------
    def string(self, d: dict[Any, Any], key: str, path: str, *, required: bool = False,
               nonempty: bool = False, example: str = "") -> str | None:
        value = d.get(key)
        if isinstance(value, str):
            if nonempty and not value.strip():
                self.error(d, key, join(path, key), f"'{key}' must not be empty",
                           f"give '{key}' a value" + (f", e.g. {example}" if example else ""))
            return value  # type: ignore[no-any-return]
        if value is None:
            if required:
                self.error(d, MISSING, path, f"missing required key '{key}'",
                           f"add '{key}: ...'" + (f", e.g. {example}" if example else ""))
            return None
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return str(value)  # a number where text is wanted: keep it as written
        self.wrong_type(d, key, path, "a string", example)
        return None

    def integer(self, d: dict[Any, Any], key: str, path: str, default: int | None = None, *,
                minimum: int | None = 0, required: bool = False) -> int | None:
        value = d.get(key)
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        if isinstance(value, int) and not isinstance(value, bool):
            if minimum is not None and value < minimum:
                self.error(d, key, join(path, key), f"'{key}' must be >= {minimum}, got {value}",
                           f"use a value >= {minimum}")
            return value  # type: ignore[no-any-return]
        if value is None:
            if required:
                self.error(d, MISSING, path, f"missing required key '{key}'", f"add '{key}: 0'")
            return default
        self.wrong_type(d, key, path, "a whole number")
        return default

    def number(self, d: dict[Any, Any], key: str, path: str) -> float | None:
        value = d.get(key)
        if value is None:
            return None
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return float(value)
        self.wrong_type(d, key, path, "a number")
        return None

    def boolean(self, d: dict[Any, Any], key: str, path: str, default: bool = False) -> bool:
        value = d.get(key)
        if value is None:
            return default
        if value is True or value is False:
            return value
        self.wrong_type(d, key, path, "true or false")
        return default

    def mapping(self, d: dict[Any, Any], key: str, path: str, *,
                required: bool = False) -> dict[Any, Any] | None:
        value = d.get(key)
        if isinstance(value, dict):
            return value  # type: ignore[no-any-return]
        if value is None:
            if required:
                self.error(d, MISSING, path, f"missing required key '{key}'",
                           f"add '{key}:' with its fields indented below")
            return None
        self.wrong_type(d, key, path, "a mapping (indented 'key: value' lines)")
        return None

    def listing(self, d: dict[Any, Any], key: str, path: str, *,
                required: bool = False) -> list[Any] | None:
        value = d.get(key)
        if isinstance(value, list):
            return value  # type: ignore[no-any-return]
        if value is None:
            if required:
                self.error(d, MISSING, path, f"missing required key '{key}'",
                           f"add '{key}:' with '- ' items below")
            return None
        self.wrong_type(d, key, path, "a list ('- item' lines)")
        return None

    def records(self, d: dict[Any, Any], key: str, path: str, allowed: Collection[str],
                want: str, example: str = "", *,
                required: bool = False) -> Iterator[tuple[str, dict[Any, Any]]]:
        """``(path, mapping)`` for each item of the list ``d[key]`` of mappings.

        The checks every such list needs, in one place: the list itself (and its presence if
        ``required``), an item that is no mapping (reported as ``want``/``example``, skipped)
        and unknown keys of each item (warned against ``allowed``).
        """
        items = self.listing(d, key, path, required=required) or []
        lpath = join(path, key)
        for i, item in enumerate(items):
            if not isinstance(item, dict):
                self.wrong_type(items, i, lpath, want, example)
                continue
            ipath = join(lpath, i)
            self.unknown_keys(item, allowed, ipath)
            yield ipath, item

    def strings(self, d: dict[Any, Any], key: str, path: str) -> tuple[str, ...]:
        value = d.get(key)
        if value is None:
            return ()
        if isinstance(value, str):
            return (value,)
        if not isinstance(value, list):
            self.wrong_type(d, key, path, "a list of strings", f"{key}: ['a', 'b']")
            return ()
        out: list[str] = []
        for i, item in enumerate(value):
            if isinstance(item, str):
                out.append(item)
            elif isinstance(item, (int, float)) and not isinstance(item, bool):
                out.append(str(item))
            else:
                self.wrong_type(value, i, join(path, key), "a string")
        return tuple(out)

    def meta(self, d: dict[Any, Any], path: str, key: str = "_meta") -> dict[str, Any] | None:
        value = d.get(key)
        if value is None or isinstance(value, dict):
            return value  # type: ignore[no-any-return]
        self.error(d, key, join(path, key), f"'{key}' must be a mapping",
                   f"write '{key}:' followed by indented 'name: value' pairs")
        return None

    def choice(self, d: dict[Any, Any], key: str, path: str, choices: tuple[str, ...],
               default: str | None = None) -> str | None:
        value = d.get(key)
        if value is None:
            return default
        if isinstance(value, str) and value in choices:  # a list or mapping is never a choice
            return value
        self.error(d, key, join(path, key),
                   f"'{key}' must be one of {', '.join(choices)}; got {value!r}",
                   f"use one of: {', '.join(choices)}")
        return default
