"""Tool profiles: a scenario action → a tool call the agent declared, in its own vocabulary.

Profiles (``--agent-type``, else detected from the request):

- ``claude``: Claude Code's tools (Bash, Read, Write, Edit, Grep, Glob, WebFetch, ...), with
  absolute ``file_path`` arguments as its Write/Edit/Read require.
- ``codex``: today's Codex CLI: ``exec_command {cmd, workdir}`` for commands and the freeform
  ``apply_patch`` custom tool (``*** Begin Patch`` grammar) for file writes and edits; when the
  request does not declare ``apply_patch`` (models other than gpt-5.x), edits become a shell
  here-document through ``exec_command``. With Codex's default model ("code mode") the same
  calls go to the nested tools of its JavaScript ``exec`` tool, one ``exec`` cell each
  (:mod:`scenarist.llm.code_mode`).
- ``gemini``: Gemini CLI's tools (``run_shell_command``, ``write_file``, ``replace``,
  ``read_file``, ``glob``, ``grep_search``, ...), absolute paths, an ``agentEdits`` as
  ``replace`` (``write_file`` when no unique anchor exists).
- ``openai`` (generic) and ``opencode``: the declared tool that fits each action
  (:mod:`scenarist.llm.tool_fit`, with fallbacks: an edit as a write or a here-document,
  reads and listings as shell commands); opencode gets absolute paths.
- ``aider``: no tools; file changes as *SEARCH/REPLACE blocks* in the text
  (:mod:`scenarist.llm.aider`).

Claude's, Codex's and Gemini CLI's calls hold only while the request declares the tool they
name; otherwise the action is fitted like a generic one, so no call ever names an undeclared
tool (a :class:`~scenarist.llm.tool_fit.FitError` when nothing declared can carry it).

Claude Code's, Codex's and Gemini CLI's names and argument shapes are their tables in
:mod:`scenarist.vocabulary` (``claude_code``, ``codex``, ``gemini_cli``; shell stand-ins in
``shell``), read here and by every other front end; this module adds what needs the
request: which tools it declares, the file's text an edit applies to, the fitting of
generic profiles.

Every action becomes exactly one call (the position logic counts on it), or, for aider, one
block of text. Edits need the file's current text to produce a real, applicable edit; it is
passed in as ``read_text`` so that these functions stay pure.
"""

# Annotations are not postponed here: see "Records" in docs/architecture.md.
import hashlib
import json
import posixpath
import shlex
from collections.abc import Callable, Mapping
from typing import Any, Literal, NamedTuple

from scenarist.errors import ScenaristError
from scenarist.llm.aider import file_listing, search_replace, shell_block
from scenarist.llm.code_mode import BACKGROUND_YIELD_MS, cell_source
from scenarist.llm.conversation import Profile, ToolDecl, code_cell
from scenarist.llm.script import Action, EditAction, ToolAction
from scenarist.llm.tool_choice import AUTO, ToolChoice
from scenarist.llm.tool_fit import FitError, Need, fit, no_fit_message
from scenarist.scenario.tools import EditFile, ReadFile, RunCmd, Tool, WriteFile, tool_args
from scenarist.vocabulary import claude_code, codex, gemini_cli, shell

ReadText = Callable[[str], str | None]  # absolute path → text, None when it does not exist


class Call(NamedTuple):
    """A rendered tool call: ``arguments`` is JSON text (function) or raw input (custom)."""

    name: str
    arguments: str
    kind: Literal["function", "custom", "text"] = "function"  # text: in the answer (aider)


class Context(NamedTuple):
    """What rendering needs from the request and the machine."""

    profile: Profile
    cwd: str | None  # the agent's working directory (reported, else --workspace)
    tools: frozenset[str]  # tool names the request declares
    read_text: ReadText
    confine: Callable[[str], object] | None = None  # raises for a path outside the workspace
    decls: tuple[ToolDecl, ...] = ()  # the declared tools with their parameters
    side: bool = False  # a side request (no tools declared): the turn's text, no calls
    whole_files: bool = False  # aider's ``whole`` edit format: file changes as whole files
    choice: ToolChoice = AUTO  # the request's tool_choice: a forced tool carries every call
    schema: str | None = None  # the JSON schema the answer's text must follow (JSON text)

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
    return _ENCODER.encode(obj)


_ENCODER = json.JSONEncoder(ensure_ascii=False)
"""What ``json.dumps(obj, ensure_ascii=False)`` uses, made once: with an option set,
``json.dumps`` builds an encoder on every call (a call's arguments took 3.9 µs, 1.6 µs so)."""


# --------------------------------------------------------------------------- edits


class Edit(NamedTuple):
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


def edit_strings(edit: Edit) -> tuple[str, str] | None:
    """The exact-string replacement (old, new) that makes ``edit``, with ``old`` found once
    in the file; None when the file is new or empty, or no unique anchor exists (then the
    whole file is written)."""
    if not edit.before:
        return None
    head, removed, added, tail = _changed_span(edit.before, edit.after)
    if not removed:  # pure insertion: anchor on a neighbouring line
        anchor = head[-1:] or tail[:1]
        if not anchor:
            return None
        old, new = (anchor, anchor + added) if head else (anchor, added + anchor)
    else:
        old, new = removed, added
    old_s, new_s = "\n".join(old), "\n".join(new)
    if edit.before.count(old_s) != 1:  # ambiguous anchor
        return None
    return old_s, new_s


def _claude_edit(edit: Edit) -> Call:
    strings = edit_strings(edit)
    if strings is None:
        return Call("Write", _json({"file_path": edit.path, "content": edit.after}))
    old_s, new_s = strings
    return Call("Edit", _json({"file_path": edit.path, "old_string": old_s, "new_string": new_s}))


# --------------------------------------------------------------------------- Claude Code


def _claude(tool: Tool, ctx: Context) -> Call:
    """Claude Code's call for ``tool``, from its one table (:mod:`scenarist.vocabulary.claude_code`)."""
    call = claude_code.tool_call(tool, ctx.path)
    return Call(call.name, _json(call.input))


# --------------------------------------------------------------------------- Gemini CLI


def _gemini(tool: Tool, ctx: Context) -> Call:
    """Gemini CLI's call for ``tool``, from its one table
    (:mod:`scenarist.vocabulary.gemini_cli`)."""
    call = gemini_cli.tool_call(tool, ctx.path)
    return Call(call.name, _json(call.input))


def _gemini_edit(edit: Edit, display_path: str) -> Call:
    """An ``agentEdits`` as Gemini CLI's ``replace`` (an exact-string edit with a unique
    anchor), else its ``write_file`` of the whole new file."""
    strings = edit_strings(edit)
    tool: Tool = (WriteFile(display_path, edit.after) if strings is None
                  else EditFile(display_path, strings[0], strings[1]))
    call = gemini_cli.tool_call(tool, lambda _: edit.path)  # plan_edit resolved the path
    return Call(call.name, _json(call.input))


# --------------------------------------------------------------------------- Codex


def _exec(command: codex.ExecCommand) -> Call:
    call = command.agent_call()
    return Call(call.name, _json(call.input))


def _codex_edit(edit: Edit, display_path: str, ctx: Context) -> Call:
    if codex.APPLY_PATCH in ctx.tools:
        return Call(codex.APPLY_PATCH, codex_patch(edit, display_path), "custom")
    return _exec(codex.ExecCommand(heredoc_command(edit.path, edit.after), ctx.cwd))


def shell_command(tool: Tool, ctx: Context) -> str | None:
    """The shell command that does what ``tool`` does, for tools a shell can stand in for
    (:mod:`scenarist.vocabulary.shell`; a client that declares only a shell tool gets it)."""
    return shell.shell_command(tool, ctx.path)


def _codex(tool: Tool, ctx: Context) -> Call:
    """Codex's call for ``tool``, from its one table (:mod:`scenarist.vocabulary.codex`); file
    changes become the ``apply_patch`` of the file as it is (a here-document when the request
    does not declare it). In code mode each call is the JavaScript of one ``exec`` cell
    (:func:`_code_cell`)."""
    match codex.tool_call(tool, ctx.path, ctx.cwd):
        case codex.ExecCommand() as command:
            return _exec(command)
        case codex.ApplyPatch(path=display, absolute=absolute):
            before = ctx.read_text(absolute)
            after = tool.content if isinstance(tool, WriteFile) else (
                edited(tool, before) if isinstance(tool, EditFile) else before or "")
            return _codex_edit(Edit(absolute, before, after), display, ctx)
    return Call(tool.name, _json(tool_args(tool)))  # web search (built in), MCP-style calls


def _code_cell(action: Action, cell: ToolDecl, ctx: Context) -> Call:
    """Codex's code mode: ``action`` as the nested call Codex's vocabulary makes of it
    among the tools ``exec`` declares (fitted among them when it names none), run as one
    ``exec`` cell. A command run in the background (``runCmd.run_in_background``) gets a
    cell that yields while it runs, which the model then waits on (:mod:`~.answer`)."""
    nested = ctx._replace(tools=frozenset(t.name for t in cell.nested), decls=cell.nested,
                          choice=AUTO)  # a forced tool_choice names the cell
    try:
        call = render_action(action, nested)
    except FitError as exc:
        raise FitError(f"{exc} (the nested tools of Codex's code-mode `{cell.name}` tool)"
                       ) from None
    background = (isinstance(action, ToolAction) and isinstance(action.call, RunCmd)
                  and action.call.run_in_background)
    source = cell_source(call.name, call.arguments, call.kind == "custom",
                         BACKGROUND_YIELD_MS if background else None)
    return Call(cell.name, source, "custom")


def edited(tool: EditFile, before: str | None) -> str:
    """The file's text after an ``editFile`` (an exact-string replacement)."""
    base = before or ""
    if tool.replace_all:
        return base.replace(tool.old_string, tool.new_string)
    return base.replace(tool.old_string, tool.new_string, 1)


# --------------------------------------------------------------------------- entry point


def render_action(action: Action, ctx: Context) -> Call:
    """The tool call ``action`` becomes for the agent described by ``ctx``: Claude Code's and
    Codex's own vocabularies while the request declares the tool they call (in Codex's code
    mode, inside an ``exec`` cell), aider's text blocks, else the declared tool that fits
    (:mod:`scenarist.llm.tool_fit`)."""
    if ctx.profile == "aider":
        return aider_text(action, ctx)
    cell = code_cell(ctx.decls) if ctx.profile == "codex" else None
    if cell is not None and ctx.choice.name in (None, cell.name):  # not forced elsewhere
        return _code_cell(action, cell, ctx)
    if ctx.profile in ("claude", "codex", "gemini"):
        call = _profile_call(action, ctx)
        if (not ctx.decls or call.name in ctx.tools) and ctx.choice.name in (None, call.name):
            return call
    return fit_action(action, ctx)


def _profile_call(action: Action, ctx: Context) -> Call:
    if isinstance(action, EditAction):
        edit = plan_edit(action, ctx)
        if ctx.profile == "claude":
            return _claude_edit(edit)
        if ctx.profile == "gemini":
            return _gemini_edit(edit, action.path)
        return _codex_edit(edit, action.path, ctx)
    if ctx.profile == "claude":
        return _claude(action.call, ctx)
    if ctx.profile == "gemini":
        return _gemini(action.call, ctx)
    return _codex(action.call, ctx)


def required_tools(calls: list[Call]) -> set[str]:
    """Tool names a request must declare for these calls (for ``--strict``)."""
    return {c.name for c in calls}


# --------------------------------------------------------------------------- declared tools


def fit_action(action: Action, ctx: Context) -> Call:
    """``action`` as a call of the declared tool that carries it, trying its fallbacks in
    order (an edit: an edit tool, a write of the whole file, a shell here-document)."""
    label, needs = _needs(action, ctx)
    forced = ctx.choice.name
    decls = [d for d in ctx.decls if d.name == forced] if forced else ctx.decls
    for need in needs:
        fitted = fit(need, decls, forced=forced is not None)
        if fitted is not None:
            return Call(fitted.name, _json(fitted.args))
    if forced:
        raise FitError(f"it calls {label}, but the request's tool_choice forces {forced!r}, "
                       "whose schema cannot carry it; make the scenario's arguments fit "
                       f"{forced}'s parameters or let the client send tool_choice auto")
    raise FitError(no_fit_message(f"it calls {label}", needs, ctx.decls))


def _shown(path: Any, ctx: Context) -> str:
    """A path as a call spells it: absolute for agents that want it (opencode resolves both),
    as the scenario writes it for generic function calling."""
    return str(path) if ctx.profile == "openai" else ctx.path(path)


def _file_needs(path: str, before: str | None, after: str, ctx: Context,
                edit: tuple[str, str, bool] | None) -> list[Need]:
    """A file change as an edit (when there is one), a write of the whole file, a shell
    here-document."""
    shown = _shown(path, ctx)
    needs = []
    if edit is not None:
        old, new, replace_all = edit
        needs.append(Need(_names(EditFile), "edit", {"path": shown, "old": old, "new": new,
                                                      "replace_all": replace_all or None}))
    needs.append(Need(_names(WriteFile), "write", {"path": shown, "content": after}))
    command = heredoc_command(ctx.path(path), after)
    needs.append(Need(_names(RunCmd), "shell", {"command": command,
                                                 "description": f"Write {path}"}))
    return needs


def _names(record: type[Any]) -> tuple[str, ...]:
    return (record.name, *record.__dict__.get("aliases", ()))


def _needs(action: Action, ctx: Context) -> tuple[str, list[Need]]:
    """What ``action`` needs, best fit first, and how to name it in an error."""
    if isinstance(action, EditAction):
        change = plan_edit(action, ctx)
        strings = edit_strings(change)
        edit = (strings[0], strings[1], False) if strings else None
        return (f"agentEdits {action.path}",
                _file_needs(action.path, change.before, change.after, ctx, edit))
    tool = action.call
    match tool:
        case RunCmd():
            command = shell_command(tool, ctx)
            return tool.name, [Need(_names(RunCmd), "shell", {
                "command": command, "timeout": tool.timeout,
                "description": tool.description})]
        case WriteFile(path=path, content=content):
            return f"{tool.name} {path}", _file_needs(path, None, content, ctx, None)
        case EditFile(path=path, old_string=old, new_string=new, replace_all=replace_all):
            before = ctx.read_text(ctx.path(path))
            return f"{tool.name} {path}", _file_needs(path, before, edited(tool, before), ctx,
                                                      (old, new, replace_all))
        case ReadFile(path=path, offset=offset, limit=limit):
            needs = [Need(_names(ReadFile), "read", {"path": _shown(path, ctx),
                                                     "offset": offset, "limit": limit})]
            return f"{tool.name} {path}", needs + _shell_needs(tool, ctx)
    return tool.name, [Need((tool.name, *tool_aliases(tool)), None, tool_args(tool)),
                       *_shell_needs(tool, ctx)]


def _shell_needs(tool: Tool, ctx: Context) -> list[Need]:
    command = shell_command(tool, ctx)
    if command is None:
        return []
    return [Need(_names(RunCmd), "shell", {"command": command})]


def tool_aliases(tool: Tool) -> tuple[str, ...]:
    """The format's old spellings of ``tool``'s name (a client may declare one of them)."""
    return tuple(type(tool).__dict__.get("aliases", ()))


# --------------------------------------------------------------------------- aider


def aider_text(action: Action, ctx: Context) -> Call:
    """aider declares no tools: a file change becomes a *SEARCH/REPLACE block* in the
    answer's text, or with its ``whole`` format a *file listing* of the new content
    (:mod:`scenarist.llm.aider`); a command a fenced ``bash`` block."""
    if isinstance(action, EditAction):
        change = plan_edit(action, ctx)
        return _aider_change(action.path, change.before, change.after, ctx)
    tool = action.call
    match tool:
        case WriteFile(path=path, content=content):
            return _aider_change(path, ctx.read_text(ctx.path(path)), content, ctx)
        case EditFile(path=path) if ctx.whole_files:  # the whole file after the edit
            before = ctx.read_text(ctx.path(path))
            if before is None:  # never answer an edit with an empty file
                raise EditError(
                    f"editFile {path}: aider's whole-file format needs the file's new content, "
                    f"and {ctx.path(path)} cannot be read here; aider does not report its "
                    "folder: start scenarist llm with --workspace set to the repository aider "
                    "runs in (or run aider with --edit-format diff)")
            return _aider_change(path, before, edited(tool, before), ctx)
        case EditFile(path=path, old_string=old, new_string=new):  # aider has the file
            return Call("search/replace", search_replace(path, old, new), "text")
        case RunCmd(cmd=cmd):
            return Call("shell", shell_block(cmd), "text")
    raise FitError(f"it calls {tool.name}, which aider cannot be asked for: aider declares no "
                   "tools and takes only file edits (agentEdits, writeFile, editFile) and shell "
                   "commands (runCmd) in its answer's text")


def _aider_change(path: str, before: str | None, after: str, ctx: Context) -> Call:
    """The whole new file for aider's ``whole`` format; else the smallest block that makes the
    change: an exact-string edit with a unique anchor, else the whole file replaced."""
    if ctx.whole_files:
        return Call("file listing", file_listing(path, after), "text")
    strings = edit_strings(Edit(path, before, after))
    old, new = strings if strings is not None else (before or "", after)
    return Call("search/replace", search_replace(path, old, new), "text")
