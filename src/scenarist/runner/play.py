"""Play one scenario against a program in a terminal: the test executor's core.

The flow of :func:`run_scenario`: load the scenario → pick the terminal profile → prepare
the workspace (``repo``) → start the program and wire its agent (:mod:`.agents`) → play the
timeline's user and test events on the shared clock (:mod:`scenarist.play`) while the screen
is kept current → check ``expect`` → kill the program's whole session → write the logs.

Time: the beats are paced by a :class:`scenarist.play.Schedule` (one absolute start,
``speed`` applied there). Until a beat is nearly due the runner waits on the pty's readiness
(reading output, so the screen stays current and the program never blocks on a full pty);
the last few milliseconds are the schedule's own precise wait.

Both sides in step: in mode 1 each beat first waits (bounded) until the mock agent's progress
file (:mod:`scenarist.agent.progress`) shows it has played its own beats before this one (a
prompt: until it asks for it), as the agent's clock starts only when the prompt arrives. A
program that exits while beats remain fails the run there and then (unless ``expect.exitCode``
is set or it is the mock agent's own end); the exit code is read after the reap.

What each beat does: ``userInputs`` types keystrokes (:mod:`.keys`), ``userEdits`` applies its
patch with ``git apply``, ``applyPatch`` too and, with ``commit``, commits the workspace with
the runner's fixed git identity (:mod:`.workspace`), ``userCommand`` runs a shell command in
the workspace, ``assert`` and ``screenshot`` wait for the screen to settle (bounded) and
check or capture it (:mod:`.asserts`, :mod:`.screen`), ``complete``/``merge``/``status``
update the run's in-memory session database (:mod:`.sessions`), ``log`` is logged. Agent
events belong to the agent (the mock agent, or ``scenarist llm`` for a real one) and are not
played here.

Directories (``target`` defaults to ``./target``)::

    target/tmp/<runner>/<scenario>/<profile>/screenshots/<label>.golden   goldens
    target/tmp/<runner>/<scenario>/<profile>/<YYYYmmddTHHMMSS>-<pid, 7 digits>/   its logs:
        workspace/ home/ pty.log steps.jsonl commands/ result.json
        llm-journal.jsonl llm.log   (mode 2: what the model server saw, and its stderr)
"""

from __future__ import annotations

import bisect
import dataclasses
import json
import os
import re
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO, assert_never

from scenarist.agent.play import typed_text
from scenarist.agent.progress import PROGRESS_ENV, ProgressReader, process_running
from scenarist.play import RealClock, Schedule, pace_sync
from scenarist.processes import ProcessInfo, describe, run_command
from scenarist.runner.agents import Launch, launch, model_divergence
from scenarist.runner.asserts import check_artifacts, check_assert
from scenarist.runner.errors import RunnerError
from scenarist.runner.golden import golden_diff, golden_text
from scenarist.runner.keys import KEYS, KeySequenceError, parse_input
from scenarist.runner.profile import TerminalProfile, load_profile
from scenarist.runner.result import CheckResult, Outcome, RunResult, StepResult, worst
from scenarist.runner.screen import ScreenCapture, shows_typed
from scenarist.runner.sessions import SessionStore
from scenarist.runner.terminal import Terminal, TerminalTimeout
from scenarist.runner.workspace import (
    GIT_ENV,
    apply_patch,
    commit_all,
    inside,
    is_repository,
    prepare_workspace,
)
from scenarist.scenario import (
    ApplyPatch,
    ApplyPatchBeat,
    AssertBeat,
    Beat,
    CompleteBeat,
    Event,
    LlmResponse,
    LogBeat,
    MergeBeat,
    PromptBeat,
    Scenario,
    ScenarioError,
    Screenshot,
    ScreenshotBeat,
    StatusBeat,
    Timeline,
    UserCancelSessionBeat,
    UserCommand,
    UserCommandBeat,
    UserEdits,
    UserEditsBeat,
    UserInput,
    compile_timeline,
    load_scenario,
)

__all__ = ["RunOptions", "RunnerBeat", "golden_path", "run_scenario"]

#: The beats the runner plays; the others belong to the agent.
RunnerBeat = (PromptBeat | UserEditsBeat | ApplyPatchBeat | UserCommandBeat
              | UserCancelSessionBeat | AssertBeat | ScreenshotBeat | LogBeat | StatusBeat
              | CompleteBeat | MergeBeat)
#: Beats that, with a real agent (mode 2), wait for the agent to catch up first.
_AFTER_AGENT = AssertBeat | ScreenshotBeat
#: before typing a prompt: this long without output, and the program idle (not computing)
PROMPT_QUIET_MS = 30.0
_AGENT_TYPING_MS = 20.0  # real agents' TUIs take faster typing for a paste
#: Enter this long after the typing at the earliest: a real TUI that took the typing for a
#: paste reads Enter as a newline for a while (Codex: 120 ms), and the prompt is never sent
_AGENT_SUBMIT_AFTER_MS = 250.0
#: how long a real agent may take to ask the model after Enter before Enter is pressed again
_AGENT_ASKS_WITHIN_MS = 3000.0
_AGENT_SUBMIT_TRIES = 3
_KITTY_ENTER = b"\x1b[13u"
_AGENT_TYPING_TRIES = 3  # typing a prompt into a real agent's TUI, until it shows whole
_BACKSPACE = KEYS["backspace"].encode()
_SPIN_MS = 5.0  # the last stretch before a beat is the schedule's own (precise) wait
_PROGRESS_POLL_MS = 10.0  # how often the mock agent's progress file is looked at in a wait
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


@dataclass(frozen=True, slots=True)
class RunOptions:
    """How to run: the CLI's options (``scenarist run --help``) as one value."""

    runner: str = "scenarist"
    target: Path = Path("target")
    update_golden: bool = False
    defines: Mapping[str, bool | int | str] = field(default_factory=dict)
    speed: float = 1.0
    agent: str = "mock"
    agent_bin: str | None = None
    settle_ms: float = 100.0  # the screen has settled after this long without output
    wait_timeout_s: float = 10.0  # the deadline of every wait for the screen
    exit_timeout_s: float = 10.0  # how long the program may take to exit at the end
    typing_ms: float | None = None  # between typed characters; None: 0 (mock), 20 (real agent)


@dataclass(frozen=True, slots=True)
class _End:
    """The end of the timeline, played like a beat so the agent's last events are waited for."""

    at_ms: int
    kind: str = "end"


class _AgentGone(RunnerError):
    """The agent side ended (or the program did) while the runner still waited for it: the
    run stops at once rather than after the remaining waits."""


@dataclass(frozen=True, slots=True)
class _Stamp:
    """A beat with its times, making its :class:`StepResult`."""

    beat: RunnerBeat
    scheduled: float
    fired: float

    def result(self, label: str, outcome: Outcome, message: str = "", *,
               checks: tuple[CheckResult, ...] = (), capture: ScreenCapture | None = None,
               golden: str | None = None, diff: str = "") -> StepResult:
        beat = self.beat
        return StepResult(beat.index, beat.kind, beat.at_ms, self.scheduled, self.fired, label,
                          outcome, message, checks, capture, golden, diff)


@dataclass(frozen=True, slots=True)
class _Key:
    """One character typed at ``at_ms`` from the start of typing (``typing_ms`` apart)."""

    at_ms: float
    data: bytes


def safe_name(text: str) -> str:
    """``text`` as one path component (scenario names and screenshot labels)."""
    return _UNSAFE.sub("_", text).strip("._") or "_"


def profile_dir(options: RunOptions, scenario: str, profile: TerminalProfile) -> Path:
    return options.target / "tmp" / safe_name(options.runner) / safe_name(scenario) / profile.id


def golden_path(options: RunOptions, scenario: str, profile: TerminalProfile, label: str) -> Path:
    """Where the golden of screenshot ``label`` lives (the spec's screenshot path scheme)."""
    return profile_dir(options, scenario, profile) / "screenshots" / f"{safe_name(label)}.golden"


def run_scenario(scenario: Scenario | str | os.PathLike[str],
                 options: RunOptions | None = None) -> RunResult:
    """Play ``scenario`` (a loaded one or a file) and return what happened.

    Never raises for a scenario that fails or cannot run: the result says so (its
    ``errors``), so a suite of scenarios always gets a full report.
    """
    opts = options or RunOptions()
    if not opts.target.is_absolute():  # the program runs in the workspace: no relative paths
        opts = dataclasses.replace(opts, target=opts.target.resolve())
    started = time.monotonic()
    if not isinstance(scenario, Scenario):
        try:
            scenario = load_scenario(Path(scenario), defines=dict(opts.defines))
        except (ScenarioError, OSError) as exc:
            return _broken(str(scenario), opts, str(exc), started)
    try:
        profile = load_profile(scenario.terminal_ref, scenario.source_path)
    except RunnerError as exc:
        return _broken(scenario.name, opts, str(exc), started, scenario.source_path)
    return _Run(scenario, opts, profile).run(started)


def _broken(name: str, opts: RunOptions, error: str, started: float,
            path: Path | None = None) -> RunResult:
    return RunResult(name=name, path=str(path or name), runner=opts.runner, profile="",
                     outcome="failed", steps=(), expectations=(), errors=(error,),
                     exit_code=None, duration_ms=(time.monotonic() - started) * 1000,
                     log_dir="", final_screen=None)


class _Run:
    """The state of one run (one scenario, one program, one terminal)."""

    def __init__(self, scenario: Scenario, options: RunOptions, profile: TerminalProfile) -> None:
        self.scenario = scenario
        self.options = options
        self.profile = profile
        stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime())
        # the pid padded to its largest width: every run's paths have one length, so a TUI
        # that cuts a line at the screen edge cuts it at the same place in each run
        run_id = f"{stamp}-{os.getpid():07d}"
        self.log_dir = profile_dir(options, scenario.name, profile) / run_id
        suffix = 1
        while self.log_dir.exists():
            suffix += 1
            self.log_dir = self.log_dir.with_name(f"{run_id}-{suffix}")
        self.workspace = self.log_dir / "workspace"
        self.home = self.log_dir / "home"
        self.sessions = SessionStore(scenario.name)
        self.steps: list[StepResult] = []
        self.expectations: list[CheckResult] = []
        self.errors: list[str] = []
        self.replacements: dict[str, str] = {}
        self.terminal: Terminal | None = None
        self.launch: Launch | None = None
        self.t0 = 0.0
        self.commands = 0
        self.progress: ProgressReader | None = None  # mode 1: the mock agent's progress file
        self.agent_beats: list[int] = []  # mode 1: timeline positions the mock agent plays

    # -- the run ---------------------------------------------------------------------

    def run(self, started: float) -> RunResult:
        try:
            self.log_dir.mkdir(parents=True)
            self.home.mkdir()
        except OSError as exc:
            return _broken(self.scenario.name, self.options, f"cannot create the run's folder "
                           f"{self.log_dir}: {exc.strerror or exc}; give --target a folder you "
                           "can write to", started, self.scenario.source_path)
        for path, marker in ((self.workspace, "$WORKSPACE"), (self.home, "$HOME"),
                             (self.log_dir, "$RUN"), (self.options.target, "$TARGET")):
            self.replacements[str(path)] = marker
            self.replacements[str(path.resolve())] = marker
        final: ScreenCapture | None = None
        exit_code: int | None = None
        leftover: tuple[ProcessInfo, ...] = ()
        with (self.log_dir / "pty.log").open("wb") as transcript, \
                (self.log_dir / "steps.jsonl").open("w", encoding="utf-8") as step_log:
            try:
                prepare_workspace(self.scenario.repo, self.workspace)
                with launch(self.scenario, agent=self.options.agent, workspace=self.workspace,
                            home=self.home, profile=self.profile, speed=self.options.speed,
                            defines=self.options.defines,
                            agent_bin=self.options.agent_bin, logs=self.log_dir) as how:
                    self.launch = how = self._follow_agent(how)
                    self.terminal = self._start(how, transcript)
                    try:
                        self._ready()
                        if self._play(step_log):
                            exit_code = self._finish()
                    finally:
                        final = self.terminal.capture()
                        leftover = self.terminal.close()
                        exit_code = self.terminal.exit_code if exit_code is None else exit_code
            except RunnerError as exc:
                self.errors.append(str(exc))
            except Exception as exc:  # a bug of ours: still report the run, never hide it
                self.errors.append(f"internal error: {type(exc).__name__}: {exc}")
        outcomes: list[Outcome] = [s.outcome for s in self.steps]
        outcomes += [c.outcome for c in self.expectations]
        outcome: Outcome = "failed" if self.errors else worst(outcomes)
        divergence = model_divergence(self.log_dir) if self.options.agent != "mock" else None
        result = RunResult(
            name=self.scenario.name, path=str(self.scenario.source_path or self.scenario.name),
            runner=self.options.runner, profile=self.profile.id, outcome=outcome,
            steps=tuple(self.steps), expectations=tuple(self.expectations),
            errors=tuple(self.errors), exit_code=exit_code,
            duration_ms=(time.monotonic() - started) * 1000, log_dir=str(self.log_dir),
            final_screen=final, argv=self.launch.argv if self.launch else (),
            sessions=self.sessions.rows(), leftover=leftover,
            pid=self.terminal.pid if self.terminal else None, divergence=divergence,
            stopped=self.terminal.stopped if self.terminal else False)
        self.sessions.close()
        _write_summary(result, self.log_dir / "result.json")
        return result

    def _follow_agent(self, how: Launch) -> Launch:
        """Mode 1: hand the mock agent a progress file (:mod:`scenarist.agent.progress`)
        through its environment, which reaches it whether it is the program or a host
        program starts it, and note which beats are the agent's to play."""
        if self.options.agent != "mock":
            return how
        path = (self.log_dir / "agent-progress").resolve()
        path.touch()
        self.progress = ProgressReader(path)
        self.agent_beats = agent_positions(compile_timeline(self.scenario))
        return dataclasses.replace(how, env={**how.env, PROGRESS_ENV: str(path)})

    def _start(self, how: Launch, transcript: BinaryIO) -> Terminal:
        return Terminal(how.argv, cwd=how.cwd, env=how.env, width=self.profile.width,
                        height=self.profile.height, transcript=transcript)

    def _ready(self) -> None:
        """Time 0 is when the program is ready, as a user starts typing when they see it
        (:meth:`Terminal.ready`, bounded by the wait deadline). A real agent CLI run as the
        program (mode 2) is ready once it drew: a Node TUI waits in its event loop while it
        loads, and keys typed then are lost (seen with Gemini CLI)."""
        assert self.terminal is not None
        deadline = self.terminal.clock.now_ms() + self.options.wait_timeout_s * 1000
        agent_cli = self.launch is not None and self.launch.model_requests is not None
        try:
            self.terminal.ready(self.options.settle_ms, deadline, drawn=agent_cli)
        except TerminalTimeout as exc:
            raise RunnerError(f"the program did not become ready: {exc}") from exc

    def _play(self, step_log: Any) -> bool:
        """Play the beats; ``False`` when the run stopped early (an error says why)."""
        timeline = compile_timeline(self.scenario)
        beats: list[tuple[int, RunnerBeat | _End]] = [
            (n, b) for n, b in enumerate(timeline.beats) if b.live and isinstance(b, RunnerBeat)]
        beats.append((len(timeline.beats), _End(timeline.duration_ms)))
        assert self.terminal is not None
        speed = self.options.speed
        responses = [e.index for e in self.scenario.timeline if isinstance(e, LlmResponse)]
        clock = RealClock()
        live = timeline.live  # the history before sessionStart already happened
        origin = live[0].at_ms if live and timeline.session_start_index is not None else 0
        schedule = Schedule(clock, speed=speed, origin_ms=origin)
        self.t0 = schedule.start()
        for number, (position, beat) in enumerate(beats):
            due = schedule.due_ms(beat.at_ms)
            self.terminal.pump_until(due - _SPIN_MS)  # keep the screen current meanwhile
            if not isinstance(beat, _End) and self._ended_early(beat, len(beats) - 1 - number):
                return False
            schedule.wait_sync(beat.at_ms)  # the last stretch: the play clock's precise wait
            fired = clock.now_ms()
            try:
                if isinstance(beat, _End):
                    self._await_mock(position, "the end of the timeline")
                    self._await_agent(len(responses), len(responses))
                    return True
                before = (sum(i < beat.index for i in responses)
                          if isinstance(beat, _AFTER_AGENT) else 0)
                step = self._step(beat, position, due - self.t0, fired - self.t0,
                                  (before, len(responses)))
            except _AgentGone as exc:
                self.errors.append(str(exc))
                return False
            self.steps.append(step)
            step_log.write(json.dumps(_step_json(step)) + "\n")
            step_log.flush()
        return True

    def _ended_early(self, beat: Beat, left: int) -> bool:  # ``left``: this beat and after
        """The program exited while beats were still to play: a failure, unless the scenario
        expects an exit (``expect.exitCode``) or it is the mock agent's own end."""
        assert self.terminal is not None
        code = self.terminal.poll_exit()
        if code is None or self._exit_expected():
            return False
        at = self.terminal.clock.now_ms() - self.t0
        self.errors.append(self._located(
            beat.event, f"the program exited with {code} at {at:.0f} ms, before the scenario "
            f"ended ({left} beat(s) still to play, the next a {beat.kind} at "
            f"{beat.at_ms} ms); if it is meant to end there, set expect.exitCode: {code}. "
            f"{self._last_lines()}"))
        return True

    def _exit_expected(self) -> bool:
        if self.scenario.expect is not None and self.scenario.expect.exit_code is not None:
            return True
        return self.progress is not None and self.progress.read().ended is not None

    def _last_lines(self) -> str:
        assert self.terminal is not None
        shown = [line for line in self.terminal.capture().lines if line][-5:]
        return "Its last lines: " + (" ⏎ ".join(shown) if shown else "(none)")

    def _await_mock(self, position: int, what: str) -> None:
        """Mode 1: the mock agent keeps its own clock (it starts when the prompt arrives), so
        a beat waits (bounded) until the agent has played the last of its own beats before
        it (a prompt: until the agent waits for it), read from its progress file. An agent (or program) that ends first stops the
        run at once; one that never gets there fails the beat, naming where it stopped."""
        if self.progress is None or self.terminal is None:
            return
        prompt = position in self.agent_beats  # a prompt, both sides play it: the agent asks
        needed = position if prompt else self._agent_beat_before(position)
        if needed is None:
            return
        timeline = compile_timeline(self.scenario)
        deadline = self.terminal.clock.now_ms() + self.options.wait_timeout_s * 1000
        while True:
            progress = self.progress.read()
            if progress.reached >= needed or (prompt and progress.prompt >= needed):
                return
            self._check_agent(progress.ended, progress.pid, timeline, needed, what)
            now = self.terminal.clock.now_ms()
            if now >= deadline:
                stop = (f"it last played {_beat_name(timeline, progress.reached)}"
                        if progress.reached >= 0 else
                        "it has played none of its beats" if progress.pid is not None else
                        "it never started (a program with `ah` must run $SCENARIST_AGENT_CMD)")
                raise TerminalTimeout(
                    f"the mock agent did not reach {_beat_name(timeline, needed)} before "
                    f"{what} within the wait deadline ({self.options.wait_timeout_s:g} s): "
                    f"{stop}", self.terminal.capture())
            self.terminal.pump_until(min(now + _PROGRESS_POLL_MS, deadline))

    def _agent_beat_before(self, position: int) -> int | None:
        found = bisect.bisect_left(self.agent_beats, position)
        return self.agent_beats[found - 1] if found else None

    def _check_agent(self, ended: int | None, pid: int | None, timeline: Timeline,
                     needed: int, what: str) -> None:
        """Raise :class:`_AgentGone` when the mock agent (or the program) can no longer get
        to ``needed``."""
        assert self.terminal is not None
        goal = f"{_beat_name(timeline, needed)} (before {what})"
        if ended is not None:
            raise _AgentGone(f"the mock agent ended its playback (exit {ended}) before "
                             f"{goal}. {self._last_lines()}")
        if pid is not None and not process_running(pid):
            raise _AgentGone(f"the mock agent (pid {pid}) exited before {goal} without "
                             f"ending its playback. {self._last_lines()}")
        code = self.terminal.poll_exit()
        if code is not None:
            raise _AgentGone(f"the program exited with {code} before the mock agent reached "
                             f"{goal}. {self._last_lines()}")

    def _await_agent(self, before: int, total: int) -> None:
        """Mode 2: a real agent keeps its own time, so an assert or screenshot written after
        ``before`` model responses waits (bounded) until the agent has acted on them: it
        asked for the next turn, or, after the last one, it got it and the screen settled.
        The journal is read each time the screen settles."""
        served = self.launch.turns_served if self.launch else None
        if served is None or before == 0:
            return
        assert self.terminal is not None
        needed = min(before + 1, total)
        deadline = self.terminal.clock.now_ms() + self.options.wait_timeout_s * 1000
        what = f"the agent acting on model response {before} of {total}"
        while True:
            self.terminal.settle(self.options.settle_ms, deadline, what)
            if served() >= needed:
                return
            code = self.terminal.poll_exit()
            if code is not None:
                raise _AgentGone(f"the agent exited with {code} before {what} (the model "
                                 f"server answered {served()} turn(s)). {self._last_lines()}")
            if self.terminal.clock.now_ms() >= deadline:
                raise TerminalTimeout(f"{what} did not happen within the wait deadline "
                                      f"(the model server answered {served()} turn(s))",
                                      self.terminal.capture())
            self.terminal.pump_until(self.terminal.clock.now_ms() + self.options.settle_ms)

    def _finish(self) -> int | None:
        """Check ``expect`` once the timeline has played; the exit code if it was awaited."""
        assert self.terminal is not None
        expect = self.scenario.expect
        code: int | None = None
        if expect is not None and expect.exit_code is not None:
            deadline = self.terminal.clock.now_ms() + self.options.exit_timeout_s * 1000
            try:
                code = self.terminal.wait_exit(deadline)
                self.expectations.append(CheckResult(
                    "exitCode", "passed" if code == expect.exit_code else "failed",
                    f"the program exited with {code}, expected {expect.exit_code}"))
            except TerminalTimeout as exc:
                self.expectations.append(CheckResult(
                    "exitCode", "failed",
                    f"still running {self.options.exit_timeout_s:g} s after the timeline "
                    f"ended (expected exit code {expect.exit_code}): {exc}"))
        else:
            self._settled("the screen at the end", required=False)
            ended = self.terminal.poll_exit()
            if ended is not None and ended != 0:
                self.expectations.append(CheckResult(
                    "exit", "failed", f"the program exited with {ended} (set expect.exitCode "
                    f"if that is expected). {self._last_lines()}"))
        if expect is not None:
            self.expectations += check_artifacts(expect.artifacts, self.workspace)
        return code

    # -- one beat ----------------------------------------------------------------------

    def _step(self, beat: RunnerBeat, position: int, scheduled: float, fired: float,
              responses: tuple[int, int]) -> StepResult:
        stamp = _Stamp(beat, scheduled, fired)
        try:
            self._await_mock(position, f"this {beat.kind}")
            self._await_agent(*responses)
            return self._dispatch(beat, stamp)
        except _AgentGone:
            raise
        except TerminalTimeout as exc:
            return stamp.result(beat.kind, "failed", str(exc), capture=exc.capture)
        except (RunnerError, KeySequenceError) as exc:
            return stamp.result(beat.kind, "failed", str(exc))

    def _dispatch(self, beat: RunnerBeat, stamp: _Stamp) -> StepResult:
        assert self.terminal is not None
        match beat:
            case PromptBeat(step=entry):
                return self._prompt(entry, stamp)
            case UserEditsBeat(event=edits):
                return self._user_edits(edits, stamp)
            case ApplyPatchBeat(event=patch):
                return self._apply_patch(patch, stamp)
            case UserCommandBeat(event=command):
                return self._user_command(command, stamp)
            case AssertBeat(event=check):
                capture = (self._settled("the screen before an assert") if check.text_contains
                           else None)
                checks = check_assert(check, self.workspace, capture, self.replacements)
                outcome = worst([c.outcome for c in checks])
                return stamp.result(f"{len(checks)} checks", outcome, checks=tuple(checks),
                                    capture=capture)
            case ScreenshotBeat(event=shot):
                return self._screenshot(shot, stamp)
            case StatusBeat(event=status):
                self.sessions.set_status(status.status)
                return stamp.result(status.status, "passed", "session status set")
            case CompleteBeat(event=complete):
                self.sessions.complete(complete.success)
                return stamp.result("complete", "passed", "session completed")
            case MergeBeat(event=merge):
                self.sessions.merge(merge.merge)
                return stamp.result("merge", "passed", "session kept in the listing")
            case LogBeat(event=line):
                return stamp.result(line.message, "passed", line.level)
            case UserCancelSessionBeat():
                return stamp.result(beat.kind, "skipped", "not played by the terminal runner; "
                                    "type the keys that cancel in the program (<Esc>, "
                                    "<ctrl-c>) as a userInputs")
            case _:
                assert_never(beat)

    def _prompt(self, entry: UserInput, stamp: _Stamp) -> StepResult:
        """Type a prompt as a user does (``userInputs``)."""
        assert self.terminal is not None
        if entry.target not in (None, "tui", "cli"):
            return stamp.result(entry.text, "skipped", f"for target {entry.target}")
        code = self.terminal.poll_exit()
        if code is not None:
            return stamp.result(entry.text, "failed", f"the program had already exited "
                                f"with {code}: nothing read this input")
        keys = parse_input(typed_text(entry), self.terminal.application_cursor)
        if keys.prompt:  # wait for the prompt, type, see it, then press Enter, as a user does
            # typed ahead while the program still answers the last line, the tty's echo of
            # the new one lands inside that answer on the screen (bc: "10/45")
            self._settled("the screen before a prompt", required=False,
                          quiet_ms=PROMPT_QUIET_MS)
            if self.options.agent == "mock":
                self._type(keys.data[:-1])  # a TUI that sees text and Enter in one burst
                self._settled("the typed prompt")  # takes it for a paste (no submit)
                self.terminal.send(keys.data[-1:])
            else:
                self._type_into_agent(keys.data[:-1])
                if not self._submit(keys.data[-1:]):  # a prompt may need no model (/help)
                    return stamp.result(entry.text, "passed", (
                        f"typed; Enter pressed {_AGENT_SUBMIT_TRIES} times, and the agent "
                        "asked the model nothing"))
        else:
            self._type(keys.data)
        how = "typed and submitted" if keys.prompt else "typed"
        return stamp.result(entry.text, "passed", how)

    def _type_into_agent(self, data: bytes) -> None:
        """Type a prompt into a real agent's input box, and see it there before Enter.

        Keys typed while the TUI is still starting can be lost even though it has drawn
        (seen in CI with Gemini CLI: the prompt's first five letters). What was typed is
        then erased with Backspace and typed again, up to :data:`_AGENT_TYPING_TRIES` times;
        a TUI that shows the text otherwise (a paste folded into a placeholder) costs the
        retries, and gets its Enter as before."""
        assert self.terminal is not None
        text = data.decode("utf-8", "surrogateescape")
        for attempt in range(_AGENT_TYPING_TRIES):
            if attempt:
                self.terminal.send(_BACKSPACE * len(text))
                self._settled("the erased prompt")
            self._type(data)
            typed = self.terminal.clock.now_ms()
            if shows_typed(self._settled("the typed prompt"), text):
                break
        # a real agent's TUI that took the typing for a paste reads Enter as a newline for a
        # while after it
        self.terminal.pump_until(typed + _AGENT_SUBMIT_AFTER_MS)

    def _submit(self, enter: bytes) -> bool:
        """Press Enter on a real agent's prompt until the model server sees a request.

        An Enter that got no model request was kept as a newline: by a TUI that read the
        typed keys late and took them for a paste, or because the tty translates CR to NL
        (:attr:`Terminal.translates_cr`), which a raw-mode TUI reads as Ctrl+J (both seen in
        CI with Codex). Enter is pressed again, up to :data:`_AGENT_SUBMIT_TRIES` times,
        each after :data:`_AGENT_ASKS_WITHIN_MS` without a new model request, and while the
        tty translates CR it is sent as the kitty keyboard protocol's Enter (``CSI 13 u``,
        which has no CR to translate and which Codex reads as Enter); a prompt that needs no
        model request costs that wait, once. ``False`` when no Enter made one."""
        assert self.terminal is not None
        requests = self.launch.model_requests if self.launch else None
        before = requests() if requests is not None else 0
        for attempt in range(_AGENT_SUBMIT_TRIES):
            self.terminal.send(_KITTY_ENTER if attempt and self.terminal.translates_cr
                               else enter)
            if requests is None:
                return True
            deadline = self.terminal.clock.now_ms() + _AGENT_ASKS_WITHIN_MS
            while self.terminal.clock.now_ms() < deadline:
                if requests() > before or self.terminal.poll_exit() is not None:
                    return True
                self.terminal.pump_until(self.terminal.clock.now_ms() + 50.0)
        return False

    def _type(self, data: bytes) -> None:
        """Send ``data`` at once, or one character every ``typing_ms`` (on the play clock),
        for programs that treat a fast burst as a paste."""
        assert self.terminal is not None
        interval = self.options.typing_ms
        if interval is None:
            interval = 0.0 if self.options.agent == "mock" else _AGENT_TYPING_MS
        if interval <= 0:
            self.terminal.send(data)
            return
        keys = [_Key(n * interval, char.encode())
                for n, char in enumerate(data.decode("utf-8", "surrogateescape"))]
        for key in pace_sync(keys, Schedule(RealClock())):
            self.terminal.send(key.data)

    def _settled(self, what: str, *, required: bool = True,
                 quiet_ms: float | None = None) -> ScreenCapture:
        assert self.terminal is not None
        deadline = self.terminal.clock.now_ms() + self.options.wait_timeout_s * 1000
        quiet = self.options.settle_ms if quiet_ms is None else min(quiet_ms,
                                                                      self.options.settle_ms)
        try:
            self.terminal.settle(quiet, deadline, what)
        except TerminalTimeout:
            if required:
                raise
        return self.terminal.capture()

    def _screenshot(self, event: Screenshot, stamp: _Stamp) -> StepResult:
        capture = self._settled(f"the screen for screenshot {event.label!r}")
        path = golden_path(self.options, self.scenario.name, self.profile, event.label)
        actual = golden_text(capture, self.replacements, (*self.scenario.screen_masks,
                                                          *event.masks))
        path.parent.mkdir(parents=True, exist_ok=True)
        if self.options.update_golden or not path.exists():
            new = not path.exists()
            path.write_text(actual, encoding="utf-8")
            return stamp.result(event.label, "passed", "new golden written" if new else
                          "golden updated", capture=capture, golden=str(path))
        diff = golden_diff(path.read_text(encoding="utf-8"), actual,
                           expected_name=str(path), actual_name="screen")
        if not diff:
            return stamp.result(event.label, "passed", "matches the golden", capture=capture,
                          golden=str(path))
        path.with_suffix(".actual").write_text(actual, encoding="utf-8")
        return stamp.result(event.label, "failed", "differs from the golden (rerun with "
                      "--update-golden to accept the new screen)", capture=capture,
                      golden=str(path), diff=diff)

    def _user_edits(self, event: UserEdits, stamp: _Stamp) -> StepResult:
        try:
            applied = apply_patch(self.workspace, event.patch_path, event.patch)
        except RunnerError as exc:
            return stamp.result(event.patch, "failed", self._located(event, str(exc)))
        return stamp.result(event.patch, "passed", applied)

    def _apply_patch(self, event: ApplyPatch, stamp: _Stamp) -> StepResult:
        """Apply, then commit if asked; a commit that cannot happen fails the step before
        the patch touches anything."""
        if event.commit and not is_repository(self.workspace):
            return stamp.result(event.path, "failed", self._located(
                event, "applyPatch commit: true needs the workspace to be a git repository "
                "(set repo.init: true)"))
        try:
            applied = apply_patch(self.workspace, event.patch_path, event.path)
            if not event.commit:
                return stamp.result(event.path, "passed", applied)
            commit = commit_all(self.workspace, event.commit_message)
        except RunnerError as exc:
            return stamp.result(event.path, "failed", self._located(event, str(exc)))
        return stamp.result(event.path, "passed",
                            f"{applied}; committed {commit} {event.commit_message!r}")

    def _located(self, event: Event, message: str) -> str:
        """``message`` with where the event is written (file:line:col and key path)."""
        file = self.scenario.source_path or self.scenario.name
        return f"{message} (at {file}:{event.line}:{event.col}, {event.key_path})"

    def _user_command(self, event: UserCommand, stamp: _Stamp) -> StepResult:
        cwd = inside(self.workspace, event.cwd or ".", "userCommand cwd")
        env = {**(self.launch.env if self.launch else os.environ), **GIT_ENV}
        self.commands += 1
        log = self.log_dir / "commands" / f"{self.commands:03d}.log"
        log.parent.mkdir(exist_ok=True)
        try:
            done = run_command(["/bin/sh", "-c", event.cmd], cwd=cwd, env=env,
                               timeout_s=self.options.wait_timeout_s)
        except OSError as exc:
            return stamp.result(event.cmd, "failed", f"cannot run it: {exc}")
        output = done.output.decode("utf-8", "replace")
        log.write_text(f"$ {event.cmd}\n{output}[exit {done.returncode}]\n", encoding="utf-8")
        if done.timed_out:
            return stamp.result(event.cmd, "failed", f"did not finish within "
                                f"{self.options.wait_timeout_s:g} s (stopped: "
                                f"{describe(done.stopped)})")
        output = output.strip()
        outcome: Outcome = "passed" if done.returncode == 0 else "failed"
        left = f"; left running, stopped: {describe(done.stopped)}" if done.stopped else ""
        return stamp.result(event.cmd, outcome, f"exit {done.returncode}{left}" + (
            f": {output[-500:]}" if output else ""))


def agent_positions(timeline: Timeline) -> list[int]:
    """Timeline positions of the beats the mock agent plays (its output, its tools, and the
    prompts it takes), in order; none when the scenario has no agent events (a program
    with `ah` that needs no agent, such as `bc`)."""
    live = [(n, beat) for n, beat in enumerate(timeline.beats) if beat.live]
    if all(isinstance(beat, RunnerBeat) for _, beat in live):
        return []
    return [n for n, beat in live
            if not isinstance(beat, RunnerBeat) or isinstance(beat, PromptBeat)]


def _beat_name(timeline: Timeline, position: int) -> str:
    beat = timeline.beats[position]
    return f"{beat.event.key_path} ({beat.kind} at {beat.at_ms} ms)"


def _step_json(step: StepResult) -> dict[str, Any]:
    return {"index": step.index, "kind": step.kind, "at_ms": step.at_ms,
            "scheduled_ms": round(step.scheduled_ms, 3), "fired_ms": round(step.fired_ms, 3),
            "label": step.label, "outcome": step.outcome, "message": step.message,
            "checks": [{"label": c.label, "outcome": c.outcome, "message": c.message}
                       for c in step.checks], "golden": step.golden, "diff": step.diff}


def _write_summary(result: RunResult, path: Path) -> None:
    """The spec's summary JSON (exitCode, snapshots, artifacts, assertions) plus the steps."""
    if not path.parent.is_dir():
        return
    summary = {
        "name": result.name, "outcome": result.outcome, "exitCode": result.exit_code,
        "stoppedByRunner": result.stopped,
        "snapshots": [s.golden for s in result.steps if s.golden],
        "artifacts": [c.label for c in result.expectations if c.label.startswith("artifact")],
        "assertions": [{"label": c.label, "outcome": c.outcome, "message": c.message}
                       for s in result.steps for c in s.checks],
        "errors": list(result.errors), "failures": result.failures,
        "steps": [_step_json(s) for s in result.steps], "argv": list(result.argv),
        "sessions": [list(row) for row in result.sessions], "leftover": [{"pid": p.pid, "cmdline": p.cmdline} for p in result.leftover],
        "divergence": dict(result.divergence) if result.divergence is not None else None,
    }
    path.write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
