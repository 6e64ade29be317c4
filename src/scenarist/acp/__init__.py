"""Both sides of the Agent Client Protocol, played from scenarios.

``scenarist acp`` runs :class:`ScenarioAgent` (the mock agent) on stdio; ``scenarist
acp-test`` runs :func:`run_test` (the test client) against any ACP agent. Modules:
``tools`` (scenario tools → ACP tool-call views), ``updates`` (beats → ACP updates, pure),
``turns`` (timeline → history and prompt turns, pure), ``compare`` (expected-subset
checks), ``frames`` (incoming JSON-RPC lines checked, pure), ``lines`` (the checked
transport both sides use), ``agent`` (the SDK Agent), ``client`` (the SDK Client and the
test run), ``cli``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from scenarist.acp.agent import AgentOptions, ScenarioAgent
    from scenarist.acp.client import AcpTestOptions, AcpTestReport, run_test

__all__ = ["AcpTestOptions", "AcpTestReport", "AgentOptions", "ScenarioAgent", "run_test"]

_WHERE = {"AgentOptions": "agent", "ScenarioAgent": "agent", "AcpTestOptions": "client",
          "AcpTestReport": "client", "run_test": "client"}


def __getattr__(name: str) -> Any:
    import importlib

    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'scenarist.acp' has no attribute {name!r}")
    return getattr(importlib.import_module(f"scenarist.acp.{module}"), name)
