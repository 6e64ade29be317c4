"""The typed scenario: records for sections, timeline events and content blocks.

Frozen, slotted records (not pydantic) because loading thousands of scenarios must cost about
as much as reading their YAML; the JSON Schema for editors is written out separately in
:mod:`scenarist.scenario.schema`. A loaded scenario is a value: front ends share it between
requests. The records are :class:`~scenarist.scenario.record.Record` classes, declared and
typed as dataclasses are, because ``scenarist validate`` of one file creates every class here
and has a start-up budget (<= 5x ``python -c pass``, docs/architecture.md); a record class
costs a fraction of a frozen dataclass (figures in :mod:`scenarist.scenario.record`).
Field names are the spec's camelCase keys in snake_case. Every event carries its timeline
``index`` (position in the flattened timeline), its key ``path`` and its source
``line``/``col``.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from scenarist.scenario.errors import Issue
from scenarist.scenario.record import Record, field
from scenarist.scenario.tools import Tool, tool_args

if TYPE_CHECKING:
    from scenarist.scenario.timeline import Timeline

__all__ = [
    "FAULT_KINDS",
    "Acp",
    "AcpCapabilities",
    "AgentEdits",
    "AgentFileReads",
    "AgentPermissionRequest",
    "AgentPlan",
    "AgentToolUse",
    "Ah",
    "Annotations",
    "ApplyPatch",
    "Assert",
    "AudioContent",
    "BaseTimeDelta",
    "Complete",
    "ContentBlock",
    "DiffContent",
    "EmbeddedResource",
    "Event",
    "ExecEvent",
    "Expect",
    "ExpectArtifact",
    "Fault",
    "FaultEvent",
    "FaultKind",
    "FileContainsAssert",
    "FileRead",
    "GitCommitAssert",
    "ImageContent",
    "Initialize",
    "JsonFileAssert",
    "LlmError",
    "LlmResponse",
    "Log",
    "McpServer",
    "Merge",
    "PermissionDecision",
    "PermissionOption",
    "PlanContent",
    "PlanEntry",
    "ProgressStep",
    "RegionMask",
    "Repo",
    "RepoFile",
    "ResourceContent",
    "ResourceLinkContent",
    "Scenario",
    "ScreenMask",
    "Screenshot",
    "Server",
    "SessionStart",
    "SetMode",
    "SetModel",
    "Status",
    "TextContent",
    "TextMask",
    "TextStep",
    "ToolExecution",
    "UserCancelSession",
    "UserCommand",
    "UserEdits",
    "UserInput",
    "UserInputs",
    "content_text",
]

Json = Any


# -- content blocks -------------------------------------------------------------------


class Annotations(Record):
    """MCP/ACP annotations: who the content is for, how important (0..1), when changed."""

    audience: tuple[str, ...] | None = None
    priority: float | None = None
    last_modified: str | None = None


class TextContent(Record):
    """A text block (ACP ``ContentBlock`` of type ``text``)."""

    text: str
    annotations: Annotations | None = None
    type: Literal["text"] = "text"


class _Media(Record):
    """What image and audio blocks share: a MIME type and the bytes inline (``data``) or in a file (``path``)."""

    mime_type: str
    data: str | None = None  # base64, validated at load
    path: Path | None = None  # absolute (resolved against the scenario file), exists at load
    uri: str | None = None
    annotations: Annotations | None = None

    def base64_data(self) -> str:
        """The payload as base64: ``data`` as given, else the file at ``path`` (read now)."""
        if self.data is not None:
            return self.data
        assert self.path is not None  # the loader guarantees one of them
        return base64.b64encode(self.path.read_bytes()).decode("ascii")


class ImageContent(_Media):
    """An image block: base64 ``data`` or a ``path`` beside the scenario."""

    type: Literal["image"] = "image"


class AudioContent(_Media):
    """An audio block: base64 ``data`` or a ``path`` beside the scenario."""

    type: Literal["audio"] = "audio"


class EmbeddedResource(Record):
    """The resource inside a ``resource`` block: its URI and its text or base64 ``blob``."""

    uri: str
    mime_type: str | None = None
    text: str | None = None
    blob: str | None = None  # base64


class ResourceContent(Record):
    """A ``resource`` block: a resource embedded in the prompt or message."""

    resource: EmbeddedResource
    annotations: Annotations | None = None
    type: Literal["resource"] = "resource"


class ResourceLinkContent(Record):
    """A ``resource_link`` block: a reference to a resource the agent can fetch."""

    uri: str
    name: str
    mime_type: str | None = None
    title: str | None = None
    description: str | None = None
    size: int | None = None
    annotations: Annotations | None = None
    type: Literal["resource_link"] = "resource_link"


class DiffContent(Record):
    """A ``diff`` block: a file's old and new text, as ACP tool calls carry it."""

    path: str  # absolute
    new_text: str
    old_text: str | None = None
    annotations: Annotations | None = None
    type: Literal["diff"] = "diff"


class PlanEntry(Record):
    """One entry of an agent's plan (ACP ``PlanEntry``)."""

    content: str
    priority: Literal["high", "medium", "low"] = "medium"
    status: Literal["pending", "in_progress", "completed"] = "pending"


class PlanContent(Record):
    """A ``plan`` block: the agent's plan entries."""

    entries: tuple[PlanEntry, ...]
    annotations: Annotations | None = None
    type: Literal["plan"] = "plan"


ContentBlock = (TextContent | ImageContent | AudioContent | ResourceContent
                | ResourceLinkContent | DiffContent | PlanContent)


def content_text(blocks: tuple[ContentBlock, ...] | ContentBlock) -> str:
    """The text of a block or blocks (text blocks and embedded text resources, joined)."""
    if not isinstance(blocks, tuple):
        blocks = (blocks,)
    parts: list[str] = []
    for block in blocks:
        if isinstance(block, TextContent):
            parts.append(block.text)
        elif isinstance(block, ResourceContent) and block.resource.text is not None:
            parts.append(block.resource.text)
    return "\n".join(parts)


# -- steps inside events ---------------------------------------------------------------


class TextStep(Record):
    """One ``think`` or ``assistant`` step: shown ``delay_ms`` after the previous step."""

    kind: Literal["think", "assistant"]
    delay_ms: int
    content: ContentBlock
    meta: Mapping[str, Json] | None = None

    @property
    def text(self) -> str:
        return content_text(self.content)


class LlmError(Record):
    """An ``error`` element: the model API answers with this error instead of a response."""

    error_type: str
    message: str
    status_code: int = 400
    details: Json = None
    retry_after_seconds: float | None = None
    delay_ms: int = 0
    meta: Mapping[str, Json] | None = None
    kind: ClassVar[str] = "error"


FaultKind = Literal["disconnect", "truncate", "malformed", "stall", "slowFirstByte", "duplicate",
                    "reorder", "httpStatus", "exit", "stderr", "fragment", "lateResponse"]
#: every fault kind, as the scenario spells it (docs/faults.md says what each does)
FAULT_KINDS: tuple[FaultKind, ...] = ("disconnect", "truncate", "malformed", "stall",
                                      "slowFirstByte", "duplicate", "reorder", "httpStatus",
                                      "exit", "stderr", "fragment", "lateResponse")


class Fault(Record, frozen=False):  # assignable: its reader and chaos fill it field by field
    """A ``fault``: what goes wrong on the wire or with the process, and where it strikes.

    Placed in an ``llmResponse`` it strikes after the steps before it (or after
    ``after_events`` wire events / ``after_bytes`` bytes of the response); as a timeline event
    it strikes at its moment. Each front end plays the kinds its channel has
    (:mod:`scenarist.faults`) and warns about the others at start.
    """

    kind: FaultKind
    after_events: int | None = None
    after_bytes: int | None = None
    ms: int = 0  # stall, slowFirstByte, lateResponse
    then: Literal["continue", "close"] = "continue"  # stall
    status_code: int = 503  # httpStatus
    message: str | None = None  # httpStatus
    retry_after_seconds: float | None = None  # httpStatus
    exit_code: int | None = 1  # exit: ``code``; None when the process dies by ``signal``
    signal: str | None = None  # exit: a name such as "SIGKILL"
    text: str | None = None  # stderr: the text; malformed: the bad payload
    chunk_bytes: int = 1  # fragment: ``bytes``
    times: int = 1  # the first ``times`` deliveries of the response are faulted
    line: int = 0
    col: int = 0


class ProgressStep(Record):
    """One ``progress`` line of a tool call, shown ``delay_ms`` after the previous one."""

    delay_ms: int
    message: str


class ExecEvent(Record):
    """One ``toolExecution.events`` entry; ``time_ms`` is from the execution start."""

    type: Literal["stdout", "stderr", "progress", "completion"]
    time_ms: int
    content: str = ""
    exit_code: int | None = None
    line: int = 0
    col: int = 0


class ToolExecution(Record):
    """``toolExecution``: when the tool starts and what it prints, timed from that start."""

    start_time_ms: int
    events: tuple[ExecEvent, ...]


class UserInput(Record):
    """One prompt of a ``userInputs`` event, sent at ``at_ms`` (absolute, from the start)."""

    at_ms: int
    content: tuple[ContentBlock, ...]
    meta: Mapping[str, Json] | None = None
    expected_response: Mapping[str, Json] | None = None
    target: str | None = None
    line: int = 0
    col: int = 0

    @property
    def text(self) -> str:
        return content_text(self.content)


class FileRead(Record):
    """One file of ``agentFileReads``, with the content the agent should see when given."""

    path: str
    expected_content: str | None = None


class PermissionOption(Record):
    """One choice offered by ``agentPermissionRequest`` (ACP ``PermissionOption``)."""

    option_id: str
    name: str
    kind: Literal["allow_once", "allow_always", "reject_once", "reject_always"]


class PermissionDecision(Record):
    """The user's answer to a permission request: an option, or cancelled."""

    outcome: Literal["selected", "cancelled"]
    option_id: str | None = None


class JsonFileAssert(Record):
    """``assert.json.file``: the value at an RFC 6901 ``pointer`` of a JSON file equals ``equals``."""

    path: str
    pointer: str = ""
    equals: Json = None


class FileContainsAssert(Record):
    """``assert.fs.contains``: a text file in the workspace holds each of ``texts``."""

    path: str
    texts: tuple[str, ...] = ()


class TextMask(Record):
    """A screen mask: what ``regex`` (Python ``re``, one row at a time) matches on the
    normalised screen is written as ``replace`` in goldens, and drawn plain."""

    regex: str
    replace: str = "[MASKED]"


class RegionMask(Record):
    """A screen mask: the cells of ``rows`` × ``columns`` (inclusive; negative numbers count
    from the bottom / right edge) are written as ``░`` in goldens, and drawn plain."""

    rows: tuple[int, int] = (0, -1)
    columns: tuple[int, int] = (0, -1)


ScreenMask = TextMask | RegionMask


class GitCommitAssert(Record):
    """``assert.git.commit``: the last commit's message contains this text."""

    message_contains: str


# -- timeline events -------------------------------------------------------------------


class Event(Record, kw_only=True):
    """Common to every timeline event: where it is and its ACP ``_meta``."""

    index: int
    key_path: str  # e.g. "timeline[3].llmResponse"
    line: int
    col: int
    meta: Mapping[str, Json] | None = None
    kind: ClassVar[str] = ""


class LlmResponse(Event, kw_only=True):
    """One model response: think/assistant steps in order, or an error; and at most one
    ``fault``, which strikes after the first ``fault_at`` steps."""

    steps: tuple[TextStep | LlmError, ...]
    fault: Fault | None = None
    fault_at: int = 0
    kind: ClassVar[str] = "llmResponse"

    @property
    def thinking(self) -> tuple[str, ...]:
        return tuple(s.text for s in self.steps if isinstance(s, TextStep) and s.kind == "think")

    @property
    def assistant(self) -> tuple[ContentBlock, ...]:
        return tuple(s.content for s in self.steps
                     if isinstance(s, TextStep) and s.kind == "assistant")

    @property
    def text(self) -> str:
        """All assistant text of the response, joined (what a chat API returns)."""
        return "".join(content_text(c) for c in self.assistant)

    @property
    def error(self) -> LlmError | None:
        return next((s for s in self.steps if isinstance(s, LlmError)), None)


class AgentToolUse(Event, kw_only=True):
    """A tool call: ``tool`` is its typed record (:mod:`scenarist.scenario.tools`), old
    names already resolved. ``source_key`` is the key written (``agentToolUse``, ``runCmd``)."""

    tool: Tool
    tool_call_id: str
    progress: tuple[ProgressStep, ...] = ()
    result: Json = None
    status: str | None = None
    tool_execution: ToolExecution | None = None
    raw_input: Json = None
    source_key: str = "agentToolUse"
    kind: ClassVar[str] = "agentToolUse"

    @property
    def tool_name(self) -> str:
        """The tool's name as the format spells it (``runCmd``, or a generic tool's name)."""
        return self.tool.name

    @property
    def args(self) -> Mapping[str, Json]:
        """The arguments as the format spells them (for renderers that pass them through)."""
        return tool_args(self.tool)


class AgentEdits(Event, kw_only=True):
    """The agent edits a file: its path, counts of lines changed and, when known, the texts."""

    path: str
    lines_added: int = 0
    lines_removed: int = 0
    old_text: str | None = None
    new_text: str | None = None
    description: str | None = None
    tool_call_id: str = ""
    kind: ClassVar[str] = "agentEdits"


class AgentPlan(Event, kw_only=True):
    """The agent announces or updates its plan."""

    entries: tuple[PlanEntry, ...]
    plan_update: bool = True
    kind: ClassVar[str] = "agentPlan"


class SetMode(Event, kw_only=True):
    """The agent switches the session mode (ACP ``current_mode_update``)."""

    mode_id: str
    kind: ClassVar[str] = "setMode"


class SetModel(Event, kw_only=True):
    """The agent switches the model (ACP ``session/set_model``)."""

    model_id: str
    kind: ClassVar[str] = "setModel"


class AgentFileReads(Event, kw_only=True):
    """The agent reads files (one tool call per file)."""

    files: tuple[FileRead, ...]
    kind: ClassVar[str] = "agentFileReads"


class AgentPermissionRequest(Event, kw_only=True):
    """``granted`` is normalised into ``decision`` (first allow_once / reject_once option)."""

    options: tuple[PermissionOption, ...]
    decision: PermissionDecision
    tool_call: Mapping[str, Json]
    session_id: str | None = None
    kind: ClassVar[str] = "agentPermissionRequest"


class UserInputs(Event, kw_only=True):
    """The user's prompts, each at its own absolute time."""

    inputs: tuple[UserInput, ...]
    target: str | None = None
    kind: ClassVar[str] = "userInputs"


class UserEdits(Event, kw_only=True):
    """The user applies a patch file to the workspace."""

    patch: str  # as written
    patch_path: Path  # resolved against the scenario file; exists at load
    kind: ClassVar[str] = "userEdits"


class ApplyPatch(Event, kw_only=True):
    """The harness applies a patch to the workspace and, with ``commit``, commits the result
    (``git add -A`` and ``git commit``), so later steps start from a known commit."""

    path: str  # as written
    patch_path: Path  # resolved against the scenario file; inside its folder, exists at load
    commit: bool = False
    message: str | None = None  # the commit message; only read with ``commit``
    kind: ClassVar[str] = "applyPatch"

    @property
    def commit_message(self) -> str:
        """``message``, else one that names the patch."""
        return self.message if self.message is not None else f"Apply {self.path}"


class UserCommand(Event, kw_only=True):
    """The user runs a shell command (not an agent tool call)."""

    cmd: str
    cwd: str | None = None
    kind: ClassVar[str] = "userCommand"


class UserCancelSession(Event, kw_only=True):
    """The user cancels the running turn (ACP ``session/cancel``)."""

    kind: ClassVar[str] = "userCancelSession"


class Initialize(Event, kw_only=True):
    """The ACP ``initialize`` exchange: what the client sends and expects back."""

    protocol_version: int = 1
    client_capabilities: Mapping[str, Json] = field(default_factory=dict)
    client_info: Mapping[str, Json] | None = None
    expected_response: Mapping[str, Json] | None = None
    kind: ClassVar[str] = "initialize"


class SessionStart(Event, kw_only=True):
    """The boundary between history (replayed on load) and the live session."""

    session_id: str | None = None
    expected_prompt_response: Mapping[str, Json] | None = None
    kind: ClassVar[str] = "sessionStart"


class Assert(Event, kw_only=True):
    """Checks at this point of the run: files, text, JSON values, the last git commit."""

    fs_exists: tuple[str, ...] = ()
    fs_not_exists: tuple[str, ...] = ()
    fs_contains: tuple[FileContainsAssert, ...] = ()
    text_contains: tuple[str, ...] = ()
    json_file: tuple[JsonFileAssert, ...] = ()
    git_commit: tuple[GitCommitAssert, ...] = ()
    kind: ClassVar[str] = "assert"


class Screenshot(Event, kw_only=True):
    """Capture the terminal (or page) under ``label`` at this point."""

    label: str
    masks: tuple[ScreenMask, ...] = ()  # this screenshot's own, after the scenario's
    kind: ClassVar[str] = "screenshot"


class Log(Event, kw_only=True):
    """A line for the run's log at this point."""

    message: str
    level: str = "info"
    kind: ClassVar[str] = "log"


class Status(Event, kw_only=True):
    """The session's status changes (for the session server's event stream)."""

    status: str
    kind: ClassVar[str] = "status"


class Complete(Event, kw_only=True):
    """The task is complete, successfully or not (for the session server)."""

    success: bool = True
    kind: ClassVar[str] = "complete"


class Merge(Event, kw_only=True):
    """The task's branch is merged, or not (for the session server)."""

    merge: bool = True
    kind: ClassVar[str] = "merge"


class BaseTimeDelta(Event, kw_only=True):
    """Advance the base time by ``ms`` for the events after it."""

    ms: int
    kind: ClassVar[str] = "baseTimeDelta"


class FaultEvent(Event, kw_only=True):
    """A fault between events: the process exits, writes to stderr, or fragments its frames."""

    fault: Fault
    kind: ClassVar[str] = "fault"


# -- sections --------------------------------------------------------------------------


class RepoFile(Record):
    """One inline seed file of ``repo.files``, its bytes decoded."""

    path: str
    data: bytes  # ``contents`` as UTF-8, or the decoded ``{base64: ...}``


class Repo(Record):
    """``repo``: the temporary git repository a runner prepares before playing."""

    init: bool = False
    branch: str | None = None
    dir: str | None = None
    dir_path: Path | None = None  # ``dir`` resolved against the scenario file
    files: tuple[RepoFile, ...] = ()
    extra: Mapping[str, Json] = field(default_factory=dict)  # other keys, as written


class Ah(Record):
    """``ah``: the Agent Harbor command a runner starts, with flags and environment."""

    cmd: str | None = None
    flags: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)


class Server(Record):
    """``server``: which model server the scenario is played against and its API style."""

    mode: Literal["none", "mock", "real"] = "none"
    llm_api_style: Literal["openai", "anthropic"] = "openai"
    coalesce_thinking_with_tool_use: bool = True
    extra: Mapping[str, Json] = field(default_factory=dict)  # seed objects etc.


class McpServer(Record):
    """An ACP ``McpServer``: stdio (``command``) or ``http``/``sse`` (``url``)."""

    name: str
    transport: Literal["stdio", "http", "sse"] = "stdio"
    command: str | None = None
    args: tuple[str, ...] = ()
    env: tuple[tuple[str, str], ...] = ()
    url: str | None = None
    headers: tuple[tuple[str, str], ...] = ()


class AcpCapabilities(Record):
    """``acp.capabilities``: what the mock ACP agent advertises."""

    load_session: bool = False
    image: bool = False
    audio: bool = False
    embedded_context: bool = False
    mcp_http: bool = False
    mcp_sse: bool = False
    meta: Mapping[str, Json] | None = None


class Acp(Record):
    """``acp``: ACP settings (capabilities, working folder, MCP servers)."""

    capabilities: AcpCapabilities | None = None
    cwd: str | None = None
    mcp_servers: tuple[McpServer, ...] = ()
    unstable: bool = False


class ExpectArtifact(Record):
    """One file the run must leave, by type and glob pattern."""

    type: str
    pattern: str


class Expect(Record):
    """``expect``: the exit code and artifacts a run must end with."""

    exit_code: int | None = None
    artifacts: tuple[ExpectArtifact, ...] = ()


class Scenario(Record):
    """A loaded, rule-resolved, validated scenario. Compile it with ``compile_timeline``."""

    name: str
    timeline: tuple[Event, ...]
    tags: tuple[str, ...] = ()
    description: str | None = None
    terminal_ref: str | None = None
    repo: Repo | None = None
    ah: Ah | None = None
    server: Server = field(default_factory=Server)
    acp: Acp | None = None
    expect: Expect | None = None
    screen_masks: tuple[ScreenMask, ...] = ()  # ``screen.masks``: for every screenshot
    compat: Mapping[str, Json] = field(default_factory=dict)
    initial_prompt: str | None = None  # legacy top-level ``initialPrompt``
    effective_initial_prompt: str | None = None
    source_path: Path | None = None
    warnings: list[Issue] = field(default_factory=list, compare=False)
    compiled: Timeline | None = field(default=None, repr=False, compare=False)

    @property
    def session_start_index(self) -> int | None:
        """Timeline index of the ``sessionStart`` boundary, if any."""
        return next((e.index for e in self.timeline if isinstance(e, SessionStart)), None)
