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
"""

from __future__ import annotations

import shlex

from scenarist.scenario.tools import Find, Grep, ListDir, ReadFile, RunCmd, Sed, Tool
from scenarist.vocabulary import Resolve

__all__ = ["run_cmd", "shell_command"]


def run_cmd(cmd: str, cwd: str | None, path: Resolve) -> str:
    """``cmd`` run in ``cwd`` (the agent's own directory when None, empty or ``.``)."""
    return cmd if cwd in (None, "", ".") else f"cd {shlex.quote(path(cwd))} && {cmd}"


def shell_command(tool: Tool, path: Resolve) -> str | None:
    """The shell command that does what ``tool`` does; None for tools a shell does not
    stand in for (file writes and edits are patches, the rest needs the outside world)."""
    q = shlex.quote
    match tool:
        case RunCmd(cmd=cmd, cwd=cwd):
            return run_cmd(cmd, cwd, path)
        case ReadFile(path=file, offset=offset, limit=limit):
            quoted = q(path(file))
            if offset or limit:
                first = offset or 1
                last = first + limit - 1 if limit else "$"
                return f"sed -n '{first},{last}p' {quoted}"
            return f"cat {quoted}"
        case Grep(pattern=pattern, path=where, glob=glob, case_insensitive=insensitive):
            cmd = "grep -rn" + ("i" if insensitive else "")
            if glob:
                cmd += f" --include={q(glob)}"
            return f"{cmd} -e {q(pattern)} {q(path(where))}"
        case ListDir(path=where, recursive=recursive, pattern=pattern):
            quoted = q(path(where))
            if pattern:
                depth = "" if recursive else " -mindepth 1 -maxdepth 1"
                return f"find {quoted}{depth} -name {q(pattern)}"
            return f"find {quoted}" if recursive else f"ls -la {quoted}"
        case Find(path=where, name_pattern=name, type=kind):
            cmd = f"find {q(path(where))} -name {q(name or '*')}"
            if kind is not None:
                cmd += " -type " + ("f" if kind == "file" else "d")
            return cmd
        case Sed(expression=expression, path=file, inplace=inplace):
            flag = "-i " if inplace else ""
            return f"sed {flag}{q(expression)} {q(path(file))}"
    return None
