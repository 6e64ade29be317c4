"""What scripts/test installs beside the package (tests/node, the ``.venv-*`` side venvs), and
the one rule for a test that needs it (imported as ``installs``)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest


def missing_install(path: Path, what: str) -> None:
    """Skip a test whose side install (``path``) is missing, saying how to get it; under
    ``bash scripts/test`` (``SCENARIST_REQUIRE_ALL=1``), which installs everything, fail."""
    if path.exists():
        return
    message = f"{what} is not installed ({path} is missing): bash scripts/test installs it"
    if os.environ.get("SCENARIST_REQUIRE_ALL"):
        pytest.fail(message)
    pytest.skip(message)
