"""Wire formats: EventMsg steps → output lines.

``codex-event`` wraps each event in the JSON-RPC notification ``codex mcp-server``
writes (``{"jsonrpc":"2.0","method":"codex/event","params":{"id":..,"msg":..}}``).
``exec-json`` maps the same events to today's ``codex exec --json`` stream the way
Codex's own exec processor does (``thread.started``, ``turn.started``,
``item.*``, ``turn.completed``), so one simulation serves both kinds of host.
Encoders are pure apart from the mapper's per-run bookkeeping (item ids, open
items, usage); each call returns whole lines ending in ``\\n`` (possibly none).
"""

from __future__ import annotations

import json
import shlex
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from scenarist.codex.turn import CodexEvent

FORMATS = ("codex-event", "exec-json")


#: no check for circular containers: events are built from JSON and YAML values (the loader
#: refuses alias cycles), and the check costs ~1 µs of the ~1.4 µs a small event takes
_encode = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), check_circular=False).encode


def dumps(value: Any) -> str:
    """Compact UTF-8 JSON text, as serde_json writes it; shared by every writer.

    The standard library's encoder, not orjson: importing orjson imports ``dataclasses``,
    ``uuid`` and ``datetime`` (~63 M instructions, more than fake-codex's whole first line
    took before, ~89 M), and the first line has a start-up budget (docs/architecture.md).
    """
    return _encode(value)


def raw_line(value: Any) -> str:
    """A raw JSON value (e.g. a ``notify`` payload) as one line."""
    return dumps(value) + "\n"


class CodexEventEncoder:
    """EventMsg → ``codex/event`` JSON-RPC notification lines.

    Each line is ``prefix + dumps(event) + SUFFIX``; writers may use the two
    attributes directly to save a call per event.
    """

    __slots__ = ("prefix",)
    SUFFIX = "}}\n"

    def __init__(self) -> None:
        self.prefix = ""
        self.begin_turn(1)

    def begin_turn(self, number: int) -> None:
        """Events of turn ``number`` carry ``params.id = "<number>"`` (the submission id)."""
        self.prefix = (
            '{"jsonrpc":"2.0","method":"codex/event","params":{"id":"' + str(number) + '","msg":'
        )

    def __call__(self, event: CodexEvent) -> str:
        return self.prefix + dumps(event) + "}}\n"


#: ``turn.completed.usage`` of Codex 0.169 (the SDK's ``Usage`` type requires every key)
_USAGE_KEYS = (
    "input_tokens",
    "cached_input_tokens",
    "cache_write_input_tokens",
    "output_tokens",
    "reasoning_output_tokens",
)


def _usage(event: CodexEvent) -> dict[str, int] | None:
    info = event.get("info")
    if not isinstance(info, dict):
        return None
    total = info.get("total_token_usage")
    if not isinstance(total, dict):
        return None
    return {
        key: int(total.get(key) or 0)
        for key in _USAGE_KEYS
    }


_TURN_STARTED = '{"type":"turn.started"}\n'


class ExecJsonEncoder:
    """EventMsg → ``codex exec --json`` lines, mirroring Codex's exec event processor."""

    def __init__(self, thread_id: str = "") -> None:
        self.thread_id = thread_id  # announced at the first turn if no session came before
        self._next_item = 0
        self._open: dict[str, tuple[str, CodexEvent]] = {}
        self._todo: tuple[str, list[dict[str, Any]]] | None = None
        self._usage: dict[str, int] | None = None
        self._failure: str | None = None
        self._thread_started = False

    def begin_turn(self, number: int) -> None:
        """Nothing to do: exec-json lines carry no submission id."""

    def _item_id(self) -> str:
        item_id = f"item_{self._next_item}"
        self._next_item += 1
        return item_id

    def _line(self, kind: str, item_id: str, item: dict[str, Any]) -> str:
        return dumps({"type": kind, "item": {"id": item_id, **item}}) + "\n"

    def _start(self, call_id: str, begin: CodexEvent, item: dict[str, Any]) -> str:
        item_id = self._item_id()
        self._open[call_id] = (item_id, begin)
        return self._line("item.started", item_id, item)

    def _finish(self, call_id: str, item: dict[str, Any]) -> str:
        opened = self._open.pop(call_id, None)
        item_id = opened[0] if opened else self._item_id()
        return self._line("item.completed", item_id, item)

    def __call__(self, event: CodexEvent) -> str:
        handler = _EXEC_HANDLERS.get(event.get("type", ""))
        return handler(self, event) if handler is not None else ""

    # -- one method per EventMsg type that has an exec-json counterpart --

    def _thread_line(self, thread_id: str) -> str:
        self._thread_started = True
        return dumps({"type": "thread.started", "thread_id": thread_id}) + "\n"

    def _session(self, e: CodexEvent) -> str:
        # One thread per run, announced before its first turn, as Codex does.
        if self._thread_started:
            return ""
        return self._thread_line(str(e.get("session_id", "")))

    def _task_started(self, e: CodexEvent) -> str:
        self._failure = None
        self._usage = None
        # A `session` command in the middle of a command sequence comes after task_started in
        # the EventMsg stream; exec-json announces the run's thread first all the same.
        head = "" if self._thread_started else self._thread_line(self.thread_id)
        return head + _TURN_STARTED

    def _task_complete(self, e: CodexEvent) -> str:
        out = ""
        if self._todo is not None:
            item_id, items = self._todo
            out += self._line("item.completed", item_id, {"type": "todo_list", "items": items})
            self._todo = None
        if self._failure is not None:
            return out + dumps({"type": "turn.failed", "error": {"message": self._failure}}) + "\n"
        usage = self._usage or dict.fromkeys(_USAGE_KEYS, 0)
        return out + dumps({"type": "turn.completed", "usage": usage}) + "\n"

    def _token_count(self, e: CodexEvent) -> str:
        self._usage = _usage(e) or self._usage
        return ""

    def _agent_message(self, e: CodexEvent) -> str:
        item = {"type": "agent_message", "text": str(e.get("message", ""))}
        return self._line("item.completed", self._item_id(), item)

    def _reasoning(self, e: CodexEvent) -> str:
        text = str(e.get("text", ""))
        if not text.strip():
            return ""
        return self._line("item.completed", self._item_id(), {"type": "reasoning", "text": text})

    def _exec_begin(self, e: CodexEvent) -> str:
        item = {
            "type": "command_execution",
            "command": _command_text(e.get("command")),
            "aggregated_output": "",
            "exit_code": None,
            "status": "in_progress",
        }
        return self._start(str(e.get("call_id")), e, item)

    def _exec_end(self, e: CodexEvent) -> str:
        status = e.get("status")
        if status not in ("completed", "failed", "declined"):
            status = "completed" if e.get("exit_code") == 0 else "failed"
        item = {
            "type": "command_execution",
            "command": _command_text(e.get("command")),
            "aggregated_output": str(e.get("aggregated_output", "")),
            "exit_code": e.get("exit_code"),
            "status": status,
        }
        return self._finish(str(e.get("call_id")), item)

    def _patch_begin(self, e: CodexEvent) -> str:
        item = {"type": "file_change", "changes": _changes(e), "status": "in_progress"}
        return self._start(str(e.get("call_id")), e, item)

    def _patch_end(self, e: CodexEvent) -> str:
        opened = self._open.get(str(e.get("call_id")))
        item = {
            "type": "file_change",
            "changes": _changes(e) or (_changes(opened[1]) if opened else []),
            "status": "completed" if e.get("success") else "failed",
        }
        return self._finish(str(e.get("call_id")), item)

    def _mcp_begin(self, e: CodexEvent) -> str:
        inv = e.get("invocation") or {}
        item = {
            "type": "mcp_tool_call",
            "server": inv.get("server", ""),
            "tool": inv.get("tool", ""),
            "arguments": inv.get("arguments"),
            "result": None,
            "error": None,
            "status": "in_progress",
        }
        return self._start(str(e.get("call_id")), e, item)

    def _mcp_end(self, e: CodexEvent) -> str:
        inv = e.get("invocation") or {}
        outcome = e.get("result") or {}
        result = error = None
        ok = isinstance(outcome, dict) and "Ok" in outcome
        if ok:
            value = outcome["Ok"] or {}
            result = {
                "content": value.get("content", []),
                "structured_content": value.get("structuredContent"),
            }
            ok = not value.get("isError")
        else:
            error = {"message": str(outcome.get("Err", "tool call failed"))}
        item = {
            "type": "mcp_tool_call",
            "server": inv.get("server", ""),
            "tool": inv.get("tool", ""),
            "arguments": inv.get("arguments"),
            "result": result,
            "error": error,
            "status": "completed" if ok else "failed",
        }
        return self._finish(str(e.get("call_id")), item)

    def _web_begin(self, e: CodexEvent) -> str:
        call_id = str(e.get("call_id"))
        item = {"type": "web_search", "query": "", "action": {"type": "other"}}
        return self._start(call_id, e, item)

    def _web_end(self, e: CodexEvent) -> str:
        call_id = str(e.get("call_id"))
        item = {
            "type": "web_search",
            "query": str(e.get("query", "")),
            "action": e.get("action") or {"type": "other"},
        }
        return self._finish(call_id, item)

    def _plan(self, e: CodexEvent) -> str:
        items = [
            {"text": str(step.get("step", "")), "completed": step.get("status") == "completed"}
            for step in e.get("plan") or []
            if isinstance(step, dict)
        ]
        if self._todo is None:
            self._todo = (self._item_id(), items)
            return self._line("item.started", self._todo[0], {"type": "todo_list", "items": items})
        self._todo = (self._todo[0], items)
        return self._line("item.updated", self._todo[0], {"type": "todo_list", "items": items})

    def _error(self, e: CodexEvent) -> str:
        self._failure = str(e.get("message", ""))
        return dumps({"type": "error", "message": self._failure}) + "\n"

    def _error_item(self, e: CodexEvent) -> str:
        item = {"type": "error", "message": str(e.get("message", ""))}
        return self._line("item.completed", self._item_id(), item)


_EXEC_HANDLERS = {
    "session_configured": ExecJsonEncoder._session,
    "task_started": ExecJsonEncoder._task_started,
    "task_complete": ExecJsonEncoder._task_complete,
    "token_count": ExecJsonEncoder._token_count,
    "agent_message": ExecJsonEncoder._agent_message,
    "agent_reasoning": ExecJsonEncoder._reasoning,
    "exec_command_begin": ExecJsonEncoder._exec_begin,
    "exec_command_end": ExecJsonEncoder._exec_end,
    "patch_apply_begin": ExecJsonEncoder._patch_begin,
    "patch_apply_end": ExecJsonEncoder._patch_end,
    "mcp_tool_call_begin": ExecJsonEncoder._mcp_begin,
    "mcp_tool_call_end": ExecJsonEncoder._mcp_end,
    "web_search_begin": ExecJsonEncoder._web_begin,
    "web_search_end": ExecJsonEncoder._web_end,
    "plan_update": ExecJsonEncoder._plan,
    "error": ExecJsonEncoder._error,
    "warning": ExecJsonEncoder._error_item,
    "stream_error": ExecJsonEncoder._error_item,
}


def _command_text(command: Any) -> str:
    """An argv as ``codex exec --json`` prints it: shell-quoted (``/bin/bash -lc 'ls -la'``)."""
    if isinstance(command, list):
        return shlex.join(str(part) for part in command)
    return str(command or "")


def _changes(event: CodexEvent) -> list[dict[str, str]]:
    changes = event.get("changes") or {}
    return [{"path": path, "kind": _change_kind(change)} for path, change in changes.items()]


def _change_kind(change: Any) -> str:
    kind = change.get("type") if isinstance(change, dict) else None
    return kind if kind in ("add", "delete", "update") else "update"
