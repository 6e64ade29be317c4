"""Every project exception derives from ScenaristError, with the branch its contract names."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

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
from scenarist.rest.store import StoreUrlError
from scenarist.runner.errors import RunnerError
from scenarist.runner.result import RunResult, ScenarioFailed
from scenarist.scenario.cli_parser import UsageReported
from scenarist.scenario.errors import Issue, ScenarioError
from scenarist.scenario.select import ScenarioIndex, SelectionError


def _modules() -> Iterator[ModuleType]:
    """Every module of the package, imported (``__main__`` only calls the CLI's ``run``)."""
    yield scenarist
    for info in pkgutil.walk_packages(scenarist.__path__, "scenarist."):
        if info.name.rpartition(".")[2] == "__main__":
            continue
        yield importlib.import_module(info.name)


def _classes_of(owner: object, module: str) -> Iterator[type]:
    """The classes defined in ``module`` reachable from ``owner``, nested ones included."""
    for value in vars(owner).values():
        if inspect.isclass(value) and value.__module__ == module and value is not owner:
            yield value
            yield from _classes_of(value, module)


def _exception_classes() -> dict[str, type]:
    found: dict[str, type] = {}
    for module in _modules():
        for cls in _classes_of(module, module.__name__):
            if issubclass(cls, BaseException):
                found[f"{cls.__module__}.{cls.__qualname__}"] = cls
    return found


def test_every_exception_class_in_the_package_descends_from_scenarist_error() -> None:
    found = _exception_classes()
    outside = sorted(name for name, cls in found.items() if not issubclass(cls, ScenaristError))
    assert outside == [], f"derive these from scenarist.errors.ScenaristError: {outside}"
    # the walk reached every front end, so an empty result above means something
    packages = {name.split(".")[1] for name in found}
    assert {"acp", "agent", "codex", "hub", "llm", "rest", "runner", "scenario"} <= packages
    assert {Problem, RunnerError, StoreUrlError, ScenaristError} <= set(found.values())


def test_branches_state_their_contracts() -> None:
    usage = (UsageReported, ConfigError, CodexUsageError, DemoError, StoreUrlError)
    assert {c: c.exit_status for c in usage} == {
        UsageReported: 2, ConfigError: 2, CodexUsageError: 1, DemoError: 1, StoreUrlError: 2}
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


def test_a_failed_run_raises_for_failure_as_an_assertion_listing_every_failure() -> None:
    failed = RunResult("demo", "demo.yaml", "program", "xterm", "failed", (), (),
                       ("the program exited 3",), 3, 12.0, "/tmp/logs", None)
    try:
        failed.raise_for_failure()
    except ScenarioFailed as exc:
        assert isinstance(exc, AssertionError) and isinstance(exc, ScenaristError)
        assert "- the program exited 3" in str(exc) and "/tmp/logs" in str(exc)
    else:
        raise AssertionError("a failed run must raise")
    passed = RunResult("demo", "demo.yaml", "program", "xterm", "passed", (), (), (), 0, 1.0,
                       "/tmp/logs", None)
    assert passed.raise_for_failure() is passed


def _tree(text: str) -> list[str]:
    """The lines of the error tree picture that starts with ``ScenaristError`` in ``text``."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.strip().startswith("ScenaristError "))
    indent = len(lines[start]) - len(lines[start].lstrip())
    out = []
    for line in lines[start:]:
        if not line.strip() or line.startswith("```"):
            break
        out.append(line[indent:].rstrip())
    return out


def test_the_documented_tree_names_every_public_exception_class() -> None:
    picture = _tree(scenarist.errors.__doc__ or "")
    docs = Path(__file__).resolve().parents[1] / "docs" / "architecture.md"
    assert _tree(docs.read_text(encoding="utf-8")) == picture, "docs/architecture.md differs"
    named = set(re.findall(r"\b[A-Z]\w+", "\n".join(picture)))
    public = {cls.__name__ for cls in _exception_classes().values()
              if not cls.__name__.startswith("_")}
    assert sorted(public - named) == []
