"""Options and fixtures shared by every test tier.

The Agent Harbor reference scenarios are AGPL-3.0 test data that the repository must not carry.
The conformance tier — the files named ``test_*_agent_harbor.py`` — reads them from a folder
named on the command line and is not collected at all without it::

    pytest --agent-harbor-scenarios=../shared/reference/agent-harbor-scenarios
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
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


# A hostile program for the process-hygiene tests of every front end: it double-forks a
# daemon that calls setsid, ignores SIGTERM, keeps the inherited stdio and sleeps for a minute,
# then returns once the daemon runs. The daemon's command line carries a marker, so a test
# finds it (at any depth) by scanning /proc.
_DAEMON = """\
import os, signal, sys, time
ready_r, ready_w = os.pipe()
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        os.write(ready_w, b"x")
        time.sleep(60)
    os._exit(0)
os.read(ready_r, 1)
"""


class Daemons:
    """Writes the hostile program and finds the daemons it left (see ``daemons``)."""

    def __init__(self, folder: Path) -> None:
        self.marker = f"scenarist-hostile-{os.getpid()}-{os.urandom(4).hex()}"
        self.script = folder / "double_fork_daemon.py"
        self.script.write_text(_DAEMON, encoding="utf-8")

    @property
    def argv(self) -> list[str]:
        import sys

        return [sys.executable, str(self.script), self.marker]

    @property
    def command(self) -> str:
        """The program as one shell command."""
        import shlex

        return shlex.join(self.argv)

    def alive(self) -> list[int]:
        """Pids of live (non-zombie) processes whose command line has the marker."""
        found = []
        for name in os.listdir("/proc"):
            if not name.isdigit():
                continue
            try:
                cmdline = Path(f"/proc/{name}/cmdline").read_bytes()
                stat = Path(f"/proc/{name}/stat").read_bytes()
            except OSError:
                continue
            if self.marker.encode() in cmdline and stat[stat.rfind(b")") + 2:][:1] not in b"ZX":
                found.append(int(name))
        return sorted(found)

    def kill_all(self) -> None:
        import signal

        for pid in self.alive():
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)


@pytest.fixture
def daemons(tmp_path: Path) -> Iterator[Daemons]:
    """A hostile program that leaves a double-forked ``setsid`` daemon behind; whatever the
    test's subject failed to stop is killed afterwards (a test stops what it starts)."""
    found = Daemons(tmp_path)
    yield found
    found.kill_all()
