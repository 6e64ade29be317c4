"""scenarist: deterministic stand-ins for AI coding agents and model APIs.

One YAML scenario drives a mock model API, a fake Codex agent, an in-process fake
model, an agent hub and more. See ``docs/architecture.md`` for the map of the code.
"""

__version__ = "0.1.0"
