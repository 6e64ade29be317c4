"""The scenario format: load YAML (rules resolved, validated) and compile it to a Timeline.

Public API (stable; see ``docs/scenario-api.md``)::

    load_scenario(path, *, defines=None, strict=False, allow_outside_paths=False) -> Scenario
    load_scenario_text(text, *, path="<string>", defines=None, strict=False,
                       allow_outside_paths=False) -> Scenario
    load_scenarios(paths, *, defines=None, strict=False, allow_outside_paths=False)
        -> list[Scenario]
    parse_defines(cli, env=$AH_SCENARIO_DEFINES) -> dict[str, bool | int | str]  # env if no cli
    compile_timeline(scenario) -> Timeline

Tool calls carry a typed record of the tool vocabulary (``AgentToolUse.tool``: ``RunCmd``,
``EditFile``, ..., ``GenericTool``; see :mod:`scenarist.scenario.tools`).

Loading raises only :class:`ScenarioError` (with every :class:`Issue` of the file).
"""

from scenarist.scenario.errors import Issue, ScenarioError
from scenarist.scenario.load import (
    effective_initial_prompt,
    load_scenario,
    load_scenario_text,
    load_scenarios,
    scenario_files,
)
from scenarist.scenario.model import (
    Acp,
    AcpCapabilities,
    AgentEdits,
    AgentFileReads,
    AgentPermissionRequest,
    AgentPlan,
    AgentToolUse,
    Ah,
    Annotations,
    ApplyPatch,
    Assert,
    AudioContent,
    BaseTimeDelta,
    Complete,
    ContentBlock,
    DiffContent,
    EmbeddedResource,
    Event,
    ExecEvent,
    Expect,
    ExpectArtifact,
    FileContainsAssert,
    FileRead,
    GitCommitAssert,
    ImageContent,
    Initialize,
    JsonFileAssert,
    LlmError,
    LlmResponse,
    Log,
    McpServer,
    Merge,
    PermissionDecision,
    PermissionOption,
    PlanContent,
    PlanEntry,
    ProgressStep,
    RegionMask,
    Repo,
    RepoFile,
    ResourceContent,
    ResourceLinkContent,
    Scenario,
    ScreenMask,
    Screenshot,
    Server,
    SessionStart,
    SetMode,
    SetModel,
    Status,
    TextContent,
    TextMask,
    TextStep,
    ToolExecution,
    UserCancelSession,
    UserCommand,
    UserEdits,
    UserInput,
    UserInputs,
    content_text,
)
from scenarist.scenario.rules import ENV_VAR, evaluate_condition, parse_defines
from scenarist.scenario.timeline import BEAT_KINDS, Beat, Timeline, compile_timeline
from scenarist.scenario.tools import (
    TOOLS,
    BashOutput,
    EditFile,
    ExitPlanMode,
    Find,
    GenericTool,
    Grep,
    KillShell,
    ListDir,
    NotebookEdit,
    ReadFile,
    RunCmd,
    Sed,
    SlashCommand,
    Task,
    TodoWrite,
    Tool,
    WebFetch,
    WebSearch,
    WriteFile,
    register,
    spelling,
    tool_args,
    tool_from_args,
)

__all__ = [
    "BEAT_KINDS", "ENV_VAR", "Acp", "AcpCapabilities", "AgentEdits", "AgentFileReads",
    "AgentPermissionRequest", "AgentPlan", "AgentToolUse", "Ah", "Annotations", "ApplyPatch",
    "Assert", "AudioContent", "BaseTimeDelta", "Beat", "Complete", "ContentBlock", "DiffContent",
    "EmbeddedResource", "Event", "ExecEvent", "Expect", "ExpectArtifact", "FileContainsAssert",
    "FileRead", "GitCommitAssert", "ImageContent", "Initialize", "Issue", "JsonFileAssert", "LlmError",
    "LlmResponse", "Log", "McpServer", "Merge", "PermissionDecision", "PermissionOption",
    "PlanContent", "PlanEntry", "ProgressStep", "RegionMask", "Repo", "RepoFile",
    "ResourceContent", "ResourceLinkContent", "Scenario", "ScenarioError", "ScreenMask",
    "Screenshot", "Server", "SessionStart",
    "SetMode", "SetModel", "Status", "TextContent", "TextMask", "TextStep", "Timeline", "ToolExecution",
    "UserCancelSession", "UserCommand", "UserEdits", "UserInput", "UserInputs",
    "compile_timeline", "content_text", "effective_initial_prompt", "evaluate_condition",
    "load_scenario", "load_scenario_text", "load_scenarios", "parse_defines", "scenario_files",
]
# the tool vocabulary (scenarist.scenario.tools)
__all__ += [
    "TOOLS", "BashOutput", "EditFile", "ExitPlanMode", "Find", "GenericTool", "Grep", "KillShell",
    "ListDir", "NotebookEdit", "ReadFile", "RunCmd", "Sed", "SlashCommand", "Task", "TodoWrite",
    "Tool", "WebFetch", "WebSearch", "WriteFile", "register", "spelling", "tool_args",
    "tool_from_args",
]
