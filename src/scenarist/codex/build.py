"""Pure builders for the EventMsg sequences Codex emits for each kind of activity.

Each returns a list of events for one simulated action (a command run, a patch,
an MCP call...), shaped like openai/codex's protocol so hosts' log normalisers
see what they would see from the real agent. Nothing here runs, writes or
connects: a "command" is only described, its output is the text we are given.
"""

from __future__ import annotations

from binascii import b2a_base64
from typing import TYPE_CHECKING

from scenarist.codex.rng import seeded_chunks

if TYPE_CHECKING:
    from typing import Any

    from scenarist.codex.turn import CodexTurn

    CodexEvent = dict[str, Any]

MODEL = "fake-codex"


def session_configured(
    session_id: str,
    *,
    cwd: str,
    model: str = MODEL,
    approvals: bool = False,
    sandbox: str = "workspace-write",
) -> CodexEvent:
    """The ``session_configured`` a host waits for before anything else."""
    policy: dict[str, Any] = {"type": sandbox}
    if sandbox == "workspace-write":
        policy.update(network_access=False, exclude_tmpdir_env_var=False, exclude_slash_tmp=False)
    return {
        "type": "session_configured",
        "session_id": session_id,
        "model": model,
        "model_provider_id": "scenarist",
        "approval_policy": "on-request" if approvals else "never",
        "sandbox_policy": policy,
        "cwd": cwd,
        "history_log_id": 0,
        "history_entry_count": 0,
        "rollout_path": None,
    }


def _streamed(turn: CodexTurn, text: str, delta_type: str, final: CodexEvent) -> list[CodexEvent]:
    out: list[CodexEvent] = [
        {"type": delta_type, "delta": piece}
        for piece in seeded_chunks(text, turn.rng, turn.chunk_min, turn.chunk_max)
    ]
    out.append(final)
    return out


def message(turn: CodexTurn, text: str) -> list[CodexEvent]:
    """Streamed assistant text: ``agent_message_delta`` chunks, then the whole ``agent_message``."""
    return _streamed(turn, text, "agent_message_delta", {"type": "agent_message", "message": text})


def reasoning(turn: CodexTurn, text: str) -> list[CodexEvent]:
    """Streamed reasoning summary: ``agent_reasoning_delta`` chunks, then ``agent_reasoning``."""
    return _streamed(turn, text, "agent_reasoning_delta", {"type": "agent_reasoning", "text": text})


def _duration(turn: CodexTurn, lo_ms: int, hi_ms: int) -> dict[str, int]:
    ms = turn.rng.between(lo_ms, hi_ms)
    return {"secs": ms // 1000, "nanos": (ms % 1000) * 1_000_000}


def _exec_fields(
    turn: CodexTurn, call_id: str, command: list[str], cwd: str | None = None
) -> CodexEvent:
    """The fields every exec event about one command shares (``cwd``: its ``workdir``,
    by default the turn's)."""
    return {
        "call_id": call_id,
        "turn_id": turn.turn_id,
        "command": command,
        "cwd": cwd or turn.cwd,
        "parsed_cmd": [{"type": "unknown", "cmd": _script(command)}],
        "source": "agent",
    }


def _script(command: list[str]) -> str:
    """The command line a shell argv runs (what Codex's ``parsed_cmd`` shows)."""
    return command[2] if command[:2] == ["/bin/bash", "-lc"] else " ".join(command)


def shell_argv(script: str) -> list[str]:
    """How Codex runs a command the model asked for: through a login shell, as ``codex exec
    --json`` then prints it (``/bin/bash -lc 'python3 fib.py'``). Every mode uses this form."""
    return ["/bin/bash", "-lc", script]


def exec_begin(
    turn: CodexTurn, call_id: str, command: list[str], *, cwd: str | None = None
) -> CodexEvent:
    """``exec_command_begin``: a command "starts" (it is never actually run)."""
    return {"type": "exec_command_begin", **_exec_fields(turn, call_id, command, cwd)}


def exec_output(call_id: str, stream: str, text: str) -> CodexEvent:
    """``exec_command_output_delta``: a chunk of output, base64 as Codex sends raw bytes."""
    chunk = b2a_base64(text.encode(), newline=False).decode("ascii")
    return {
        "type": "exec_command_output_delta",
        "call_id": call_id,
        "stream": stream,
        "chunk": chunk,
    }


def exec_end(
    turn: CodexTurn,
    call_id: str,
    command: list[str],
    *,
    stdout: str,
    stderr: str,
    exit_code: int,
    status: str | None = None,
    cwd: str | None = None,
) -> CodexEvent:
    """``exec_command_end`` with the captured output; status follows the exit code by default."""
    aggregated = stdout + stderr
    return {
        "type": "exec_command_end",
        **_exec_fields(turn, call_id, command, cwd),
        "stdout": stdout,
        "stderr": stderr,
        "aggregated_output": aggregated,
        "exit_code": exit_code,
        "duration": _duration(turn, 20, 900),
        "formatted_output": aggregated.rstrip("\n"),
        "status": status or ("completed" if exit_code == 0 else "failed"),
    }


def exec_command(
    turn: CodexTurn,
    command: list[str],
    *,
    stdout: str = "",
    stderr: str = "",
    exit_code: int = 0,
    approvals: bool = False,
    declined: bool = False,
) -> list[CodexEvent]:
    """A simulated shell command: (approval request), begin, output deltas, end.

    ``declined`` models a user refusing the approval: the command never "runs".
    """
    call_id = f"call_{turn.rng.hex(24)}"
    out: list[CodexEvent] = []
    if approvals or declined:
        request = exec_begin(turn, call_id, command)
        del request["source"]
        request.update(
            type="exec_approval_request", reason="fake-codex asks before running commands"
        )
        out.append(request)
    if declined:
        return [
            *out,
            exec_end(
                turn,
                call_id,
                command,
                stdout="",
                stderr="command declined by user",
                exit_code=1,
                status="declined",
            ),
        ]
    out.append(exec_begin(turn, call_id, command))
    out += [
        exec_output(call_id, name, text)
        for name, text in (("stdout", stdout), ("stderr", stderr))
        if text
    ]
    out.append(exec_end(turn, call_id, command, stdout=stdout, stderr=stderr, exit_code=exit_code))
    return out


def file_change(kind: str, *, content: str = "", diff: str = "") -> dict[str, Any]:
    """A Codex ``FileChange``: ``add``/``delete`` carry content, ``update`` a unified diff."""
    if kind == "update":
        return {"type": "update", "unified_diff": diff, "move_path": None}
    return {"type": kind, "content": content}


def _absolute(turn: CodexTurn, path: str) -> str:
    return path if path.startswith("/") else f"{turn.cwd.rstrip('/')}/{path}"


def apply_patch(
    turn: CodexTurn,
    changes: dict[str, dict[str, Any]],
    *,
    approvals: bool = False,
    success: bool = True,
) -> list[CodexEvent]:
    """A simulated ``apply_patch``: (approval request), begin, end. No file is touched.

    Paths are absolute, as Codex reports them: a relative one is taken from the turn's cwd."""
    changes = {_absolute(turn, path): change for path, change in changes.items()}
    call_id = f"call_{turn.rng.hex(24)}"
    out: list[CodexEvent] = []
    if approvals:
        out.append(
            {
                "type": "apply_patch_approval_request",
                "call_id": call_id,
                "turn_id": turn.turn_id,
                "changes": changes,
                "reason": "fake-codex asks before editing files",
            }
        )
    out.append(
        {
            "type": "patch_apply_begin",
            "call_id": call_id,
            "turn_id": turn.turn_id,
            "auto_approved": not approvals,
            "changes": changes,
        }
    )
    files = ", ".join(changes)
    out.append(
        {
            "type": "patch_apply_end",
            "call_id": call_id,
            "turn_id": turn.turn_id,
            "stdout": f"Success. Updated the following files:\n{files}\n" if success else "",
            "stderr": "" if success else f"failed to apply patch to {files}\n",
            "success": success,
            "changes": changes,
            "status": "completed" if success else "failed",
        }
    )
    return out


def mcp_call(
    turn: CodexTurn,
    server: str,
    tool: str,
    arguments: Any,
    *,
    result: str | None = None,
    error: str | None = None,
) -> list[CodexEvent]:
    """A simulated MCP tool call; ``error`` makes it fail with that message."""
    call_id = f"call_{turn.rng.hex(24)}"
    invocation = {"server": server, "tool": tool, "arguments": arguments}
    outcome: dict[str, Any]
    if error is not None:
        outcome = {"Err": error}
    else:
        text = result if result is not None else f"{server}.{tool} ok"
        outcome = {"Ok": {"content": [{"type": "text", "text": text}], "isError": False}}
    return [
        {"type": "mcp_tool_call_begin", "call_id": call_id, "invocation": invocation},
        {
            "type": "mcp_tool_call_end",
            "call_id": call_id,
            "invocation": invocation,
            "duration": _duration(turn, 10, 400),
            "result": outcome,
        },
    ]


def web_search(turn: CodexTurn, query: str) -> list[CodexEvent]:
    """A simulated web search (begin, end with the query)."""
    call_id = f"ws_{turn.rng.hex(24)}"
    return [
        {"type": "web_search_begin", "call_id": call_id},
        {
            "type": "web_search_end",
            "call_id": call_id,
            "query": query,
            "action": {"type": "search", "query": query},
        },
    ]


def plan_update(steps: list[str], *, done: int = 0, statuses: list[str] | None = None) -> CodexEvent:
    """The agent's to-do list: the first ``done`` steps completed, the next in progress
    (or each step's status from ``statuses``)."""
    if statuses is None:
        statuses = [
            "completed" if i < done else ("in_progress" if i == done else "pending")
            for i in range(len(steps))
        ]
    plan = [{"step": step, "status": status} for step, status in zip(steps, statuses, strict=True)]
    return {"type": "plan_update", "plan": plan, "explanation": None}


def note(etype: str, text: str) -> CodexEvent:
    """``warning``, ``error``, ``stream_error`` or ``background_event`` with a message."""
    return {"type": etype, "message": text}
