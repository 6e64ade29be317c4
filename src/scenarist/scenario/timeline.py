"""Compile a scenario into a Timeline: flat, immutable beats at absolute, unscaled times.

The timing rules (``docs/timing.md``) in brief:

* one cursor, starting at 0 ms; **agent events** (``llmResponse``, tool uses,
  ``agentEdits``, ``agentPlan``, ``agentFileReads``, ``agentPermissionRequest``) run one
  after another from the cursor (and never before a prompt written above them), and the numbers inside them are **deltas** that consume
  time: each think/assistant/progress step comes that many ms after the previous step;
  ``toolExecution`` starts ``startTimeMs`` after the tool call, its events at ``timeMs``
  from that start (offsets, non-decreasing). The cursor moves to the event's end.
* ``baseTimeDelta`` moves the cursor forward and is a synchronisation point.
* ``userInputs`` times are **absolute** (from the scenario start): they run concurrently
  with agent events, must not be earlier than the last synchronisation point nor than
  earlier inputs, and a later ``baseTimeDelta`` must cover them
  (``baseTimeDelta >= concurrent activity``).
* a ``fault`` inside an ``llmResponse`` comes right after the steps written before it; a
  ``fault`` event, like an agent event, at the cursor after the prompts written above it;
* everything else happens at the cursor; ``sessionStart`` first waits for pending inputs,
  and ``userCancelSession`` (like an agent event) comes after the prompts written above it.

Speed scaling is the player's job; beats here are unscaled.
"""

from __future__ import annotations

from collections.abc import Callable

from scenarist.scenario.beats import (
    AssistantBeat,
    Beat,
    ErrorBeat,
    FaultBeat,
    ProgressBeat,
    PromptBeat,
    ThinkBeat,
    ToolExecutionBeat,
    ToolResultBeat,
    ToolStartBeat,
    event_beat,
)
from scenarist.scenario.errors import ScenarioError
from scenarist.scenario.model import (
    AgentEdits,
    AgentFileReads,
    AgentPermissionRequest,
    AgentPlan,
    AgentToolUse,
    BaseTimeDelta,
    Event,
    FaultEvent,
    LlmError,
    LlmResponse,
    Scenario,
    SessionStart,
    UserCancelSession,
    UserInputs,
)
from scenarist.scenario.record import Record

__all__ = ["Beat", "Timeline", "compile_timeline"]


class Timeline(Record):
    """The compiled schedule of a scenario: beats sorted by time (stable)."""

    beats: tuple[Beat, ...]
    duration_ms: int
    initial_prompt: str | None
    session_start_index: int | None = None

    @property
    def historical(self) -> tuple[Beat, ...]:
        return tuple(b for b in self.beats if not b.live)

    @property
    def live(self) -> tuple[Beat, ...]:
        return tuple(b for b in self.beats if b.live)

    def __len__(self) -> int:
        return len(self.beats)


# (event-or-entry, subpath, message, hint, line, col)
Problem = Callable[[Event, str, str, str, int, int], None]


def _ignore(event: Event, sub: str, message: str, hint: str, line: int, col: int) -> None:
    return None


def build_timeline(scenario: Scenario, problem: Problem = _ignore) -> Timeline:
    """Compile without raising; timing problems go to ``problem`` (used by the loader)."""
    boundary = scenario.session_start_index
    beats: list[Beat] = []
    add = beats.append
    now = 0
    sync = 0  # the last synchronisation point (baseTimeDelta / sessionStart)
    sync_what = "the scenario start"
    last_input = 0
    last_input_at: tuple[Event, int] | None = None
    pending = 0  # the latest userInputs time scheduled so far
    pending_at: tuple[Event, int] | None = None
    for event in scenario.timeline:
        index = event.index
        live = boundary is None or index >= boundary
        if isinstance(event, _AFTER_PROMPTS) and pending > now:
            # an agent event answers the prompts written before it; a cancel cancels them
            now = pending
        if isinstance(event, LlmResponse):
            t = now
            fault = event.fault
            for n, step in enumerate(event.steps):
                if fault is not None and n == event.fault_at:
                    add(FaultBeat(at_ms=t, index=index, live=live, event=event, step=fault))
                t += step.delay_ms
                if isinstance(step, LlmError):
                    add(ErrorBeat(at_ms=t, index=index, live=live, event=event, step=step))
                elif step.kind == "think":
                    add(ThinkBeat(at_ms=t, index=index, live=live, event=event, step=step))
                else:
                    add(AssistantBeat(at_ms=t, index=index, live=live, event=event, step=step))
            if fault is not None and event.fault_at >= len(event.steps):
                add(FaultBeat(at_ms=t, index=index, live=live, event=event, step=fault))
            now = t
        elif isinstance(event, AgentToolUse):
            add(ToolStartBeat(at_ms=now, index=index, live=live, event=event))
            t = end = now
            for p in event.progress:
                t += p.delay_ms
                add(ProgressBeat(at_ms=t, index=index, live=live, event=event, step=p))
            end = t
            execution = event.tool_execution
            if execution is not None:
                start = now + execution.start_time_ms
                previous = 0
                for ev in execution.events:
                    if ev.time_ms < previous:
                        problem(event, "toolExecution.events",
                                f"toolExecution event at {ev.time_ms} ms comes after one at "
                                f"{previous} ms; timeMs are offsets from the execution start "
                                "and must not decrease",
                                "order the events by timeMs", ev.line, ev.col)
                    previous = max(previous, ev.time_ms)
                    add(ToolExecutionBeat(at_ms=start + ev.time_ms, index=index, live=live,
                                          event=event, step=ev))
                end = max(end, start + previous)
            add(ToolResultBeat(at_ms=end, index=index, live=live, event=event))
            now = end
        elif isinstance(event, UserInputs):
            for n, entry in enumerate(event.inputs):
                at = entry.at_ms
                if at < sync:
                    problem(event, f"[{n}].relativeTime",
                            f"userInputs at {at} ms is earlier than the timeline position "
                            f"{sync} ms set by {sync_what}; relativeTime is absolute "
                            "(from the scenario start)",
                            f"use relativeTime >= {sync}", entry.line, entry.col)
                elif at < last_input and last_input_at is not None:
                    problem(event, f"[{n}].relativeTime",
                            f"userInputs at {at} ms is earlier than the previous input at "
                            f"{last_input} ms ({_named(last_input_at[0])}); prompts are "
                            "sent in relativeTime order",
                            f"use relativeTime >= {last_input}", entry.line, entry.col)
                if at >= last_input:
                    last_input, last_input_at = at, (event, n)
                if at > pending:
                    pending, pending_at = at, (event, n)
                add(PromptBeat(at_ms=at, index=index, live=live, event=event, step=entry))
        elif isinstance(event, BaseTimeDelta):
            now += event.ms
            sync, sync_what = now, _named(event)
            if pending > now and pending_at is not None:
                problem(event, "", f"baseTimeDelta {event.ms} moves the timeline to {now} ms, "
                        f"but {_named(pending_at[0])} is still scheduled at "
                        f"{pending} ms (baseTimeDelta must cover concurrent activity)",
                        f"use baseTimeDelta >= {event.ms + pending - now}", event.line, event.col)
        elif isinstance(event, FaultEvent):
            add(FaultBeat(at_ms=now, index=index, live=live, event=event, step=event.fault))
        elif isinstance(event, SessionStart):
            now = max(now, pending)
            sync, sync_what = now, _named(event)
            add(event_beat(event, now, live))
        else:
            add(event_beat(event, now, live))
    beats.sort(key=_at)
    duration = max(now, beats[-1].at_ms if beats else 0)
    return Timeline(tuple(beats), duration, scenario.effective_initial_prompt, boundary)


_AFTER_PROMPTS = (LlmResponse, AgentToolUse, AgentEdits, AgentPlan, AgentFileReads,
                  AgentPermissionRequest, FaultEvent, UserCancelSession)


def _named(event: Event) -> str:
    """An event as written (its key path and position), not its flattened index."""
    return f"{event.key_path} (line {event.line}, col {event.col})"


def _at(beat: Beat) -> int:
    return beat.at_ms


def compile_timeline(scenario: Scenario) -> Timeline:
    """The scenario's timeline (already compiled and checked by the loader)."""
    if scenario.compiled is not None:
        return scenario.compiled
    from scenarist.scenario.errors import Issue

    issues: list[Issue] = []

    def collect(event: Event, sub: str, message: str, hint: str, line: int, col: int) -> None:
        path = event.key_path + (sub if not sub or sub.startswith("[") else "." + sub)
        issues.append(Issue(str(scenario.source_path or "<scenario>"), line or event.line,
                            col or event.col, path, message, hint))

    timeline = build_timeline(scenario, collect)
    if issues:
        raise ScenarioError(issues)
    return timeline
