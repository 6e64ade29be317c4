"""The fuzz tier (``-m fuzz``): seeded mutants of the examples through the loader.

Every mutant must load or fail with located issues: no exception but ScenarioError, no
"internal error", no more than :data:`CPU_LIMIT_S` of CPU (a hang), and through
``scenarist validate`` no crash (a negative exit status) and no traceback. The limit is
CPU time (``ITIMER_PROF``, ``RLIMIT_CPU``), so a busy machine does not turn into failures;
a failure names its seed, and ``mutant(seed, text)`` rebuilds the input.
"""

from __future__ import annotations

import resource
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import FrameType

import pytest
from scenario_mutants import mutant
from scenario_testutil import EXAMPLES

from scenarist.scenario import ScenarioError, load_scenario_text

pytestmark = pytest.mark.fuzz

MUTANTS = 2_000
IN_SUBPROCESS = 24
CPU_LIMIT_S = 5
FILES = sorted(EXAMPLES.glob("*.yaml"))


class CpuLimit(Exception):
    """Raised in the test when one mutant used more than CPU_LIMIT_S of CPU."""


def _over_limit(signum: int, frame: FrameType | None) -> None:
    raise CpuLimit


def _source(seed: int) -> tuple[Path, str]:
    path = FILES[seed % len(FILES)]
    return path, mutant(seed, path.read_text(encoding="utf-8"))


@pytest.fixture
def cpu_alarm() -> Iterator[None]:
    previous = signal.signal(signal.SIGPROF, _over_limit)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, previous)


def test_mutants_load_or_fail_with_located_issues(cpu_alarm: None) -> None:
    failures: list[str] = []
    for seed in range(MUTANTS):
        path, text = _source(seed)
        signal.setitimer(signal.ITIMER_PROF, CPU_LIMIT_S)
        try:
            load_scenario_text(text, path=path)
        except ScenarioError as exc:
            failures += [f"seed {seed}: {i}" for i in exc.issues if "internal error" in i.message]
        except CpuLimit:
            failures.append(f"seed {seed}: more than {CPU_LIMIT_S} s of CPU")
        except Exception as exc:  # the contract: loading raises ScenarioError only
            failures.append(f"seed {seed}: {type(exc).__name__}: {exc}")
        finally:
            signal.setitimer(signal.ITIMER_PROF, 0)
    assert not failures, "\n".join(failures[:20])


def _limit_cpu() -> None:
    resource.setrlimit(resource.RLIMIT_CPU, (CPU_LIMIT_S, CPU_LIMIT_S))


def test_mutants_through_scenarist_validate(tmp_path: Path) -> None:
    seeds = range(MUTANTS, MUTANTS + IN_SUBPROCESS)
    for seed in seeds:
        _, text = _source(seed)
        (tmp_path / f"{seed}.yaml").write_text(text, encoding="utf-8")
        for media in ("audio", "images", "patches", "configs", "repos"):  # relative paths work
            link = tmp_path / media
            if not link.exists():
                link.symlink_to(EXAMPLES / media)
    for seed in seeds:
        done = subprocess.run([sys.executable, "-m", "scenarist", "validate", f"{seed}.yaml"],
                              cwd=tmp_path, capture_output=True, text=True, timeout=120,
                              preexec_fn=_limit_cpu, check=False)
        assert done.returncode in (0, 1), f"seed {seed}: exit {done.returncode}\n{done.stderr}"
        assert "Traceback" not in done.stderr and "internal error" not in done.stderr, (
            f"seed {seed}:\n{done.stderr}")
