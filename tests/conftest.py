"""Options and fixtures shared by every test tier.

The Agent Harbor reference scenarios are AGPL-3.0 test data that the repository must not carry.
The conformance tier — the files named ``test_*_agent_harbor.py`` — reads them from a folder
named on the command line and is not collected at all without it::

    pytest --agent-harbor-scenarios=../shared/reference/agent-harbor-scenarios
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from hypothesis import settings

from daemonkit import Daemons
from installs import missing_install

TESTS = Path(__file__).resolve().parent

# CI (CI=true, as .ci/run is called) explores the same hypothesis examples on every run, so
# main cannot turn red by the luck of a draw; a developer's run draws new ones, which is how
# bugs are found (put what it finds in an @example).
settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")
DATA = TESTS / "data"
CONFORMANCE_FILES = "test_*_agent_harbor.py"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--agent-harbor-scenarios",
        metavar="DIR",
        default=None,
        help="folder of the Agent Harbor reference scenarios (AGPL test data, not in this "
        f"repository); when given, the conformance tier ({CONFORMANCE_FILES}) runs over them",
    )
    parser.addoption(
        "--write-fault-verdicts",
        action="store_true",
        default=False,
        help="write what real clients were seen doing with each fault into docs/faults.md's "
        "verdict tables, instead of failing where the page says otherwise",
    )


def pytest_configure(config: pytest.Config) -> None:
    folder = config.getoption("--agent-harbor-scenarios")
    if folder is not None and not Path(folder).is_dir():
        raise pytest.UsageError(
            f"--agent-harbor-scenarios {folder}: no such folder; name the folder that holds the "
            "reference scenarios (e.g. ../shared/reference/agent-harbor-scenarios)"
        )


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """Leave the conformance tier out entirely (not skipped) unless its folder is named."""
    if config.getoption("--agent-harbor-scenarios") is None and collection_path.match(
        CONFORMANCE_FILES
    ):
        return True
    return None


def reference_folder(config: pytest.Config) -> Path:
    return Path(config.getoption("--agent-harbor-scenarios")).resolve()


@pytest.fixture(scope="session")
def reference(request: pytest.FixtureRequest) -> Path:
    """The folder of the reference scenarios named by ``--agent-harbor-scenarios``."""
    return reference_folder(request.config)


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """``reference_file`` parametrises a test over every ``*.yaml`` of the reference folder."""
    if "reference_file" in metafunc.fixturenames:
        files = sorted(reference_folder(metafunc.config).glob("*.yaml"))
        metafunc.parametrize("reference_file", files, ids=[p.stem for p in files])


@pytest.fixture
def fault_verdict(request: pytest.FixtureRequest) -> Callable[[str, str, str, str], None]:
    """``fault_verdict(channel, client, kind, observed)``: fails when docs/faults.md's row
    says otherwise (``--write-fault-verdicts``: writes the row); see tests/fault_verdicts.py."""
    from fault_verdicts import check

    write = bool(request.config.getoption("--write-fault-verdicts"))

    def verdict(channel: str, client: str, kind: str, observed: str) -> None:
        check(channel, client, kind, observed, write=write)

    return verdict


@pytest.fixture
def golden(request: pytest.FixtureRequest) -> Callable[[str, str], None]:
    """``golden(name, actual)``: ``actual`` equals the file ``golden/name`` beside the test
    module (``SCENARIST_REGOLD=1`` writes it instead)."""
    folder = Path(request.path).parent / "golden"

    def check(name: str, actual: str) -> None:
        path = folder / name
        if os.environ.get("SCENARIST_REGOLD"):
            path.write_text(actual, encoding="utf-8")
        assert path.exists(), f"missing golden {path}; run with SCENARIST_REGOLD=1 to create it"
        assert actual == path.read_text(encoding="utf-8")

    return check


NODE_MODULES = TESTS / "node" / "node_modules"


def pytest_runtest_setup(item: pytest.Item) -> None:
    """Tests marked ``real_agent`` run clients from npm, which scripts/test installs into
    tests/node; a plain ``pip install -e '.[test]'`` has none of them."""
    if item.get_closest_marker("real_agent") is not None:
        missing_install(NODE_MODULES / ".package-lock.json", "tests/node (npm ci)")


@pytest.fixture
def daemons(tmp_path: Path) -> Iterator[Daemons]:
    """A hostile program that leaves a double-forked ``setsid`` daemon behind; whatever the
    test's subject failed to stop is killed afterwards (a test stops what it starts)."""
    found = Daemons(tmp_path)
    yield found
    found.kill_all()
