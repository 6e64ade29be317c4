"""Timeline items → typed events: every event of the spec, its aliases and both step forms.

:func:`parse_timeline` (in :mod:`.dispatch`) finds the event each item holds and hands it to
the reader of its family: :mod:`.llm` (``llmResponse``), :mod:`.fault` (``fault``, also an
``llmResponse`` element), :mod:`.tool_use` (``agentToolUse``
and the tool events, typed by :mod:`scenarist.scenario.tools`), :mod:`.agent` (the agent's
other events), :mod:`.user` (the user's events) and :mod:`.control` (ACP handshake and
harness control). :mod:`.context` holds what they share.
"""

from scenarist.scenario.events.agent import PERMISSION_KINDS
from scenarist.scenario.events.dispatch import (
    AGENT_EVENTS,
    CONTROL_EVENTS,
    EVENT_KEYS,
    GROUPS,
    USER_EVENTS,
    parse_timeline,
)
from scenarist.scenario.events.fault import KEYS as FAULT_KEYS
from scenarist.scenario.events.fault import SIGNALS
from scenarist.scenario.events.tool_use import EXEC_TYPES, TOOL_STATUSES
from scenarist.scenario.events.user import TARGETS

__all__ = ["AGENT_EVENTS", "CONTROL_EVENTS", "EVENT_KEYS", "EXEC_TYPES", "FAULT_KEYS", "GROUPS",
           "PERMISSION_KINDS", "SIGNALS", "TARGETS", "TOOL_STATUSES", "USER_EVENTS",
           "parse_timeline"]
