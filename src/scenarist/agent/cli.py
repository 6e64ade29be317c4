"""``scenarist agent``: the mock agent on the command line.

    scenarist agent --scenario PATH [--tag TAG] [--scenario-name N] --workspace DIR
                    [--checkpoint-cmd CMD] [--speed F] [--define K=V]
                    [--format text|codex-jsonl|claude-jsonl] [--progress-file PATH] [PROMPT]

Exit status (docs/cli.md): 0 every real result matched the scenario, 1 at least one
mismatch, 2 a usage or input error (bad option, missing workspace, a scenario that does not
load); a scenario's ``exit`` fault ends it with its code or signal. Errors are one line
each on stderr, never a traceback.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import IO, TYPE_CHECKING, cast

from scenarist.agent.progress import PROGRESS_ENV, ProgressWriter
from scenarist.agent.render import FORMATS, make_renderer
from scenarist.errors import ScenaristError
from scenarist.scenario.cli_parser import (
    EXIT_FAILED,
    EXIT_OK,
    Parser,
    add_defines,
    add_scenario,
    add_speed,
    add_tags,
    checked_speed,
    define_symbols,
    run,
    select_tags,
)

if TYPE_CHECKING:
    from scenarist.fault_output import FaultedOutput
    from scenarist.scenario import Scenario

__all__ = ["main", "parser"]


def parser() -> Parser:
    p = Parser(prog="scenarist agent",
               description="Play a scenario as a coding agent: print its thinking and "
                           "answers at the scenario's times and run its tools for real in "
                           "the workspace, comparing each result with the scenario.")
    add_scenario(p, many=False)
    add_tags(p)
    p.add_argument("--scenario-name", metavar="N", help="play the scenario with this name")
    p.add_argument("--workspace", required=True, metavar="DIR",
                   help="directory the tools act in (nothing outside it is touched)")
    p.add_argument("--checkpoint-cmd", metavar="CMD",
                   help="shell command run in the workspace after each tool execution and "
                        "each edit (e.g. a filesystem snapshot)")
    add_speed(p, what="multiply the scenario's times by F")
    add_defines(p)
    p.add_argument("--format", choices=FORMATS, default="text",
                   help="text for a terminal (default), or the JSON lines of "
                        "`codex exec --json` / Claude Code stream-json")
    p.add_argument("--progress-file", metavar="PATH",
                   help="append how far playback got (start/beat/end lines) to PATH, for a "
                        "test executor to follow (default: $SCENARIST_AGENT_PROGRESS)")
    p.add_argument("prompt", nargs="?", metavar="PROMPT",
                   help="the first user prompt (later ones are read from the terminal)")
    return p


def main(argv: Sequence[str]) -> int:
    p = parser()

    def body(args: argparse.Namespace) -> int:
        from scenarist.agent.play import Checkpoint, Prompts, play
        from scenarist.agent.workspace import AgentError, Workspace

        checked_speed(p, args)
        if not Path(args.scenario).exists():
            p.error(f"--scenario: no such file or folder: {args.scenario}")
        symbols = define_symbols(p, args)
        scenario = _choose(p, args, symbols)
        try:
            cwd = scenario.acp.cwd if scenario.acp is not None else None
            workspace = Workspace(args.workspace, aliases=(cwd,) if cwd else ())
        except AgentError as exc:
            p.error(f"--workspace: {exc}")
        interactive = sys.stdin is not None and sys.stdin.isatty()
        marker = sys.stdout if args.format == "text" else sys.stderr
        prompts = Prompts(args.prompt, sys.stdin if interactive else None,
                          marker if interactive else None)
        faults = _faulted_output(scenario, args.speed)
        out = sys.stdout if faults is None else _text(faults)
        renderer = make_renderer(args.format, out, sys.stderr)
        checkpoint = Checkpoint(args.checkpoint_cmd) if args.checkpoint_cmd else None
        session_id = str(uuid.uuid5(uuid.NAMESPACE_URL, f"scenarist-agent:{scenario.name}"))
        progress = _progress_writer(p, args.progress_file or os.environ.get(PROGRESS_ENV))
        try:
            if progress is not None:
                progress.start()
            with _stopped_cleanly():
                report = play(scenario, workspace, renderer, prompts=prompts,
                              checkpoint=checkpoint, speed=args.speed, session_id=session_id,
                              on_beat=progress.beat if progress is not None else None,
                              on_prompt=progress.prompt if progress is not None else None,
                              faults=faults)
            code = EXIT_FAILED if report.mismatches else EXIT_OK
            if progress is not None:
                progress.end(code)
            return code
        finally:
            if progress is not None:
                progress.close()

    try:
        return run(p, argv, body)
    except Stopped as exc:
        return 128 + exc.signum
    except ScenaristError as exc:  # a scenario's exit fault, raised after the tools stopped
        from scenarist.fault_output import FaultExit, exit_status

        if not isinstance(exc, FaultExit):
            raise
        return exit_status(exc)


def _faulted_output(scenario: Scenario, speed: float) -> FaultedOutput | None:
    """The output layer that plays the scenario's faults (none without faults: the output
    is then written as it always was); kinds a process cannot play are warned about here."""
    from scenarist.faults import unplayed
    from scenarist.scenario import FaultBeat, compile_timeline

    if not any(isinstance(b, FaultBeat) for b in compile_timeline(scenario).beats):
        return None
    for issue in unplayed(scenario, "agent"):
        text = "; ".join(part.strip() for part in str(issue).splitlines())
        print(f"scenarist agent: {text}", file=sys.stderr)

    def pause(ms: int) -> None:
        from scenarist.play import Schedule

        Schedule(speed=speed).wait_sync(ms)

    from scenarist.fault_output import FaultedOutput

    return FaultedOutput(sys.stdout.buffer, sys.stderr, pause)


def _text(faults: FaultedOutput) -> IO[str]:
    from scenarist.fault_output import FaultedText

    return cast("IO[str]", FaultedText(faults, sys.stdout))


def _progress_writer(p: Parser, path: str | None) -> ProgressWriter | None:
    if not path:
        return None
    try:
        return ProgressWriter(path)
    except OSError as exc:
        p.error(f"--progress-file: cannot append to {path}: {exc.strerror or exc}")


class Stopped(ScenaristError):
    """SIGTERM or SIGHUP arrived: unwind so that every tool process group is killed."""

    def __init__(self, signum: int) -> None:
        super().__init__(f"stopped by signal {signum}")
        self.signum = signum


@contextmanager
def _stopped_cleanly() -> Iterator[None]:
    """Turn SIGTERM/SIGHUP into :class:`Stopped` while playing.

    Tool processes run in process groups of their own (so that a timeout can kill a whole
    tree), which a signal to the agent's group does not reach; unwinding runs the clean-up
    that kills them. Without this a test executor stopping the agent would leave them running.
    """

    def stop(signum: int, _frame: object) -> None:
        raise Stopped(signum)

    previous = {sig: signal.signal(sig, stop) for sig in (signal.SIGTERM, signal.SIGHUP)}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def _choose(p: Parser, args: argparse.Namespace, symbols: dict[str, bool | int | str]) -> Scenario:
    """The scenario to play among those with a ``--tag``: the only one, the named one, or
    the nearest to PROMPT."""
    from scenarist.scenario import ScenarioError, load_scenarios

    try:
        scenarios = load_scenarios([args.scenario], defines=symbols)
    except ScenarioError as exc:
        for issue in exc.errors or exc.issues:
            print(str(issue).replace("\n", " "), file=sys.stderr)
        p.error(f"--scenario: {args.scenario} does not load ({len(exc.errors)} error(s) above)")
    except OSError as exc:
        p.error(f"--scenario: cannot read {args.scenario}: {exc.strerror or exc}")
    try:
        scenarios = select_tags(scenarios, args.tags)
    except ValueError as exc:
        p.error(str(exc))
    if len(scenarios) == 1 and args.scenario_name in (None, scenarios[0].name):
        return scenarios[0]  # the usual case: no need for the prompt search (rapidfuzz)
    from scenarist.scenario.select import SelectionError, select_scenario

    try:
        return select_scenario(scenarios, name=args.scenario_name, prompt=args.prompt).scenario
    except SelectionError as exc:
        p.error(str(exc))
