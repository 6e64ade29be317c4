"""The typed scenario: frozen records for sections, timeline events and content blocks.

Frozen, slotted dataclasses (not pydantic) because loading thousands of scenarios must
cost about as much as reading their YAML; the JSON Schema for editors is written out
separately in :mod:`scenarist.scenario.schema`.
Field names are the spec's camelCase keys in snake_case. Every event carries its timeline
``index`` (position in the flattened timeline), its key ``path`` and its source
``line``/``col``.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from scenarist.scenario.errors import Issue
from scenarist.scenario.tools import Tool, tool_args

if TYPE_CHECKING:
    from scenarist.scenario.timeline import Timeline

__all__ = [
    "Acp", "AcpCapabilities", "AgentEdits", "AgentFileReads", "AgentPermissionRequest",
    "AgentPlan", "AgentToolUse", "Ah", "Annotations", "ApplyPatch", "Assert", "AudioContent",
    "BaseTimeDelta", "Complete", "ContentBlock", "DiffContent", "EmbeddedResource", "Event",
    "ExecEvent", "Expect", "ExpectArtifact", "FileRead", "GitCommitAssert", "ImageContent",
    "Initialize", "JsonFileAssert", "LlmError", "LlmResponse", "Log", "McpServer", "Merge",
    "PermissionDecision", "PermissionOption", "PlanContent", "PlanEntry", "ProgressStep",
    "Repo", "RepoFile", "ResourceContent", "ResourceLinkContent", "Scenario", "Screenshot",
    "Server", "SessionStart", "SetMode", "SetModel", "Status", "TextContent", "TextStep",
    "ToolExecution", "UserCancelSession", "UserCommand", "UserEdits", "UserInput",
    "UserInputs", "content_text",
]

Json = Any


# -- content blocks -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Annotations:
    """MCP/ACP annotations: who the content is for, how important (0..1), when changed."""

    audience: tuple[str, ...] | None = None
    priority: float | None = None
    last_modified: str | None = None


@dataclass(frozen=True, slots=True)
class TextContent:
    text: str
    annotations: Annotations | None = None
    type: Literal["text"] = "text"


@dataclass(frozen=True, slots=True)
class _Media:
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


@dataclass(frozen=True, slots=True)
class ImageContent(_Media):
    type: Literal["image"] = "image"


@dataclass(frozen=True, slots=True)
class AudioContent(_Media):
    type: Literal["audio"] = "audio"


@dataclass(frozen=True, slots=True)
class EmbeddedResource:
    uri: str
    mime_type: str | None = None
    text: str | None = None
    blob: str | None = None  # base64


@dataclass(frozen=True, slots=True)
class ResourceContent:
    resource: EmbeddedResource
    annotations: Annotations | None = None
    type: Literal["resource"] = "resource"


@dataclass(frozen=True, slots=True)
class ResourceLinkContent:
    uri: str
    name: str
    mime_type: str | None = None
    title: str | None = None
    description: str | None = None
    size: int | None = None
    annotations: Annotations | None = None
    type: Literal["resource_link"] = "resource_link"


@dataclass(frozen=True, slots=True)
class DiffContent:
    path: str  # absolute
    new_text: str
    old_text: str | None = None
    annotations: Annotations | None = None
    type: Literal["diff"] = "diff"


@dataclass(frozen=True, slots=True)
class PlanEntry:
    content: str
    priority: Literal["high", "medium", "low"] = "medium"
    status: Literal["pending", "in_progress", "completed"] = "pending"


@dataclass(frozen=True, slots=True)
class PlanContent:
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


@dataclass(frozen=True, slots=True)
class TextStep:
    """One ``think`` or ``assistant`` step: shown ``delay_ms`` after the previous step."""

    kind: Literal["think", "assistant"]
    delay_ms: int
    content: ContentBlock
    meta: Mapping[str, Json] | None = None

    @property
    def text(self) -> str:
        return content_text(self.content)


@dataclass(frozen=True, slots=True)
class LlmError:
    """An ``error`` element: the model API answers with this error instead of a response."""

    error_type: str
    message: str
    status_code: int = 400
    details: Json = None
    retry_after_seconds: float | None = None
    delay_ms: int = 0
    meta: Mapping[str, Json] | None = None
    kind: ClassVar[str] = "error"


@dataclass(frozen=True, slots=True)
class ProgressStep:
    delay_ms: int
    message: str


@dataclass(frozen=True, slots=True)
class ExecEvent:
    """One ``toolExecution.events`` entry; ``time_ms`` is from the execution start."""

    type: Literal["stdout", "stderr", "progress", "completion"]
    time_ms: int
    content: str = ""
    exit_code: int | None = None
    line: int = 0
    col: int = 0


@dataclass(frozen=True, slots=True)
class ToolExecution:
    start_time_ms: int
    events: tuple[ExecEvent, ...]


@dataclass(frozen=True, slots=True)
class UserInput:
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


@dataclass(frozen=True, slots=True)
class FileRead:
    path: str
    expected_content: str | None = None


@dataclass(frozen=True, slots=True)
class PermissionOption:
    option_id: str
    name: str
    kind: Literal["allow_once", "allow_always", "reject_once", "reject_always"]


@dataclass(frozen=True, slots=True)
class PermissionDecision:
    outcome: Literal["selected", "cancelled"]
    option_id: str | None = None


@dataclass(frozen=True, slots=True)
class JsonFileAssert:
    path: str
    pointer: str = ""
    equals: Json = None


@dataclass(frozen=True, slots=True)
class GitCommitAssert:
    message_contains: str


# -- timeline events -------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class Event:
    """Common to every timeline event: where it is and its ACP ``_meta``."""

    index: int
    key_path: str  # e.g. "timeline[3].llmResponse"
    line: int
    col: int
    meta: Mapping[str, Json] | None = None
    kind: ClassVar[str] = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class LlmResponse(Event):
    """One model response: think/assistant steps in order, or an error."""

    steps: tuple[TextStep | LlmError, ...]
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


@dataclass(frozen=True, slots=True, kw_only=True)
class AgentToolUse(Event):
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


@dataclass(frozen=True, slots=True, kw_only=True)
class AgentEdits(Event):
    path: str
    lines_added: int = 0
    lines_removed: int = 0
    old_text: str | None = None
    new_text: str | None = None
    description: str | None = None
    tool_call_id: str = ""
    kind: ClassVar[str] = "agentEdits"


@dataclass(frozen=True, slots=True, kw_only=True)
class AgentPlan(Event):
    entries: tuple[PlanEntry, ...]
    plan_update: bool = True
    kind: ClassVar[str] = "agentPlan"


@dataclass(frozen=True, slots=True, kw_only=True)
class SetMode(Event):
    mode_id: str
    kind: ClassVar[str] = "setMode"


@dataclass(frozen=True, slots=True, kw_only=True)
class SetModel(Event):
    model_id: str
    kind: ClassVar[str] = "setModel"


@dataclass(frozen=True, slots=True, kw_only=True)
class AgentFileReads(Event):
    files: tuple[FileRead, ...]
    kind: ClassVar[str] = "agentFileReads"


@dataclass(frozen=True, slots=True, kw_only=True)
class AgentPermissionRequest(Event):
    """``granted`` is normalised into ``decision`` (first allow_once / reject_once option)."""

    options: tuple[PermissionOption, ...]
    decision: PermissionDecision
    tool_call: Mapping[str, Json]
    session_id: str | None = None
    kind: ClassVar[str] = "agentPermissionRequest"


@dataclass(frozen=True, slots=True, kw_only=True)
class UserInputs(Event):
    inputs: tuple[UserInput, ...]
    target: str | None = None
    kind: ClassVar[str] = "userInputs"


@dataclass(frozen=True, slots=True, kw_only=True)
class UserEdits(Event):
    patch: str  # as written
    patch_path: Path  # resolved against the scenario file; exists at load
    kind: ClassVar[str] = "userEdits"


@dataclass(frozen=True, slots=True, kw_only=True)
class ApplyPatch(Event):
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


@dataclass(frozen=True, slots=True, kw_only=True)
class UserCommand(Event):
    cmd: str
    cwd: str | None = None
    kind: ClassVar[str] = "userCommand"


@dataclass(frozen=True, slots=True, kw_only=True)
class UserCancelSession(Event):
    kind: ClassVar[str] = "userCancelSession"


@dataclass(frozen=True, slots=True, kw_only=True)
class Initialize(Event):
    protocol_version: int = 1
    client_capabilities: Mapping[str, Json] = field(default_factory=dict)
    client_info: Mapping[str, Json] | None = None
    expected_response: Mapping[str, Json] | None = None
    kind: ClassVar[str] = "initialize"


@dataclass(frozen=True, slots=True, kw_only=True)
class SessionStart(Event):
    session_id: str | None = None
    expected_prompt_response: Mapping[str, Json] | None = None
    kind: ClassVar[str] = "sessionStart"


@dataclass(frozen=True, slots=True, kw_only=True)
class Assert(Event):
    fs_exists: tuple[str, ...] = ()
    fs_not_exists: tuple[str, ...] = ()
    text_contains: tuple[str, ...] = ()
    json_file: tuple[JsonFileAssert, ...] = ()
    git_commit: tuple[GitCommitAssert, ...] = ()
    kind: ClassVar[str] = "assert"


@dataclass(frozen=True, slots=True, kw_only=True)
class Screenshot(Event):
    label: str
    kind: ClassVar[str] = "screenshot"


@dataclass(frozen=True, slots=True, kw_only=True)
class Log(Event):
    message: str
    level: str = "info"
    kind: ClassVar[str] = "log"


@dataclass(frozen=True, slots=True, kw_only=True)
class Status(Event):
    status: str
    kind: ClassVar[str] = "status"


@dataclass(frozen=True, slots=True, kw_only=True)
class Complete(Event):
    success: bool = True
    kind: ClassVar[str] = "complete"


@dataclass(frozen=True, slots=True, kw_only=True)
class Merge(Event):
    merge: bool = True
    kind: ClassVar[str] = "merge"


@dataclass(frozen=True, slots=True, kw_only=True)
class BaseTimeDelta(Event):
    ms: int
    kind: ClassVar[str] = "baseTimeDelta"


# -- sections --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RepoFile:
    path: str
    data: bytes  # ``contents`` as UTF-8, or the decoded ``{base64: ...}``


@dataclass(frozen=True, slots=True)
class Repo:
    init: bool = False
    branch: str | None = None
    dir: str | None = None
    dir_path: Path | None = None  # ``dir`` resolved against the scenario file
    files: tuple[RepoFile, ...] = ()
    extra: Mapping[str, Json] = field(default_factory=dict)  # other keys, as written


@dataclass(frozen=True, slots=True)
class Ah:
    cmd: str | None = None
    flags: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Server:
    mode: Literal["none", "mock", "real"] = "none"
    llm_api_style: Literal["openai", "anthropic"] = "openai"
    coalesce_thinking_with_tool_use: bool = True
    extra: Mapping[str, Json] = field(default_factory=dict)  # seed objects etc.


@dataclass(frozen=True, slots=True)
class McpServer:
    """An ACP ``McpServer``: stdio (``command``) or ``http``/``sse`` (``url``)."""

    name: str
    transport: Literal["stdio", "http", "sse"] = "stdio"
    command: str | None = None
    args: tuple[str, ...] = ()
    env: tuple[tuple[str, str], ...] = ()
    url: str | None = None
    headers: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True, slots=True)
class AcpCapabilities:
    load_session: bool = False
    image: bool = False
    audio: bool = False
    embedded_context: bool = False
    mcp_http: bool = False
    mcp_sse: bool = False
    meta: Mapping[str, Json] | None = None


@dataclass(frozen=True, slots=True)
class Acp:
    capabilities: AcpCapabilities | None = None
    cwd: str | None = None
    mcp_servers: tuple[McpServer, ...] = ()
    unstable: bool = False


@dataclass(frozen=True, slots=True)
class ExpectArtifact:
    type: str
    pattern: str


@dataclass(frozen=True, slots=True)
class Expect:
    exit_code: int | None = None
    artifacts: tuple[ExpectArtifact, ...] = ()


@dataclass(frozen=True, slots=True)
class Scenario:
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
