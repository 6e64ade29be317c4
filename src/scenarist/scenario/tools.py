"""The tool vocabulary: one typed record per tool of the format, declared once.

Each tool of the spec (``runCmd``, ``readFile``, ..., ``slashCommand``) is a record
(:class:`~scenarist.scenario.record.Record`, declared as a frozen dataclass is) whose fields
are the tool's arguments. The declaration is the only source of what
the format knows about a tool: its name and old names (``name``/``aliases`` class variables),
each argument's spelling in YAML when it differs from the field name, its old spellings, its
type, and whether it is required (a field without default). From it follow the loader's
checks (:mod:`scenarist.scenario.events`), the JSON Schema for editors
(:mod:`scenarist.scenario.schema`) and what front ends receive: the loader puts a record in
``AgentToolUse.tool``, aliases already resolved, and front ends match on the types::

    match use.tool:
        case RunCmd(cmd=cmd, cwd=cwd): ...
        case EditFile(path=path, old_string=old, new_string=new): ...
        case other: render_generic(other.name, tool_args(other))

Any other tool name (``agentToolUse`` with ``toolName: my_tool``) becomes a
:class:`GenericTool` with its arguments as written. Adding a tool is one declaration:
a record or a dataclass with ``@register`` (see ``docs/scenario-api.md``).

This module does not postpone annotations (no ``from __future__ import annotations``), so the
records' field types are objects once the classes exist and ``register`` reads a declaration
straight off its fields. ``typing.get_type_hints``, needed for a record declared in a module
that postpones them, compiles every annotation string: for the tools here that is ~12 M of
the ~490 M instructions of ``scenarist validate`` of one file (callgrind), whose start-up
has a budget (docs/architecture.md, "Start-up budgets and ordinary code"). For the same
budget the tools here are records rather than dataclasses (the figures are in
:mod:`scenarist.scenario.record`); a tool declared elsewhere may be a record or any
dataclass.
"""

import types
import typing
from collections.abc import Callable, Mapping
from typing import Any, ClassVar, Literal, Protocol, TypeVar

from scenarist.errors import ScenaristError
from scenarist.scenario import record
from scenarist.scenario.record import Record, field

__all__ = [
    "TOOLS", "Arg", "ArgError", "BashOutput", "EditFile", "ExitPlanMode", "Find",
    "GenericTool", "Grep", "KillShell", "ListDir", "NotebookEdit", "ReadFile", "RunCmd",
    "Sed", "SlashCommand", "Task", "TodoWrite", "Tool", "ToolRecord", "ToolSpec", "WebFetch",
    "WebSearch", "WriteFile", "build_tool", "canonical_tool_name", "register", "spelling",
    "tool_args", "tool_from_args", "tool_spec",
]

Json = Any
ArgKind = Literal["text", "integer", "number", "boolean", "texts", "list", "mapping", "any"]


class ToolRecord(Protocol):
    """What every tool record has: the format's name of the tool (a class variable)."""

    name: ClassVar[str]


R = TypeVar("R", bound=type)

#: every tool the format knows, by its name as written in a scenario (``"runCmd"``)
TOOLS: dict[str, type[Any]] = {}


def spelling(key: str | None = None, *, aliases: tuple[str, ...] = ()) -> dict[str, Any]:
    """Field metadata: the argument's YAML spelling (when not the field name) and old names.

    ``after_context: int | None = field(default=None, metadata=spelling("-A"))``;
    ``cmd: str = field(metadata=spelling(aliases=("command",)))``.
    """
    return {"scenarist.key": key, "scenarist.aliases": aliases}


def register(cls: R) -> R:
    """Add a tool record to :data:`TOOLS` (a class decorator on a :class:`Record`, or
    applied after ``@dataclass``).

    Checks the declaration now, so a mistake fails at import, not on the first scenario.
    """
    name = cls.__dict__.get("name")
    if not isinstance(name, str) or not name:
        raise TypeError(f"{cls.__name__}: a tool record needs a class variable name = '...'")
    spec = tool_spec(cls)
    for other in TOOLS.values():
        if other is cls:
            continue
        taken = {other.name, *tool_spec(other).aliases}
        clash = taken & {name, *spec.aliases}
        if clash:
            raise ValueError(f"{cls.__name__}: tool name {sorted(clash)[0]!r} is already "
                             f"{other.__name__}'s")
    TOOLS[name] = cls
    return cls


# -- argument declarations ------------------------------------------------------------


class ArgError(ScenaristError, ValueError):
    """A value that does not fit an argument: ``want`` says what fits, ``example`` shows it."""

    def __init__(self, want: str, example: str) -> None:
        super().__init__(want)
        self.want = want
        self.example = example


class Arg(Record):
    """One argument as the format declares it, read off a record's field."""

    field: str  # the record's field name (snake_case)
    key: str  # the YAML spelling
    aliases: tuple[str, ...]  # old spellings read as ``key`` (with a warning)
    kind: ArgKind
    required: bool
    default: Any = None
    choices: tuple[str, ...] = ()

    def convert(self, value: Any) -> Any:
        """``value`` (not None) as the field holds it, or :class:`ArgError`."""
        if self.choices:
            if value in self.choices:
                return value
            raise ArgError("one of " + ", ".join(self.choices), repr(self.choices[0]))
        return _CONVERTERS[self.kind](value)

    def placeholder(self) -> Any:
        """A stand-in for a missing required value (the load fails; the record must exist)."""
        return {"text": "", "integer": 0, "number": 0, "boolean": False, "texts": (),
                "list": (), "mapping": {}}.get(self.kind)


def _text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)  # a number where text is wanted: kept as written
    raise ArgError("a string", "'text'")


def _integer(value: Any) -> int:
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    raise ArgError("a whole number", "10")


def _number(value: Any) -> float | int:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return value
    raise ArgError("a number", "1.5")


def _boolean(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    raise ArgError("true or false", "true")


def _texts(value: Any) -> tuple[str, ...]:
    items = [value] if isinstance(value, str) else value
    if isinstance(items, list) and all(isinstance(i, str) for i in items):
        return tuple(items)
    raise ArgError("a list of strings", "['a', 'b']")


def _list(value: Any) -> tuple[Any, ...]:
    if isinstance(value, list):
        return tuple(value)
    raise ArgError("a list ('- item' lines)", "[...]")


def _mapping(value: Any) -> dict[Any, Any]:
    if isinstance(value, dict):
        return value
    raise ArgError("a mapping (indented 'key: value' lines)", "{...}")


_CONVERTERS: dict[ArgKind, Callable[[Any], Any]] = {
    "text": _text, "integer": _integer, "number": _number, "boolean": _boolean,
    "texts": _texts, "list": _list, "mapping": _mapping, "any": lambda value: value,
}


class ToolSpec(Record):
    """A tool record's declaration, read once: name, old names, arguments in field order."""

    name: str
    aliases: tuple[str, ...]
    args: tuple[Arg, ...]
    record: type[Any]

    @property
    def required(self) -> tuple[Arg, ...]:
        return tuple(a for a in self.args if a.required)

    def arg(self, key: str) -> Arg | None:
        """The argument spelled ``key`` in YAML, if any."""
        return next((a for a in self.args if a.key == key), None)


def _kind(hint: Any, where: str) -> tuple[ArgKind, tuple[str, ...]]:
    """The argument kind (and choices) a field's type annotation stands for."""
    parts = typing.get_args(hint) if isinstance(hint, types.UnionType) or \
        typing.get_origin(hint) is typing.Union else (hint,)
    parts = tuple(p for p in parts if p is not type(None))
    if len(parts) != 1:
        raise TypeError(f"{where}: an argument has one type (or that type | None), got {hint!r}")
    (one,) = parts
    origin = typing.get_origin(one)
    if origin is Literal and all(isinstance(c, str) for c in typing.get_args(one)):
        return "text", typing.get_args(one)
    if origin is tuple:
        inner = typing.get_args(one)
        return ("texts" if inner == (str, ...) else "list"), ()
    if origin in (dict, Mapping) or one in (dict, Mapping):
        return "mapping", ()
    simple: dict[Any, ArgKind] = {str: "text", int: "integer", float: "number",
                                  bool: "boolean", Any: "any"}
    if one in simple:
        return simple[one], ()
    raise TypeError(f"{where}: argument type {one!r} is not one of str, int, float, bool, "
                    "Literal['a', ...], tuple[str, ...], tuple[Json, ...], Mapping, Any")


_SPECS: dict[type[Any], ToolSpec] = {}


def tool_spec(cls: type[Any]) -> ToolSpec:
    """The declaration of tool record ``cls`` (read from its fields once, then kept)."""
    spec = _SPECS.get(cls)
    if spec is None:
        spec = _SPECS[cls] = _read_spec(cls)
    return spec


class _Declared(Record):
    """A field as a record or a dataclass declares it (both spell these alike)."""

    name: str
    type: Any
    required: bool
    default: Any
    metadata: Mapping[str, Any]


def _declared(cls: type[Any]) -> list[_Declared]:
    """The fields of a record class or a dataclass; TypeError for any other class."""
    if issubclass(cls, Record):
        found: Any = record.fields(cls)
        missing = record.MISSING
    else:
        import dataclasses  # only for a tool declared as a dataclass elsewhere

        if not dataclasses.is_dataclass(cls):
            raise TypeError(f"{cls.__name__}: declare it as a Record (or decorate it with "
                            "@dataclass below @register)")
        found, missing = dataclasses.fields(cls), dataclasses.MISSING
    out = []
    for f in found:
        required = f.default is missing and f.default_factory is missing
        default = None if required else f.default_factory() if f.default is missing \
            else f.default
        out.append(_Declared(f.name, f.type, required, default, f.metadata))
    return out


def _read_spec(cls: type[Any]) -> ToolSpec:
    fields = _declared(cls)
    hints = {f.name: f.type for f in fields}
    if any(isinstance(hint, str) for hint in hints.values()):  # postponed (see the module doc)
        hints = typing.get_type_hints(cls)
    args: list[Arg] = []
    for f in fields:
        kind, choices = _kind(hints[f.name], f"{cls.__name__}.{f.name}")
        args.append(Arg(f.name, f.metadata.get("scenarist.key") or f.name,
                        tuple(f.metadata.get("scenarist.aliases", ())), kind, f.required,
                        f.default, choices))
    return ToolSpec(cls.name, tuple(cls.__dict__.get("aliases", ())), tuple(args), cls)


def canonical_tool_name(name: str) -> str | None:
    """The registered name ``name`` stands for (itself, or the tool it is an old name of)."""
    if name in TOOLS:
        return name
    for cls in TOOLS.values():
        if name in tool_spec(cls).aliases:
            return cls.name  # type: ignore[no-any-return]
    return None


def build_tool(spec: ToolSpec, values: Mapping[str, Any]) -> "Tool":
    """The record of ``spec`` from converted values keyed by YAML spelling (missing: default)."""
    kwargs = {a.field: values[a.key] if a.key in values else
              (a.placeholder() if a.required else a.default) for a in spec.args}
    return spec.record(**kwargs)  # type: ignore[no-any-return]


def tool_from_args(name: str, args: Mapping[str, Any]) -> "Tool":
    """The record for a tool call built in code (not loaded): strict, raises ValueError.

    Old names of tools and arguments are read as the current ones; a tool name the
    vocabulary does not know gives a :class:`GenericTool`.
    """
    canonical = canonical_tool_name(name)
    if canonical is None:
        return GenericTool(name, dict(args))
    spec = tool_spec(TOOLS[canonical])
    values: dict[str, Any] = {}
    for key, value in args.items():
        arg = spec.arg(key) or next((a for a in spec.args if key in a.aliases), None)
        if arg is None:
            raise ValueError(f"{canonical} has no argument {key!r}; it takes: "
                             + ", ".join(a.key for a in spec.args))
        if value is None:
            continue
        try:
            values[arg.key] = arg.convert(value)
        except ArgError as exc:
            raise ValueError(f"{canonical} argument {arg.key!r}: expected {exc.want}, "
                             f"got {value!r}") from None
    for arg in spec.required:
        if arg.key not in values:
            raise ValueError(f"{canonical} needs argument {arg.key!r}")
    return build_tool(spec, values)


def tool_args(tool: "Tool") -> dict[str, Json]:
    """The arguments of ``tool`` as the format spells them (defaults left out), for renderers
    that pass arguments through (generic function calling, MCP calls)."""
    if isinstance(tool, GenericTool):
        return dict(tool.args)
    out: dict[str, Json] = {}
    for arg in tool_spec(type(tool)).args:
        value = getattr(tool, arg.field)
        if arg.required or value != arg.default:
            out[arg.key] = list(value) if isinstance(value, tuple) else value
    return out


# -- the tools of the spec ------------------------------------------------------------


@register
class RunCmd(Record):
    """Run a shell command."""

    name: ClassVar[str] = "runCmd"
    aliases: ClassVar[tuple[str, ...]] = ("run_cmd", "run_command")
    cmd: str = field(metadata=spelling(aliases=("command",)))
    cwd: str | None = None
    timeout: int | None = None  # milliseconds
    description: str | None = None
    run_in_background: bool = False


@register
class ReadFile(Record):
    """Read a file (``offset``/``limit`` in lines)."""

    name: ClassVar[str] = "readFile"
    aliases: ClassVar[tuple[str, ...]] = ("read_file",)
    path: str = field(metadata=spelling(aliases=("file_path",)))
    encoding: str | None = None
    offset: int | None = None
    limit: int | None = None


@register
class WriteFile(Record):
    """Write ``content`` to a file (create or replace)."""

    name: ClassVar[str] = "writeFile"
    aliases: ClassVar[tuple[str, ...]] = ("write_file",)
    path: str
    content: str = field(metadata=spelling(aliases=("text", "contents")))


@register
class EditFile(Record):
    """Replace ``old_string`` by ``new_string`` in a file (the first one, or all)."""

    name: ClassVar[str] = "editFile"
    aliases: ClassVar[tuple[str, ...]] = ("edit_file",)
    path: str = field(metadata=spelling(aliases=("file_path",)))
    old_string: str
    new_string: str
    replace_all: bool = False


@register
class Grep(Record):
    """Search files for a pattern (the ``-A``/``-B``/``-C``/``-n``/``-i`` flags of grep)."""

    name: ClassVar[str] = "grep"
    pattern: str
    path: str | None = None
    glob: str | None = None
    output_mode: Literal["content", "files_with_matches", "count"] | None = None
    before_context: int | None = field(default=None, metadata=spelling("-B"))
    after_context: int | None = field(default=None, metadata=spelling("-A"))
    context: int | None = field(default=None, metadata=spelling("-C"))
    line_numbers: bool = field(default=False, metadata=spelling("-n"))
    case_insensitive: bool = field(default=False, metadata=spelling("-i"))
    type: str | None = None
    head_limit: int | None = None
    multiline: bool = False


@register
class ListDir(Record):
    """List a directory (all levels with ``recursive``; ``pattern`` is a glob)."""

    name: ClassVar[str] = "listDir"
    aliases: ClassVar[tuple[str, ...]] = ("list_dir",)
    path: str | None = None
    recursive: bool = False
    pattern: str | None = None


@register
class Find(Record):
    """Find files by name pattern."""

    name: ClassVar[str] = "find"
    path: str | None = None
    name_pattern: str | None = field(default=None, metadata=spelling("name"))
    type: Literal["file", "dir"] | None = None


@register
class Sed(Record):
    """Run a sed expression on a file (in place with ``inplace``)."""

    name: ClassVar[str] = "sed"
    expression: str
    path: str | None = None
    inplace: bool = False


@register
class Task(Record):
    """Hand a task to a sub-agent."""

    name: ClassVar[str] = "task"
    prompt: str
    description: str | None = None
    subagent_type: str | None = None


@register
class WebFetch(Record):
    """Fetch a URL (and ask ``prompt`` about it)."""

    name: ClassVar[str] = "webFetch"
    aliases: ClassVar[tuple[str, ...]] = ("web_fetch",)
    url: str
    prompt: str | None = None


@register
class WebSearch(Record):
    """Search the web."""

    name: ClassVar[str] = "webSearch"
    aliases: ClassVar[tuple[str, ...]] = ("web_search",)
    query: str
    allowed_domains: tuple[str, ...] = ()
    blocked_domains: tuple[str, ...] = ()


@register
class TodoWrite(Record):
    """Replace the agent's todo list (``todos``: the list of todo objects)."""

    name: ClassVar[str] = "todoWrite"
    aliases: ClassVar[tuple[str, ...]] = ("todo_write",)
    todos: tuple[Json, ...]


@register
class NotebookEdit(Record):
    """Edit a Jupyter notebook cell."""

    name: ClassVar[str] = "notebookEdit"
    aliases: ClassVar[tuple[str, ...]] = ("notebook_edit",)
    notebook_path: str
    new_source: str
    cell_id: str | None = None
    cell_type: Literal["code", "markdown"] | None = None
    edit_mode: Literal["replace", "insert", "delete"] | None = None


@register
class ExitPlanMode(Record):
    """Leave plan mode with a plan."""

    name: ClassVar[str] = "exitPlanMode"
    aliases: ClassVar[tuple[str, ...]] = ("exit_plan_mode",)
    plan: str


@register
class BashOutput(Record):
    """Read the output of a background shell (``filter``: a regular expression)."""

    name: ClassVar[str] = "bashOutput"
    aliases: ClassVar[tuple[str, ...]] = ("bash_output",)
    bash_id: str
    filter: str | None = None


@register
class KillShell(Record):
    """Kill a background shell."""

    name: ClassVar[str] = "killShell"
    aliases: ClassVar[tuple[str, ...]] = ("kill_shell",)
    shell_id: str


@register
class SlashCommand(Record):
    """Run a slash command (``/compact``)."""

    name: ClassVar[str] = "slashCommand"
    aliases: ClassVar[tuple[str, ...]] = ("slash_command",)
    command: str


class GenericTool(Record):
    """A tool the vocabulary does not know: its name and arguments as written."""

    name: str
    args: Mapping[str, Json] = field(default_factory=dict)


Tool = (RunCmd | ReadFile | WriteFile | EditFile | Grep | ListDir | Find | Sed | Task | WebFetch
        | WebSearch | TodoWrite | NotebookEdit | ExitPlanMode | BashOutput | KillShell
        | SlashCommand | GenericTool)
"""A tool call's record: one of the spec's tools, or :class:`GenericTool`."""
