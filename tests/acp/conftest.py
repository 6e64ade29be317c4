"""The ACP conformance tier (``test_acp_agent_harbor.py``) reads the AGPL reference scenarios
from the folder named by ``--agent-harbor-scenarios`` and is not collected without it.

The root ``tests/conftest.py`` declares that option for every tier; the declaration here is
for runs of ``pytest tests/acp`` where the root one is absent, and steps aside when it is
there. The guard reads the option with a default so it holds either way.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

import pytest
from acpkit import reference_folder

CONFORMANCE = "test_acp_agent_harbor.py"


def pytest_addoption(parser: pytest.Parser) -> None:
    with contextlib.suppress(ValueError):  # already declared by the root conftest
        parser.addoption("--agent-harbor-scenarios", metavar="DIR", default=None,
                         help="folder of the Agent Harbor reference scenarios (AGPL test "
                         "data, not in this repository); runs the conformance tier")


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    if collection_path.name == CONFORMANCE and reference_folder(config) is None:
        return True
    return None
