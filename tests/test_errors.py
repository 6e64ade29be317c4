"""Every project exception derives from ScenaristError, with the branch its contract names."""

from __future__ import annotations

import subprocess
import sys

import scenarist
from scenarist.codex.errors import CodexUsageError
from scenarist.demo import DemoError
from scenarist.errors import ScenaristError, UsageError, WireError
from scenarist.fake.events import FakeModelError
from scenarist.hub.config import ConfigError
from scenarist.hub.process import StdinError
from scenarist.hub.protocol import ProtocolError
from scenarist.llm.position import PositionError
from scenarist.llm.process import ServerStartError
from scenarist.llm.profiles import EditError
from scenarist.llm.request_errors import RequestError
from scenarist.llm.selection import RequestSelectionError
from scenarist.rest.problems import Problem
from scenarist.scenario.cli_parser import UsageReported
from scenarist.scenario.errors import Issue, ScenarioError
from scenarist.scenario.select import ScenarioIndex, SelectionError


def test_branches_state_their_contracts() -> None:
    assert {c: c.exit_status for c in (UsageReported, ConfigError, CodexUsageError, DemoError)} == {
        UsageReported: 2, ConfigError: 2, CodexUsageError: 1, DemoError: 1}
    for wire in (RequestError, RequestSelectionError, PositionError, ProtocolError, Problem):
        assert issubclass(wire, WireError)
    for other in (ScenarioError, SelectionError, FakeModelError, EditError, ServerStartError,
                  StdinError, UsageError, WireError):
        assert issubclass(other, ScenaristError)


def test_the_two_selection_failures_are_distinct() -> None:
    assert not issubclass(RequestSelectionError, SelectionError)
    assert not issubclass(SelectionError, RequestSelectionError)
    assert RequestSelectionError("no scenario", status=404).status == 404


def test_a_real_failure_is_caught_as_scenarist_error() -> None:
    try:
        ScenarioIndex([]).select(prompt="anything")
    except ScenaristError as exc:
        assert isinstance(exc, scenarist.SelectionError) and isinstance(exc, LookupError)
    else:
        raise AssertionError("selecting from nothing must fail")
    error = ScenarioError([Issue("a.yaml", 3, 5, "timeline[0]", "bad", "fix it", "error")])
    assert isinstance(error, scenarist.ScenaristError) and "a.yaml:3:5" in str(error)


def test_importing_scenarist_loads_no_scenario_package() -> None:
    code = ("import sys, scenarist; from scenarist import ScenaristError; "
            "print(sorted(m for m in sys.modules if m.startswith(('scenarist.scenario', 'yaml'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
    assert scenarist.ScenarioError is ScenarioError and scenarist.FakeModelError is FakeModelError
