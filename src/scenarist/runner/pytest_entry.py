"""Run a scenario inside a pytest test: the ``scenarist_run`` fixture's engine.

Each test runs one scenario in its own process, so pytest-xdist spreads a suite of
scenarios over cores (``pytest -n auto``) or machines, with no scheduler of ours::

    @pytest.mark.parametrize("path", sorted(Path("scenarios").glob("*.yaml")))
    def test_scenario(scenarist_run, path):
        scenarist_run(path, target=Path("goldens")).raise_for_failure()   # or inspect it

Options: ``--scenarist-target DIR`` (where goldens and logs go; default: the test's
``tmp_path``), ``--scenarist-update-golden``, ``--scenarist-speed F``; keywords of
:class:`~scenarist.runner.play.RunOptions` given to the call win over them.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import fields
from pathlib import Path
from typing import Any

from scenarist.runner.play import RunOptions, run_scenario
from scenarist.runner.result import RunResult, ScenarioFailed

__all__ = ["ScenarioFailed", "run_for_test"]

_OPTION_NAMES = frozenset(f.name for f in fields(RunOptions))


def run_for_test(scenario: str | os.PathLike[str], defaults: Mapping[str, Any],
                 **options: Any) -> RunResult:
    """Run ``scenario`` with ``defaults`` (from the command line) overridden by ``options``."""
    unknown = set(options) - _OPTION_NAMES
    if unknown:
        raise TypeError(f"scenarist_run() got unknown options {sorted(unknown)}; choose from "
                        f"{sorted(_OPTION_NAMES)}")
    merged = {**defaults, **options}
    if "target" in merged:
        merged["target"] = Path(merged["target"])
    return run_scenario(scenario, RunOptions(**merged))
