"""The test executor: play a scenario against a CLI/TUI in a pseudo-terminal.

Public API::

    run_scenario(scenario_or_path, RunOptions(...)) -> RunResult
    RunOptions, RunResult, StepResult, CheckResult, ScreenCapture
    parse_input(text) -> Keystrokes            (named keys: docs/test-executor.md)
    html_report(results), junit_xml(results)

The command is ``scenarist run`` (:mod:`scenarist.runner.cli`); the pytest fixture
``scenarist_run`` (:mod:`scenarist.pytest_plugin`) runs one scenario inside a test.
"""

from scenarist.runner.errors import RunnerError
from scenarist.runner.keys import Keystrokes, parse_input
from scenarist.runner.play import RunOptions, golden_path, run_scenario
from scenarist.runner.report import html_report, junit_xml
from scenarist.runner.result import CheckResult, RunResult, StepResult
from scenarist.runner.screen import ScreenCapture

__all__ = [
    "CheckResult",
    "Keystrokes",
    "RunOptions",
    "RunResult",
    "RunnerError",
    "ScreenCapture",
    "StepResult",
    "golden_path",
    "html_report",
    "junit_xml",
    "parse_input",
    "run_scenario",
]
