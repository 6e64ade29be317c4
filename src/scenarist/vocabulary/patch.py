"""Reading Codex's ``apply_patch`` input back into scenario file tools.

The grammar (``*** Begin Patch`` / ``*** Add File:`` / ``*** Update File:`` / ``@@`` hunks
/ ``*** Delete File:`` / ``*** End Patch``) is the one ``llm.profiles.codex_patch`` writes
and Codex's own tool reads. A patch may change several files, so one call can stand for
several scenario tools: an added file is a ``writeFile`` of its lines, each hunk of an
update an ``editFile`` (its context and ``-`` lines → its context and ``+`` lines), a
deleted file an ``rm`` command. A patch this reader cannot follow (a move, a hunk of only
blank lines, text outside the grammar) gives None: the caller keeps the call as
written rather than guess.
"""

from __future__ import annotations

import shlex

from scenarist.scenario.tools import EditFile, RunCmd, Tool, WriteFile

__all__ = ["patch_tools"]

_BEGIN, _END = "*** Begin Patch", "*** End Patch"
_ADD, _UPDATE, _DELETE, _MOVE = "*** Add File: ", "*** Update File: ", "*** Delete File: ", \
    "*** Move to: "


def patch_tools(text: str) -> tuple[Tool, ...] | None:
    """The scenario tools ``text`` (an ``apply_patch`` input) stands for, in its order;
    None when it is not a patch this reader follows exactly."""
    lines = text.strip("\n").split("\n")
    if len(lines) < 2 or lines[0].strip() != _BEGIN or lines[-1].strip() != _END:
        return None
    body = lines[1:-1]
    tools: list[Tool] = []
    i = 0
    while i < len(body):
        line = body[i]
        i += 1
        if line.startswith(_ADD):
            added: list[str] = []
            while i < len(body) and body[i].startswith("+"):
                added.append(body[i][1:])
                i += 1
            content = "".join(x + "\n" for x in added)
            tools.append(WriteFile(line[len(_ADD):].strip(), content))
        elif line.startswith(_DELETE):
            tools.append(RunCmd("rm " + shlex.quote(line[len(_DELETE):].strip())))
        elif line.startswith(_UPDATE):
            path = line[len(_UPDATE):].strip()
            hunks: list[list[str]] = []
            while i < len(body) and not body[i].startswith("*** "):
                if body[i].startswith("@@"):
                    hunks.append([])
                elif hunks and body[i][:1] in (" ", "+", "-", ""):
                    hunks[-1].append(body[i])
                else:
                    return None
                i += 1
            if (i < len(body) and body[i].startswith(_MOVE)) or not hunks:
                return None
            for hunk in hunks:
                edit = _hunk_edit(path, hunk)
                if edit is None:
                    return None
                tools.append(edit)
        elif line.strip():
            return None
    return tuple(tools) or None


def _hunk_edit(path: str, hunk: list[str]) -> Tool | None:
    """One hunk as an edit: the lines before (context and removed, each with its end of
    line: a patch works on whole lines) → after; a hunk
    with no line before fills an empty file (a write)."""
    old = [x[1:] for x in hunk if x[:1] in (" ", "-", "")]
    new = [x[1:] for x in hunk if x[:1] in (" ", "+", "")]
    if not old:
        return WriteFile(path, "".join(x + "\n" for x in new))
    if not any(x.strip() for x in old):  # only blank lines: no place to find
        return None
    return EditFile(path, "".join(x + "\n" for x in old), "".join(x + "\n" for x in new))
