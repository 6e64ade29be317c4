"""``--scenario FILE``: play a scenario-format file as Codex events.

Imported only for ``--scenario`` (it pulls in the scenario loader: YAML, pydantic).
Beats of the compiled timeline map to Codex events: ``think`` → reasoning,
``assistant`` → message deltas, ``error`` → ``error``; a tool call becomes the events of the
call Codex's table makes of it (:mod:`scenarist.vocabulary.codex`): a command (``runCmd``,
and ``readFile``/``grep``/``listDir``/``find``/``sed`` as their shell commands) → exec begin,
its ``toolExecution`` output → output deltas, its result → exec end with that output and
exit code; ``agentEdits``, ``writeFile`` and ``editFile`` → patch events (an edit as the
unified diff of its old text to its new text); ``webSearch`` → web search events; any
other tool (``GenericTool`` or a tool declared later) → an MCP call with the format's
arguments; ``agentPlan`` → ``plan_update``. The test executor's events (``userEdits``,
``applyPatch``, ``userCommand``, ``assert``, ...) become nothing: Codex's own patch events
are for the agent's edits, and a harness patch is not one. A ``fault`` becomes a
:class:`~scenarist.codex.turn.Strike` where it reaches the output
(:func:`scenarist.fault_lines.reaching`); the writer plays it on the lines. The gaps between beats become
pauses, scaled by ``time_scale`` (0: none). Each ``userInputs`` beat starts a new turn, so an
interactive run plays one turn per line it reads; a single prompt plays them all. The turns are
:func:`scenarist.scenario.turns_of`'s, the lead-in joining the first.
"""

from __future__ import annotations

import difflib
from typing import assert_never

from scenarist.codex import build
from scenarist.codex.errors import CodexUsageError
from scenarist.codex.turn import Sleep, Strike
from scenarist.fault_lines import reaching
from scenarist.json_out import as_text
from scenarist.scenario import (
    AgentEdits,
    AgentEditsBeat,
    AgentFileReadsBeat,
    AgentPermissionRequestBeat,
    AgentPlanBeat,
    AgentToolUse,
    ApplyPatchBeat,
    AssertBeat,
    AssistantBeat,
    CompleteBeat,
    EditFile,
    ErrorBeat,
    FaultBeat,
    InitializeBeat,
    LogBeat,
    MergeBeat,
    ProgressBeat,
    PromptBeat,
    ScreenshotBeat,
    SessionStartBeat,
    SetModeBeat,
    SetModelBeat,
    StatusBeat,
    ThinkBeat,
    ToolExecutionBeat,
    ToolResultBeat,
    ToolStartBeat,
    UserCancelSessionBeat,
    UserCommandBeat,
    UserEditsBeat,
    WriteFile,
)
from scenarist.vocabulary import against
from scenarist.vocabulary import codex as vocabulary

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator, Sequence
    from typing import Any

    from scenarist.codex.turn import CodexEvent, CodexTurn, Step
    from scenarist.scenario import Beat, Turns

    Player = Callable[[CodexTurn, str], tuple[Iterable[Step], bool]]

_FAILED = ("error", "failed")


def load_player(path: str, *, whole: bool, time_scale: float = 1.0,
                warn: Callable[[str], None] = print) -> Player:
    """Load ``path`` and return a function giving each turn's steps.

    With ``whole`` the first call plays the entire timeline; otherwise each call
    plays the next turn (the beats up to the next ``userInputs``). Each fault fake-codex
    does not play is passed to ``warn`` as one line.
    """
    from scenarist.faults import unplayed
    from scenarist.scenario import ScenarioError, compile_timeline, load_scenario, turns_of

    try:
        scenario = load_scenario(path)
    except ScenarioError as exc:
        issues = [i for i in exc.issues if i.severity == "error"] or list(exc.issues)
        first = "; ".join(line.strip() for line in str(issues[0]).splitlines()) if issues else exc
        more = f" (and {len(issues) - 1} more errors)" if len(issues) > 1 else ""
        raise CodexUsageError(f"--scenario: {first}{more}") from None
    except OSError as exc:
        raise CodexUsageError(f"cannot read scenario file {path!r}: {exc.strerror or exc}") from None
    for issue in unplayed(scenario, "codex"):
        warn("; ".join(part.strip() for part in str(issue).splitlines()))
    timeline = compile_timeline(scenario)
    live = [b for b in timeline.beats if b.live] or list(timeline.beats)
    turns = [live] if whole else split_turns(turns_of(timeline))
    remaining = iter(turns)

    def play(turn: CodexTurn, prompt: str) -> tuple[Iterable[Step], bool]:
        segment = next(remaining, None)
        if segment is None:
            return build.message(turn, "(the scenario has no more turns)"), False
        return scenario_steps(segment, turn, time_scale=time_scale), False

    return play


def split_turns(turns: Turns) -> list[list[Beat]]:
    """The beats of each Codex turn: one per ``userInputs`` event (its prompts left out),
    the lead-in joining the first; turns with nothing to play are dropped."""
    groups = [list(t.beats) for t in turns.turns] or [[]]
    groups[0][:0] = turns.lead_in
    return [g for g in groups if g] or [[]]


class _Call:
    """A tool call between its start beat and its result beat."""

    __slots__ = ("command", "cwd", "exit_code", "stderr", "stdout")

    def __init__(self, command: list[str], cwd: str | None = None) -> None:
        self.command = command
        self.cwd = cwd
        self.stdout = ""
        self.stderr = ""
        self.exit_code: int | None = None


def scenario_steps(beats: Sequence[Beat], turn: CodexTurn, *, time_scale: float = 1.0) -> Iterator[Step]:
    """The steps for ``beats`` (pure apart from the turn's seeded ids and chunking)."""
    calls: dict[str, _Call] = {}
    armed: set[int] = set()
    previous = beats[0].at_ms if beats else 0
    for beat in beats:
        gap = beat.at_ms - previous
        previous = beat.at_ms
        if gap > 0 and time_scale > 0:
            yield Sleep(round(gap * time_scale))
        fault = reaching(beat, armed)
        if fault is not None:
            yield Strike(fault)
        yield from _beat_events(beat, turn, calls)


def _beat_events(beat: Beat, turn: CodexTurn, calls: dict[str, _Call]) -> list[CodexEvent]:
    match beat:
        case ThinkBeat(step=step):
            return build.reasoning(turn, step.text)
        case AssistantBeat(step=step):
            return build.message(turn, step.text)
        case ErrorBeat(step=error):
            return [build.note("error", f"{error.error_type}: {error.message}")]
        case AgentEditsBeat(event=edit):
            return build.apply_patch(turn, {edit.path: _edit_change(edit)})
        case AgentPlanBeat(event=plan):
            entries = list(plan.entries)
            return [
                build.plan_update([e.content for e in entries], statuses=[e.status for e in entries])
            ]
        case ProgressBeat() | FaultBeat():
            return []  # a fault is a Strike (scenario_steps)
        case ToolStartBeat(event=use) | ToolExecutionBeat(event=use) | ToolResultBeat(event=use):
            call = vocabulary.tool_call(use.tool, against(turn.cwd), turn.cwd)
            if isinstance(call, vocabulary.ExecCommand):
                return _exec_command(beat, call, turn, calls)
            return _other_tool(turn, use, call) if isinstance(beat, ToolResultBeat) else []
        case (PromptBeat() | AgentFileReadsBeat() | AgentPermissionRequestBeat() | SetModeBeat()
              | SetModelBeat() | UserEditsBeat() | ApplyPatchBeat() | UserCommandBeat()
              | UserCancelSessionBeat() | InitializeBeat() | SessionStartBeat() | AssertBeat()
              | ScreenshotBeat() | LogBeat() | StatusBeat() | CompleteBeat() | MergeBeat()):
            return []  # not the agent's, or nothing Codex shows
        case _:
            assert_never(beat)


def _exec_command(
    beat: ToolStartBeat | ToolExecutionBeat | ToolResultBeat,
    command: vocabulary.ExecCommand,
    turn: CodexTurn,
    calls: dict[str, _Call],
) -> list[CodexEvent]:
    event = beat.event
    call_id = event.tool_call_id
    if isinstance(beat, ToolStartBeat):
        calls[call_id] = _Call(build.shell_argv(command.cmd), command.workdir)
        return [build.exec_begin(turn, call_id, calls[call_id].command, cwd=command.workdir)]
    call = calls.get(call_id) or calls.setdefault(call_id, _Call(build.shell_argv("")))
    if isinstance(beat, ToolExecutionBeat):
        step = beat.step
        if step.type in ("stdout", "stderr") and step.content:
            if step.type == "stdout":
                call.stdout += step.content
            else:
                call.stderr += step.content
            return [build.exec_output(call_id, step.type, step.content)]
        if step.type == "completion" and step.exit_code is not None:
            call.exit_code = step.exit_code
        return []
    # without a toolExecution, the result is the command's output
    out: list[CodexEvent] = []
    if event.tool_execution is None and event.result is not None:
        call.stdout = as_text(event.result)
        if call.stdout and not call.stdout.endswith("\n"):
            call.stdout += "\n"
        out.append(build.exec_output(call_id, "stdout", call.stdout))
    exit_code = call.exit_code
    if exit_code is None:
        exit_code = 1 if event.status in _FAILED else 0
    del calls[call_id]
    out.append(
        build.exec_end(
            turn,
            call_id,
            call.command,
            stdout=call.stdout,
            stderr=call.stderr,
            exit_code=exit_code,
            cwd=call.cwd,
        )
    )
    return out


def _other_tool(turn: CodexTurn, event: AgentToolUse, call: vocabulary.CodexCall) -> list[CodexEvent]:
    success = event.status not in _FAILED
    match call:
        case vocabulary.WebSearchCall(query=query):
            return build.web_search(turn, query)
        case vocabulary.ApplyPatch(path=path):
            tool = event.tool
            if isinstance(tool, WriteFile):
                change = build.file_change("add", content=tool.content)
            else:
                assert isinstance(tool, EditFile)  # the table patches only these two
                change = build.file_change("update", diff=unified_diff(tool.old_string, tool.new_string))
            return build.apply_patch(turn, {path: change}, success=success)
        case vocabulary.McpCall(tool=name, arguments=arguments):
            result = as_text(event.result) if event.result is not None else f"{name} done"
            return build.mcp_call(
                turn,
                vocabulary.MCP_SERVER,
                name,
                dict(arguments),
                result=result if success else None,
                error=None if success else result,
            )
    return []


def _edit_change(event: AgentEdits) -> dict[str, Any]:
    if event.old_text is None and event.new_text is not None:
        return build.file_change("add", content=event.new_text)
    if event.old_text is not None or event.new_text is not None:
        return build.file_change("update", diff=unified_diff(event.old_text, event.new_text))
    lines = ["-old line"] * event.lines_removed + ["+new line"] * event.lines_added
    header = f"@@ -1,{event.lines_removed} +1,{event.lines_added} @@"
    return build.file_change("update", diff="\n".join([header, *lines]) + "\n")


def unified_diff(old: str | None, new: str | None) -> str:
    """The unified diff (hunks only, one line of context, as Codex writes ``unified_diff``)
    that turns the text ``old`` into ``new``, line numbers counted from the start of ``old``."""
    old_lines = [line + "\n" for line in (old or "").splitlines()]
    new_lines = [line + "\n" for line in (new or "").splitlines()]
    hunks = list(difflib.unified_diff(old_lines, new_lines, n=1))[2:]  # no ---/+++ header
    return "".join(hunks)
