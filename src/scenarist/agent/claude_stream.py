"""Claude Code's ``--output-format stream-json`` lines, as pure builders.

The shapes follow what Claude Code 2.1.330 prints in print mode (``claude -p ...
--output-format stream-json --verbose``), captured against ``scenarist llm``: one
``system``/``init`` line, then one ``assistant`` line per content block (thinking, text or
tool_use; blocks of one model response share the message id), a ``user`` line with the
``tool_result`` of each tool call, and a ``result`` line that closes each prompt's turn.
Only the fields a log normaliser reads are produced; Claude's many informational extras
(plugins, slash commands, cost breakdowns) are left out.

Every function returns a ``dict`` ready for ``json.dumps``; nothing here does I/O or reads a
clock (timestamps and ids come in as arguments).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["VERSION", "assistant", "init", "result", "text_block", "thinking_block",
           "tool_result", "tool_use_block", "usage"]

VERSION = "2.1.330"  # the Claude Code release whose output these shapes follow
MODEL = "scenarist-mock"


def usage(input_tokens: int = 0, output_tokens: int = 0) -> dict[str, int]:
    return {"input_tokens": input_tokens, "output_tokens": output_tokens,
            "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}


def init(*, session_id: str, uuid: str, cwd: str, tools: Sequence[str],
         model: str = MODEL, permission_mode: str = "acceptEdits") -> dict[str, Any]:
    """The first line: the session, its working directory, tools and model."""
    return {"type": "system", "subtype": "init", "cwd": cwd, "session_id": session_id,
            "tools": list(tools), "mcp_servers": [], "model": model,
            "permissionMode": permission_mode, "slash_commands": [], "apiKeySource": "none",
            "claude_code_version": VERSION, "output_style": "default", "agents": [],
            "uuid": uuid}


def thinking_block(text: str) -> dict[str, Any]:
    signature = "sig_" + hashlib.sha1(text.encode()).hexdigest()
    return {"type": "thinking", "thinking": text, "signature": signature}


def text_block(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


def tool_use_block(tool_use_id: str, name: str, tool_input: Mapping[str, Any]) -> dict[str, Any]:
    return {"type": "tool_use", "id": tool_use_id, "name": name, "input": dict(tool_input)}


def assistant(block: Mapping[str, Any], *, session_id: str, message_id: str, uuid: str,
              timestamp: str, model: str = MODEL) -> dict[str, Any]:
    """One content block of a model response (Claude Code prints each block on its own line)."""
    message = {"id": message_id, "type": "message", "role": "assistant", "model": model,
               "content": [dict(block)], "stop_reason": None, "stop_sequence": None,
               "usage": usage(output_tokens=1), "context_management": None}
    return {"type": "assistant", "message": message, "parent_tool_use_id": None,
            "session_id": session_id, "uuid": uuid, "timestamp": timestamp}


def tool_result(tool_use_id: str, content: str, *, is_error: bool | None, session_id: str,
                uuid: str, timestamp: str,
                detail: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The ``user`` line that carries a tool's result back (``detail``: ``tool_use_result``).

    ``is_error`` None leaves the flag out, as Claude Code does for a successful Write or Edit.
    """
    block: dict[str, Any] = {"tool_use_id": tool_use_id, "type": "tool_result",
                             "content": content}
    if is_error is not None:
        block["is_error"] = is_error
    line: dict[str, Any] = {"type": "user", "message": {"role": "user", "content": [block]},
                            "parent_tool_use_id": None, "session_id": session_id,
                            "uuid": uuid, "timestamp": timestamp}
    if detail is not None:
        line["tool_use_result"] = dict(detail)
    return line


def result(text: str, *, is_error: bool, session_id: str, uuid: str, duration_ms: int,
           num_turns: int, input_tokens: int, output_tokens: int) -> dict[str, Any]:
    """The line that closes a prompt's turn: the final text and the turn's totals."""
    return {"type": "result", "subtype": "success", "is_error": is_error,
            "duration_ms": duration_ms, "duration_api_ms": duration_ms, "num_turns": num_turns,
            "result": text, "stop_reason": "end_turn", "session_id": session_id,
            "total_cost_usd": 0.0, "usage": usage(input_tokens, output_tokens),
            "permission_denials": [], "terminal_reason": "completed", "uuid": uuid}
