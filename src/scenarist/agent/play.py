"""Play a scenario as the agent: its text at the scenario's times, its tools for real.

The live beats of the compiled timeline are paced by :func:`scenarist.play.iter_sync`
against one absolute start (``--speed`` is applied there and only there). The agent's own
beats are handled here: ``think``/``assistant``/``error`` are shown, a tool call runs when
it starts and its result is shown and compared when the scenario says it ends, an
``agentEdits`` edits the file, ``agentPlan`` and ``log`` are shown. The test executor's
events (``assert``, ``screenshot``, ``userEdits``, ``applyPatch``, ``userCommand``,
``complete``, ...) are not the agent's and are skipped: the executor changes the workspace
the agent shares with it, so a patch the agent applied too would be applied twice.

A ``userInputs`` beat takes the user's prompt: the PROMPT argument for the first one, then a
line typed at the terminal when stdin is one (as many lines as the scripted prompt has), or
else the scripted text itself. A typed prompt is compared with the scenario's. Waiting for
the user pauses the schedule: playback starts again from that beat's time when the prompt
arrives (:class:`Pacer`), so the agent stays in step with a test executor that typed it.

A ``fault`` reaches the output where :func:`scenarist.fault_lines.reaching` says (a counted
one at its response's first beat) and is played on the output's lines by the
:class:`~scenarist.fault_output.FaultedOutput` the caller passes as ``faults``; an ``exit``
unwinds from there as :class:`~scenarist.fault_output.FaultExit`, so the tools' processes
are stopped before the process ends.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import IO, assert_never

from scenarist.agent.compare import Problem, check_edit, check_prompt, check_tool
from scenarist.agent.render import Renderer, Session, block_text
from scenarist.agent.tools import (
    Outcome,
    ToolCall,
    Tools,
    describe,
    describe_edit,
    describe_file_read,
)
from scenarist.agent.workspace import Workspace
from scenarist.divergence import Divergence
from scenarist.errors import ScenaristError
from scenarist.fault_lines import reaching
from scenarist.fault_output import FaultedOutput
from scenarist.play import Clock, iter_sync
from scenarist.processes import run_command
from scenarist.scenario import (
    AgentEdits,
    AgentEditsBeat,
    AgentFileReads,
    AgentFileReadsBeat,
    AgentPermissionRequest,
    AgentPermissionRequestBeat,
    AgentPlanBeat,
    ApplyPatchBeat,
    AssertBeat,
    AssistantBeat,
    Beat,
    CompleteBeat,
    ErrorBeat,
    Event,
    FaultBeat,
    InitializeBeat,
    LogBeat,
    MergeBeat,
    ProgressBeat,
    PromptBeat,
    Scenario,
    ScreenshotBeat,
    SessionStartBeat,
    SetModeBeat,
    SetModelBeat,
    StatusBeat,
    TextContent,
    ThinkBeat,
    ToolBeat,
    ToolExecutionBeat,
    ToolResultBeat,
    ToolStartBeat,
    UserCancelSessionBeat,
    UserCommandBeat,
    UserEditsBeat,
    UserInput,
    compile_timeline,
)

__all__ = ["CHECKPOINT_TIMEOUT_S", "Checkpoint", "Pacer", "Prompts", "Report", "TimelineEnd",
           "play"]

CHECKPOINT_TIMEOUT_S = 60


@dataclass(frozen=True, slots=True)
class TimelineEnd:
    """The end of the timeline (a last ``baseTimeDelta`` included), paced like a beat: the
    agent's session lasts until then, so its summary comes after every beat of the test
    executor's, as the scenario places them."""

    at_ms: int


class Pacer:
    """The beats on the player's schedule, restartable after a pause.

    ``restart_after(beat)`` makes the following beats due relative to *now*, as if ``beat``
    had just been played on time: used after waiting for the user, so time spent typing is
    not made up for by a burst of beats.
    """

    def __init__(self, beats: Sequence[Beat | TimelineEnd], *, clock: Clock | None,
                 speed: float, origin_ms: float = 0.0) -> None:
        self.beats = beats
        self.clock = clock
        self.speed = speed
        self.origin_ms = origin_ms
        self._restart: float | None = None

    def restart_after(self, beat: Beat) -> None:
        self._restart = beat.at_ms

    def __iter__(self) -> Iterator[Beat | TimelineEnd]:
        start, origin = 0, self.origin_ms
        while start < len(self.beats):
            rest = self.beats[start:]
            for offset, beat in enumerate(iter_sync(rest, clock=self.clock, speed=self.speed,
                                                    origin_ms=origin)):
                yield beat
                if self._restart is not None:
                    start, origin, self._restart = start + offset + 1, self._restart, None
                    break
            else:
                return


def typed_text(expected: UserInput) -> str:
    """What the user types for a prompt: its text blocks (attachments are not typed)."""
    return "\n".join(b.text for b in expected.content if isinstance(b, TextContent))


class EndOfInput(ScenaristError):
    """The terminal closed (Ctrl-D) while the scenario still expected a prompt."""


class Prompts:
    """Where the user's prompts come from: PROMPT, then the terminal, else the scenario."""

    def __init__(self, first: str | None = None, terminal: IO[str] | None = None,
                 marker: IO[str] | None = None) -> None:
        self.first = first
        self.terminal = terminal
        self.marker = marker

    def take(self, expected: UserInput) -> tuple[str, bool]:
        """The prompt for ``expected`` and whether the user gave it (vs the scripted text)."""
        if self.first is not None:
            text, self.first = self.first, None
            return text, True
        if self.terminal is None:
            return "\n".join(block_text(b) for b in expected.content), False
        if self.marker is not None:
            self.marker.write("› ")
            self.marker.flush()
        lines = []
        for _ in range(typed_text(expected).count("\n") + 1):
            line = self.terminal.readline()
            if not line:
                raise EndOfInput
            lines.append(line.rstrip("\r\n"))
        return "\n".join(lines), True


@dataclass(frozen=True, slots=True)
class Checkpoint:
    """``--checkpoint-cmd``: a shell command run in the workspace after each tool and edit."""

    command: str

    def run(self, workspace: Workspace, number: int, tool: str) -> str | None:
        """Run it; the problem as one line, or None when it succeeded."""
        env = {**os.environ, "SCENARIST_CHECKPOINT": str(number),
               "SCENARIST_CHECKPOINT_TOOL": tool, "SCENARIST_WORKSPACE": workspace.root}
        done = run_command(["/bin/sh", "-c", self.command], cwd=workspace.root, env=env,
                           timeout_s=CHECKPOINT_TIMEOUT_S)
        if done.timed_out:
            return f"checkpoint command timed out after {CHECKPOINT_TIMEOUT_S} s"
        if done.returncode != 0:
            tail = done.output.decode("utf-8", "replace").strip().splitlines()[-1:]
            return f"checkpoint command exited with {done.returncode}" + (
                f": {tail[0]}" if tail else "")
        return None


@dataclass(slots=True)
class Report:
    """What a run did: counts, and every mismatch as (where, problems)."""

    tools: int = 0  # tool calls executed for real
    simulated: int = 0
    edits: int = 0
    checkpoints: int = 0
    mismatches: list[tuple[str, tuple[Problem, ...]]] = field(default_factory=list)
    ended_early: bool = False
    divergence: Divergence | None = None  # the first mismatch, as the model server names one


class _Run:
    """One playback: the workspace, the tools and what has happened so far."""

    def __init__(self, scenario: Scenario, workspace: Workspace, tools: Tools,
                 renderer: Renderer, prompts: Prompts, checkpoint: Checkpoint | None) -> None:
        self.scenario = scenario
        self.workspace = workspace
        self.tools = tools
        self.renderer = renderer
        self.prompts = prompts
        self.checkpoint = checkpoint
        self.report = Report()
        self.running: dict[str, tuple[ToolCall, Outcome]] = {}
        self.on_prompt: Callable[[int], None] | None = None
        self.position = 0  # of the beat being played, in the compiled timeline

    def where(self, event: Event) -> str:
        source = self.scenario.source_path or "<scenario>"
        return f"{source}:{event.line}:{event.col} {event.key_path}"

    def problems(self, event: Event, problems: tuple[Problem, ...]) -> None:
        if problems:
            where = self.where(event)
            self.report.mismatches.append((where, problems))
            self.renderer.mismatch(where, problems)
            if self.report.divergence is None:
                first = problems[0]
                source = self.scenario.source_path or "<scenario>"
                self.report.divergence = Divergence(
                    self.scenario.name, event.key_path, f"{source}:{event.line}:{event.col}",
                    first.field or "outcome", first.expected, first.got or first.what)

    def executed(self, outcome: Outcome, tool: str) -> None:
        if outcome.simulated:
            self.report.simulated += 1
        if not outcome.executed:
            return
        if tool == "agentEdits":
            self.report.edits += 1
        else:
            self.report.tools += 1
        if self.checkpoint is not None:
            self.report.checkpoints += 1
            problem = self.checkpoint.run(self.workspace, self.report.checkpoints, tool)
            if problem is not None:
                self.renderer.note(f"warning: {problem}")

    def beat(self, beat: Beat, pacer: Pacer) -> None:
        match beat:
            case ThinkBeat(step=step):
                self.renderer.thinking(block_text(step.content))
            case AssistantBeat(step=step):
                self.renderer.assistant(block_text(step.content))
            case ErrorBeat(step=error):
                self.renderer.llm_error(error)
            case FaultBeat():
                pass  # played on the output by play's loop
            case ToolStartBeat() | ProgressBeat() | ToolExecutionBeat() | ToolResultBeat():
                self.tool_beat(beat)
            case AgentEditsBeat(event=edit):
                self.edit(edit)
            case AgentPlanBeat(event=plan):
                self.renderer.plan(plan.entries)
            case AgentFileReadsBeat(event=reads):
                self.file_reads(reads)
            case AgentPermissionRequestBeat(event=request):
                self.renderer.note(permission_text(request))
            case LogBeat(event=line):
                self.renderer.log(line.message, line.level)
            case PromptBeat(step=expected):
                self.prompt(beat, expected, pacer)
            case (SetModeBeat() | SetModelBeat() | UserEditsBeat() | ApplyPatchBeat()
                  | UserCommandBeat() | UserCancelSessionBeat() | InitializeBeat()
                  | SessionStartBeat() | AssertBeat() | ScreenshotBeat() | StatusBeat()
                  | CompleteBeat() | MergeBeat()):
                pass  # the test executor's, or nothing a terminal agent shows
            case _:
                assert_never(beat)

    def tool_beat(self, beat: ToolBeat) -> None:
        use = beat.event
        match beat:
            case ToolStartBeat():
                call = describe(use, self.workspace)
                self.renderer.tool_started(call)
                outcome = self.tools.run(use)
                self.executed(outcome, call.name)
                self.running[use.tool_call_id] = (call, outcome)
            case ProgressBeat(step=progress):
                call, _ = self.running[use.tool_call_id]
                self.renderer.progress(call, progress.message)
            case ToolExecutionBeat():
                pass  # the tool really runs: its own output is what the terminal shows
            case ToolResultBeat():
                call, outcome = self.running.pop(use.tool_call_id)
                self.renderer.tool_finished(call, outcome)
                self.problems(use, check_tool(outcome, result=use.result, status=use.status,
                                              compares_output=call.compares_output))
            case _:
                assert_never(beat)

    def edit(self, edit: AgentEdits) -> None:
        outcome = self.tools.edit(edit)
        call = describe_edit(edit, self.workspace, outcome.change)
        self.renderer.tool_started(call)
        self.executed(outcome, "agentEdits")
        self.renderer.tool_finished(call, outcome)
        has_texts = edit.old_text is not None or edit.new_text is not None
        self.problems(edit, check_edit(outcome, lines_added=edit.lines_added,
                                       lines_removed=edit.lines_removed, has_texts=has_texts))

    def file_reads(self, reads: AgentFileReads) -> None:
        for n, read in enumerate(reads.files):
            call = describe_file_read(read.path, f"read_{reads.index}_{n}", self.workspace)
            self.renderer.tool_started(call)
            outcome = self.tools.read_file(read.path)  # a read changes nothing: no checkpoint
            self.renderer.tool_finished(call, outcome)
            self.problems(reads, check_tool(outcome, result=read.expected_content,
                                            status=None, compares_output=True))

    def prompt(self, beat: PromptBeat, expected: UserInput, pacer: Pacer) -> None:
        if self.on_prompt is not None:
            self.on_prompt(self.position)
        try:
            text, typed = self.prompts.take(expected)
        except EndOfInput:
            self.report.ended_early = True
            self.problems(beat.event, (Problem(
                "the input ended before the prompt the scenario expects here: "
                f"{typed_text(expected)!r}"),))
            raise
        self.renderer.user_prompt(text, typed)
        if typed:
            pacer.restart_after(beat)
            self.problems(beat.event, check_prompt(typed_text(expected), text))


def permission_text(request: AgentPermissionRequest) -> str:
    """The permission question and the scripted answer, as one line."""
    title = request.tool_call.get("title") or request.tool_call.get("toolCallId") or "a tool"
    options = " / ".join(o.name for o in request.options)
    chosen = next((o.name for o in request.options
                   if o.option_id == request.decision.option_id), None)
    answer = chosen if request.decision.outcome == "selected" and chosen else "cancelled"
    return f"? permission for {title} ({options}) → {answer}"


def play(scenario: Scenario, workspace: Workspace, renderer: Renderer, *,
         prompts: Prompts | None = None, checkpoint: Checkpoint | None = None,
         speed: float = 1.0, clock: Clock | None = None, session_id: str = "",
         on_beat: Callable[[int], None] | None = None,
         on_prompt: Callable[[int], None] | None = None,
         faults: FaultedOutput | None = None) -> Report:
    """Play ``scenario``'s live beats in ``workspace``; the report says what differed.

    ``on_beat(position)`` is called after each beat is played and ``on_prompt(position)``
    before the user's prompt is awaited, with the beat's position in the compiled timeline
    (the progress file of :mod:`scenarist.agent.progress`). ``faults`` is the output the
    renderer writes through, where the scenario's faults are played (without it they are
    only noted)."""
    timeline = compile_timeline(scenario)
    beats = timeline.live
    positions = {id(beat): n for n, beat in enumerate(timeline.beats)}
    origin = beats[0].at_ms if beats and timeline.session_start_index is not None else 0
    renderer.begin(Session(scenario.name, workspace.root, session_id or scenario.name))
    with Tools(workspace) as tools:
        run = _Run(scenario, workspace, tools, renderer, prompts or Prompts(), checkpoint)
        run.on_prompt = on_prompt
        pacer = Pacer([*beats, TimelineEnd(timeline.duration_ms)], clock=clock, speed=speed,
                      origin_ms=origin)
        armed: set[int] = set()
        stalled = 0
        try:
            for beat in pacer:
                if isinstance(beat, TimelineEnd):
                    break
                run.position = positions[id(beat)]
                fault = reaching(beat, armed)
                if fault is not None and faults is not None:
                    faults.fault(fault)
                elif fault is not None:
                    renderer.note(f"warning: fault {fault.kind!r} (line {fault.line}) not "
                                  "played: this output has no fault layer")
                run.beat(beat, pacer)
                if faults is not None and faults.paused_ms != stalled:
                    stalled = faults.paused_ms  # a stall delays what follows, spacing kept
                    pacer.restart_after(beat)
                if on_beat is not None:
                    on_beat(positions[id(beat)])
        except EndOfInput:
            pass
    if run.report.divergence is not None:
        renderer.note(run.report.divergence.describe())
    renderer.end(sum(len(p) for _, p in run.report.mismatches))
    if faults is not None:
        faults.end()
    return run.report
