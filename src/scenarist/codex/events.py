"""Our own definitions of Codex ``EventMsg`` types: the required fields of each.

``emit`` checks a known type against this table, so a typo in a hand-written event
fails with a one-line message instead of confusing the host. Unknown types pass
untouched, which is how new Codex events get tested without a release of ours.
The table mirrors openai/codex's protocol (tests compare it with the published
JSON Schema); extra fields are never rejected, as Codex itself ignores them.

Kinds: ``s`` string, ``i`` integer, ``b`` boolean, ``a`` array, ``o`` object,
``*`` anything; a trailing ``?`` also allows null. A third item lists allowed values.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from scenarist.json_kind import json_kind

if TYPE_CHECKING:
    from typing import Any

    FieldSpec = tuple[str, str] | tuple[str, str, tuple[str, ...]]

REQUIRED: dict[str, tuple[FieldSpec, ...]] = {
    "error": (("message", "s"),),
    "warning": (("message", "s"),),
    "realtime_conversation_started": (),
    "realtime_conversation_realtime": (("payload", "o"),),
    "realtime_conversation_closed": (),
    "model_reroute": (
        ("from_model", "s"),
        ("reason", "s", ("high_risk_cyber_activity",)),
        ("to_model", "s"),
    ),
    "context_compacted": (),
    "thread_rolled_back": (("num_turns", "i"),),
    "task_started": (("turn_id", "s"),),
    "task_complete": (("turn_id", "s"),),
    "token_count": (),
    "agent_message": (("message", "s"),),
    "user_message": (("message", "s"),),
    "agent_message_delta": (("delta", "s"),),
    "agent_reasoning": (("text", "s"),),
    "agent_reasoning_delta": (("delta", "s"),),
    "agent_reasoning_raw_content": (("text", "s"),),
    "agent_reasoning_raw_content_delta": (("delta", "s"),),
    "agent_reasoning_section_break": (),
    "session_configured": (
        ("approval_policy", "*"),
        ("cwd", "s"),
        ("history_entry_count", "i"),
        ("history_log_id", "i"),
        ("model", "s"),
        ("model_provider_id", "s"),
        ("sandbox_policy", "o"),
        ("session_id", "s"),
    ),
    "thread_name_updated": (("thread_id", "s"),),
    "mcp_startup_update": (("server", "s"), ("status", "o")),
    "mcp_startup_complete": (("cancelled", "a"), ("failed", "a"), ("ready", "a")),
    "mcp_tool_call_begin": (("call_id", "s"), ("invocation", "o")),
    "mcp_tool_call_end": (
        ("call_id", "s"),
        ("duration", "o"),
        ("invocation", "o"),
        ("result", "o"),
    ),
    "web_search_begin": (("call_id", "s"),),
    "web_search_end": (("action", "o"), ("call_id", "s"), ("query", "s")),
    "image_generation_begin": (("call_id", "s"),),
    "image_generation_end": (("call_id", "s"), ("result", "s"), ("status", "s")),
    "exec_command_begin": (
        ("call_id", "s"),
        ("command", "a"),
        ("cwd", "s"),
        ("parsed_cmd", "a"),
        ("turn_id", "s"),
    ),
    "exec_command_output_delta": (
        ("call_id", "s"),
        ("chunk", "s"),
        ("stream", "s", ("stdout", "stderr")),
    ),
    "terminal_interaction": (("call_id", "s"), ("process_id", "s"), ("stdin", "s")),
    "exec_command_end": (
        ("call_id", "s"),
        ("command", "a"),
        ("cwd", "s"),
        ("duration", "o"),
        ("exit_code", "i"),
        ("formatted_output", "s"),
        ("parsed_cmd", "a"),
        ("status", "s", ("completed", "failed", "declined")),
        ("stderr", "s"),
        ("stdout", "s"),
        ("turn_id", "s"),
    ),
    "view_image_tool_call": (("call_id", "s"), ("path", "s")),
    "exec_approval_request": (
        ("call_id", "s"),
        ("command", "a"),
        ("cwd", "s"),
        ("parsed_cmd", "a"),
    ),
    "request_user_input": (("call_id", "s"), ("questions", "a")),
    "dynamic_tool_call_request": (
        ("arguments", "*"),
        ("callId", "s"),
        ("tool", "s"),
        ("turnId", "s"),
    ),
    "dynamic_tool_call_response": (
        ("arguments", "*"),
        ("call_id", "s"),
        ("content_items", "a"),
        ("duration", "o"),
        ("success", "b"),
        ("tool", "s"),
        ("turn_id", "s"),
    ),
    "elicitation_request": (("id", "*"), ("request", "o"), ("server_name", "s")),
    "apply_patch_approval_request": (("call_id", "s"), ("changes", "o")),
    "deprecation_notice": (("summary", "s"),),
    "background_event": (("message", "s"),),
    "undo_started": (),
    "undo_completed": (("success", "b"),),
    "stream_error": (("message", "s"),),
    "patch_apply_begin": (("auto_approved", "b"), ("call_id", "s"), ("changes", "o")),
    "patch_apply_end": (
        ("call_id", "s"),
        ("status", "s", ("completed", "failed", "declined")),
        ("stderr", "s"),
        ("stdout", "s"),
        ("success", "b"),
    ),
    "turn_diff": (("unified_diff", "s"),),
    "get_history_entry_response": (("log_id", "i"), ("offset", "i")),
    "mcp_list_tools_response": (
        ("auth_statuses", "o"),
        ("resource_templates", "o"),
        ("resources", "o"),
        ("tools", "o"),
    ),
    "list_custom_prompts_response": (("custom_prompts", "a"),),
    "list_skills_response": (("skills", "a"),),
    "list_remote_skills_response": (("skills", "a"),),
    "remote_skill_downloaded": (("id", "s"), ("name", "s"), ("path", "s")),
    "skills_update_available": (),
    "plan_update": (("plan", "a"),),
    "turn_aborted": (("reason", "s", ("interrupted", "replaced", "review_ended")),),
    "shutdown_complete": (),
    "entered_review_mode": (("target", "o"),),
    "exited_review_mode": (),
    "raw_response_item": (("item", "o"),),
    "item_started": (("item", "o"), ("thread_id", "s"), ("turn_id", "s")),
    "item_completed": (("item", "o"), ("thread_id", "s"), ("turn_id", "s")),
    "agent_message_content_delta": (
        ("delta", "s"),
        ("item_id", "s"),
        ("thread_id", "s"),
        ("turn_id", "s"),
    ),
    "plan_delta": (("delta", "s"), ("item_id", "s"), ("thread_id", "s"), ("turn_id", "s")),
    "reasoning_content_delta": (
        ("delta", "s"),
        ("item_id", "s"),
        ("thread_id", "s"),
        ("turn_id", "s"),
    ),
    "reasoning_raw_content_delta": (
        ("delta", "s"),
        ("item_id", "s"),
        ("thread_id", "s"),
        ("turn_id", "s"),
    ),
    "collab_agent_spawn_begin": (("call_id", "s"), ("prompt", "s"), ("sender_thread_id", "s")),
    "collab_agent_spawn_end": (
        ("call_id", "s"),
        ("prompt", "s"),
        ("sender_thread_id", "s"),
        ("status", "*"),
    ),
    "collab_agent_interaction_begin": (
        ("call_id", "s"),
        ("prompt", "s"),
        ("receiver_thread_id", "s"),
        ("sender_thread_id", "s"),
    ),
    "collab_agent_interaction_end": (
        ("call_id", "s"),
        ("prompt", "s"),
        ("receiver_thread_id", "s"),
        ("sender_thread_id", "s"),
        ("status", "*"),
    ),
    "collab_waiting_begin": (
        ("call_id", "s"),
        ("receiver_thread_ids", "a"),
        ("sender_thread_id", "s"),
    ),
    "collab_waiting_end": (("call_id", "s"), ("sender_thread_id", "s"), ("statuses", "o")),
    "collab_close_begin": (
        ("call_id", "s"),
        ("receiver_thread_id", "s"),
        ("sender_thread_id", "s"),
    ),
    "collab_close_end": (
        ("call_id", "s"),
        ("receiver_thread_id", "s"),
        ("sender_thread_id", "s"),
        ("status", "*"),
    ),
    "collab_resume_begin": (
        ("call_id", "s"),
        ("receiver_thread_id", "s"),
        ("sender_thread_id", "s"),
    ),
    "collab_resume_end": (
        ("call_id", "s"),
        ("receiver_thread_id", "s"),
        ("sender_thread_id", "s"),
        ("status", "*"),
    ),
}

_KIND_NAMES = {
    "s": "a string",
    "i": "an integer",
    "b": "a boolean",
    "a": "an array",
    "o": "an object",
}


def _has_kind(value: Any, kind: str) -> bool:
    if kind.endswith("?"):
        if value is None:
            return True
        kind = kind[:-1]
    if kind == "s":
        return isinstance(value, str)
    if kind == "i":
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "b":
        return isinstance(value, bool)
    if kind == "a":
        return isinstance(value, list)
    if kind == "o":
        return isinstance(value, dict)
    return True


def check_event(msg: Any) -> str | None:
    """Why ``msg`` is not an acceptable EventMsg, or ``None`` when it is.

    It must be a JSON object with a string ``type``; for a type in :data:`REQUIRED`
    every required field must be present with the right kind.
    """
    if not isinstance(msg, dict):
        return f"an event must be a JSON object, got {json_kind(msg)}"
    etype = msg.get("type")
    if not isinstance(etype, str):
        if etype is None:
            return (
                'an event needs a string "type" field (e.g. {"type": "warning", "message": "hi"})'
            )
        return f'the event "type" must be a string, got {json_kind(etype)}'
    spec = REQUIRED.get(etype)
    if spec is None:
        return None
    for field in spec:
        name, kind = field[0], field[1]
        if name not in msg:
            need = ", ".join(f[0] for f in spec)
            return f"{etype} is missing required field {name!r} (it needs: {need})"
        value = msg[name]
        if not _has_kind(value, kind):
            want = _KIND_NAMES.get(kind.rstrip("?"), "a value")
            if kind.endswith("?"):
                want += " or null"
            return f"{etype}.{name} must be {want}, got {json_kind(value)}"
        if len(field) == 3 and value not in field[2]:
            allowed = ", ".join(f'"{v}"' for v in field[2])
            return f"{etype}.{name} must be one of {allowed}, got {value!r}"
    return None
