"""How a tool call appears in session events: its name and arguments as the format spells
them. The one place the REST server reads a tool call, so that switching to the core's typed
tool records changes only this module."""

from __future__ import annotations

from typing import Any

from scenarist.scenario import AgentToolUse

__all__ = ["tool_call"]


def tool_call(use: AgentToolUse) -> tuple[str, dict[str, Any]]:
    """``(tool_name, tool_args)`` of a tool call, arguments as written in the scenario."""
    return use.tool_name, dict(use.args)
