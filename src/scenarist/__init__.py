"""scenarist: deterministic stand-ins for AI coding agents and model APIs.

One YAML scenario drives a mock model API, a fake Codex agent, an in-process fake
model, an agent hub and more. See ``docs/architecture.md`` for the map of the code.
"""

__version__ = "0.1.0"

from typing import TYPE_CHECKING

from scenarist.errors import ScenaristError, UsageError, WireError

if TYPE_CHECKING:
    from scenarist.fake.events import FakeModelError
    from scenarist.scenario.errors import ScenarioError
    from scenarist.scenario.select import SelectionError

__all__ = ["FakeModelError", "ScenarioError", "ScenaristError", "SelectionError", "UsageError",
           "WireError"]

# Leaves that live in packages importing YAML: loaded on first access, so that
# ``import scenarist`` (which every command does) stays as light as scenarist.errors.
_LAZY = {
    "FakeModelError": "scenarist.fake.events",
    "ScenarioError": "scenarist.scenario.errors",
    "SelectionError": "scenarist.scenario.select",
}


def __getattr__(name: str) -> object:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'scenarist' has no attribute {name!r}")
