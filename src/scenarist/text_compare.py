"""How a scenario's expected text is compared with real text, wherever that happens.

The mock agent compares a tool's real output with the scenario's ``result``
(:mod:`scenarist.agent.compare`); the model server compares the tool results an agent sends
back (:mod:`scenarist.llm.divergence`). Both forgive what terminals, YAML scalars and agents
lose or add anyway: ``\\r\\n`` line ends, trailing spaces, trailing blank lines.
"""

from __future__ import annotations

__all__ = ["normalise"]


def normalise(text: str) -> str:
    """Text as compared: ``\\n`` line ends, no trailing spaces, no trailing blank lines."""
    lines = [line.rstrip() for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n")]
    while lines and not lines[-1]:
        lines.pop()
    return "\n".join(lines)
