"""A scenario tool as the shell command that does the same, for shell-only vocabularies.

Codex has no read, search or list tools: it runs ``cat``, ``grep`` and ``ls`` through
``exec_command``. Claude Code runs ``sed`` through ``Bash``. A client that declares only a
shell tool gets the same commands (``llm.profiles`` fitting). Paths are the agent's
(:data:`~scenarist.vocabulary.Resolve`: absolute against its working directory).

Decisions (issue 22 item 2; the two old copies disagreed):

- ``runCmd`` with a ``cwd``: ``cd <absolute> && cmd``. Claude Code's Bash keeps its working
  directory between calls and its prompt asks for absolute paths, so a relative ``cd``
  would compound.
- ``listDir``: ``ls -la`` (the listing a coding agent asks for: hidden files, kinds);
  recursive: ``find``. A ``pattern`` filters entry names at any level (``find -name``),
  as the mock agent applies it.
- ``grep``: ``grep -rn``, honouring ``-i`` and ``glob`` (``--include``) like Claude Code's
  Grep honours them.
- the inverse, :func:`shell_tool`, reads a command back only when it is exactly what
  :func:`shell_command` writes for the tool it reads (rendered again, the same text):
  anything else (pipes, other flags) stays a ``runCmd`` as written. A ``find -name``
  without ``-type`` reads as ``find`` (a recursive ``listDir`` with a pattern is the same
  command).
"""

from __future__ import annotations

import shlex
from collections.abc import Callable, Mapping
from typing import Any

from scenarist.scenario.tools import Find, Grep, ListDir, ReadFile, RunCmd, Sed, Tool
from scenarist.vocabulary import Resolve

__all__ = ["run_cmd", "shell_command", "shell_tool"]


def run_cmd(cmd: str, cwd: str | None, path: Resolve) -> str:
    """``cmd`` run in ``cwd`` (the agent's own directory when None, empty or ``.``)."""
    return cmd if cwd in (None, "", ".") else f"cd {shlex.quote(path(cwd))} && {cmd}"


def shell_command(tool: Tool, path: Resolve) -> str | None:
    """The shell command that does what ``tool`` does; None for tools a shell does not
    stand in for (file writes and edits are patches, the rest needs the outside world)."""
    row = _COMMANDS.get(type(tool))
    return row(tool, path) if row is not None else None


def _run(tool: RunCmd, path: Resolve) -> str:
    return run_cmd(tool.cmd, tool.cwd, path)


def _read(tool: ReadFile, path: Resolve) -> str:
    quoted = shlex.quote(path(tool.path))
    if tool.offset or tool.limit:
        first = tool.offset or 1
        last = first + tool.limit - 1 if tool.limit else "$"
        return f"sed -n '{first},{last}p' {quoted}"
    return f"cat {quoted}"


def _grep(tool: Grep, path: Resolve) -> str:
    q = shlex.quote
    cmd = "grep -rn" + ("i" if tool.case_insensitive else "")
    if tool.glob:
        cmd += f" --include={q(tool.glob)}"
    return f"{cmd} -e {q(tool.pattern)} {q(path(tool.path))}"


def _list(tool: ListDir, path: Resolve) -> str:
    quoted = shlex.quote(path(tool.path))
    if tool.pattern:
        depth = "" if tool.recursive else " -mindepth 1 -maxdepth 1"
        return f"find {quoted}{depth} -name {shlex.quote(tool.pattern)}"
    return f"find {quoted}" if tool.recursive else f"ls -la {quoted}"


def _find(tool: Find, path: Resolve) -> str:
    q = shlex.quote
    cmd = f"find {q(path(tool.path))} -name {q(tool.name_pattern or '*')}"
    if tool.type is not None:
        cmd += " -type " + ("f" if tool.type == "file" else "d")
    return cmd


def _sed(tool: Sed, path: Resolve) -> str:
    flag = "-i " if tool.inplace else ""
    return f"sed {flag}{shlex.quote(tool.expression)} {shlex.quote(path(tool.path))}"


#: the tools a shell command stands in for, one row each
_COMMANDS: Mapping[type[Any], Callable[[Any, Resolve], str]] = {
    RunCmd: _run, ReadFile: _read, Grep: _grep, ListDir: _list, Find: _find, Sed: _sed,
}


def shell_tool(cmd: str) -> Tool:
    """The tool a shell command stands for (paths as the command writes them): a read,
    search, listing or ``sed`` when ``cmd`` is exactly that tool's command, else ``runCmd``;
    ``cd DIR && cmd`` is ``cmd`` run in DIR."""
    head, _, rest = cmd.partition(" && ")
    try:
        words = shlex.split(cmd)
        cd = shlex.split(head) if rest else []
    except ValueError:
        return RunCmd(cmd)
    if len(cd) == 2 and cd[0] == "cd" and run_cmd(rest, cd[1], _as_written) == cmd:
        return RunCmd(rest, cwd=cd[1])
    for tool in _candidates(words):
        if shell_command(tool, _as_written) == cmd:
            return tool
    return RunCmd(cmd)


def _as_written(path: str | None) -> str:
    return path or "."


def _candidates(w: list[str]) -> list[Tool]:
    """The tools whose command ``w`` (its words) could be; each is checked by rendering it
    again, so these only need to be right when the command is one of :data:`_COMMANDS`'."""
    n = len(w)
    out: list[Tool] = []
    if n == 2 and w[0] == "cat":
        out.append(ReadFile(w[1]))
    if n == 4 and w[:2] == ["sed", "-n"] and w[2].endswith("p"):
        first, _, last = w[2][:-1].partition(",")
        if first.isdigit() and (last.isdigit() or last == "$"):
            start = int(first)
            out.append(ReadFile(w[3], offset=start,
                                limit=None if last == "$" else int(last) - start + 1))
    if n == 3 and w[0] == "sed":
        out.append(Sed(w[1], w[2]))
    if n == 4 and w[:2] == ["sed", "-i"]:
        out.append(Sed(w[2], w[3], inplace=True))
    if w[:1] == ["grep"] and n >= 5 and w[-3] == "-e":
        include = next((x[len("--include="):] for x in w if x.startswith("--include=")), None)
        out.append(Grep(w[-2], w[-1], glob=include, case_insensitive=w[1] == "-rni"))
    if n == 3 and w[:2] == ["ls", "-la"]:
        out.append(ListDir(w[2]))
    if w[:1] == ["find"] and n >= 2:
        out.extend(_find_candidates(w))
    return out


def _find_candidates(w: list[str]) -> list[Tool]:
    n, path = len(w), w[1]
    if n == 2:
        return [ListDir(path, recursive=True)]
    if n == 8 and w[2:6] == ["-mindepth", "1", "-maxdepth", "1"]:
        return [ListDir(path, pattern=w[7])]
    kind = {"f": "file", "d": "dir"}.get(w[5]) if n == 6 and w[4] == "-type" else None
    if n in (4, 6) and w[2] == "-name":
        return [Find(path, w[3], type=kind)]  # type: ignore[arg-type]
    return []
