"""The first step where a conversation left its scenario: what a refusal names, pure.

When a request does not fit the scenario (another prompt, another tool call, a tool result
other than the scenario's ``result``/``status``, a missing tool result, no scenario at all),
the server's 409/404 and its journal name the first divergent step: where it is (the turn and
call, the scenario's ``file:line``), which field differs, and expected vs got as a short diff
(long values cut around the first difference, secrets masked), plus the nearest scenarios when
selection failed. A person reads it in an SDK exception; a test reads the journal's
``divergence`` object.

Tool results are compared only where the scenario states them, and only for the tools whose
result *is* their output (``runCmd``, ``readFile``, ``grep``, ``listDir``, ``find``, ``sed``,
``bashOutput``: the mock agent's rule, :mod:`scenarist.agent.compare`). Agents wrap what a
tool printed (Codex: ``Process exited with code 0`` … ``Output:``; Claude Code's ``Read``:
numbered lines), so the scenario's text matches when its normalised lines are a run of whole
lines of the result (line numbers stripped, :mod:`scenarist.text_compare`'s normalisation).

The record itself (:class:`~scenarist.divergence.Divergence`: masking, cutting, the message)
is shared with the mock agent and the test executor's reports. This is the slow path: nothing here runs for a request that fits its scenario, except
:func:`carries` (one cached set lookup per call in the history).
"""

# Annotations are not postponed here: see "Records" in docs/architecture.md.
import re
from collections.abc import Sequence
from functools import lru_cache
from typing import Any, NamedTuple

from scenarist.divergence import Divergence, cut, mask
from scenarist.json_out import as_text
from scenarist.llm.script import Action, EditAction, ToolAction
from scenarist.llm.tool_fit import ROLE_HINTS, ROLE_NAMES, Role, norm
from scenarist.scenario.tools import (
    TOOLS,
    BashOutput,
    EditFile,
    Find,
    Grep,
    KillShell,
    ListDir,
    ReadFile,
    RunCmd,
    Sed,
    WriteFile,
)
from scenarist.text_compare import normalise
from scenarist.vocabulary import claude_code

__all__ = ["Divergence", "action_label", "carries", "mask", "missing_result", "result_divergence"]

#: the tools whose result is their output (compared with the scenario's ``result``)
OUTPUT_TOOLS: tuple[type[Any], ...] = (RunCmd, ReadFile, Grep, ListDir, Find, Sed, BashOutput)

_LINE_NUMBER = re.compile(r"^\s*\d+(?:\t|→)")
_EXIT = re.compile(r"(?:Process exited with code|Exit code:?)\s+(-?\d+)")
_SUCCESS = ("ok", "completed")
_FAILURE = ("error", "failed")


def action_label(action: Action) -> str:
    """A scenario action as a person recognises it: ``runCmd 'npm test'``,
    ``writeFile 'a.txt'``, ``agentEdits 'notes.md'``."""
    if isinstance(action, EditAction):
        return f"agentEdits {action.path!r}"
    call = action.call
    if isinstance(call, RunCmd):
        return f"runCmd {cut(call.cmd, 0, 60)!r}"
    for key in ("path", "pattern", "url", "query", "description"):
        value = action.args.get(key)
        if isinstance(value, str) and value:
            return f"{action.tool} {cut(value, 0, 60)!r}"
    return action.tool


# -- which call names may carry a scenario action -------------------------------------------

_SHELL_LIKE: tuple[Role, ...] = ("shell", "read")
_ROLES: dict[type[Any], tuple[Role, ...]] = {
    RunCmd: ("shell",), BashOutput: ("shell",), KillShell: ("shell",),
    ReadFile: _SHELL_LIKE, Grep: _SHELL_LIKE, ListDir: _SHELL_LIKE, Find: _SHELL_LIKE,
    Sed: _SHELL_LIKE, WriteFile: ("write", "edit", "shell"), EditFile: ("edit", "write", "shell"),
}
_EDIT_ROLES: tuple[Role, ...] = ("edit", "write", "shell")
#: names any action may go out under: Codex's code-mode cell and patch tool, a nameless call
_ANY = frozenset({"exec", "applypatch", ""})
_LISTING = ("grep", "glob", "ls", "find", "list", "search", "sed")


def carries(action: Action, name: str) -> bool:
    """Whether a call named ``name`` in the history can be ``action`` as the server sent it
    (its own name or the format's spelling, Claude Code's or Codex's tool for it, or a tool
    of its role as tool fitting picks one). Lenient on purpose: a call the server made must
    never be taken for another."""
    if isinstance(action, EditAction):
        return _carries("agentEdits", norm(name))
    return _carries(action.tool, norm(name))


@lru_cache(maxsize=4096)
def _carries(tool: str, got: str) -> bool:
    kind = TOOLS.get(tool) if tool != "agentEdits" else None  # None for a generic tool too
    own = norm(tool)
    if got in _ANY or own == got or own in got or (got and got in own):
        return True
    claude = claude_code.NAMES.get(kind) if kind is not None else None
    if claude is not None and norm(claude) == got:
        return True
    roles = _EDIT_ROLES if tool == "agentEdits" else _ROLES.get(kind, ()) if kind else ()
    if kind in (Grep, ListDir, Find, Sed) and any(word in got for word in _LISTING):
        return True
    return any(got in ROLE_NAMES[role] or any(h in got for h in ROLE_HINTS[role])
               for role in roles)


# -- tool results against the scenario's result/status ---------------------------------------


class ToolCall(NamedTuple):
    """A tool call in the request's history and the result the client sent for it."""

    name: str
    result: str | None  # None: the request carries no result for the call
    error: bool | None  # whether the result reports a failure (None: cannot tell)


def failed(result: str, flagged: bool | None) -> bool | None:
    """Whether a tool result reports a failure: the API's flag (Anthropic ``is_error``), else
    an exit code the agent wrote (Codex ``Process exited with code N``, ``Exit code: N``);
    None when the result does not say."""
    if flagged is not None:
        return flagged
    found = _EXIT.search(result)
    return None if found is None else found.group(1) != "0"


def result_matches(expected: str, got: str) -> bool:
    """Whether the scenario's ``expected`` text is what the tool printed, inside the result
    the agent sent (see the module doc)."""
    if got.strip() == expected.strip():
        return True
    if "<" in expected or "[REDACTED]" in expected:  # a recorded result: <TMP>, <UUID>,
        # a hook's <BUILD>, a mask stand for what changes between runs
        from scenarist.record.normalise import stands_for  # loaded only for such results

        if stands_for(normalise(expected), normalise(got)):
            return True
    want = _lines(expected)
    if not want[0] and len(want) == 1:
        return True
    if any(line not in got for line in want):  # each line must occur somewhere: cheap
        return False
    lines = normalise(got).split("\n")
    if _has_run(lines, want):
        return True
    return _has_run([_LINE_NUMBER.sub("", line, count=1).rstrip() for line in lines], want)


@lru_cache(maxsize=1024)
def _lines(expected: str) -> tuple[str, ...]:
    """A scenario's expected text as compared (the same few texts on every request)."""
    return tuple(normalise(expected).split("\n"))


def _has_run(lines: Sequence[str], want: tuple[str, ...]) -> bool:
    n = len(want)
    return any(tuple(lines[i:i + n]) == want for i in range(len(lines) - n + 1))


def result_divergence(action: ToolAction, call: ToolCall) -> tuple[str, str, str] | None:
    """How ``call``'s result differs from what ``action`` expects, as (field, expected, got),
    or None."""
    if call.result is None:
        return missing_result(action)
    status = action.status
    if status in _SUCCESS + _FAILURE and call.error is not None:
        expects_failure = status in _FAILURE
        if call.error != expects_failure:
            wanted = "a failure" if expects_failure else "a success"
            return (f"tool status of {action_label(action)}", f"{wanted} (status: {status})",
                    "a failure" if call.error else "a success")
    if action.result is not None and isinstance(action.call, OUTPUT_TOOLS):
        expected = as_text(action.result)
        if not result_matches(expected, call.result):
            return f"tool result of {action_label(action)}", expected, call.result
    return None


def missing_result(action: Action) -> tuple[str, str, str]:
    """The (field, expected, got) of a call the request sends no result for."""
    return (f"tool result of {action_label(action)}", "a tool result for the call",
            "no tool result in the request")
