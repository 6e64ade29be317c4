"""Codex "code mode": tool calls as JavaScript run by the freeform ``exec`` tool.

Codex's default model acts only through ``exec``, a custom tool whose input is JavaScript
that calls *nested* tools (``await tools.exec_command({cmd: ...})``,
``await tools.apply_patch("*** Begin Patch ...")``). The nested tools are declared as
TypeScript in ``exec``'s description, one ``declare const tools: { NAME(...) }`` block each;
the request's ``tools`` list does not name them. A long cell yields
(``Script running with cell ID N``) and the model resumes it with the ``wait`` function.

These pure functions read the declarations into :class:`~.conversation.ToolDecl` records,
spell a nested call as one ``exec`` cell, and read a cell's state from its output, so the
rest of the server treats ``exec`` cells as the tool calls they carry. The nested call a
cell makes is Codex's, from its table (:mod:`scenarist.vocabulary.codex`, through
``llm.profiles``).
"""

# Annotations are not postponed here: see "Records" in docs/architecture.md.
import functools
import json
import re
from typing import Any, NamedTuple, TypeGuard

# the tool that runs a cell and the function that resumes one: Codex's names, from its table
from scenarist.vocabulary.codex import EXEC as EXEC
from scenarist.vocabulary.codex import WAIT as WAIT

CACHED_DESCRIPTION = 256 * 1024  # longer descriptions are not kept by the parse cache
BACKGROUND_YIELD_MS = 1000  # a command run in the background: its cell yields after this
DECLARATION = "declare const tools: {"

# one nested tool: `NAME(input: string)`, `NAME(args: {})` or `NAME(args: {` ... `\n}): ...`
_DECL_RE = re.compile(r"declare const tools: \{ ([A-Za-z_$][\w$]*)\((\w+): (string|\{\}|\{)")
_PARAM_RE = re.compile(r"([A-Za-z_$][\w$]*)(\?)?:\s*(.*?);?$")
_RUNNING_RE = re.compile(r"Script running with cell ID (\S+)")
_FAILED = "Script failed"
_ERROR_MARK = "Script error:\n"
ERROR_CHARS = 1000  # a failed cell's error, as far as the journal keeps it
_IDENTIFIER_RE = re.compile(r"[A-Za-z_$][\w$]*")


class Nested(NamedTuple):
    """A nested tool as declared: ``freeform`` ones take a string, the others an object
    whose top-level properties are ``params`` (name, JSON type)."""

    name: str
    freeform: bool
    params: tuple[tuple[str, str], ...] = ()
    required: tuple[str, ...] = ()


def is_code_mode(description: Any) -> TypeGuard[str]:
    """Whether a custom tool's description declares nested tools (Codex's ``exec``)."""
    return isinstance(description, str) and DECLARATION in description


def nested_tools(description: str) -> tuple[Nested, ...]:
    """The nested tools ``exec``'s description declares, in its order. Cached for
    descriptions of a real size: Codex sends the same 24 KB with every request of a
    session (a hostile one is parsed each time, not kept)."""
    if len(description) > CACHED_DESCRIPTION:
        return _declarations(description)
    return _cached_declarations(description)


def _declarations(description: str) -> tuple[Nested, ...]:
    """Linear in the description: each declaration's body is read once, and the search for
    the next one goes on after it (a body that never closes ends the list)."""
    out: list[Nested] = []
    pos = 0
    while (m := _DECL_RE.search(description, pos)) is not None:
        name, shape = m.group(1), m.group(3)
        pos = m.end()
        if shape == "string":
            out.append(Nested(name, True))
        elif shape == "{}":
            out.append(Nested(name, False))
        else:
            end = description.find("\n}):", pos)
            if end == -1:
                out.append(Nested(name, False))
                break
            out.append(Nested(name, False, *_params(description[pos:end])))
            pos = end
    return tuple(out)


_cached_declarations = functools.lru_cache(maxsize=16)(_declarations)


def _params(block: str) -> tuple[tuple[tuple[str, str], ...], tuple[str, ...]]:
    """The top-level properties of a TypeScript object type's body (comments skipped;
    properties of nested object types are not top-level)."""
    params: list[tuple[str, str]] = []
    required: list[str] = []
    depth = 0
    for raw in block.splitlines():
        line = raw.strip()
        if not line or line.startswith("//"):
            continue
        m = _PARAM_RE.match(line)
        if depth == 0 and m is not None:
            name, optional, kind = m.groups()
            params.append((name, _json_type(kind)))
            if not optional:
                required.append(name)
        text = line.replace("=>", "")
        depth += sum(text.count(c) for c in "{[(<") - sum(text.count(c) for c in "}])>")
    return tuple(params), tuple(required)


def _json_type(ts: str) -> str:
    """The JSON type of a TypeScript property type (``""`` when it is none of these)."""
    ts = ts.strip()
    if ts.startswith(("Array<", "[")) or ts.endswith("[]"):
        return "array"
    if ts in ("string", "number", "boolean"):
        return ts
    if ts.startswith('"'):  # a union of string literals
        return "string"
    if ts.startswith(("{", "Record<")):
        return "object"
    return ""


def cell_source(name: str, argument: str, freeform: bool, yield_ms: int | None = None) -> str:
    """The ``exec`` input that calls the nested tool ``name`` once and shows what it
    returns: ``argument`` is the call's JSON arguments (an object literal in JavaScript as
    it is), or the raw input of a freeform tool, spelled as a JSON string literal (valid
    JavaScript, escaped as ``JSON.stringify`` would). ``yield_ms``: the cell yields after
    that long if still running (the ``// @exec:`` pragma), to be waited on."""
    value = json.dumps(argument, ensure_ascii=False) if freeform else argument
    target = f"tools.{name}" if _IDENTIFIER_RE.fullmatch(name) else f"tools[{json.dumps(name)}]"
    pragma = f'// @exec: {{"yield_time_ms": {yield_ms}}}\n' if yield_ms is not None else ""
    return f"{pragma}text(await {target}({value}));\n"


def output_text(output: Any) -> str:
    """The text of a ``custom_tool_call_output``/``function_call_output`` (a string, or a
    list of ``input_text`` parts)."""
    if isinstance(output, str):
        return output
    if isinstance(output, list):
        return "\n".join(p["text"] for p in output
                         if isinstance(p, dict) and isinstance(p.get("text"), str))
    return ""


def cell_error(output: Any) -> str | None:
    """The script error when a cell's output says it failed (clipped)."""
    text = output_text(output)[: 64 * 1024] if _failed(output) else ""
    if not text:
        return None
    start = text.find(_ERROR_MARK)
    error = text[start + len(_ERROR_MARK):] if start != -1 else text
    return error.strip()[:ERROR_CHARS]


def _failed(output: Any) -> bool:
    first = _first_text(output)
    return first is not None and first.startswith(_FAILED)


def _first_text(output: Any) -> str | None:
    """A tool output's first text: the string, or its first part's text."""
    if isinstance(output, list):
        output = next((p.get("text") for p in output if isinstance(p, dict)), None)
    return output if isinstance(output, str) else None


def cell_state(output: Any) -> tuple[str | None, str | None]:
    """:func:`running_cell` and :func:`cell_error` of a tool output, read on every output
    of a history: a string that does not start as a cell's output does (``Script ...``,
    most tools' outputs) is neither, told by one test."""
    if type(output) is str and not output.startswith(_CELL_OUTPUT):
        return _NO_CELL
    return running_cell(output), cell_error(output)


_CELL_OUTPUT = "Script "  # how both a running and a failed cell's output start
_NO_CELL: tuple[None, None] = (None, None)


def running_cell(output: Any) -> str | None:
    """The cell id when a cell's output says it yielded while still running (its first
    line; any other tool's output starts otherwise)."""
    first = _first_text(output)
    m = _RUNNING_RE.match(first) if first is not None else None
    return m.group(1) if m else None
