"""How a tool call appears in session events: its name and arguments as the format spells
them, read from the core's typed tool record (``AgentToolUse.tool``, aliases resolved by the
loader). Session events pass arguments through unchanged (``tool_use.tool_args``), so every
tool, known or generic, is rendered the same way; this is the one place the REST server
reads a tool call."""

from __future__ import annotations

from typing import Any

from scenarist.scenario import AgentToolUse
from scenarist.scenario.tools import tool_args

__all__ = ["tool_call"]


def tool_call(use: AgentToolUse) -> tuple[str, dict[str, Any]]:
    """``(tool_name, tool_args)`` of a tool call: the record's name and its arguments as
    the format spells them (defaults left out)."""
    return use.tool.name, tool_args(use.tool)
