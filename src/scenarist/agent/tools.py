"""Every scenario tool, executed for real in the workspace: the one module that maps tools.

This is the only place in :mod:`scenarist.agent` that looks at tools: it matches on the
typed records of :mod:`scenarist.scenario.tools` (``AgentToolUse.tool``, old names already
resolved by the loader). It answers two questions for each scenario tool call: how to show
it (:func:`describe`, a :class:`ToolCall` with the terminal line and the calls Claude Code
and Codex make for it, taken from their tables in :mod:`scenarist.vocabulary`, that the
renderers encode without looking at arguments again) and what really happens when it runs
(:meth:`Tools.run`, an :class:`Outcome`).

Real: ``runCmd`` (a process in the workspace, scrubbed environment, timeout, its process
group killed; ``run_in_background`` keeps it running for ``bashOutput``/``killShell``),
``readFile``, ``writeFile``, ``editFile``, ``listDir``, ``find``, ``grep``, ``sed`` (GNU sed
in ``--sandbox`` mode, so an expression cannot run commands or touch other files),
``notebookEdit`` and ``agentEdits``. Simulated (they need the outside world or have no side
effect): ``task``, ``webFetch``, ``webSearch``, ``todoWrite``, ``exitPlanMode``,
``slashCommand`` and any other tool name: they answer the scenario's scripted ``result``.

Paths go through :class:`~scenarist.agent.workspace.Workspace`, which refuses anything that
would leave the workspace.
"""

from __future__ import annotations

import codecs
import difflib
import fnmatch
import json
import os
import re
import shlex
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from typing import Any

from scenarist.agent.workspace import AgentError, PathRefused, Workspace
from scenarist.json_out import as_text
from scenarist.processes import ProcessInfo, ProcessTree, run_command
from scenarist.scenario.model import AgentEdits, AgentToolUse
from scenarist.scenario.tools import (
    BashOutput,
    EditFile,
    Find,
    Grep,
    KillShell,
    ListDir,
    NotebookEdit,
    ReadFile,
    RunCmd,
    Sed,
    Tool,
    WriteFile,
    tool_args,
)
from scenarist.vocabulary import AgentCall, against, claude_code, codex
from scenarist.vocabulary.codex import CodexCall

__all__ = ["FileChange", "Outcome", "ToolCall", "Tools", "describe", "describe_edit",
           "describe_file_read", "scrubbed_env"]

DEFAULT_TIMEOUT_MS = 120_000
MAX_TIMEOUT_MS = 600_000
MAX_OUTPUT = 4 * 1024 * 1024  # bytes of a command's output kept
# tools whose ``result`` is their output (compared); for the others it is a description
_OUTPUT_TOOLS = (RunCmd, ReadFile, Grep, ListDir, Find, Sed, BashOutput)
_GREP_TYPES = {
    "py": ("*.py", "*.pyi"), "js": ("*.js", "*.mjs", "*.cjs", "*.jsx"), "ts": ("*.ts", "*.tsx"),
    "rust": ("*.rs",), "go": ("*.go",), "java": ("*.java",), "c": ("*.c", "*.h"),
    "cpp": ("*.cpp", "*.cc", "*.hpp", "*.h"), "md": ("*.md", "*.markdown"),
    "json": ("*.json",), "yaml": ("*.yaml", "*.yml"), "toml": ("*.toml",), "sh": ("*.sh",),
    "html": ("*.html", "*.htm"), "css": ("*.css",), "txt": ("*.txt",),
}


@dataclass(frozen=True, slots=True)
class FileChange:
    """A file as it was (None: it did not exist) and as the tool left it."""

    path: str  # as shown: relative to the workspace root
    before: str | None
    after: str

    @property
    def counts(self) -> tuple[int, int]:
        """(lines added, lines removed) by this change."""
        return line_counts(self.before or "", self.after)

    def unified_diff(self) -> str:
        lines = difflib.unified_diff((self.before or "").splitlines(keepends=True),
                                     self.after.splitlines(keepends=True), n=3)
        return "".join(list(lines)[2:])  # drop the ---/+++ header: the path is known


def line_counts(before: str, after: str) -> tuple[int, int]:
    """(added, removed) lines between two texts, as a unified diff counts them."""
    added = removed = 0
    matcher = difflib.SequenceMatcher(None, before.splitlines(), after.splitlines(),
                                      autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag != "equal":
            removed += i2 - i1
            added += j2 - j1
    return added, removed


@dataclass(frozen=True, slots=True)
class ToolCall:
    """A scenario tool call as the renderers need it: a line for the terminal and the call
    Claude Code and Codex make for it, from their tables (:mod:`scenarist.vocabulary`)."""

    call_id: str
    name: str  # the scenario's tool name (``runCmd``, ``agentEdits``, ...)
    title: str  # one line for the terminal
    simulated: bool
    compares_output: bool  # the scenario's ``result`` is the tool's output (else a description)
    claude: AgentCall  # Claude Code's call (``claude-jsonl``)
    codex: CodexCall  # what Codex does for it (``codex-jsonl``)


@dataclass(frozen=True, slots=True)
class Outcome:
    """What really happened when a tool ran."""

    ok: bool
    output: str
    exit_code: int | None = None
    simulated: bool = False
    refused: bool = False  # a confinement refusal: nothing was touched
    timed_out: bool = False
    background: bool = False
    executed: bool = True  # False for simulated tools and refusals (no checkpoint)
    change: FileChange | None = None
    # what the command left running when it ended, stopped then (not part of its output)
    stopped: tuple[ProcessInfo, ...] = ()


def _not_negative(value: int | None, what: str) -> int | None:
    if value is not None and value < 0:
        raise AgentError(f"{what} must not be negative (got {value})")
    return value


# ------------------------------------------------------------------------ describing


def describe(use: AgentToolUse, workspace: Workspace) -> ToolCall:
    """How ``use`` is shown in the terminal and encoded for Claude Code / Codex logs."""
    tool = use.tool
    match tool:
        case RunCmd(cmd=cmd, cwd=cwd):
            title = cmd if cwd in (None, "", ".") else f"cd {shlex.quote(str(cwd))} && {cmd}"
        case ReadFile(path=path) | WriteFile(path=path) | EditFile(path=path):
            title = path
        case Grep(pattern=pattern, path=path):
            title = f"{pattern} in {path or '.'}"
        case ListDir(path=path, pattern=pattern) | Find(path=path, name_pattern=pattern):
            title = f"{path or '.'} ({pattern or '*'})"
        case Sed(expression=expression, path=path, inplace=inplace):
            q = shlex.quote
            title = f"sed {'-i ' if inplace else ''}{q(expression)} {q(path or '')}"
        case NotebookEdit(notebook_path=path):
            title = path
        case _:
            first = next((v for v in tool_args(tool).values() if isinstance(v, str)), "")
            title = first.splitlines()[0] if first else ""
    return ToolCall(use.tool_call_id, tool.name, title, type(tool) not in _REAL,
                    isinstance(tool, _OUTPUT_TOOLS), *_calls(tool, workspace))


def _calls(tool: Tool, workspace: Workspace) -> tuple[AgentCall, CodexCall]:
    """Claude Code's and Codex's call for ``tool`` in ``workspace`` (their working directory)."""
    resolve = against(workspace.root)
    return (claude_code.tool_call(tool, resolve),
            codex.tool_call(tool, resolve, workspace.root))


def describe_edit(edit: AgentEdits, workspace: Workspace,
                  change: FileChange | None = None) -> ToolCall:
    """``agentEdits`` as the file edit it made, in the call Claude Code would make for it: the
    same ``Write``/``Edit`` that ``scenarist llm`` asks a real Claude Code to make; for Codex
    an ``apply_patch`` of the file."""
    from scenarist.llm.profiles import Context, render_action
    from scenarist.llm.script import EditAction

    path = against(workspace.root)(edit.path)
    title = f"{edit.path} (+{edit.lines_added} -{edit.lines_removed})"
    claude = AgentCall("Edit", {"file_path": path})
    if change is not None:
        before = change.before

        def read(_path: str) -> str | None:
            return before  # the file as the edit found it

        ctx = Context(profile="claude", cwd=workspace.root, tools=frozenset(), read_text=read)
        action = EditAction(workspace.absolute(workspace.parts(edit.path)), edit.lines_added,
                            edit.lines_removed, edit.old_text, edit.new_text)
        call = render_action(action, ctx)
        claude = AgentCall(call.name, json.loads(call.arguments))
    return ToolCall(edit.tool_call_id, "agentEdits", title, False, False, claude,
                    codex.ApplyPatch(edit.path, path))


def describe_file_read(path: str, call_id: str, workspace: Workspace) -> ToolCall:
    """One file of ``agentFileReads`` (the agent reads a client file: Claude Code ``Read``)."""
    return ToolCall(call_id, "agentFileReads", path, False, True,
                    *_calls(ReadFile(path=path), workspace))


# ------------------------------------------------------------------------ running


def scrubbed_env(root: str, cwd: str) -> dict[str, str]:
    """The environment of a tool's process: enough to run programs, none of the caller's
    secrets (API keys, tokens, credentials stay out); HOME is the workspace."""
    env = {"PATH": os.environ.get("PATH", "/usr/local/bin:/usr/bin:/bin"),
           "HOME": root, "PWD": cwd, "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "TERM": "dumb",
           "SHELL": _SHELL, "SCENARIST_WORKSPACE": root}
    for key in ("TMPDIR", "TZ"):
        if key in os.environ:
            env[key] = os.environ[key]
    return env


_SHELL = shutil.which("bash") or "/bin/sh"


class _Background:
    """A ``runCmd`` with ``run_in_background``: its process and where its output goes."""

    __slots__ = ("log", "proc", "read", "tree")

    def __init__(self, proc: subprocess.Popen[bytes], tree: ProcessTree, log: str) -> None:
        self.proc = proc
        self.tree = tree
        self.log = log
        self.read = 0

    def stop(self) -> int:
        """Stop the shell and everything it started; its exit code."""
        self.tree.stop()
        return self.proc.wait()


class Tools:
    """Runs tool calls in one workspace; keeps background shells until :meth:`close`."""

    def __init__(self, workspace: Workspace) -> None:
        self.workspace = workspace
        self._shells: dict[str, _Background] = {}
        self._logs: str | None = None

    def close(self) -> None:
        """Stop every background shell still running, with everything it started."""
        for shell in self._shells.values():
            shell.stop()
        self._shells.clear()
        if self._logs is not None:
            shutil.rmtree(self._logs, ignore_errors=True)
            self._logs = None

    def __enter__(self) -> Tools:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def run(self, use: AgentToolUse) -> Outcome:
        """Execute ``use`` for real (or answer its scripted result when it is simulated)."""
        handler = _REAL.get(type(use.tool))
        if handler is None:
            text = as_text(use.result) if use.result is not None else "(no scripted result)"
            return Outcome(use.status not in ("error", "failed"), text, simulated=True,
                           executed=False)
        return self._guarded(handler, use.tool)

    def read_file(self, path: str) -> Outcome:
        """A whole file as ``agentFileReads`` reads it (confined like every tool)."""
        return self._guarded(Tools._read_file, ReadFile(path=path))

    def _guarded(self, handler: Any, tool: Tool) -> Outcome:
        try:
            outcome: Outcome = handler(self, tool)
        except PathRefused as exc:
            return Outcome(False, f"refused: {exc}", refused=True, executed=False)
        except AgentError as exc:
            return Outcome(False, str(exc))
        return outcome

    def edit(self, edit: AgentEdits) -> Outcome:
        """``agentEdits``: the scenario's texts, or generated lines with exactly its counts."""
        from scenarist.llm.profiles import Context, EditError, plan_edit
        from scenarist.llm.script import EditAction

        ws = self.workspace
        try:
            parts = ws.parts(edit.path)

            def read(_path: str) -> str | None:
                return ws.read_text(parts) if ws.exists(parts) else None

            ctx = Context(profile="openai", cwd=ws.root, tools=frozenset(), read_text=read)
            action = EditAction(ws.absolute(parts), edit.lines_added, edit.lines_removed,
                                edit.old_text, edit.new_text)
            planned = plan_edit(action, ctx)
            ws.write_text(parts, planned.after)
        except PathRefused as exc:
            return Outcome(False, f"refused: {exc}", refused=True, executed=False)
        except (AgentError, EditError) as exc:
            return Outcome(False, str(exc))
        change = FileChange(ws.display(parts), planned.before, planned.after)
        added, removed = change.counts
        return Outcome(True, f"edited {change.path} (+{added} -{removed})", change=change)

    # -- the real tools -----------------------------------------------------------------

    def _run_cmd(self, tool: RunCmd) -> Outcome:
        ws = self.workspace
        cwd = ws.check_dir(ws.parts(tool.cwd or "."))
        timeout = _not_negative(tool.timeout, "runCmd: timeout")
        timeout_ms = min(timeout or DEFAULT_TIMEOUT_MS, MAX_TIMEOUT_MS)
        env = scrubbed_env(ws.root, cwd)
        if tool.run_in_background:
            return self._start_background(tool.cmd, cwd, env)
        done = run_command([_SHELL, "-c", tool.cmd], cwd=cwd, env=env, timeout_s=timeout_ms / 1000,
                           limit=MAX_OUTPUT)
        text = done.output.decode("utf-8", "replace")
        if done.truncated:
            text += f"\n(output cut at {MAX_OUTPUT} bytes)"
        if done.timed_out:
            text += f"\n(killed after the {timeout_ms} ms timeout)"
            return Outcome(False, text, exit_code=done.returncode, timed_out=True,
                           stopped=done.stopped)
        return Outcome(done.returncode == 0, text, exit_code=done.returncode,
                       stopped=done.stopped)

    def _start_background(self, command: str, cwd: str, env: dict[str, str]) -> Outcome:
        if self._logs is None:
            self._logs = tempfile.mkdtemp(prefix="scenarist-agent-shells-")
        shell_id = f"shell-{len(self._shells) + 1}"
        log = os.path.join(self._logs, shell_id)
        tree = ProcessTree()
        with open(log, "wb") as sink:
            proc = tree.popen([_SHELL, "-c", command], cwd=cwd, env=env,
                              stdin=subprocess.DEVNULL, stdout=sink, stderr=subprocess.STDOUT)
        self._shells[shell_id] = _Background(proc, tree, log)
        return Outcome(True, f"started in the background as {shell_id}", background=True)

    def _shell(self, shell_id: str, tool: str) -> _Background:
        shell = self._shells.get(shell_id)
        if shell is None:
            known = ", ".join(self._shells) or "none"
            raise AgentError(f"{tool}: no background shell {shell_id!r} (running: {known}); "
                             "start one with runCmd run_in_background: true")
        return shell

    def _bash_output(self, tool: BashOutput) -> Outcome:
        shell = self._shell(tool.bash_id, "bashOutput")
        with open(shell.log, "rb") as f:
            f.seek(shell.read)
            data = f.read()
        shell.read += len(data)
        lines = data.decode("utf-8", "replace").splitlines(keepends=True)
        if tool.filter:
            regex = _regex(tool.filter, 0, "bashOutput filter")
            lines = [line for line in lines if regex.search(line)]
        return Outcome(True, "".join(lines), exit_code=shell.proc.poll())

    def _kill_shell(self, tool: KillShell) -> Outcome:
        shell = self._shell(tool.shell_id, "killShell")
        code = shell.stop()
        return Outcome(True, f"killed {tool.shell_id}", exit_code=code)

    def _read_file(self, tool: ReadFile) -> Outcome:
        ws = self.workspace
        parts = ws.parts(tool.path)
        encoding = tool.encoding or "utf-8"
        try:
            codecs.lookup(encoding)
        except LookupError:
            raise AgentError(f"readFile: unknown encoding {encoding!r}") from None
        try:
            text = ws.read_bytes(parts).decode(encoding)
        except UnicodeDecodeError:
            raise AgentError(f"{ws.display(parts)} is not {encoding} text") from None
        offset = _not_negative(tool.offset, "readFile: offset")
        limit = _not_negative(tool.limit, "readFile: limit")
        if offset or limit is not None:
            lines = text.splitlines(keepends=True)
            start = max((offset or 1) - 1, 0)
            text = "".join(lines[start: None if limit is None else start + limit])
        return Outcome(True, text)

    def _write_file(self, tool: WriteFile) -> Outcome:
        ws = self.workspace
        parts = ws.parts(tool.path)
        before = ws.read_text(parts) if ws.exists(parts) else None
        ws.write_text(parts, tool.content)
        change = FileChange(ws.display(parts), before, tool.content)
        verb = "created" if before is None else "updated"
        return Outcome(True, f"{verb} {change.path}", change=change)

    def _edit_file(self, tool: EditFile) -> Outcome:
        ws = self.workspace
        parts = ws.parts(tool.path)
        before = ws.read_text(parts)
        old, new = tool.old_string, tool.new_string
        count = before.count(old) if old else 0
        where = ws.display(parts)
        if count == 0:
            raise AgentError(f"editFile: old_string is not in {where}")
        if count > 1 and not tool.replace_all:
            raise AgentError(f"editFile: old_string occurs {count} times in {where}; set "
                             "replace_all: true or give more context")
        after = before.replace(old, new) if tool.replace_all else before.replace(old, new, 1)
        ws.write_text(parts, after)
        n = count if tool.replace_all else 1
        return Outcome(True, f"updated {where} ({n} replacement{'s' * (n != 1)})",
                       change=FileChange(where, before, after))

    def _list_dir(self, tool: ListDir) -> Outcome:
        ws = self.workspace
        parts = ws.parts(tool.path or ".")
        pattern = tool.pattern
        entries = ws.walk(parts, recursive=tool.recursive)
        shown = [e.rel + ("/" if e.kind == "dir" else "") for e in entries
                 if not pattern or fnmatch.fnmatchcase(e.rel.rsplit("/", 1)[-1], pattern)]
        return Outcome(True, "".join(line + "\n" for line in shown))

    def _find(self, tool: Find) -> Outcome:
        ws = self.workspace
        given = tool.path or "."
        name = tool.name_pattern or "*"
        found = [os.path.join(given, e.rel) for e in ws.walk(ws.parts(given))
                 if fnmatch.fnmatchcase(e.rel.rsplit("/", 1)[-1], name)
                 and (tool.type is None or e.kind == tool.type)]
        return Outcome(True, "".join(line + "\n" for line in found))

    def _grep(self, tool: Grep) -> Outcome:
        return Outcome(True, _Grep(self.workspace, tool).run())

    def _sed(self, tool: Sed) -> Outcome:
        ws = self.workspace
        parts = ws.parts(tool.path or "")
        before = ws.read_text(parts)  # checks it is a regular file inside
        argv = ["sed", "--sandbox", *(["-i"] if tool.inplace else []), "-e", tool.expression,
                "--", ws.absolute(parts)]
        proc = subprocess.run(argv, cwd=ws.root, env=scrubbed_env(ws.root, ws.root),
                              stdin=subprocess.DEVNULL, capture_output=True, timeout=60,
                              check=False)
        out = (proc.stdout + proc.stderr).decode("utf-8", "replace")
        change = None
        if tool.inplace and proc.returncode == 0:
            change = FileChange(ws.display(parts), before, ws.read_text(parts))
        return Outcome(proc.returncode == 0, out, exit_code=proc.returncode, change=change)

    def _notebook_edit(self, tool: NotebookEdit) -> Outcome:
        ws = self.workspace
        parts = ws.parts(tool.notebook_path)
        before = ws.read_text(parts)
        where = ws.display(parts)
        try:
            notebook = json.loads(before)
            cells = notebook["cells"]
        except (ValueError, KeyError, TypeError):
            raise AgentError(f"notebookEdit: {where} is not a Jupyter notebook") from None
        cell_id, mode = tool.cell_id, tool.edit_mode or "replace"
        index = next((i for i, c in enumerate(cells) if c.get("id") == cell_id), None)
        if cell_id is not None and index is None:
            raise AgentError(f"notebookEdit: no cell with id {cell_id!r} in {where}")
        source = tool.new_source.splitlines(keepends=True)
        if mode == "delete" and index is not None:
            del cells[index]
        elif mode == "insert":
            kind = tool.cell_type or "code"
            cell: dict[str, Any] = {"cell_type": kind, "metadata": {}, "source": source}
            if kind == "code":
                cell.update(execution_count=None, outputs=[])
            cells.insert(0 if index is None else index + 1, cell)
        elif mode == "replace" and index is not None:
            cells[index]["source"] = source
        else:
            raise AgentError(f"notebookEdit: edit_mode {mode} needs a cell_id")
        after = json.dumps(notebook, indent=1, ensure_ascii=False) + "\n"
        ws.write_text(parts, after)
        return Outcome(True, f"updated {where}", change=FileChange(where, before, after))


# the tools that really run, by record type (the others are simulated)
_REAL: dict[type[Any], Any] = {
    RunCmd: Tools._run_cmd, ReadFile: Tools._read_file, WriteFile: Tools._write_file,
    EditFile: Tools._edit_file, ListDir: Tools._list_dir, Find: Tools._find,
    Grep: Tools._grep, Sed: Tools._sed, NotebookEdit: Tools._notebook_edit,
    BashOutput: Tools._bash_output, KillShell: Tools._kill_shell,
}


def _regex(pattern: str, flags: int, what: str) -> re.Pattern[str]:
    try:
        return re.compile(pattern, flags)
    except re.error as exc:
        raise AgentError(f"{what}: bad regular expression {pattern!r}: {exc}") from None


class _Grep:
    """``grep`` as Claude Code's Grep answers: files_with_matches (default), content, count."""

    def __init__(self, workspace: Workspace, tool: Grep) -> None:
        self.ws = workspace
        self.tool = tool
        flags = re.IGNORECASE if tool.case_insensitive else 0
        if tool.multiline:
            flags |= re.MULTILINE | re.DOTALL
        self.regex = _regex(tool.pattern, flags, "grep")
        if tool.type is not None and tool.type not in _GREP_TYPES:
            raise AgentError(f"grep: unknown type {tool.type!r} (known: "
                             f"{', '.join(_GREP_TYPES)})")
        self.globs: tuple[str, ...] = _GREP_TYPES[tool.type] if tool.type is not None else ()
        self.mode = tool.output_mode or "files_with_matches"

    def files(self) -> list[tuple[str, tuple[str, ...]]]:
        ws, glob = self.ws, self.tool.glob
        parts = ws.parts(self.tool.path or ".")
        if ws.kind(parts) == "file":
            return [(ws.display(parts), parts)]
        found = []
        for entry in ws.walk(parts):
            if entry.kind != "file":
                continue
            name = entry.rel.rsplit("/", 1)[-1]
            if glob and not (fnmatch.fnmatchcase(name, glob)
                             or fnmatch.fnmatchcase(entry.rel, glob)):
                continue
            if self.globs and not any(fnmatch.fnmatchcase(name, g) for g in self.globs):
                continue
            sub = (*parts, *entry.rel.split("/"))
            found.append((ws.display(sub), sub))
        return found

    def matching_lines(self, text: str) -> list[int]:
        lines = text.splitlines()
        if not self.tool.multiline:
            return [i for i, line in enumerate(lines) if self.regex.search(line)]
        starts = sorted({text.count("\n", 0, m.start()) for m in self.regex.finditer(text)})
        return [i for i in starts if i < len(lines)]

    def run(self) -> str:
        out: list[str] = []
        for shown, parts in self.files():
            try:
                text = self.ws.read_text(parts)
            except AgentError:
                continue  # binary or unreadable: skipped, as rg does
            hits = self.matching_lines(text)
            if not hits:
                continue
            if self.mode == "files_with_matches":
                out.append(shown)
            elif self.mode == "count":
                out.append(f"{shown}:{len(hits)}")
            else:
                out.extend(self.content(shown, text.splitlines(), hits))
        limit = _not_negative(self.tool.head_limit, "grep: head_limit")
        if limit:
            out = out[:limit]
        return "".join(line + "\n" for line in out)

    def content(self, shown: str, lines: list[str], hits: list[int]) -> list[str]:
        tool = self.tool
        context = _not_negative(tool.context, "grep: -C") or 0
        before = _not_negative(tool.before_context, "grep: -B") or context
        after = _not_negative(tool.after_context, "grep: -A") or context
        hit_set = set(hits)
        shown_lines: list[int] = []
        for i in hits:
            shown_lines.extend(range(max(i - before, 0), min(i + after + 1, len(lines))))
        out: list[str] = []
        previous = None
        for i in sorted(set(shown_lines)):
            if previous is not None and i > previous + 1:
                out.append("--")
            sep = ":" if i in hit_set else "-"
            out.append(f"{shown}{sep}{i + 1}{sep}{lines[i]}" if tool.line_numbers
                       else f"{shown}{sep}{lines[i]}")
            previous = i
        return out
