"""Tool fitting: which declared tool carries a scenario action, and how its arguments are spelled.

Real models only call tools the request declares. A scenario says ``writeFile {path, content}``;
one client declares ``write_file {path, content}``, another ``write {filePath, content}``,
a third only ``Bash {command}``. These pure rules pick, for one action, the declared tool that
can carry it and spell the arguments the way that tool's JSON schema names them:

1. a declared tool named as the scenario writes the tool (or one of the format's old spellings
   of it: ``write_file`` for ``writeFile``), compared without case, ``_`` or ``-``;
2. else a declared tool of the action's *role* (shell, write, edit, read) by its name
   (``Bash``, ``bash``, ``shell``, ``run_command``, ``execute_command``, ``exec_command``, ...;
   ``write``, ``write_file``, ``create_file``, ...);
3. else a declared tool whose name hints at the role (``run_terminal``) and whose schema has
   the role's parameters.

A tool fits only when its schema can carry the action: every parameter the role needs has a
property (``command``/``cmd``/``script``; ``path``/``file_path``/``filePath``;
``content``; ``old_string``/``oldString``/``old_str``; ...), and every required property is one
the action fills, or a string this module can fill (a ``description``). A tool declared
without a schema fits by name and gets the format's spellings.

Nothing here knows the wire formats or the scenario loader: the caller (:mod:`scenarist.llm.
profiles`) states what an action needs as a :class:`Need` and tries the roles it can fall back
on (an edit can also be a write of the whole file, or a shell here-document).
"""

# Annotations are not postponed here: see "Records" in docs/architecture.md.
from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any, Literal, NamedTuple

from scenarist.errors import ScenaristError
from scenarist.llm.conversation import ToolDecl

Role = Literal["shell", "write", "edit", "read"]


def norm(name: str) -> str:
    """A tool or parameter name compared without case, ``_``, ``-`` or spaces."""
    return name.lower().replace("_", "").replace("-", "").replace(" ", "")


def _norms(*names: str) -> frozenset[str]:
    return frozenset(norm(n) for n in names)


#: tool names that mark a role, compared by :func:`norm`
ROLE_NAMES: dict[Role, frozenset[str]] = {
    "shell": _norms("Bash", "shell", "run_shell", "run_command", "execute_command",
                    "exec_command", "runCmd", "run_terminal_cmd", "run_terminal_command",
                    "terminal", "execute_bash", "run_bash", "shell_command", "exec"),
    "write": _norms("Write", "write_file", "create_file", "write_to_file", "save_file",
                    "file_write", "writeFile"),
    "edit": _norms("Edit", "edit_file", "str_replace", "replace_in_file", "file_edit",
                   "replace", "editFile", "search_replace"),
    "read": _norms("Read", "read_file", "view_file", "file_read", "readFile", "open_file",
                   "cat"),
}

#: words in a tool name that hint at a role when the name is none of the above
ROLE_HINTS: dict[Role, tuple[str, ...]] = {
    "shell": ("bash", "shell", "command", "exec", "terminal"),
    "write": ("write", "create", "save"),
    "edit": ("edit", "replace"),
    "read": ("read", "view", "cat"),
}

#: a neutral argument key → the parameter spellings that carry it (first: the default)
SPELLINGS: dict[str, tuple[str, ...]] = {
    "command": ("command", "cmd", "script", "command_line", "shell_command"),
    "path": ("path", "file_path", "filePath", "filepath", "file", "filename", "target_file",
             "absolute_path", "target_path"),
    "content": ("content", "contents", "text", "file_text", "data", "body", "code"),
    "old": ("old_string", "oldString", "old_str", "old_text", "oldText", "search", "old"),
    "new": ("new_string", "newString", "new_str", "new_text", "newText", "replace",
            "replacement", "new"),
    "replace_all": ("replace_all", "replaceAll"),
    "cwd": ("workdir", "cwd", "working_directory", "directory"),
    "timeout": ("timeout", "timeout_ms"),
    "description": ("description",),
    "offset": ("offset",),
    "limit": ("limit",),
}
_SPELLING_NORMS = {key: [norm(s) for s in spellings] for key, spellings in SPELLINGS.items()}

#: the neutral keys each role cannot do without
ESSENTIAL: dict[Role, tuple[str, ...]] = {
    "shell": ("command",),
    "write": ("path", "content"),
    "edit": ("path", "old", "new"),
    "read": ("path",),
}


class Need(NamedTuple):
    """What one action needs from a tool: the names it is written with (the format's name and
    its old spellings), its role (None: a tool with no role, matched by name only), and its
    argument values (neutral keys for a role, the scenario's own keys otherwise)."""

    names: tuple[str, ...]
    role: Role | None
    values: Mapping[str, Any] = MappingProxyType({})


class Fitted(NamedTuple):
    """The declared tool that carries a need, and the arguments as its schema spells them."""

    name: str
    args: dict[str, Any]


class FitError(ScenaristError, ValueError):
    """No declared tool can carry an action: the server answers 400 naming both."""


def fit(need: Need, declared: Sequence[ToolDecl], *, forced: bool = False) -> Fitted | None:
    """The declared tool that carries ``need`` (rules 1–3 of the module doc), or None.
    ``forced``: ``declared`` is the one tool ``tool_choice`` forces, which carries the need
    under its own name whenever its schema can (every argument a property of it)."""
    functions = [d for d in declared if d.kind == "function"]
    if forced:
        for decl in functions:
            args = _args(need, decl) if need.role else _generic_args(need, decl, exact=True)
            if args is not None:
                return Fitted(decl.name, args)
        return None
    written = {norm(n) for n in need.names}
    for decl in functions:
        if norm(decl.name) in written:
            args = _args(need, decl)
            if args is not None:
                return Fitted(decl.name, args)
    if need.role is None:
        return None
    named = [d for d in functions if norm(d.name) in ROLE_NAMES[need.role]]
    hinted = [d for d in functions if d.params and d not in named
              and any(h in d.name.lower() for h in ROLE_HINTS[need.role])]
    for decl in named + hinted:
        args = _args(need, decl)
        if args is not None:
            return Fitted(decl.name, args)
    return None


def _param(decl: ToolDecl, key: str) -> tuple[str, str] | None:
    """The declared (name, type) that spells the neutral ``key``, by preference order."""
    by_norm = {norm(name): (name, kind) for name, kind in decl.params}
    for spelling in _SPELLING_NORMS.get(key, [norm(key)]):
        if spelling in by_norm:
            return by_norm[spelling]
    return None


def _args(need: Need, decl: ToolDecl) -> dict[str, Any] | None:
    """``need``'s values spelled for ``decl``, or None when its schema cannot carry them."""
    if need.role is None:
        return _generic_args(need, decl)
    if not decl.params:  # no schema: the format's spellings
        return {SPELLINGS[k][0]: v for k, v in need.values.items() if v is not None}
    out: dict[str, Any] = {}
    for key, value in need.values.items():
        param = _param(decl, key)
        if param is None:
            if key in ESSENTIAL[need.role]:
                return None
            continue
        if value is not None:
            out[param[0]] = _typed(value, param[1])
    return _filled(out, need, decl)


def _typed(value: Any, kind: str) -> Any:
    """A command for a tool that takes it as an argv array (old Codex ``shell``)."""
    if kind == "array" and isinstance(value, str):
        return ["bash", "-lc", value]
    return value


def _generic_args(need: Need, decl: ToolDecl, exact: bool = False) -> dict[str, Any] | None:
    """A tool without a role: its arguments matched to the schema by name (``exact``: every
    argument must be one of its properties, or it does not fit)."""
    if not decl.params:
        return dict(need.values)
    by_norm = {norm(name): name for name, _kind in decl.params}
    if exact and any(norm(k) not in by_norm for k in need.values):
        return None
    out = {by_norm[norm(k)]: v for k, v in need.values.items() if norm(k) in by_norm}
    return _filled(out, need, decl)


def _filled(out: dict[str, Any], need: Need, decl: ToolDecl) -> dict[str, Any] | None:
    """``out`` with the schema's other required properties filled, or None when one cannot
    be (only strings can: a ``description`` says what the call does)."""
    kinds = dict(decl.params)
    for name in decl.required:
        if name in out:
            continue
        if kinds.get(name) not in ("string", ""):
            return None
        out[name] = describe(need)
    return out


def describe(need: Need) -> str:
    """A short, deterministic description of an action (for a required ``description``)."""
    values = need.values
    match need.role:
        case "shell":
            return f"Run {_short(str(values.get('command', '')))}"
        case "write":
            return f"Write {values.get('path')}"
        case "edit":
            return f"Edit {values.get('path')}"
        case "read":
            return f"Read {values.get('path')}"
    return f"Call {need.names[0]}"


def _short(text: str, limit: int = 60) -> str:
    line = text.splitlines()[0] if text else ""
    return line if len(line) <= limit else line[: limit - 3] + "..."


def no_fit_message(what: str, tried: Sequence[Need], declared: Sequence[ToolDecl]) -> str:
    """Why nothing declared can carry ``what``: the roles tried and the tools declared."""
    ways = []
    for need in tried:
        if need.role is None:
            ways.append(f"a tool named {' or '.join(need.names)}")
        else:
            params = ", ".join("/".join(SPELLINGS[k][:3]) for k in ESSENTIAL[need.role])
            ways.append(f"a {need.role} tool ({', '.join(sorted(ROLE_NAMES[need.role])[:4])}, "
                        f"...) with {params}")
    shown = ", ".join(d.name for d in declared) or "none"
    return (f"{what}, but the request declares no tool that can carry it (looked for "
            f"{'; or '.join(ways)}); declared: {shown}")
