"""Every scenario tool, executed for real in the workspace: the one module that maps tools.

This is the only place in :mod:`scenarist.agent` that reads a tool's name and arguments.
It answers two questions for each scenario tool call: how to show it (:func:`describe`, a
:class:`ToolCall` that the renderers encode without looking at arguments again) and what
really happens when it runs (:meth:`Tools.run`, an :class:`Outcome`).

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
import contextlib
import difflib
import fnmatch
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from scenarist.agent.workspace import AgentError, PathRefused, Workspace
from scenarist.scenario.model import AgentEdits, AgentToolUse

__all__ = ["FileChange", "Outcome", "ToolCall", "Tools", "describe", "describe_edit",
           "describe_file_read", "scrubbed_env"]

DEFAULT_TIMEOUT_MS = 120_000
MAX_TIMEOUT_MS = 600_000
# tools whose ``result`` is their output (compared); for the others it is a description
_OUTPUT_TOOLS = frozenset({"runCmd", "readFile", "grep", "listDir", "find", "sed", "bashOutput"})
_CLAUDE_NAMES = {
    "runCmd": "Bash", "readFile": "Read", "writeFile": "Write", "editFile": "Edit",
    "grep": "Grep", "listDir": "Glob", "find": "Glob", "sed": "Bash", "task": "Task",
    "webFetch": "WebFetch", "webSearch": "WebSearch", "todoWrite": "TodoWrite",
    "notebookEdit": "NotebookEdit", "exitPlanMode": "ExitPlanMode", "bashOutput": "BashOutput",
    "killShell": "KillShell", "slashCommand": "SlashCommand",
}
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
    """A scenario tool call as the renderers need it (arguments already interpreted)."""

    call_id: str
    name: str  # the scenario's tool name (``runCmd``, ``agentEdits``, ...)
    title: str  # one line for the terminal
    simulated: bool
    compares_output: bool  # the scenario's ``result`` is the tool's output (else a description)
    shell: str | None  # the shell command it amounts to (a Codex ``command_execution``)
    edits: str | None  # the file it changes, relative to the workspace (a ``file_change``)
    claude_name: str
    claude_input: Mapping[str, Any]


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


def _text(value: Any) -> str:
    if value is None:
        return ""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _flag(args: Mapping[str, Any], key: str) -> bool:
    value = args.get(key)
    return value is True or (isinstance(value, str) and value.lower() in ("true", "yes", "1"))


def _int(args: Mapping[str, Any], key: str, tool: str) -> int | None:
    value = args.get(key)
    if value is None or value is False:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise AgentError(f"{tool}: {key} must be a whole number (got {value!r})")
    try:
        number = int(value)
    except ValueError:
        raise AgentError(f"{tool}: {key} must be a whole number (got {value!r})") from None
    if number < 0:
        raise AgentError(f"{tool}: {key} must not be negative (got {number})")
    return number


# ------------------------------------------------------------------------ describing


def describe(use: AgentToolUse, workspace: Workspace) -> ToolCall:
    """How ``use`` is shown in the terminal and encoded for Claude Code / Codex logs."""
    name, args = use.tool_name, dict(use.args or {})
    q = shlex.quote

    def absolute(key: str) -> str:
        value = str(args.get(key) or ".")
        return value if value.startswith("/") else os.path.join(workspace.root, value)

    shell: str | None = None
    edits: str | None = None
    claude: dict[str, Any] = dict(args)
    if name == "runCmd":
        shell = _text(args.get("cmd"))
        if args.get("cwd") not in (None, "", "."):
            shell = f"cd {q(str(args['cwd']))} && {shell}"
        claude = {"command": shell, **{k: args[k] for k in ("timeout", "description",
                                                             "run_in_background") if k in args}}
        title = shell
    elif name in ("readFile", "writeFile", "editFile"):
        title = str(args.get("path", ""))
        claude = {"file_path": absolute("path"),
                  **{k: v for k, v in args.items() if k not in ("path", "encoding")}}
        if name == "readFile":
            shell = f"cat {q(title)}"
        else:
            edits = title
    elif name == "grep":
        title = f"{args.get('pattern', '')} in {args.get('path') or '.'}"
        shell = f"grep -rn -e {q(_text(args.get('pattern')))} {q(str(args.get('path') or '.'))}"
    elif name in ("listDir", "find"):
        where = str(args.get("path") or ".")
        pattern = str(args.get("name") or args.get("pattern") or "*")
        deep = name == "find" or _flag(args, "recursive")
        title = f"{where} ({pattern})"
        shell = (f"find {q(where)} -name {q(pattern)}" if deep else f"ls -a {q(where)}")
        claude = {"pattern": ("**/" if deep else "") + pattern, "path": absolute("path")}
    elif name == "sed":
        inplace = "-i " if _flag(args, "inplace") else ""
        shell = f"sed {inplace}{q(_text(args.get('expression')))} {q(str(args.get('path', '')))}"
        title = shell
        claude = {"command": shell}
        if inplace:
            edits = str(args.get("path", ""))
    elif name == "notebookEdit":
        title = str(args.get("notebook_path", ""))
        edits = title
        claude = {**args, "notebook_path": absolute("notebook_path")}
    else:
        first = next((v for v in args.values() if isinstance(v, str)), "")
        title = first.splitlines()[0] if first else ""
    return ToolCall(use.tool_call_id, name, title, name not in _REAL, name in _OUTPUT_TOOLS,
                    shell, edits, _CLAUDE_NAMES.get(name, name), claude)


def describe_edit(edit: AgentEdits, workspace: Workspace,
                  change: FileChange | None = None) -> ToolCall:
    """``agentEdits`` as the file edit it made (Claude Code: ``Write`` a new file, else ``Edit``
    of the whole text, which is what changed as far as the scenario says)."""
    path = edit.path if edit.path.startswith("/") else os.path.join(workspace.root, edit.path)
    title = f"{edit.path} (+{edit.lines_added} -{edit.lines_removed})"
    if change is not None and change.before is None:
        return ToolCall(edit.tool_call_id, "agentEdits", title, False, False, None, edit.path,
                        "Write", {"file_path": path, "content": change.after})
    claude: dict[str, Any] = {"file_path": path}
    if change is not None:
        claude.update(old_string=change.before, new_string=change.after)
    return ToolCall(edit.tool_call_id, "agentEdits", title, False, False, None, edit.path,
                    "Edit", claude)


def describe_file_read(path: str, call_id: str, workspace: Workspace) -> ToolCall:
    """One file of ``agentFileReads`` (the agent reads a client file: Claude Code ``Read``)."""
    absolute = path if path.startswith("/") else os.path.join(workspace.root, path)
    return ToolCall(call_id, "agentFileReads", path, False, True, f"cat {shlex.quote(path)}",
                    None, "Read", {"file_path": absolute})


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

    __slots__ = ("log", "proc", "read")

    def __init__(self, proc: subprocess.Popen[bytes], log: str) -> None:
        self.proc = proc
        self.log = log
        self.read = 0


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)


class Tools:
    """Runs tool calls in one workspace; keeps background shells until :meth:`close`."""

    def __init__(self, workspace: Workspace) -> None:
        self.workspace = workspace
        self._shells: dict[str, _Background] = {}
        self._logs: str | None = None

    def close(self) -> None:
        """Kill every background shell still running (with its process group)."""
        for shell in self._shells.values():
            _kill_group(shell.proc)
            shell.proc.wait()
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
        name, args = use.tool_name, dict(use.args or {})
        handler = _REAL.get(name)
        if handler is None:
            text = _text(use.result) if use.result is not None else "(no scripted result)"
            return Outcome(use.status not in ("error", "failed"), text, simulated=True,
                           executed=False)
        return self._guarded(handler, args)

    def read_file(self, path: str) -> Outcome:
        """A whole file as ``agentFileReads`` reads it (confined like every tool)."""
        return self._guarded(Tools._read_file, {"path": path})

    def _guarded(self, handler: Any, args: dict[str, Any]) -> Outcome:
        try:
            outcome: Outcome = handler(self, args)
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

    def _run_cmd(self, args: dict[str, Any]) -> Outcome:
        ws = self.workspace
        command = _text(args.get("cmd"))
        cwd = ws.check_dir(ws.parts(str(args.get("cwd") or ".")))
        timeout_ms = min(_int(args, "timeout", "runCmd") or DEFAULT_TIMEOUT_MS, MAX_TIMEOUT_MS)
        env = scrubbed_env(ws.root, cwd)
        if _flag(args, "run_in_background"):
            return self._start_background(command, cwd, env)
        proc = subprocess.Popen([_SHELL, "-c", command], cwd=cwd, env=env,
                                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, start_new_session=True)
        timed_out = False
        try:
            out, _ = proc.communicate(timeout=timeout_ms / 1000)
        except subprocess.TimeoutExpired:
            timed_out = True
            _kill_group(proc)
            out, _ = proc.communicate()
        finally:
            _kill_group(proc)  # nothing it started outlives it
        text = out.decode("utf-8", "replace")
        if timed_out:
            text += f"\n(killed after the {timeout_ms} ms timeout)"
            return Outcome(False, text, exit_code=proc.returncode, timed_out=True)
        return Outcome(proc.returncode == 0, text, exit_code=proc.returncode)

    def _start_background(self, command: str, cwd: str, env: dict[str, str]) -> Outcome:
        if self._logs is None:
            self._logs = tempfile.mkdtemp(prefix="scenarist-agent-shells-")
        shell_id = f"shell-{len(self._shells) + 1}"
        log = os.path.join(self._logs, shell_id)
        with open(log, "wb") as sink:
            proc = subprocess.Popen([_SHELL, "-c", command], cwd=cwd, env=env,
                                    stdin=subprocess.DEVNULL, stdout=sink,
                                    stderr=subprocess.STDOUT, start_new_session=True)
        self._shells[shell_id] = _Background(proc, log)
        return Outcome(True, f"started in the background as {shell_id}", background=True)

    def _shell(self, args: dict[str, Any], key: str, tool: str) -> tuple[str, _Background]:
        shell_id = _text(args.get(key))
        shell = self._shells.get(shell_id)
        if shell is None:
            known = ", ".join(self._shells) or "none"
            raise AgentError(f"{tool}: no background shell {shell_id!r} (running: {known}); "
                             "start one with runCmd run_in_background: true")
        return shell_id, shell

    def _bash_output(self, args: dict[str, Any]) -> Outcome:
        _, shell = self._shell(args, "bash_id", "bashOutput")
        with open(shell.log, "rb") as f:
            f.seek(shell.read)
            data = f.read()
        shell.read += len(data)
        lines = data.decode("utf-8", "replace").splitlines(keepends=True)
        pattern = args.get("filter")
        if pattern:
            regex = _regex(str(pattern), 0, "bashOutput filter")
            lines = [line for line in lines if regex.search(line)]
        code = shell.proc.poll()
        return Outcome(True, "".join(lines), exit_code=code)

    def _kill_shell(self, args: dict[str, Any]) -> Outcome:
        shell_id, shell = self._shell(args, "shell_id", "killShell")
        _kill_group(shell.proc)
        code = shell.proc.wait()
        return Outcome(True, f"killed {shell_id}", exit_code=code)

    def _read_file(self, args: dict[str, Any]) -> Outcome:
        ws = self.workspace
        parts = ws.parts(_text(args.get("path")))
        encoding = str(args.get("encoding") or "utf-8")
        try:
            codecs.lookup(encoding)
        except LookupError:
            raise AgentError(f"readFile: unknown encoding {encoding!r}") from None
        try:
            text = ws.read_bytes(parts).decode(encoding)
        except UnicodeDecodeError:
            raise AgentError(f"{ws.display(parts)} is not {encoding} text") from None
        offset, limit = _int(args, "offset", "readFile"), _int(args, "limit", "readFile")
        if offset or limit is not None:
            lines = text.splitlines(keepends=True)
            start = max((offset or 1) - 1, 0)
            text = "".join(lines[start: None if limit is None else start + limit])
        return Outcome(True, text)

    def _write_file(self, args: dict[str, Any]) -> Outcome:
        ws = self.workspace
        parts = ws.parts(_text(args.get("path")))
        before = ws.read_text(parts) if ws.exists(parts) else None
        content = _text(args.get("content"))
        ws.write_text(parts, content)
        change = FileChange(ws.display(parts), before, content)
        verb = "created" if before is None else "updated"
        return Outcome(True, f"{verb} {change.path}", change=change)

    def _edit_file(self, args: dict[str, Any]) -> Outcome:
        ws = self.workspace
        parts = ws.parts(_text(args.get("path")))
        before = ws.read_text(parts)
        old, new = _text(args.get("old_string")), _text(args.get("new_string"))
        count = before.count(old) if old else 0
        where = ws.display(parts)
        if count == 0:
            raise AgentError(f"editFile: old_string is not in {where}")
        replace_all = _flag(args, "replace_all")
        if count > 1 and not replace_all:
            raise AgentError(f"editFile: old_string occurs {count} times in {where}; set "
                             "replace_all: true or give more context")
        after = before.replace(old, new) if replace_all else before.replace(old, new, 1)
        ws.write_text(parts, after)
        n = count if replace_all else 1
        return Outcome(True, f"updated {where} ({n} replacement{'s' * (n != 1)})",
                       change=FileChange(where, before, after))

    def _list_dir(self, args: dict[str, Any]) -> Outcome:
        ws = self.workspace
        parts = ws.parts(str(args.get("path") or "."))
        pattern = args.get("pattern")
        entries = ws.walk(parts, recursive=_flag(args, "recursive"))
        shown = [e.rel + ("/" if e.kind == "dir" else "") for e in entries
                 if not pattern or fnmatch.fnmatchcase(e.rel.rsplit("/", 1)[-1], str(pattern))]
        return Outcome(True, "".join(line + "\n" for line in shown))

    def _find(self, args: dict[str, Any]) -> Outcome:
        ws = self.workspace
        given = str(args.get("path") or ".")
        parts = ws.parts(given)
        name = str(args.get("name") or "*")
        kinds = {"file": "file", "f": "file", "dir": "dir", "d": "dir", "directory": "dir"}
        kind = kinds.get(str(args.get("type") or ""))
        if args.get("type") and kind is None:
            raise AgentError(f"find: type must be file or dir (got {args.get('type')!r})")
        found = [os.path.join(given, e.rel) for e in ws.walk(parts)
                 if fnmatch.fnmatchcase(e.rel.rsplit("/", 1)[-1], name)
                 and (kind is None or e.kind == kind)]
        return Outcome(True, "".join(line + "\n" for line in found))

    def _grep(self, args: dict[str, Any]) -> Outcome:
        return Outcome(True, _Grep(self.workspace, args).run())

    def _sed(self, args: dict[str, Any]) -> Outcome:
        ws = self.workspace
        parts = ws.parts(_text(args.get("path")))
        before = ws.read_text(parts)  # checks it is a regular file inside
        inplace = _flag(args, "inplace")
        argv = ["sed", "--sandbox", *(["-i"] if inplace else []), "-e",
                _text(args.get("expression")), "--", ws.absolute(parts)]
        proc = subprocess.run(argv, cwd=ws.root, env=scrubbed_env(ws.root, ws.root),
                              stdin=subprocess.DEVNULL, capture_output=True, timeout=60,
                              check=False)
        out = (proc.stdout + proc.stderr).decode("utf-8", "replace")
        change = None
        if inplace and proc.returncode == 0:
            change = FileChange(ws.display(parts), before, ws.read_text(parts))
        return Outcome(proc.returncode == 0, out, exit_code=proc.returncode, change=change)

    def _notebook_edit(self, args: dict[str, Any]) -> Outcome:
        ws = self.workspace
        parts = ws.parts(_text(args.get("notebook_path")))
        before = ws.read_text(parts)
        where = ws.display(parts)
        try:
            notebook = json.loads(before)
            cells = notebook["cells"]
        except (ValueError, KeyError, TypeError):
            raise AgentError(f"notebookEdit: {where} is not a Jupyter notebook") from None
        cell_id, mode = args.get("cell_id"), str(args.get("edit_mode") or "replace")
        index = next((i for i, c in enumerate(cells) if c.get("id") == cell_id), None)
        if cell_id is not None and index is None:
            raise AgentError(f"notebookEdit: no cell with id {cell_id!r} in {where}")
        source = _text(args.get("new_source")).splitlines(keepends=True)
        if mode == "delete" and index is not None:
            del cells[index]
        elif mode == "insert":
            kind = str(args.get("cell_type") or "code")
            cell: dict[str, Any] = {"cell_type": kind, "metadata": {}, "source": source}
            if kind == "code":
                cell.update(execution_count=None, outputs=[])
            cells.insert(0 if index is None else index + 1, cell)
        elif mode == "replace" and index is not None:
            cells[index]["source"] = source
        else:
            raise AgentError(f"notebookEdit: edit_mode {mode!r} needs a cell_id "
                             "(replace, delete) or is unknown (replace, insert, delete)")
        after = json.dumps(notebook, indent=1, ensure_ascii=False) + "\n"
        ws.write_text(parts, after)
        return Outcome(True, f"updated {where}", change=FileChange(where, before, after))


_REAL = {
    "runCmd": Tools._run_cmd, "readFile": Tools._read_file, "writeFile": Tools._write_file,
    "editFile": Tools._edit_file, "listDir": Tools._list_dir, "find": Tools._find,
    "grep": Tools._grep, "sed": Tools._sed, "notebookEdit": Tools._notebook_edit,
    "bashOutput": Tools._bash_output, "killShell": Tools._kill_shell,
}


def _regex(pattern: str, flags: int, what: str) -> re.Pattern[str]:
    try:
        return re.compile(pattern, flags)
    except re.error as exc:
        raise AgentError(f"{what}: bad regular expression {pattern!r}: {exc}") from None


class _Grep:
    """``grep`` as Claude Code's Grep answers: files_with_matches (default), content, count."""

    def __init__(self, workspace: Workspace, args: Mapping[str, Any]) -> None:
        self.ws = workspace
        self.args = args
        flags = re.IGNORECASE if _flag(args, "-i") else 0
        self.multiline = _flag(args, "multiline")
        if self.multiline:
            flags |= re.MULTILINE | re.DOTALL
        self.regex = _regex(_text(args.get("pattern")), flags, "grep")
        kind = args.get("type")
        if kind is not None and str(kind) not in _GREP_TYPES:
            raise AgentError(f"grep: unknown type {kind!r} (known: {', '.join(_GREP_TYPES)})")
        self.globs: tuple[str, ...] = _GREP_TYPES[str(kind)] if kind is not None else ()
        self.glob = str(args["glob"]) if args.get("glob") else None
        mode = str(args.get("output_mode") or "files_with_matches")
        if mode not in ("files_with_matches", "content", "count"):
            raise AgentError(f"grep: output_mode {mode!r} is not files_with_matches, content "
                             "or count")
        self.mode = mode

    def files(self) -> list[tuple[str, tuple[str, ...]]]:
        ws = self.ws
        parts = ws.parts(str(self.args.get("path") or "."))
        if ws.kind(parts) == "file":
            return [(ws.display(parts), parts)]
        found = []
        for entry in ws.walk(parts):
            if entry.kind != "file":
                continue
            name = entry.rel.rsplit("/", 1)[-1]
            if self.glob and not (fnmatch.fnmatchcase(name, self.glob)
                                  or fnmatch.fnmatchcase(entry.rel, self.glob)):
                continue
            if self.globs and not any(fnmatch.fnmatchcase(name, g) for g in self.globs):
                continue
            sub = (*parts, *entry.rel.split("/"))
            found.append((ws.display(sub), sub))
        return found

    def matching_lines(self, text: str) -> list[int]:
        lines = text.splitlines()
        if not self.multiline:
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
        limit = _int(self.args, "head_limit", "grep")
        if limit:
            out = out[:limit]
        return "".join(line + "\n" for line in out)

    def content(self, shown: str, lines: list[str], hits: list[int]) -> list[str]:
        context = _int(self.args, "-C", "grep") or 0
        before = _int(self.args, "-B", "grep") or context
        after = _int(self.args, "-A", "grep") or context
        numbers = _flag(self.args, "-n")
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
            out.append(f"{shown}{sep}{i + 1}{sep}{lines[i]}" if numbers
                       else f"{shown}{sep}{lines[i]}")
            previous = i
        return out
