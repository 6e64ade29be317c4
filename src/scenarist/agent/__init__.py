"""The mock agent: plays a scenario's agent side in a terminal, running its tools for real.

``scenarist agent`` (:mod:`scenarist.agent.cli`) prints the scenario's thinking and answers
at the scenario's times and executes every tool call in a confined workspace
(:mod:`~scenarist.agent.workspace`, :mod:`~scenarist.agent.tools`), comparing each real result
with the scenario (:mod:`~scenarist.agent.compare`). Output is rich text or the JSON lines of
``codex exec --json`` / Claude Code ``stream-json`` (:mod:`~scenarist.agent.render`).
Details: ``docs/mock-agent.md``.
"""

from scenarist.agent.play import Checkpoint, Prompts, Report, play
from scenarist.agent.workspace import AgentError, PathRefused, Workspace

__all__ = ["AgentError", "Checkpoint", "PathRefused", "Prompts", "Report", "Workspace", "play"]
