"""What the mock agent shows: rich terminal text, or Codex / Claude Code JSON lines.

Three renderers with one interface (:class:`Renderer`), chosen by ``--format``:

- ``text``: for a person or a terminal-UI test: thinking dimmed, assistant text plain, API
  errors and mismatches red, each tool call with its result (simulated ones marked);
- ``codex-jsonl``: ``codex exec --json`` lines, built from Codex EventMsg events
  (:mod:`scenarist.codex.build`) and encoded by :class:`scenarist.codex.encode.ExecJsonEncoder`,
  the encoder ``fake-codex exec --json`` uses;
- ``claude-jsonl``: Claude Code ``stream-json`` lines (:mod:`scenarist.agent.claude_stream`).

JSON renderers keep stdout for JSON only; their mismatch reports go to stderr as text.
Renderers never read tool arguments: they get a :class:`~scenarist.agent.tools.ToolCall`.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import IO, Any, Protocol

from rich.console import Console
from rich.text import Text

from scenarist.agent import claude_stream
from scenarist.agent.compare import Problem
from scenarist.agent.tools import Outcome, ToolCall
from scenarist.codex import build
from scenarist.codex.encode import ExecJsonEncoder
from scenarist.codex.rng import Rng
from scenarist.codex.turn import CodexTurn, task_started, token_count
from scenarist.divergence import mask
from scenarist.scenario.model import (
    AudioContent,
    ContentBlock,
    DiffContent,
    ImageContent,
    LlmError,
    PlanContent,
    PlanEntry,
    ResourceContent,
    ResourceLinkContent,
    TextContent,
)
from scenarist.vocabulary import claude_code
from scenarist.vocabulary.codex import MCP_SERVER, ApplyPatch, ExecCommand, McpCall, WebSearchCall

__all__ = [
    "FORMATS",
    "ClaudeJsonRenderer",
    "CodexJsonRenderer",
    "Renderer",
    "Session",
    "TextRenderer",
    "block_text",
    "make_renderer",
]

FORMATS = ("text", "codex-jsonl", "claude-jsonl")
_OUTPUT_LINES = 12  # lines of a tool's output shown in text mode


@dataclass(frozen=True, slots=True)
class Session:
    """What every renderer is told at the start."""

    scenario: str
    workspace: str
    session_id: str


class Renderer(Protocol):
    def begin(self, session: Session) -> None: ...
    def user_prompt(self, text: str, typed: bool) -> None: ...
    def thinking(self, text: str) -> None: ...
    def assistant(self, text: str) -> None: ...
    def llm_error(self, error: LlmError) -> None: ...
    def tool_started(self, call: ToolCall) -> None: ...
    def progress(self, call: ToolCall, message: str) -> None: ...
    def tool_finished(self, call: ToolCall, outcome: Outcome) -> None: ...
    def plan(self, entries: Sequence[PlanEntry]) -> None: ...
    def log(self, message: str, level: str) -> None: ...
    def mismatch(self, where: str, problems: Sequence[Problem]) -> None: ...
    def note(self, message: str) -> None: ...
    def end(self, mismatches: int) -> None: ...


def block_text(block: ContentBlock) -> str:
    """A content block as terminal text (media and links as a one-line placeholder)."""
    if isinstance(block, TextContent):
        return block.text
    if isinstance(block, ImageContent | AudioContent):
        where = block.path.name if block.path is not None else block.uri or "inline data"
        return f"[{block.type} {block.mime_type}: {where}]"
    if isinstance(block, ResourceContent):
        return block.resource.text if block.resource.text is not None else (
            f"[resource {block.resource.uri}]")
    if isinstance(block, ResourceLinkContent):
        return f"[{block.title or block.name}]({block.uri})"
    if isinstance(block, DiffContent):
        return f"diff {block.path}\n" + "\n".join(
            ["-" + line for line in (block.old_text or "").splitlines()]
            + ["+" + line for line in block.new_text.splitlines()])
    if isinstance(block, PlanContent):
        return "\n".join(f"- [{e.status}] {e.content}" for e in block.entries)
    return ""


def _error_text(error: LlmError) -> str:
    return f"API error {error.status_code} ({error.error_type}): {error.message}"


class TextRenderer:
    """Rich text for a terminal (colours only when the stream is one)."""

    def __init__(self, console: Console) -> None:
        self.console = console

    def _print(self, text: Text | str, style: str = "") -> None:
        self.console.print(text, style=style, markup=False, highlight=False, soft_wrap=True)

    def begin(self, session: Session) -> None:
        # no workspace path here: it changes every run, and a screen golden must not
        self._print(f"scenarist agent · {session.scenario}", "dim")

    def user_prompt(self, text: str, typed: bool) -> None:
        if not typed:  # a typed prompt is on the screen already (the terminal echoed it)
            self._print(Text("› ") + Text(text), "bold")

    def thinking(self, text: str) -> None:
        self._print(Text("✻ " + text), "dim italic")

    def assistant(self, text: str) -> None:
        self._print(text)

    def llm_error(self, error: LlmError) -> None:
        self._print("✗ " + _error_text(error), "bold red")

    def tool_started(self, call: ToolCall) -> None:
        line = Text("● ", "cyan") + Text(call.name, "bold") + Text(f" {call.title}")
        self._print(line)

    def progress(self, call: ToolCall, message: str) -> None:
        self._print(f"  … {message}", "dim")

    def tool_finished(self, call: ToolCall, outcome: Outcome) -> None:
        lines = outcome.output.rstrip("\n").split("\n") if outcome.output.strip() else []
        shown = lines[:_OUTPUT_LINES]
        if len(lines) > len(shown):
            shown.append(f"… {len(lines) - len(shown)} more lines")
        style = "" if outcome.ok else "red"
        mark = " (simulated)" if outcome.simulated else ""
        if not shown:
            shown = ["(no output)" if outcome.ok else "(failed, no output)"]
        for n, line in enumerate(shown):
            prefix = "  ⎿ " if n == 0 else "    "
            text = Text(prefix + line, style)
            if n == 0 and mark:
                text.append(mark, "yellow")
            self._print(text)

    def plan(self, entries: Sequence[PlanEntry]) -> None:
        marks = {"completed": "☒", "in_progress": "◐", "pending": "☐"}
        for entry in entries:
            self._print(f"  {marks.get(entry.status, '☐')} {entry.content}",
                        "dim" if entry.status == "completed" else "")

    def log(self, message: str, level: str) -> None:
        self._print(f"[{level}] {message}", "red" if level == "error" else "dim")

    def mismatch(self, where: str, problems: Sequence[Problem]) -> None:
        for problem in problems:  # real output may hold a key: masked (scenarist.divergence)
            self._print(f"  ✗ mismatch at {where}: {mask(problem.what)}", "bold red")
            for line in mask(problem.diff).splitlines():
                style = ("green" if line.startswith("+") else
                         "red" if line.startswith("-") else "dim")
                self._print("    " + line, style)

    def note(self, message: str) -> None:
        self._print(message, "dim")

    def end(self, mismatches: int) -> None:
        if mismatches:
            self._print(f"✗ {mismatches} mismatch(es) between the scenario and the real "
                        "results", "bold red")
        else:
            self._print("✓ every real result matched the scenario", "green")


class _JsonLines:
    """Shared by the JSON renderers: one JSON object a line on ``out``, reports on stderr."""

    def __init__(self, out: IO[str], diagnostics: Console) -> None:
        self.out = out
        self.report = TextRenderer(diagnostics)

    def write(self, obj: Any) -> None:
        self.out.write(json.dumps(obj, ensure_ascii=False, separators=(",", ":")) + "\n")
        self.out.flush()

    def write_line(self, line: str) -> None:
        if line:
            self.out.write(line)
            self.out.flush()

    def mismatch(self, where: str, problems: Sequence[Problem]) -> None:
        self.report.mismatch(where, problems)

    def note(self, message: str) -> None:
        self.report.note(message)

    def progress(self, call: ToolCall, message: str) -> None:
        """Neither format has a line for tool progress."""

    def log(self, message: str, level: str) -> None:
        self.report.log(message, level)


class CodexJsonRenderer(_JsonLines):
    """``codex exec --json``: Codex EventMsg events through the exec-json encoder."""

    def __init__(self, out: IO[str], diagnostics: Console) -> None:
        super().__init__(out, diagnostics)
        self.encoder = ExecJsonEncoder()
        self.rng = Rng(0x5CE7A215)
        self.turn: CodexTurn | None = None
        self.number = 0
        self.prompt = ""
        self.output_chars = 0
        self.last_message: str | None = None

    def emit(self, events: Sequence[dict[str, Any]]) -> None:
        for event in events:
            self.write_line(self.encoder(event))

    def begin(self, session: Session) -> None:
        self.cwd = session.workspace
        self.emit([build.session_configured(session.session_id, cwd=session.workspace)])

    def _open(self) -> CodexTurn:
        if self.turn is None:
            self.number += 1
            self.turn = CodexTurn(self.rng.fork(self.number), number=self.number, cwd=self.cwd)
            self.output_chars = 0
            self.last_message = None
            self.emit([task_started(self.turn)])
        return self.turn

    def _close(self) -> None:
        if self.turn is not None:
            self.emit([token_count(len(self.prompt), self.output_chars),
                       {"type": "task_complete", "turn_id": self.turn.turn_id,
                        "last_agent_message": self.last_message}])
            self.turn = None

    def user_prompt(self, text: str, typed: bool) -> None:
        self._close()
        self.prompt = text
        self._open()

    def thinking(self, text: str) -> None:
        self.emit(build.reasoning(self._open(), text))

    def assistant(self, text: str) -> None:
        self.output_chars += len(text)
        self.last_message = text
        self.emit(build.message(self._open(), text))

    def llm_error(self, error: LlmError) -> None:
        self._open()
        self.emit([build.note("error", _error_text(error))])

    def tool_started(self, call: ToolCall) -> None:
        turn = self._open()
        if isinstance(call.codex, ExecCommand):
            self.emit([build.exec_begin(turn, call.call_id, build.shell_argv(call.codex.cmd),
                                        cwd=call.codex.workdir)])

    def tool_finished(self, call: ToolCall, outcome: Outcome) -> None:
        """The events Codex shows for the call its table makes of the tool (a command, a
        patch, its web search, else an MCP call)."""
        turn = self._open()
        match call.codex:
            case ExecCommand(cmd=cmd, workdir=workdir):
                code = outcome.exit_code if outcome.exit_code is not None else int(not outcome.ok)
                self.emit([build.exec_end(turn, call.call_id, build.shell_argv(cmd),
                                          stdout=outcome.output, stderr="", exit_code=code,
                                          cwd=workdir)])
            case ApplyPatch(path=path):
                change = outcome.change
                if change is not None and change.before is None:
                    changes = {change.path: build.file_change("add", content=change.after)}
                elif change is not None:
                    changes = {change.path: build.file_change("update",
                                                              diff=change.unified_diff())}
                else:
                    changes = {path: build.file_change("update")}
                self.emit(build.apply_patch(turn, changes, success=outcome.ok))
            case WebSearchCall(query=query):
                self.emit(build.web_search(turn, query))
            case McpCall(tool=tool, arguments=arguments):
                self.emit(build.mcp_call(turn, MCP_SERVER, tool, dict(arguments),
                                         result=outcome.output if outcome.ok else None,
                                         error=None if outcome.ok else outcome.output))

    def plan(self, entries: Sequence[PlanEntry]) -> None:
        self._open()
        self.emit([build.plan_update([e.content for e in entries],
                                     statuses=[e.status for e in entries])])

    def end(self, mismatches: int) -> None:
        self._close()
        self.report.end(mismatches)


class ClaudeJsonRenderer(_JsonLines):
    """Claude Code ``stream-json`` (print mode, ``--verbose``)."""

    def __init__(self, out: IO[str], diagnostics: Console) -> None:
        super().__init__(out, diagnostics)
        self.session_id = ""
        self.counter = 0
        self.message_id = ""
        self.turns = 0
        self.open = False
        self.failed = False
        self.last_text = ""
        self.output_chars = 0
        self.started = datetime.now(UTC)

    def _uuid(self) -> str:
        self.counter += 1
        return str(uuid.uuid5(uuid.NAMESPACE_URL, f"scenarist:{self.session_id}:{self.counter}"))

    def _now(self) -> str:
        return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")

    def begin(self, session: Session) -> None:
        self.session_id = session.session_id
        self.write(claude_stream.init(session_id=self.session_id, uuid=self._uuid(),
                                      cwd=session.workspace, tools=claude_code.TOOL_NAMES))

    def _block(self, block: dict[str, Any]) -> None:
        if not self.open:
            self.open = True
            self.started = datetime.now(UTC)
        if not self.message_id:
            self.turns += 1
            self.message_id = "msg_" + uuid.UUID(self._uuid()).hex[:24]
        self.write(claude_stream.assistant(block, session_id=self.session_id,
                                           message_id=self.message_id, uuid=self._uuid(),
                                           timestamp=self._now()))

    def _close(self) -> None:
        if self.open:
            ms = int((datetime.now(UTC) - self.started).total_seconds() * 1000)
            self.write(claude_stream.result(self.last_text, is_error=self.failed,
                                            session_id=self.session_id, uuid=self._uuid(),
                                            duration_ms=ms, num_turns=self.turns,
                                            input_tokens=0,
                                            output_tokens=max(1, self.output_chars // 4)))
        self.open = self.failed = False
        self.turns = self.output_chars = 0
        self.last_text = self.message_id = ""

    def user_prompt(self, text: str, typed: bool) -> None:
        self._close()

    def thinking(self, text: str) -> None:
        self._block(claude_stream.thinking_block(text))

    def assistant(self, text: str) -> None:
        self.last_text = text
        self.failed = False  # an answer after an API error: the retry succeeded
        self.output_chars += len(text)
        self._block(claude_stream.text_block(text))

    def llm_error(self, error: LlmError) -> None:
        self.failed = True
        self.last_text = _error_text(error)
        self._block(claude_stream.text_block(self.last_text))

    def tool_started(self, call: ToolCall) -> None:
        self._block(claude_stream.tool_use_block(_toolu(call.call_id), call.claude.name,
                                                 call.claude.input))

    def tool_finished(self, call: ToolCall, outcome: Outcome) -> None:
        change = outcome.change
        result = claude_code.tool_result(
            call.claude, outcome.output, ok=outcome.ok, timed_out=outcome.timed_out,
            before=change.before if change is not None else None,
            after=change.after if change is not None else None)
        self.write(claude_stream.tool_result(_toolu(call.call_id), result.content,
                                             is_error=result.is_error,
                                             session_id=self.session_id, uuid=self._uuid(),
                                             timestamp=self._now(), detail=result.detail))
        self.message_id = ""  # the next blocks are a new model response

    def plan(self, entries: Sequence[PlanEntry]) -> None:
        todos = [{"content": e.content, "status": e.status, "activeForm": e.content}
                 for e in entries]
        plan_id = f"toolu_plan_{self.counter}"
        self._block(claude_stream.tool_use_block(plan_id, "TodoWrite", {"todos": todos}))
        self.write(claude_stream.tool_result(
            plan_id, "Todos have been modified successfully.", is_error=None,
            session_id=self.session_id, uuid=self._uuid(), timestamp=self._now()))
        self.message_id = ""

    def end(self, mismatches: int) -> None:
        self._close()
        self.report.end(mismatches)


def _toolu(call_id: str) -> str:
    """Claude Code's tool-use ids start with ``toolu_``; the scenario's get the prefix."""
    return call_id if call_id.startswith("toolu_") else "toolu_" + call_id


def make_renderer(fmt: str, out: IO[str], err: IO[str]) -> Renderer:
    """The renderer for ``--format`` (text on ``out``; JSON on ``out``, reports on ``err``)."""
    if fmt == "text":
        return TextRenderer(Console(file=out, highlight=False))
    diagnostics = Console(file=err, highlight=False)
    if fmt == "codex-jsonl":
        return CodexJsonRenderer(out, diagnostics)
    if fmt == "claude-jsonl":
        return ClaudeJsonRenderer(out, diagnostics)
    raise ValueError(f"unknown format {fmt!r}; choose from {', '.join(FORMATS)}")
