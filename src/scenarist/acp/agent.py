"""The mock ACP agent: the ACP SDK's ``Agent`` that plays scenarios to a client.

``initialize`` advertises the scenario's ``acp.capabilities``; ``session/new`` and
``session/load`` honour ``sessionStart`` (load replays the history first);
``session/prompt`` plays one turn of the scenario on :class:`scenarist.play.Player`,
asking the client for files, terminals and permissions where the scenario says so and
the client advertises it; ``session/cancel`` ends the turn with ``cancelled`` at once
(unless the turn has a ``lateResponse`` fault: then the turn plays on to it, waits its
``ms`` and answers). The scenario's other faults are played on the wire by
:class:`scenarist.acp.faulty.FaultyLines` (``wire``), at their place in the turn.
Client misuse is answered with ACP's error codes. Updates are built by
:mod:`scenarist.acp.updates`; this module only does the talking and the pacing.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, assert_never

import acp
from acp import schema as s

from scenarist.acp.compare import differences
from scenarist.acp.faulty import WIRE_KINDS, FaultyLines
from scenarist.acp.handshake import initialize_answer
from scenarist.acp.stdio import log
from scenarist.acp.tools import absolute
from scenarist.acp.turns import AcpAgentBeat, AcpScript, Turn, script_of
from scenarist.acp.updates import (
    BeatRenderer,
    SessionUpdate,
    permission_options,
    permission_tool_call,
    stop_reason,
    usage,
)
from scenarist.faults import Chaos, chaos_fault, describe
from scenarist.play import Clock, Player, RealClock
from scenarist.play.pacing import Schedule
from scenarist.scenario.beats import (
    AgentEditsBeat,
    AgentFileReadsBeat,
    AgentPermissionRequestBeat,
    AgentPlanBeat,
    AssistantBeat,
    ErrorBeat,
    FaultBeat,
    ProgressBeat,
    ThinkBeat,
    ToolBeat,
    ToolExecutionBeat,
    ToolResultBeat,
    ToolStartBeat,
    UserCancelSessionBeat,
)
from scenarist.scenario.model import (
    AgentFileReads,
    AgentPermissionRequest,
    LlmResponse,
    Scenario,
    SetMode,
    SetModel,
)
from scenarist.scenario.select import ScenarioIndex, SelectionError

__all__ = ["AgentOptions", "ScenarioAgent", "log"]

RESOURCE_NOT_FOUND = -32002


@dataclass(frozen=True, slots=True)
class AgentOptions:
    scenario_name: str | None = None
    session_id: str | None = None
    cwd: str | None = None  # resolve relative paths against this instead of the client's cwd
    mcp_servers: tuple[Mapping[str, Any], ...] | None = None  # expected from the client
    speed: float = 1.0
    chaos: Chaos | None = None  # --chaos: a seeded fault per prompt turn


@dataclass(slots=True)
class _Session:
    id: str
    cwd: str
    script: AcpScript | None
    next_turn: int = 0
    mode_id: str = "default"
    model_id: str = "default"
    cancel: asyncio.Event | None = None
    terminals: dict[str, str] = field(default_factory=dict)


def _invalid_request(message: str, **data: Any) -> acp.RequestError:
    return acp.RequestError(-32600, f"Invalid request: {message}", {"message": message, **data})


def _invalid_params(message: str, **data: Any) -> acp.RequestError:
    return acp.RequestError(-32602, f"Invalid params: {message}", {"message": message, **data})


class ScenarioAgent(acp.Agent):
    """An ACP agent whose every answer comes from a scenario."""

    def __init__(self, scenarios: Sequence[Scenario], options: AgentOptions | None = None,
                 *, clock: Clock | None = None) -> None:
        self.options = options or AgentOptions()
        self.index = ScenarioIndex(scenarios)
        self.clock: Clock = clock or RealClock()
        self._scripts: dict[str, AcpScript] = {}
        fixed = None
        if self.options.scenario_name is not None:
            fixed = self.index.select(name=self.options.scenario_name).scenario
        elif len(self.index) == 1:
            fixed = self.index.scenarios[0]
        self.fixed = self._script(fixed) if fixed is not None else None
        self.conn: acp.Client | None = None
        self.wire: FaultyLines | None = None  # set when serving stdio: faults play on it
        self.client_caps: s.ClientCapabilities | None = None
        self.sessions: dict[str, _Session] = {}
        self._count = 0
        self._background: set[asyncio.Task[Any]] = set()

    # -- helpers ------------------------------------------------------------------------
    def _script(self, scenario: Scenario) -> AcpScript:
        script = self._scripts.get(scenario.name)
        if script is None or script.scenario is not scenario:
            script = self._scripts[scenario.name] = script_of(scenario)
        return script

    def _candidates(self) -> list[Scenario]:
        return [self.fixed.scenario] if self.fixed else list(self.index.scenarios)

    @property
    def _client(self) -> acp.Client:
        if self.conn is None:
            raise acp.RequestError.internal_error({"message": "no client connection"})
        return self.conn

    def _ready(self) -> s.ClientCapabilities:
        if self.client_caps is None:
            raise _invalid_request("send initialize before any other request")
        return self.client_caps

    def _session(self, session_id: str) -> _Session:
        self._ready()
        session = self.sessions.get(session_id)
        if session is None:
            raise acp.RequestError(RESOURCE_NOT_FOUND, f"Resource not found: session {session_id!r}",
                                   {"sessionId": session_id, "known": sorted(self.sessions)})
        return session

    async def _send(self, session: _Session, updates: Sequence[SessionUpdate]) -> None:
        client = self._client
        for update in updates:
            await client.session_update(session_id=session.id, update=update)

    def on_connect(self, conn: acp.Client) -> None:
        self.conn = conn

    def attach(self, wire: FaultyLines) -> None:
        """Play faults on ``wire`` (the stdio transport), on this agent's clock and speed."""
        self.wire = wire
        wire.clock, wire.speed = self.clock, self.options.speed

    # -- initialize -----------------------------------------------------------------------
    async def initialize(self, protocol_version: int,
                         client_capabilities: s.ClientCapabilities | None = None,
                         client_info: s.Implementation | None = None,
                         **kwargs: Any) -> s.InitializeResponse:
        self.client_caps = client_capabilities or s.ClientCapabilities()
        answer, problems = initialize_answer(self._candidates())
        for problem in problems:
            log(f"initialize: the answer differs from expectedResponse: {problem}")
        if protocol_version != acp.PROTOCOL_VERSION:
            log(f"initialize: client asked for protocol {protocol_version}; answering "
                f"{acp.PROTOCOL_VERSION}")
        return s.InitializeResponse.model_validate(answer)

    def initialized_early(self, params: Mapping[str, Any]) -> None:
        """Take the client's capabilities from an ``initialize`` answered before the SDK
        was running (:mod:`scenarist.acp.stdio`)."""
        try:
            self.client_caps = s.ClientCapabilities.model_validate(
                params.get("clientCapabilities") or {})
        except ValueError as exc:  # stdio checked the shape; this is deeper than it looks
            log(f"initialize: clientCapabilities not understood, none assumed: "
                f"{next(iter(str(exc).splitlines()), '')}")
            self.client_caps = s.ClientCapabilities()

    async def authenticate(self, method_id: str, **kwargs: Any) -> s.AuthenticateResponse:
        return s.AuthenticateResponse()

    # -- what a scenario does not play: ACP's "method not found" ------------------------
    async def list_sessions(self, cwd: str | None = None, cursor: str | None = None,
                            **kwargs: Any) -> s.ListSessionsResponse:
        raise acp.RequestError.method_not_found("session/list")

    async def fork_session(self, session_id: str, cwd: str,
                           additional_directories: list[str] | None = None,
                           mcp_servers: list[Any] | None = None,
                           **kwargs: Any) -> s.ForkSessionResponse:
        raise acp.RequestError.method_not_found("session/fork")

    async def resume_session(self, session_id: str, cwd: str,
                             additional_directories: list[str] | None = None,
                             mcp_servers: list[Any] | None = None,
                             **kwargs: Any) -> s.ResumeSessionResponse:
        raise acp.RequestError.method_not_found("session/resume")

    async def close_session(self, session_id: str, **kwargs: Any) -> s.CloseSessionResponse:
        self._session(session_id)
        session = self.sessions.pop(session_id)
        if session.cancel is not None:
            session.cancel.set()
        return s.CloseSessionResponse()

    async def ext_method(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        raise acp.RequestError.method_not_found("_" + method)

    async def ext_notification(self, method: str, params: dict[str, Any]) -> None:
        return None

    # -- sessions -----------------------------------------------------------------------
    def _modes(self, session: _Session) -> s.SessionModeState | None:
        ids = sorted({e.mode_id for sc in self._session_scenarios(session)
                      for e in sc.timeline if isinstance(e, SetMode)})
        if not ids:
            return None
        modes = [s.SessionMode(id=m, name=m) for m in ["default", *ids] if m]
        return s.SessionModeState(current_mode_id=session.mode_id, available_modes=modes)

    def _models(self, session: _Session) -> list[str]:
        return sorted({e.model_id for sc in self._session_scenarios(session)
                       for e in sc.timeline if isinstance(e, SetModel)})

    def _config_options(self, session: _Session
                        ) -> list[s.SessionConfigOptionSelect | s.SessionConfigOptionBoolean] | None:
        models = self._models(session)
        if not models:
            return None
        options = [s.SessionConfigSelectOption(value=m, name=m) for m in ["default", *models]]
        return [s.SessionConfigOptionSelect(id="model", name="Model", category="model",
                                            type="select", current_value=session.model_id,
                                            options=options)]

    def _session_scenarios(self, session: _Session) -> list[Scenario]:
        return [session.script.scenario] if session.script else self._candidates()

    def _check_mcp(self, given: Sequence[Any] | None) -> None:
        expected = self.options.mcp_servers
        if expected is None:
            return
        sent = [m.model_dump(mode="json", by_alias=True, exclude_none=True) for m in given or []]
        for problem in differences(list(expected), sent, "mcpServers"):
            log(f"session setup: {problem}")

    def _open(self, session_id: str, cwd: str, script: AcpScript | None) -> _Session:
        session = _Session(session_id, self.options.cwd or cwd, script)
        self.sessions[session_id] = session
        return session

    async def new_session(self, cwd: str, additional_directories: list[str] | None = None,
                          mcp_servers: list[Any] | None = None,
                          **kwargs: Any) -> s.NewSessionResponse:
        self._ready()
        self._check_mcp(mcp_servers)
        self._count += 1
        session_id = (self.options.session_id or (self.fixed.session_id if self.fixed else None)
                      or f"scenarist-{self._count}")
        if session_id in self.sessions:
            session_id = f"{session_id}-{self._count}"
        session = self._open(session_id, cwd, self.fixed)
        return s.NewSessionResponse(session_id=session.id, modes=self._modes(session),
                                    config_options=self._config_options(session))

    async def load_session(self, cwd: str, session_id: str,
                           mcp_servers: list[Any] | None = None,
                           additional_directories: list[str] | None = None,
                           **kwargs: Any) -> s.LoadSessionResponse:
        self._ready()
        self._check_mcp(mcp_servers)
        script = self.fixed or next(
            (self._script(sc) for sc in self.index.scenarios
             if self._script(sc).session_id == session_id), None)
        caps = script.scenario.acp.capabilities if script and script.scenario.acp else None
        if script is None:
            raise acp.RequestError(RESOURCE_NOT_FOUND, f"Resource not found: session {session_id!r}",
                                   {"sessionId": session_id, "message": "no scenario has a "
                                    "sessionStart with this sessionId; name one with --scenario-name"})
        if caps is None or not caps.load_session:
            raise _invalid_request(f"scenario {script.scenario.name!r} does not advertise "
                                   "loadSession", sessionId=session_id)
        session = self._open(session_id, cwd, script)
        renderer = BeatRenderer(session.cwd)
        for beat in script.history:
            await self._send(session, renderer.render(beat))
        return s.LoadSessionResponse(modes=self._modes(session),
                                     config_options=self._config_options(session))

    async def set_session_mode(self, session_id: str, mode_id: str,
                               **kwargs: Any) -> s.SetSessionModeResponse:
        session = self._session(session_id)
        modes = self._modes(session)
        if modes is None or mode_id not in {m.id for m in modes.available_modes}:
            raise _invalid_params(f"unknown mode {mode_id!r}", modeId=mode_id)
        session.mode_id = mode_id
        await self._send(session, [s.CurrentModeUpdate(session_update="current_mode_update",
                                                       current_mode_id=mode_id)])
        return s.SetSessionModeResponse()

    async def set_config_option(self, config_id: str, session_id: str, value: str | bool,
                                **kwargs: Any) -> s.SetSessionConfigOptionResponse:
        session = self._session(session_id)
        if config_id != "model" or not self._models(session):
            raise _invalid_params(f"unknown config option {config_id!r}", configId=config_id)
        if value not in ["default", *self._models(session)]:
            raise _invalid_params(f"unknown model {value!r}", value=value)
        session.model_id = str(value)
        return s.SetSessionConfigOptionResponse(config_options=self._config_options(session) or [])

    # -- prompt turns ---------------------------------------------------------------------
    async def prompt(self, session_id: str, prompt: list[Any], **kwargs: Any) -> s.PromptResponse:
        session = self._session(session_id)
        if session.cancel is not None:
            raise _invalid_request("a prompt is already running in this session",
                                   sessionId=session_id)
        if session.script is None:
            session.script = self._select(prompt)
        turns = session.script.turns
        if session.next_turn >= len(turns):
            raise _invalid_request(
                f"scenario {session.script.scenario.name!r} has {len(turns)} prompt turn(s) "
                "and all were played", sessionId=session_id)
        turn = turns[session.next_turn]
        session.next_turn += 1
        await self._chaos(session, turn)
        cancel = session.cancel = asyncio.Event()
        play = asyncio.create_task(self._play(session, turn, cancel))
        waiter = asyncio.create_task(cancel.wait())
        try:
            if _late_response(turn) is None:
                await asyncio.wait({play, waiter}, return_when=asyncio.FIRST_COMPLETED)
            else:  # a cancel does not end this turn: it plays on to its late answer
                await asyncio.wait({play})
            reason: s.StopReason = play.result() if play.done() else "cancelled"
        finally:
            waiter.cancel()
            play.cancel()
            session.cancel = None
            self._release_terminals(session)
        return s.PromptResponse(stop_reason=reason, usage=usage(turn.expected),
                                field_meta=self._response_meta(turn))

    async def _chaos(self, session: _Session, turn: Turn) -> None:
        """Strike ``--chaos``'s fault for this turn, if it draws one: a pure function of the
        seed, the scenario, the session and the turn's place, so every run faults the same
        turns the same way."""
        chaos, wire = self.options.chaos, self.wire
        if chaos is None or wire is None or session.script is None:
            return
        identity = f"{session.script.scenario.name}\0{session.id}\0{session.next_turn}"
        fault = chaos_fault(chaos, identity.encode(), len(turn.beats))
        if fault is not None:
            log(f"chaos: turn {session.next_turn} of session {session.id}: {describe(fault)}")
            await wire.strike(fault)

    @staticmethod
    def _response_meta(turn: Turn) -> dict[str, Any] | None:
        meta = (turn.expected or {}).get("_meta")
        return dict(meta) if isinstance(meta, Mapping) else None

    def _select(self, prompt: list[Any]) -> AcpScript:
        text = "\n".join(b.text for b in prompt if isinstance(b, s.TextContentBlock))
        try:
            chosen = self.index.select(prompt=text).scenario
        except SelectionError as exc:
            raise _invalid_params(str(exc)) from None
        return self._script(chosen)

    async def cancel(self, session_id: str, **kwargs: Any) -> None:
        session = self.sessions.get(session_id)
        if session is not None and session.cancel is not None:
            session.cancel.set()

    async def _play(self, session: _Session, turn: Turn, cancel: asyncio.Event
                    ) -> s.StopReason:
        turn_play = _TurnPlay(self, session, turn)
        player = Player(turn.beats, clock=self.clock, speed=self.options.speed,
                        origin_ms=turn.origin_ms)
        late = _late_response(turn)
        async for beat in player:
            if beat.index in turn_play.skipped:
                continue
            if isinstance(beat, UserCancelSessionBeat):
                await cancel.wait()
                if late is None:
                    return "cancelled"
            elif isinstance(beat, FaultBeat) and beat.step.kind == "lateResponse":
                if cancel.is_set():
                    await Schedule(self.clock, speed=self.options.speed).wait(beat.step.ms)
                    return _cancelled_answer(turn)
            elif not await turn_play.beat(beat):
                return "cancelled"
        return _cancelled_answer(turn) if cancel.is_set() else stop_reason(turn.expected)

    def _release_terminals(self, session: _Session) -> None:
        if not session.terminals or self.conn is None:
            return
        ids, session.terminals = list(session.terminals.values()), {}
        task = asyncio.create_task(self._kill_terminals(session.id, ids))
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def _kill_terminals(self, session_id: str, ids: list[str]) -> None:
        client = self._client
        for terminal_id in ids:
            with contextlib.suppress(Exception):
                await client.kill_terminal(session_id=session_id, terminal_id=terminal_id)
                await client.release_terminal(session_id=session_id, terminal_id=terminal_id)


def _late_response(turn: Turn) -> FaultBeat | None:
    """The turn's ``lateResponse`` fault: a cancel does not end the turn at once."""
    return next((b for b in turn.beats if isinstance(b, FaultBeat)
                 and b.step.kind == "lateResponse"), None)


def _cancelled_answer(turn: Turn) -> s.StopReason:
    """A late answer after a cancel: the prompt's scripted ``stopReason`` when it has one
    (an agent that answers ``end_turn`` after a cancel, which ACP forbids), else
    ``cancelled``."""
    if turn.expected and "stopReason" in turn.expected:
        return stop_reason(turn.expected)
    return "cancelled"


def _strikes_later(fault: FaultBeat) -> bool:
    """Whether a response's fault counts its events or bytes from the response's start."""
    return isinstance(fault.event, LlmResponse) and (
        fault.step.after_events is not None or fault.step.after_bytes is not None)


class _TurnPlay:
    """The client-facing side effects of one turn's beats."""

    def __init__(self, agent: ScenarioAgent, session: _Session, turn: Turn) -> None:
        self.agent = agent
        self.session = session
        self.turn = turn
        self.caps = agent._ready()
        self.renderer = BeatRenderer(session.cwd)
        self.skipped: set[int] = set()
        # a response's fault that strikes after N events/bytes is armed at its first beat
        self.to_arm = {b.index: b for b in turn.beats
                       if isinstance(b, FaultBeat) and _strikes_later(b)}

    @property
    def client(self) -> acp.Client:
        return self.agent._client

    async def beat(self, beat: AcpAgentBeat) -> bool:
        """Play one beat; False when the turn ends as cancelled."""
        early = self.to_arm.pop(beat.index, None)
        if early is not None:
            await self.fault(early)
        match beat:
            case ErrorBeat(step=step):
                data = {"errorType": step.error_type, "message": step.message,
                        "statusCode": step.status_code, "details": step.details}
                if step.retry_after_seconds is not None:
                    data["retryAfterSeconds"] = step.retry_after_seconds
                raise acp.RequestError(-32603, f"Internal error: {step.message}", data)
            case AgentFileReadsBeat(event=reads):
                await self.read_files(reads)
            case AgentPermissionRequestBeat(event=request):
                return await self.ask(beat, request)
            case ToolStartBeat() | ProgressBeat() | ToolExecutionBeat() | ToolResultBeat():
                await self.tool(beat)
            case AgentEditsBeat(event=edit):
                await self.agent._send(self.session, self.renderer.render(beat))
                if edit.new_text is not None:
                    await self.write(self.renderer_path(edit.path), edit.new_text,
                                     edit.old_text)
            case ThinkBeat() | AssistantBeat() | AgentPlanBeat():
                await self.agent._send(self.session, self.renderer.render(beat))
            case UserCancelSessionBeat():
                pass  # the turn waits for the client's session/cancel (ScenarioAgent._play)
            case FaultBeat():
                if not _strikes_later(beat):  # (else armed at the response's first beat)
                    await self.fault(beat)
                    # a truncated turn ends here, unseen: its answer is swallowed too, and
                    # the session takes the client's next prompt
                    return beat.step.kind != "truncate" or self.agent.wire is None
            case _:
                assert_never(beat)
        return True

    async def fault(self, beat: FaultBeat) -> None:
        """Play a fault on the wire (the kinds ``scenarist acp`` does not play were
        warned about at start: :func:`scenarist.faults.unplayed`)."""
        wire = self.agent.wire
        if beat.step.kind not in WIRE_KINDS:
            return
        if wire is None:
            log(f"{beat.event.key_path}: a {beat.step.kind} fault needs the stdio transport; "
                "not played here")
            return
        await wire.strike(beat.step)

    def renderer_path(self, path: str) -> str:
        return absolute(path, self.session.cwd)

    async def tool(self, beat: ToolBeat) -> None:
        use = beat.event
        view = self.renderer.view(use)
        terminal = self.session.terminals.get(use.tool_call_id)
        if isinstance(beat, ToolStartBeat):
            if view.command is not None and self.caps.terminal:
                terminal = await self.open_terminal(use.tool_call_id, view.command,
                                                    view.command_cwd)
            await self.agent._send(self.session, self.renderer.render(beat, terminal_id=terminal))
            if view.diff is not None:
                await self.write(view.diff.path, view.diff.new_text, view.diff.old_text)
            return
        if isinstance(beat, ToolResultBeat) and terminal is not None:
            exit_code = await self.close_terminal(use.tool_call_id, terminal)
            await self.agent._send(self.session, [self.renderer.result(
                use, terminal_id=terminal, exit_code=exit_code)])
            return
        await self.agent._send(self.session, self.renderer.render(beat))

    async def open_terminal(self, call_id: str, command: str, cwd: str | None) -> str | None:
        inside = cwd if cwd and cwd.startswith(self.session.cwd) else self.session.cwd
        try:
            made = await self.client.create_terminal(
                session_id=self.session.id, command="sh", args=["-c", command], cwd=inside)
        except acp.RequestError as exc:
            log(f"terminal/create for {call_id} failed: {exc} {exc.data or ''}")
            return None
        self.session.terminals[call_id] = made.terminal_id
        return made.terminal_id

    async def close_terminal(self, call_id: str, terminal_id: str) -> int | None:
        client, sid = self.client, self.session.id
        self.session.terminals.pop(call_id, None)
        try:
            exited = await client.wait_for_terminal_exit(session_id=sid, terminal_id=terminal_id)
            await client.release_terminal(session_id=sid, terminal_id=terminal_id)
        except acp.RequestError as exc:
            log(f"terminal {terminal_id} of {call_id}: {exc} {exc.data or ''}")
            return None
        return exited.exit_code

    async def write(self, path: str, new_text: str, old_text: str | None) -> None:
        """Apply an edit through the client's files: replace ``old_text`` in the file (read
        first) or write ``new_text`` whole; skipped when the client cannot."""
        fs = self.caps.fs
        if fs is None or not fs.write_text_file:
            return
        content = new_text
        sid = self.session.id
        try:
            if old_text:
                if not fs.read_text_file:
                    log(f"edit of {path} skipped: the client cannot read files")
                    return
                current = (await self.client.read_text_file(session_id=sid, path=path)).content
                if old_text not in current:
                    log(f"edit of {path}: the text to replace is not in the file; writing "
                        "the new text whole")
                else:
                    content = current.replace(old_text, new_text, 1)
            await self.client.write_text_file(session_id=sid, path=path, content=content)
        except acp.RequestError as exc:
            log(f"writing {path} through the client failed: {exc} {exc.data or ''}")

    async def read_files(self, event: AgentFileReads) -> None:
        fs = self.caps.fs
        if fs is None or not fs.read_text_file:
            log(f"{event.key_path}: the client does not advertise fs.readTextFile; skipped")
            return
        for read in event.files:
            path = self.renderer_path(read.path)
            got = (await self.client.read_text_file(session_id=self.session.id,
                                                    path=path)).content
            if read.expected_content is not None and got != read.expected_content:
                raise acp.RequestError(-32603, f"Internal error: fs/read_text_file of {path} "
                                       "returned other content than the scenario expects",
                                       {"path": path, "expected": read.expected_content,
                                        "got": got, "event": event.key_path})

    async def ask(self, beat: AgentPermissionRequestBeat, event: AgentPermissionRequest
                  ) -> bool:
        """Ask for permission; a rejection skips the action it guards, a cancelled
        outcome ends the turn."""
        answer = await self.client.request_permission(
            session_id=self.session.id, tool_call=permission_tool_call(event),
            options=permission_options(event))
        outcome = answer.outcome
        if isinstance(outcome, s.DeniedOutcome):
            return False
        chosen = next((o for o in event.options if o.option_id == outcome.option_id), None)
        if chosen is None:
            raise _invalid_params(f"permission answer chose unknown option "
                                  f"{outcome.option_id!r}", optionId=outcome.option_id)
        scripted = event.decision.option_id
        if scripted is not None and scripted != chosen.option_id:
            log(f"{event.key_path}: the client chose {chosen.option_id!r}, the scenario "
                f"scripts {scripted!r}; following the client")
        if chosen.kind.startswith("reject"):
            guarded = self._guarded(beat, event)
            if guarded is not None:
                self.skipped.add(guarded)
        return True

    def _guarded(self, beat: AgentPermissionRequestBeat, event: AgentPermissionRequest
                 ) -> int | None:
        """The event a permission request guards: the tool call it names, else the next
        action of the turn."""
        wanted = event.tool_call.get("toolCallId")
        later = [b for b in self.turn.beats if b.at_ms >= beat.at_ms and b.index > beat.index
                 and isinstance(b, ToolStartBeat | AgentEditsBeat | AgentFileReadsBeat)]
        for b in later:  # file reads have no call id: they match a request naming none
            if (None if isinstance(b, AgentFileReadsBeat) else b.event.tool_call_id) == wanted:
                return b.index
        return later[0].index if later else None
