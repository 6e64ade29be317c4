"""``scenarist acp-test``: play a scenario's client side against any ACP agent and check it.

The client (the ACP SDK's ``Client``) initializes, opens or loads the session, sends each
prompt, mode/model switch and cancel at its scenario time on :class:`scenarist.play.Player`
(a prompt waits for the previous one's answer), answers permission requests with the
scripted decision, file reads with the scripted content (else the workspace file), writes
into the confined :class:`~scenarist.acp.workspace.Workspace` and runs terminals there. It
checks what the scenario states: initialize's ``expectedResponse``, each prompt's answer,
the replayed history, that permission requests are the scripted ones and that every
scripted one came. It prints PASS/FAIL lines with the differences and can write the
JSON-RPC transcript (JSONL) and a JUnit report.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, assert_never
from xml.etree import ElementTree as ET

import acp
from acp import schema as s

from scenarist.acp.compare import differences
from scenarist.acp.frames import Refusal
from scenarist.acp.lines import CheckedLines
from scenarist.acp.progress import SessionProgress, exit_text
from scenarist.acp.stdio import one_line_logging
from scenarist.acp.turns import AcpScript, ClientBeat, Turn, script_of
from scenarist.acp.updates import prompt_blocks
from scenarist.play import Player
from scenarist.processes import ProcessInfo, ProcessTree, describe
from scenarist.scenario.beats import (
    AssistantBeat,
    Beat,
    ErrorBeat,
    PromptBeat,
    SetModeBeat,
    SetModelBeat,
    UserCancelSessionBeat,
)
from scenarist.scenario.model import (
    AgentFileReads,
    AgentPermissionRequest,
    Initialize,
    Scenario,
    TextContent,
    UserInput,
    content_text,
)
from scenarist.scenario.timeline import compile_timeline

__all__ = [
    "AcpTestOptions",
    "AcpTestReport",
    "Check",
    "format_report",
    "junit_text",
    "run_report",
    "run_test",
    "write_junit",
    "write_transcript",
]

STDIO_LIMIT = 50 * 1024 * 1024
AGENT_EXIT_S = 5.0  # how long an agent may take to exit once its stdin is closed
STOP_STEP_S = 1.0  # the bound on each clean-up step after the run
EXIT_POLL_S = 0.05
QUOTE_CHARS = 120  # how much of a refused line a report quotes


async def _exit_code(process: asyncio.subprocess.Process, within: float | None) -> int | None:
    """The agent's exit code once it has exited, None if it still runs after ``within``
    seconds. Polled: ``Process.wait()`` also waits for every copy of the agent's pipes to
    close, which a child it leaves behind may hold for ever."""
    deadline = None if within is None else asyncio.get_running_loop().time() + within
    while process.returncode is None:
        if deadline is not None and asyncio.get_running_loop().time() >= deadline:
            return None
        await asyncio.sleep(EXIT_POLL_S)
    return process.returncode


async def end_agent(process: asyncio.subprocess.Process, tree: ProcessTree,
                    grace: float) -> tuple[ProcessInfo, ...]:
    """Close the agent's stdin, give it ``grace`` seconds to exit, then stop everything it
    started (:meth:`ProcessTree.stop`: SIGTERM, SIGKILL 0.5 s later, double-forked daemons
    included); what was still running."""
    if process.stdin is not None:
        with contextlib.suppress(OSError, RuntimeError):
            process.stdin.close()
    await _exit_code(process, grace)
    stopped = await asyncio.to_thread(tree.stop)
    with contextlib.suppress(TimeoutError):  # the pipes close once the tree is gone
        await asyncio.wait_for(process.wait(), STOP_STEP_S)
    return stopped


@dataclass(frozen=True, slots=True)
class AcpTestOptions:
    command: tuple[str, ...]
    cwd: Path | None = None
    transcript: Path | None = None
    junit: Path | None = None
    speed: float = 1.0
    timeout: float = 120.0
    env: Mapping[str, str] | None = None  # added to this process's environment
    quiet: bool = False


@dataclass(frozen=True, slots=True)
class Check:
    name: str
    problems: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return not self.problems


@dataclass(slots=True)
class AcpTestReport:
    scenario: str
    checks: list[Check] = field(default_factory=list)
    transcript: list[dict[str, Any]] = field(default_factory=list)
    updates: list[dict[str, Any]] = field(default_factory=list)
    agent_stderr: list[str] = field(default_factory=list)
    stopped: tuple[ProcessInfo, ...] = ()  # still running at the end (the agent or its leftovers)

    @property
    def ok(self) -> bool:
        return all(c.ok for c in self.checks)

    def check(self, name: str, problems: list[str] | tuple[str, ...] = ()) -> None:
        self.checks.append(Check(name, tuple(problems)))


@dataclass(frozen=True, slots=True)
class _Step:
    """One thing the client does at ``at_ms``: prompt a turn, switch mode/model, cancel."""

    at_ms: int
    kind: Literal["prompt", "cancel", "setMode", "setModel"]
    turn: Turn | None = None
    value: str | None = None


def client_steps(script: AcpScript) -> list[_Step]:
    """The client's side of ``script``, in time order, ties in timeline order (pure). A
    prompt whose turn ends in a scripted error is sent again (the retry) for each retry
    turn, once the error is answered."""
    groups: list[list[Turn]] = []  # a prompt's turn, then its retries
    for turn in script.turns:
        if turn.retry and groups:
            groups[-1].append(turn)
        else:
            groups.append([turn])
    prompted = iter([g for g in groups if g[0].prompt is not None])

    def prompts(at_ms: int, group: list[Turn]) -> list[_Step]:
        return [_Step(max(at_ms, t.origin_ms) if t.retry else at_ms, "prompt", t)
                for t in group]

    steps: list[_Step] = []
    if groups and groups[0][0].prompt is None:  # a loaded session's lead-in
        steps += prompts(groups[0][0].origin_ms, groups[0])
    for beat in compile_timeline(script.scenario).beats:
        if not beat.live or not isinstance(beat, ClientBeat):
            continue
        match beat:
            case PromptBeat():
                steps += prompts(beat.at_ms, next(prompted))
            case UserCancelSessionBeat():
                steps.append(_Step(beat.at_ms, "cancel"))
            case SetModeBeat():
                steps.append(_Step(beat.at_ms, "setMode", value=beat.event.mode_id))
            case SetModelBeat():
                steps.append(_Step(beat.at_ms, "setModel", value=beat.event.model_id))
            case _:
                assert_never(beat)
    steps.sort(key=lambda st: st.at_ms)
    return steps


def _dump(model: Any) -> dict[str, Any]:
    if isinstance(model, dict):
        return model
    dumped: dict[str, Any] = model.model_dump(mode="json", by_alias=True, exclude_none=True)
    return dumped


class ScriptedClient(acp.Client):
    """The ACP client side: answers the agent as the scenario scripts."""

    def __init__(self, script: AcpScript, workspace: Any, report: AcpTestReport) -> None:
        from scenarist.acp.workspace import Workspace

        assert isinstance(workspace, Workspace)
        self.workspace = workspace
        self.report = report
        self.permissions = [e for e in script.scenario.timeline
                            if isinstance(e, AgentPermissionRequest)
                            and (script.session_start is None
                                 or e.index > script.session_start.index)]
        self.asked = 0
        self.unscripted: list[str] = []
        self.reads = {r.path: r.expected_content for e in script.scenario.timeline
                      if isinstance(e, AgentFileReads) for r in e.files
                      if r.expected_content is not None}

    def on_connect(self, conn: Any) -> None:
        return None

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        self.report.updates.append(_dump(update))

    async def request_permission(self, session_id: str, tool_call: s.ToolCallUpdate,
                                 options: list[s.PermissionOption], **kwargs: Any
                                 ) -> s.RequestPermissionResponse:
        if self.asked >= len(self.permissions):
            self.unscripted.append(f"{tool_call.title or tool_call.tool_call_id!r} "
                                   f"(options {[o.option_id for o in options]})")
            allow = next((o for o in options if o.kind.startswith("allow")), None)
            if allow is None:
                return s.RequestPermissionResponse(outcome=s.DeniedOutcome(outcome="cancelled"))
            return s.RequestPermissionResponse(outcome=s.AllowedOutcome(
                outcome="selected", option_id=allow.option_id))
        event = self.permissions[self.asked]
        self.asked += 1
        decision = event.decision
        if decision.outcome == "cancelled" or decision.option_id is None:
            return s.RequestPermissionResponse(outcome=s.DeniedOutcome(outcome="cancelled"))
        chosen = next((o for o in options if o.option_id == decision.option_id), None)
        if chosen is None:  # another agent's ids: choose by the scripted option's kind
            kind = next(o.kind for o in event.options if o.option_id == decision.option_id)
            chosen = next((o for o in options if o.kind == kind), None)
        if chosen is None:
            self.report.check(f"permission request {self.asked}", [
                f"{event.key_path}: the agent offered {[o.option_id for o in options]}, none "
                f"is the scripted {decision.option_id!r} or of its kind"])
            return s.RequestPermissionResponse(outcome=s.DeniedOutcome(outcome="cancelled"))
        return s.RequestPermissionResponse(outcome=s.AllowedOutcome(
            outcome="selected", option_id=chosen.option_id))

    async def read_text_file(self, session_id: str, path: str, line: int | None = None,
                             limit: int | None = None, **kwargs: Any) -> s.ReadTextFileResponse:
        scripted = self.reads.get(path)
        if scripted is not None:
            return s.ReadTextFileResponse(content=scripted)
        try:
            return s.ReadTextFileResponse(content=self.workspace.read(path, line, limit))
        except FileNotFoundError:
            raise acp.RequestError.resource_not_found(path) from None
        except (OSError, UnicodeDecodeError) as exc:
            raise acp.RequestError.invalid_params({"path": path, "message": str(exc)}) from None

    async def write_text_file(self, session_id: str, path: str, content: str,
                              **kwargs: Any) -> s.WriteTextFileResponse:
        try:
            self.workspace.write(path, content)
        except OSError as exc:
            raise acp.RequestError.invalid_params({"path": path, "message": str(exc)}) from None
        return s.WriteTextFileResponse()

    async def create_terminal(self, session_id: str, command: str, args: list[str] | None = None,
                              env: list[s.EnvVariable] | None = None, cwd: str | None = None,
                              output_byte_limit: int | None = None,
                              **kwargs: Any) -> s.CreateTerminalResponse:
        try:
            terminal_id = await self.workspace.start(
                command, list(args or []), cwd, {v.name: v.value for v in env or []},
                output_byte_limit)
        except OSError as exc:
            raise acp.RequestError.invalid_params({"command": command, "message": str(exc)}) from None
        return s.CreateTerminalResponse(terminal_id=terminal_id)

    def _terminal(self, terminal_id: str) -> Any:
        try:
            return self.workspace.get(terminal_id)
        except KeyError:
            raise acp.RequestError.resource_not_found(terminal_id) from None

    async def terminal_output(self, session_id: str, terminal_id: str,
                              **kwargs: Any) -> s.TerminalOutputResponse:
        terminal = self._terminal(terminal_id)
        code = terminal.process.returncode
        status = None if code is None else _exit_status(code)
        return s.TerminalOutputResponse(output=terminal.text(), truncated=terminal.truncated,
                                        exit_status=status)

    async def wait_for_terminal_exit(self, session_id: str, terminal_id: str,
                                     **kwargs: Any) -> s.WaitForTerminalExitResponse:
        self._terminal(terminal_id)
        code = await self.workspace.wait(terminal_id)
        status = _exit_status(code)
        return s.WaitForTerminalExitResponse(exit_code=status.exit_code, signal=status.signal)

    async def kill_terminal(self, session_id: str, terminal_id: str,
                            **kwargs: Any) -> s.KillTerminalResponse:
        self._terminal(terminal_id)
        self.workspace.kill(terminal_id)
        return s.KillTerminalResponse()

    async def release_terminal(self, session_id: str, terminal_id: str,
                               **kwargs: Any) -> s.ReleaseTerminalResponse:
        self._terminal(terminal_id)
        await self.workspace.release(terminal_id)
        return s.ReleaseTerminalResponse()

    async def create_elicitation(self, message: str, mode: Any,
                                 **kwargs: Any) -> s.CreateElicitationResponse:
        return s.DeclineElicitationResponse(action="decline")

    async def complete_elicitation(self, elicitation_id: str, **kwargs: Any) -> None:
        return None

    async def ext_method(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        raise acp.RequestError.method_not_found("_" + method)

    async def ext_notification(self, method: str, params: dict[str, Any]) -> None:
        return None


def _exit_status(code: int) -> s.TerminalExitStatus:
    if code < 0:
        import signal

        return s.TerminalExitStatus(signal=signal.Signals(-code).name)
    return s.TerminalExitStatus(exit_code=code)


# -- the run --------------------------------------------------------------------------


def _initialize_params(scenario: Scenario) -> dict[str, Any]:
    event = next((e for e in scenario.timeline if isinstance(e, Initialize)), None)
    params: dict[str, Any] = {
        "protocolVersion": acp.PROTOCOL_VERSION,
        "clientCapabilities": {"fs": {"readTextFile": True, "writeTextFile": True},
                               "terminal": True},
        "clientInfo": {"name": "scenarist-acp-test", "version": _version()},
    }
    if event is not None:
        params["protocolVersion"] = event.protocol_version
        if event.client_capabilities:
            params["clientCapabilities"] = dict(event.client_capabilities)
        if event.client_info:
            params["clientInfo"] = dict(event.client_info)
        if event.meta:
            params["_meta"] = dict(event.meta)
    return params


def _version() -> str:
    from scenarist import __version__

    return __version__


def _mcp_servers(scenario: Scenario) -> list[dict[str, Any]]:
    servers = []
    for m in scenario.acp.mcp_servers if scenario.acp else ():
        if m.transport == "stdio":
            servers.append({"name": m.name, "command": m.command or "", "args": list(m.args),
                            "env": [{"name": k, "value": v} for k, v in m.env]})
        else:
            servers.append({"type": m.transport, "name": m.name, "url": m.url or "",
                            "headers": [{"name": k, "value": v} for k, v in m.headers]})
    return servers


def _history_texts(history: tuple[Beat, ...]) -> tuple[str, str]:
    user = "".join(content_text(b.step.content) for b in history if isinstance(b, PromptBeat))
    agent = "".join(content_text(b.step.content) for b in history
                    if isinstance(b, AssistantBeat) and isinstance(b.step.content, TextContent))
    return user, agent


def _chunk_text(updates: list[dict[str, Any]], kind: str) -> str:
    return "".join(u["content"].get("text", "") for u in updates
                   if u.get("sessionUpdate") == kind and isinstance(u.get("content"), dict))


class _Run:
    def __init__(self, script: AcpScript, options: AcpTestOptions, report: AcpTestReport,
                 workspace: Any) -> None:
        self.script = script
        self.options = options
        self.report = report
        self.workspace = workspace
        self.client = ScriptedClient(script, workspace, report)
        self.prompt_task: asyncio.Task[None] | None = None
        self.session_id = ""
        self.prompts = 0
        self.retries = 0
        self.process: asyncio.subprocess.Process | None = None
        self.tree: ProcessTree | None = None
        self.conn: acp.ClientSideConnection | None = None
        self.drain_task: asyncio.Task[None] | None = None
        self.refusals: list[str] = []
        self.progress = SessionProgress()
        self.ended_where: str | None = None  # where the session stood when stdout ended
        self.output_done = asyncio.Event()  # the agent's stdout ended (read to its end)
        self.last_heard: float | None = None  # loop time of the agent's last line

    def observe(self, event: Any) -> None:
        outgoing = event.direction.value == "outgoing"
        direction = "client->agent" if outgoing else "agent->client"
        self.report.transcript.append({"direction": direction, "message": event.message})
        if outgoing:
            self.progress.sent(event.message)
        else:
            self.last_heard = asyncio.get_running_loop().time()
            self.progress.received(event.message)

    async def drain(self, stream: asyncio.StreamReader | None) -> None:
        if stream is None:
            return
        while line := await stream.readline():
            self.report.agent_stderr.append(line.decode("utf-8", "replace").rstrip("\n"))

    def refused(self, line: int, refusal: Refusal, text: bytes) -> None:
        self.last_heard = asyncio.get_running_loop().time()
        quoted = text.rstrip(b"\r\n").decode("utf-8", "replace")
        if len(quoted) > QUOTE_CHARS:
            quoted = quoted[:QUOTE_CHARS] + f"... ({len(text)} bytes)"
        self.refusals.append(f"line {line} ({self.progress.where()}): {refusal.log}: "
                             f"{json.dumps(quoted, ensure_ascii=False)}")

    def output_ended(self) -> None:
        self.ended_where = self.progress.where()
        self.output_done.set()

    def waiting(self) -> str:
        """What the run waited for, for a timeout's report: the moment and the silence."""
        text = self.progress.where()
        if self.last_heard is not None:
            quiet = asyncio.get_running_loop().time() - self.last_heard
            text += f"; the agent's last line came {quiet:.1f} s before"
        else:
            text += "; the agent wrote nothing"
        return text

    async def main(self) -> None:
        """Start the agent in its own process tree and play the session with it."""
        command, *args = self.options.command
        env = {**os.environ, **(self.options.env or {})}
        self.tree = tree = ProcessTree()
        self.process = process = await tree.create_subprocess_exec(
            command, *args, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE, env=env, cwd=str(self.workspace.root),
            limit=STDIO_LIMIT)
        assert process.stdin is not None and process.stdout is not None
        lines = CheckedLines(process.stdout, process.stdin, limit=STDIO_LIMIT,
                             log=lambda _: None, on_refusal=self.refused,
                             on_end=self.output_ended)
        self.conn = conn = acp.connect_to_agent(self.client, lines, observers=[self.observe])
        self.drain_task = asyncio.create_task(self.drain(process.stderr))
        session = asyncio.create_task(self.session(conn))
        exited = asyncio.create_task(_exit_code(process, None))
        try:
            await asyncio.wait({session, exited}, return_when=asyncio.FIRST_COMPLETED)
            if not session.done():  # the agent is gone: what it still owes will not come
                await asyncio.wait({session}, timeout=STOP_STEP_S)
            if session.done() and (session.exception() is None or not lines.ended):
                session.result()
                return
            await self.report_end(process)
        finally:
            for task in (session, exited):
                task.cancel()
            await asyncio.wait({session, exited})
            for task in (session, exited):  # retrieved: an error here is not news
                if not task.cancelled():
                    task.exception()

    async def report_end(self, process: asyncio.subprocess.Process) -> None:
        """The session broke off because the agent's output ended or the agent exited:
        say how it ended and where the session stood (the request waiting for its answer,
        the prompt turn, the updates so far)."""
        where = self.ended_where or self.progress.where()
        code = await _exit_code(process, STOP_STEP_S)
        if code is None:
            problem = (f"the agent closed its stdout {where} (still running {STOP_STEP_S:g} s "
                       "later: stopped)")
        else:
            problem = f"the agent {exit_text(code)} {where}"
        self.report.check("agent", [problem])

    async def stop(self, grace: float) -> None:
        """End what the run started, each step bounded: the prompt in flight, the terminals,
        the connection, then the agent (``grace`` seconds to exit on its own after its
        stdin closes) and everything it started."""
        if self.prompt_task is not None and not self.prompt_task.done():
            self.prompt_task.cancel()
            await asyncio.wait({self.prompt_task}, timeout=STOP_STEP_S)
        with contextlib.suppress(TimeoutError, OSError):
            async with asyncio.timeout(STOP_STEP_S):
                await self.workspace.close()
        if self.process is not None and self.tree is not None:
            # before the connection closes: what the agent writes until it exits is still
            # read (an update after the last answer is judged once the output has ended)
            self.report.stopped += await end_agent(self.process, self.tree, grace)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.output_done.wait(), STOP_STEP_S)
        if self.conn is not None:
            with contextlib.suppress(Exception):
                async with asyncio.timeout(STOP_STEP_S):
                    await self.conn.close()
        if self.drain_task is not None:
            await asyncio.wait({self.drain_task}, timeout=STOP_STEP_S)
            self.drain_task.cancel()

    async def session(self, conn: Any) -> None:
        scenario = self.script.scenario
        params = _initialize_params(scenario)
        init = await conn.initialize(**_kwargs(s.InitializeRequest, params))
        answer = _dump(init)
        event = next((e for e in scenario.timeline if isinstance(e, Initialize)), None)
        expected = event.expected_response if event is not None else None
        self.report.check("initialize", differences(expected or {}, answer))
        cwd = self.session_cwd()
        mcp = _kwargs(s.NewSessionRequest, {"cwd": cwd, "mcpServers": _mcp_servers(scenario)}
                      )["mcp_servers"]
        start = self.script.session_start
        can_load = bool(answer.get("agentCapabilities", {}).get("loadSession"))
        if start is not None and can_load:
            self.session_id = start.session_id or f"{scenario.name}-session"
            await conn.load_session(cwd=cwd, session_id=self.session_id, mcp_servers=mcp)
            self.check_replay()
        else:
            made = await conn.new_session(cwd=cwd, mcp_servers=mcp)
            self.session_id = made.session_id
            self.report.updates.clear()
        await self.play(conn)
        problems = [f"the agent asked for a permission the scenario does not script: {u}"
                    for u in self.client.unscripted]
        missing = self.client.permissions[self.client.asked:]
        problems += [f"{e.key_path}: the agent never asked for this permission" for e in missing]
        self.report.check("permission requests", problems)

    def session_cwd(self) -> str:
        scenario = self.script.scenario
        where = self.workspace.root
        if scenario.acp is not None and scenario.acp.cwd:
            where = self.workspace.path(scenario.acp.cwd)
        where.mkdir(parents=True, exist_ok=True)
        return str(where)

    def check_replay(self) -> None:
        user, agent = _history_texts(self.script.history)
        updates = list(self.report.updates)
        self.report.updates.clear()
        problems = []
        if user and _chunk_text(updates, "user_message_chunk") != user:
            problems.append(f"user_message_chunk text: expected {user!r}, got "
                            f"{_chunk_text(updates, 'user_message_chunk')!r}")
        if agent and _chunk_text(updates, "agent_message_chunk") != agent:
            problems.append(f"agent_message_chunk text: expected {agent!r}, got "
                            f"{_chunk_text(updates, 'agent_message_chunk')!r}")
        self.report.check("session/load history", problems)

    async def play(self, conn: Any) -> None:
        steps = client_steps(self.script)
        if not steps:
            return
        player = Player(steps, speed=self.options.speed, origin_ms=steps[0].at_ms)
        async for step in player:
            if step.kind == "prompt":
                await self.await_prompt()
                assert step.turn is not None
                self.prompt_task = asyncio.create_task(self.prompt(conn, step.turn))
            elif step.kind == "cancel":
                await conn.cancel(session_id=self.session_id)
            elif step.kind == "setMode":
                await self.request(f"session/set_mode {step.value}", conn.set_session_mode(
                    session_id=self.session_id, mode_id=step.value))
            elif step.kind == "setModel":
                await self.request(f"setModel {step.value}", conn.set_config_option(
                    config_id="model", session_id=self.session_id, value=step.value))
        await self.await_prompt()

    async def request(self, name: str, call: Any) -> None:
        try:
            await call
        except acp.RequestError as exc:
            self.report.check(name, [f"the agent answered error {exc.code}: {exc} "
                                     f"{json.dumps(exc.data) if exc.data else ''}".rstrip()])
        else:
            self.report.check(name)

    async def await_prompt(self) -> None:
        if self.prompt_task is not None:
            await self.prompt_task
            self.prompt_task = None

    async def prompt(self, conn: Any, turn: Turn) -> None:
        if turn.retry:
            self.retries += 1
            name = f"prompt {self.prompts} retry {self.retries}"
        else:
            self.prompts, self.retries = self.prompts + 1, 0
            name = f"prompt {self.prompts}"
        entry = turn.prompt or self.fallback_prompt()
        blocks = prompt_blocks(entry)
        meta = dict(entry.meta) if entry.meta else {}
        wants_error = turn.fails
        try:
            answer = await conn.prompt(session_id=self.session_id, prompt=blocks, **meta)
        except acp.RequestError as exc:
            if wants_error:
                problems = _error_problems(turn, exc)
            else:
                problems = [f"the agent answered error {exc.code}: {exc} "
                            f"{json.dumps(exc.data) if exc.data else ''}".rstrip()]
            self.report.check(name, problems + self.turn_rules())
            return
        got = _dump(answer)
        expected = dict(turn.expected or {})
        problems = self.turn_rules()
        record = self.progress.turn
        cancel_sent = record is not None and record.cancelled_at is not None
        want_session = expected.pop("sessionId", None)
        if want_session is not None and want_session != self.session_id:
            problems.append(f"sessionId: expected {want_session!r}, got {self.session_id!r}")
        if wants_error:
            problems.append("the scenario scripts an error, the agent answered "
                            f"{json.dumps(got)}")
        if "stopReason" not in expected and turn.cancels and not cancel_sent:
            expected["stopReason"] = "cancelled"  # (once sent, turn_rules says it)
        self.report.check(name, problems + differences(expected, got))

    def turn_rules(self) -> list[str]:
        """What the prompt just answered broke of ACP's prompt-turn rules."""
        record = self.progress.turn
        return list(record.problems) if record is not None else []

    def fallback_prompt(self) -> UserInput:
        """The prompt for a turn the scenario does not prompt (a loaded session's live
        lead-in): the scenario's initial prompt."""
        text = self.script.scenario.effective_initial_prompt or "continue"
        return UserInput(0, (TextContent(text),))


def _error_problems(turn: Turn, exc: acp.RequestError) -> list[str]:
    """How a JSON-RPC error differs from the turn's scripted error, where the agent says
    (an agent that puts ``errorType`` in the error's data, as ``scenarist acp`` does)."""
    last = turn.beats[-1] if turn.beats else None
    data = exc.data if isinstance(exc.data, dict) else {}
    got = data.get("errorType")
    if got is None or not isinstance(last, ErrorBeat) or got == last.step.error_type:
        return []
    step = last.step
    return [f"error data errorType: expected {step.error_type!r}, got {got!r}"]


def _kwargs(model: type[Any], params: dict[str, Any]) -> dict[str, Any]:
    parsed = model.model_validate(params)
    kwargs = {k: getattr(parsed, k) for k in model.model_fields if k != "field_meta"}
    if parsed.field_meta:
        kwargs.update(parsed.field_meta)
    return kwargs


async def run_report(scenario: Scenario, options: AcpTestOptions) -> AcpTestReport:
    """Run the scenario's client side against the agent; the report holds every check."""
    from scenarist.acp.workspace import Workspace

    if not logging.getLogger().handlers:  # a command line, not a host with its own logging
        one_line_logging("scenarist acp-test")
    report = AcpTestReport(scenario.name)
    with contextlib.ExitStack() as stack:
        root = options.cwd or Path(stack.enter_context(tempfile.TemporaryDirectory(
            prefix="scenarist-acp-test-")))
        root.mkdir(parents=True, exist_ok=True)
        run = _Run(script_of(scenario), options, report, Workspace(root))
        grace = AGENT_EXIT_S
        try:
            async with asyncio.timeout(options.timeout):
                await run.main()
        except TimeoutError:
            report.check("agent", [f"no end after {options.timeout} s (--timeout), "
                                   f"{run.waiting()}"])
            grace = 0.0
        except Exception as exc:  # a hostile agent: whatever it did is the finding
            # the message (and for pydantic, its first error)
            first = "; ".join(line.strip() for line in str(exc).splitlines()[:2])
            code = await _exit_code(run.process, 0.3) if run.process else None
            exited = f" (the agent exited with code {code})" if code is not None else ""
            report.check("agent", [f"{type(exc).__name__}: {first}{exited}"])
        finally:
            await run.stop(grace)
        late = run.progress.late_problems()  # after the output ended: the last one counts
        if late:  # said only when broken: a passing run's checks stay as they were
            report.check("updates after the answer", late)
        if run.refusals:
            shown = run.refusals[:10]
            more = len(run.refusals) - len(shown)
            report.check("agent messages", [
                f"{len(run.refusals)} line(s) from the agent are not JSON-RPC messages ACP "
                "allows (each answered with an error where JSON-RPC has one)", *shown,
                *([f"... and {more} more"] if more else [])])
    return report


def run_test(scenario: Scenario, options: AcpTestOptions) -> int:
    """``scenarist acp-test``: run, print PASS/FAIL lines, write the files; exit code."""
    report = asyncio.run(run_report(scenario, options))
    if not options.quiet:
        print(format_report(report))
    if options.transcript is not None:
        write_transcript(report, options.transcript)
    if options.junit is not None:
        write_junit(report, options.junit)
    return 0 if report.ok else 1


def format_report(report: AcpTestReport) -> str:
    lines = []
    for check in report.checks:
        lines.append(f"{'PASS' if check.ok else 'FAIL'} {report.scenario}: {check.name}")
        lines += [f"    {p}" for p in check.problems]
    failed = sum(not c.ok for c in report.checks)
    lines.append(f"{report.scenario}: {len(report.checks) - failed} passed, {failed} failed")
    if report.stopped:
        lines.append(f"stopped at the end (still running): {describe(report.stopped)}")
    if failed and report.agent_stderr:
        lines.append("agent stderr (last lines):")
        lines += [f"    {line}" for line in report.agent_stderr[-20:]]
    return "\n".join(lines)


def write_transcript(report: AcpTestReport, path: Path) -> None:
    with path.open("w", encoding="utf-8") as out:
        for entry in report.transcript:
            out.write(json.dumps(entry, ensure_ascii=False) + "\n")


def write_junit(report: AcpTestReport, path: Path) -> None:
    path.write_text(junit_text([report]), encoding="utf-8")


def junit_text(reports: list[AcpTestReport]) -> str:
    """JUnit XML: a suite per scenario, a case per check; a failure carries every problem
    and the agent's last stderr lines (what a CI page needs to see why)."""
    failed = sum(not c.ok for r in reports for c in r.checks)
    root = ET.Element("testsuites", name="scenarist acp-test",
                      tests=str(sum(len(r.checks) for r in reports)), failures=str(failed))
    for report in reports:
        suite = ET.SubElement(root, "testsuite", name=f"acp-test {report.scenario}",
                              tests=str(len(report.checks)),
                              failures=str(sum(not c.ok for c in report.checks)))
        for check in report.checks:
            case = ET.SubElement(suite, "testcase", classname=report.scenario, name=check.name)
            if not check.ok:
                failure = ET.SubElement(case, "failure", message=check.problems[0][:500])
                text = list(check.problems)
                if report.agent_stderr:
                    text += ["", "--- agent stderr (last lines)", *report.agent_stderr[-20:]]
                failure.text = "\n".join(text)
    ET.indent(root)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(root, "unicode") + "\n"
