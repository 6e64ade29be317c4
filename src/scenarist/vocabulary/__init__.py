"""Agent vocabularies: one table per agent, mapping the format's tool records to its calls.

A scenario says *what* the agent does with the typed records of
:mod:`scenarist.scenario.tools` (``RunCmd``, ``ReadFile``, ..., ``GenericTool``). Each agent
spells that differently: Claude Code calls ``Bash {command}``, Codex ``exec_command {cmd,
workdir}``. That spelling lives in exactly one module per agent, and every front end that
imitates the agent or answers it reads that module: the model API (``llm.profiles``,
``llm.code_mode``), the mock agent (``agent.tools`` → its ``claude-jsonl`` and
``codex-jsonl`` output), the ACP agent (``acp.tools``) and ``fake-codex``
(``codex.play_scenario``). ``tests/test_vocabulary_tables.py`` renders every tool through
every front end and compares the result with the table.

The form of a table module (copy it for the next agent, Gemini CLI):

- a module docstring that records each decision and the fact it rests on (the captured
  requests in ``tests/data/real-agent-requests``, the pinned CLIs in ``tests/node``);
- ``tool_call(tool, path) -> ...``: a pure function from one tool record to the agent's
  call; ``path`` (a :data:`Resolve`) turns a scenario path into the one the agent writes;
- the call's record types and, where a front end shows results, the result's shape;
- the inverse, ``scenario_tool(name, input, cwd=None) -> Tool``, for reading a recorded
  session back into scenario actions (``scenarist import``, ``scenarist record``): a call
  no row reads is a :class:`~scenarist.scenario.tools.GenericTool` of its name and input,
  never an error; paths inside ``cwd`` become the scenario's relative ones
  (:func:`relative`).

:mod:`.shell` is not a table: it is the POSIX shell command that does what a tool does,
for agents (and clients) whose only tool for it is a shell.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from scenarist.scenario.record import Record, replace

__all__ = ["AgentCall", "Resolve", "against", "given", "relative", "relative_paths"]

T = TypeVar("T", bound=Record)

#: a scenario path (None: the working directory) → the path the agent writes in a call
Resolve = Callable[[str | None], str]


@dataclass(frozen=True, slots=True)
class AgentCall:
    """One tool call in an agent's vocabulary: its tool name and JSON input."""

    name: str
    input: Mapping[str, Any]


def against(cwd: str) -> Resolve:
    """Paths made absolute against ``cwd`` (the agent's working directory), normalised."""
    def resolve(path: str | None) -> str:
        text = path or "."
        return posixpath.normpath(text if text.startswith("/") else posixpath.join(cwd, text))
    return resolve


def relative(cwd: str | None) -> Callable[[str], str]:
    """The inverse of :func:`against`: a path inside ``cwd`` as the scenario writes it
    (relative; ``.`` for ``cwd`` itself), any other path as it is."""
    root = posixpath.normpath(cwd) if cwd else None

    def unresolve(path: str) -> str:
        if root is None or not path.startswith("/"):
            return path
        norm = posixpath.normpath(path)
        if norm == root:
            return "."
        return posixpath.relpath(norm, root) if norm.startswith(root.rstrip("/") + "/") \
            else path
    return unresolve


def relative_paths(tool: T, rel: Callable[[str], str]) -> T:
    """A tool record with its ``path`` (and a command's ``cwd``) passed through ``rel``
    (:func:`relative`); the record itself when it has neither."""
    changes = {key: rel(value) for key in ("path", "cwd")
               if isinstance(value := getattr(tool, key, None), str)}
    return replace(tool, **changes) if changes else tool


def given(**values: Any) -> dict[str, Any]:
    """The optional arguments that are set (not None, not False): agents leave out the rest."""
    return {k: v for k, v in values.items() if v is not None and v is not False}
