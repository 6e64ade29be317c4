"""Tool profiles: a scenario action → a tool call in one agent's own vocabulary.

Three profiles (``--agent-type``):

- ``claude``: Claude Code's tools (Bash, Read, Write, Edit, Grep, Glob, WebFetch, ...), with
  absolute ``file_path`` arguments as its Write/Edit/Read require.
- ``codex``: today's Codex CLI: ``exec_command {cmd, workdir}`` for commands and the freeform
  ``apply_patch`` custom tool (``*** Begin Patch`` grammar) for file writes and edits; when the
  request does not declare ``apply_patch`` (models other than gpt-5.x), edits become a shell
  here-document through ``exec_command``.
- ``openai``: generic function calling: the scenario's tool name and arguments as the format
  spells them.

Each profile matches on the typed tool records of :mod:`scenarist.scenario.tools` (aliases
were resolved by the loader); a tool it has no mapping for (``GenericTool``, or a tool
declared later) passes through with its name and arguments.

Every action becomes exactly one call (the position logic counts on it). Edits need the file's
current text to produce a real, applicable edit; it is passed in as ``read_text`` so that these
functions stay pure.
"""

from __future__ import annotations

import hashlib
import json
import posixpath
import shlex
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from scenarist.errors import ScenaristError
from scenarist.llm.conversation import Profile
from scenarist.llm.script import Action, EditAction
from scenarist.scenario.tools import (
    BashOutput,
    EditFile,
    ExitPlanMode,
    Find,
    Grep,
    KillShell,
    ListDir,
    NotebookEdit,
    ReadFile,
    RunCmd,
    Sed,
    SlashCommand,
    Task,
    TodoWrite,
    Tool,
    WebFetch,
    WebSearch,
    WriteFile,
    tool_args,
)

ReadText = Callable[[str], str | None]  # absolute path → text, None when it does not exist


@dataclass(frozen=True, slots=True)
class Call:
    """A rendered tool call: ``arguments`` is JSON text (function) or raw input (custom)."""

    name: str
    arguments: str
    kind: Literal["function", "custom"] = "function"


@dataclass(frozen=True, slots=True)
class Context:
    """What rendering needs from the request and the machine."""

    profile: Profile
    cwd: str | None  # the agent's working directory (reported, else --workspace)
    tools: frozenset[str]  # tool names the request declares
    read_text: ReadText
    confine: Callable[[str], object] | None = None  # raises for a path outside the workspace

    def path(self, value: Any) -> str:
        """A scenario path resolved against the agent's working directory (spec conventions),
        refused by ``confine`` when it leaves the workspace."""
        text = str(value) if value is not None else "."
        if text.startswith("/") or self.cwd is None:
            resolved = posixpath.normpath(text) if text.startswith("/") else text
        else:
            resolved = posixpath.normpath(posixpath.join(self.cwd, text))
        if self.confine is not None:
            self.confine(resolved)
        return resolved


def _json(obj: Mapping[str, Any]) -> str:
    return json.dumps(obj, ensure_ascii=False)


def _given(**values: Any) -> dict[str, Any]:
    """The optional arguments that are set (not None, not False)."""
    return {k: v for k, v in values.items() if v is not None and v is not False}


# --------------------------------------------------------------------------- edits


@dataclass(frozen=True, slots=True)
class Edit:
    """A concrete edit: the file's text before (None: new file) and after."""

    path: str  # absolute (or as given when no cwd is known)
    before: str | None
    after: str


def generated_lines(path: str, count: int, start: int = 1, salt: str = "") -> list[str]:
    """Deterministic added lines: the same file state gives the same lines, and they differ
    from whatever they replace (``salt`` is a digest of the file's text before the edit)."""
    name = posixpath.basename(path) or "file"
    tag = f" [{hashlib.sha1(salt.encode()).hexdigest()[:8]}]" if salt else ""
    return [f"scenarist line {i} of {name}{tag}" for i in range(start, start + count)]


def plan_edit(action: EditAction, ctx: Context) -> Edit:
    """The real edit ``agentEdits`` stands for.

    With ``oldText``/``newText`` the scenario's text is used (``oldText`` must be in the file,
    or the file is new when it is empty/absent). Otherwise the last ``linesRemoved`` lines of the
    file are replaced by ``linesAdded`` deterministic lines, so the diff has exactly those counts.
    """
    path = ctx.path(action.path)
    before = ctx.read_text(path)
    if action.new_text is not None:
        old = action.old_text or ""
        if before is None or not old:
            after = (before or "") + action.new_text if before else action.new_text
            return Edit(path, before, after)
        if old not in before:
            raise EditError(
                f"agentEdits {action.path}: oldText is not in {path}; make oldText match the "
                "file's current text or drop it to append newText"
            )
        return Edit(path, before, before.replace(old, action.new_text, 1))
    lines = (before or "").splitlines()
    if action.lines_removed > len(lines):
        raise EditError(
            f"agentEdits {action.path}: linesRemoved is {action.lines_removed} but {path} has "
            f"{len(lines)} lines; lower linesRemoved or create the file first"
        )
    kept = lines[: len(lines) - action.lines_removed]
    added = generated_lines(path, action.lines_added, start=len(kept) + 1, salt=before or "")
    new_lines = kept + added
    after = "".join(line + "\n" for line in new_lines)
    return Edit(path, before, after)


class EditError(ScenaristError, ValueError):
    """An ``agentEdits`` that cannot be applied to the file as it is."""


def _changed_span(before: str, after: str) -> tuple[list[str], list[str], list[str], list[str]]:
    """Split two texts into (common head lines, removed lines, added lines, common tail)."""
    a, b = before.splitlines(), after.splitlines()
    head = 0
    while head < min(len(a), len(b)) and a[head] == b[head]:
        head += 1
    tail = 0
    while tail < min(len(a), len(b)) - head and a[len(a) - 1 - tail] == b[len(b) - 1 - tail]:
        tail += 1
    return a[:head], a[head : len(a) - tail], b[head : len(b) - tail], a[len(a) - tail :]


def codex_patch(edit: Edit, display_path: str) -> str:
    """The ``apply_patch`` input for ``edit`` (Add File for a new file, else an Update hunk)."""
    if edit.before is None:
        body = "".join(f"+{line}\n" for line in edit.after.splitlines())
        return f"*** Begin Patch\n*** Add File: {display_path}\n{body}*** End Patch\n"
    head, removed, added, tail = _changed_span(edit.before, edit.after)
    context = head[-3:]
    hunk = ["@@"] + [f" {x}" for x in context] + [f"-{x}" for x in removed]
    hunk += [f"+{x}" for x in added] + [f" {x}" for x in tail[:3]]
    if not head and not removed and not tail:  # the file was empty
        hunk = ["@@"] + [f"+{x}" for x in added]
    lines = "".join(x + "\n" for x in hunk)
    return f"*** Begin Patch\n*** Update File: {display_path}\n{lines}*** End Patch\n"


def heredoc_command(path: str, text: str) -> str:
    """A shell command that writes ``text`` to ``path`` exactly (a quoted here-document)."""
    marker = "SCENARIST_EOF"
    while marker in text:
        marker += "_"
    parent = posixpath.dirname(path)
    mkdir = f"mkdir -p {shlex.quote(parent)} && " if parent else ""
    if text and not text.endswith("\n"):
        return f"{mkdir}printf %s {shlex.quote(text)} > {shlex.quote(path)}"
    return f"{mkdir}cat > {shlex.quote(path)} <<'{marker}'\n{text}{marker}"


def _claude_edit(edit: Edit) -> Call:
    if edit.before is None or not edit.before:
        return Call("Write", _json({"file_path": edit.path, "content": edit.after}))
    head, removed, added, tail = _changed_span(edit.before, edit.after)
    if not removed:  # pure insertion: anchor on a neighbouring line
        anchor = head[-1:] or tail[:1]
        if not anchor:
            return Call("Write", _json({"file_path": edit.path, "content": edit.after}))
        if head:
            old, new = anchor, anchor + added
        else:
            old, new = anchor, added + anchor
    else:
        old, new = removed, added
    old_s, new_s = "\n".join(old), "\n".join(new)
    if edit.before.count(old_s) != 1:  # ambiguous anchor: rewrite the whole file
        return Call("Write", _json({"file_path": edit.path, "content": edit.after}))
    return Call("Edit", _json({"file_path": edit.path, "old_string": old_s, "new_string": new_s}))


# --------------------------------------------------------------------------- Claude Code

_CLAUDE_NAMES: dict[type[Any], str] = {
    Task: "Agent",
    WebFetch: "WebFetch",
    WebSearch: "WebSearch",
    TodoWrite: "TodoWrite",
    NotebookEdit: "NotebookEdit",
    ExitPlanMode: "ExitPlanMode",
    BashOutput: "BashOutput",
    KillShell: "KillShell",
    SlashCommand: "SlashCommand",
}


def _claude(tool: Tool, ctx: Context) -> Call:
    q = shlex.quote
    match tool:
        case RunCmd(cmd=cmd, cwd=cwd):
            command = cmd if cwd in (None, "", ".") else f"cd {q(ctx.path(cwd))} && {cmd}"
            out = {"command": command, **_given(timeout=tool.timeout, description=tool.description,
                                                run_in_background=tool.run_in_background)}
            return Call("Bash", _json(out))
        case WriteFile(path=path, content=content):
            return Call("Write", _json({"file_path": ctx.path(path), "content": content}))
        case EditFile(path=path, old_string=old, new_string=new, replace_all=replace_all):
            out = {"file_path": ctx.path(path), "old_string": old, "new_string": new,
                   **_given(replace_all=replace_all)}
            return Call("Edit", _json(out))
        case ReadFile(path=path, offset=offset, limit=limit):
            out = {"file_path": ctx.path(path), **_given(offset=offset, limit=limit)}
            return Call("Read", _json(out))
        case ListDir(path=path, recursive=recursive, pattern=pattern):
            glob = pattern or ("**/*" if recursive else "*")
            return Call("Glob", _json({"pattern": glob, "path": ctx.path(path)}))
        case Find(path=path, name_pattern=name):
            return Call("Glob", _json({"pattern": f"**/{name or '*'}", "path": ctx.path(path)}))
        case Sed(expression=expression, path=path, inplace=inplace):
            flag = "-i " if inplace else ""
            return Call("Bash", _json({"command": f"sed {flag}{q(expression)} {q(ctx.path(path))}"}))
        case Grep(path=path):
            args = tool_args(tool)
            return Call("Grep", _json(args if path is None else {**args, "path": ctx.path(path)}))
        case NotebookEdit(notebook_path=notebook):
            return Call("NotebookEdit", _json({**tool_args(tool), "notebook_path": ctx.path(notebook)}))
    return Call(_CLAUDE_NAMES.get(type(tool), tool.name), _json(tool_args(tool)))


# --------------------------------------------------------------------------- Codex


def _shell(cmd: str, ctx: Context, cwd: Any = None) -> Call:
    out: dict[str, Any] = {"cmd": cmd}
    workdir = ctx.path(cwd) if cwd not in (None, "") else ctx.cwd
    if workdir:
        out["workdir"] = workdir
    return Call("exec_command", _json(out))


def _codex_edit(edit: Edit, display_path: str, ctx: Context) -> Call:
    if "apply_patch" in ctx.tools:
        return Call("apply_patch", codex_patch(edit, display_path), "custom")
    return _shell(heredoc_command(edit.path, edit.after), ctx)


def _codex(tool: Tool, ctx: Context) -> Call:
    q = shlex.quote
    match tool:
        case RunCmd(cmd=cmd, cwd=cwd):
            return _shell(cmd, ctx, cwd)
        case WriteFile(path=path, content=content):
            absolute = ctx.path(path)
            return _codex_edit(Edit(absolute, ctx.read_text(absolute), content), path, ctx)
        case EditFile(path=path, old_string=old, new_string=new, replace_all=replace_all):
            absolute = ctx.path(path)
            before = ctx.read_text(absolute)
            base = before or ""
            after = base.replace(old, new) if replace_all else base.replace(old, new, 1)
            return _codex_edit(Edit(absolute, before, after), path, ctx)
        case ReadFile(path=path, offset=offset, limit=limit):
            quoted = q(ctx.path(path))
            if offset or limit:
                first = offset or 1
                last = first + limit - 1 if limit else "$"
                return _shell(f"sed -n '{first},{last}p' {quoted}", ctx)
            return _shell(f"cat {quoted}", ctx)
        case Grep(pattern=pattern, path=path, glob=glob, case_insensitive=insensitive):
            cmd = "grep -rn" + ("i" if insensitive else "")
            if glob:
                cmd += f" --include={q(glob)}"
            return _shell(f"{cmd} -e {q(pattern)} {q(ctx.path(path))}", ctx)
        case ListDir(path=path, recursive=recursive):
            quoted = q(ctx.path(path))
            return _shell(f"find {quoted}" if recursive else f"ls -la {quoted}", ctx)
        case Find(path=path, name_pattern=name, type=kind):
            cmd = f"find {q(ctx.path(path))} -name {q(name or '*')}"
            if kind is not None:
                cmd += " -type " + ("f" if kind == "file" else "d")
            return _shell(cmd, ctx)
        case Sed(expression=expression, path=path, inplace=inplace):
            flag = "-i " if inplace else ""
            return _shell(f"sed {flag}{q(expression)} {q(ctx.path(path))}", ctx)
    return Call(tool.name, _json(tool_args(tool)))


# --------------------------------------------------------------------------- entry point


def render_action(action: Action, ctx: Context) -> Call:
    """The tool call ``action`` becomes for the agent described by ``ctx``."""
    if isinstance(action, EditAction):
        edit = plan_edit(action, ctx)
        if ctx.profile == "claude":
            return _claude_edit(edit)
        if ctx.profile == "codex":
            return _codex_edit(edit, action.path, ctx)
        if edit.before is None:
            return Call("writeFile", _json({"path": action.path, "content": edit.after}))
        _head, removed, added, _tail = _changed_span(edit.before, edit.after)
        return Call(
            "editFile",
            _json(
                {
                    "path": action.path,
                    "old_string": "\n".join(removed),
                    "new_string": "\n".join(added),
                }
            ),
        )
    if ctx.profile == "claude":
        return _claude(action.call, ctx)
    if ctx.profile == "codex":
        return _codex(action.call, ctx)
    return Call(action.call.name, _json(tool_args(action.call)))


def required_tools(calls: list[Call]) -> set[str]:
    """Tool names a request must declare for these calls (for ``--strict``)."""
    return {c.name for c in calls}
