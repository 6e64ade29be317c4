"""The ``initialize`` answer of the mock agent, as plain JSON (pure; imports no ACP SDK).

Kept apart from :mod:`scenarist.acp.agent` so that ``scenarist acp`` can answer
``initialize`` before the SDK is imported: importing the SDK builds its pydantic models,
which takes about a second (1.1 s of the 1.4 s of ``import acp`` on an idle machine), and
the answer needs nothing from it (see :mod:`scenarist.acp.stdio`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from scenarist import __version__
from scenarist.acp.compare import differences, overlay
from scenarist.scenario.model import Initialize, Scenario
from scenarist.scenario.select import ScenarioIndex

__all__ = ["PROTOCOL_VERSION", "candidates", "initialize_answer"]

PROTOCOL_VERSION = 1


def candidates(index: ScenarioIndex[Scenario], name: str | None) -> list[Scenario]:
    """The scenarios a session may play: the named one, the only one, else all of them."""
    if name is not None:
        return [index.select(name=name).scenario]
    return list(index.scenarios)


def _capabilities(scenarios: Sequence[Scenario]) -> dict[str, Any]:
    caps = [sc.acp.capabilities for sc in scenarios
            if sc.acp is not None and sc.acp.capabilities is not None]
    agent_caps: dict[str, Any] = {
        "loadSession": any(c.load_session for c in caps),
        "promptCapabilities": {"image": any(c.image for c in caps),
                               "audio": any(c.audio for c in caps),
                               "embeddedContext": any(c.embedded_context for c in caps)},
        "mcpCapabilities": {"http": any(c.mcp_http for c in caps),
                            "sse": any(c.mcp_sse for c in caps)},
    }
    metas = [c.meta for c in caps if c.meta]
    if metas:
        agent_caps["_meta"] = {k: v for meta in metas for k, v in meta.items()}
    return {"protocolVersion": PROTOCOL_VERSION, "agentCapabilities": agent_caps,
            "authMethods": [],
            "agentInfo": {"name": "scenarist", "title": "scenarist mock ACP agent",
                          "version": __version__}}


def _expected(scenarios: Sequence[Scenario]) -> dict[str, Any]:
    if len(scenarios) != 1:
        return {}
    event = next((e for e in scenarios[0].timeline if isinstance(e, Initialize)), None)
    return dict(event.expected_response or {}) if event is not None else {}


def initialize_answer(scenarios: Sequence[Scenario]) -> tuple[dict[str, Any], list[str]]:
    """The ``initialize`` result for a session over ``scenarios``: their ACP capabilities,
    overlaid with the scenario's ``expectedResponse`` (for a single scenario), and where
    that expectation contradicts the capabilities."""
    expected = _expected(scenarios)
    answer = overlay(_capabilities(scenarios), expected)
    return answer, differences(expected, answer)
