"""The scenario format: load YAML (rules resolved, validated) and compile it to a Timeline.

Public API (stable; see ``docs/scenario-api.md``)::

    load_scenario(path, *, defines=None, strict=False, allow_outside_paths=False) -> Scenario
    load_scenario_text(text, *, path="<string>", defines=None, strict=False,
                       allow_outside_paths=False) -> Scenario
    load_scenarios(paths, *, defines=None, strict=False, allow_outside_paths=False)
        -> list[Scenario]
    parse_defines(cli, env=$AH_SCENARIO_DEFINES) -> dict[str, bool | int | str]  # env if no cli
    compile_timeline(scenario) -> Timeline  # typed beats (scenarist.scenario.beats)
    turns_of(timeline) -> Turns  # lead-in, then one turn per userInputs

Tool calls carry a typed record of the tool vocabulary (``AgentToolUse.tool``: ``RunCmd``,
``EditFile``, ..., ``GenericTool``; see :mod:`scenarist.scenario.tools`).

Loading raises only :class:`ScenarioError` (with every :class:`Issue` of the file).
"""

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from scenarist.scenario.beats import (
        BEAT_KINDS,
        BEATS,
        AgentBeat,
        AgentEditsBeat,
        AgentFileReadsBeat,
        AgentPermissionRequestBeat,
        AgentPlanBeat,
        ApplyPatchBeat,
        AssertBeat,
        AssistantBeat,
        Beat,
        CompleteBeat,
        ErrorBeat,
        FaultBeat,
        InitializeBeat,
        LogBeat,
        MergeBeat,
        ProgressBeat,
        PromptBeat,
        ResponseBeat,
        ScreenshotBeat,
        SessionStartBeat,
        SetModeBeat,
        SetModelBeat,
        StatusBeat,
        ThinkBeat,
        ToolBeat,
        ToolExecutionBeat,
        ToolResultBeat,
        ToolStartBeat,
        UserCancelSessionBeat,
        UserCommandBeat,
        UserEditsBeat,
    )
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
        Fault,
        FaultEvent,
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
    from scenarist.scenario.timeline import Timeline, compile_timeline
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
    from scenarist.scenario.turns import Turn, Turns, turns_of

__all__ = [
    "ENV_VAR", "Acp", "AcpCapabilities", "AgentEdits", "AgentFileReads",
    "AgentPermissionRequest", "AgentPlan", "AgentToolUse", "Ah", "Annotations", "ApplyPatch",
    "Assert", "AudioContent", "BaseTimeDelta", "Beat", "Complete", "ContentBlock", "DiffContent",
    "EmbeddedResource", "Event", "ExecEvent", "Expect", "ExpectArtifact", "Fault", "FaultEvent",
    "FileContainsAssert",
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
# the typed beats of a compiled timeline (scenarist.scenario.beats)
__all__ += [
    "BEATS",
    "BEAT_KINDS",
    "AgentBeat",
    "AgentEditsBeat",
    "AgentFileReadsBeat",
    "AgentPermissionRequestBeat",
    "AgentPlanBeat",
    "ApplyPatchBeat",
    "AssertBeat",
    "AssistantBeat",
    "CompleteBeat",
    "ErrorBeat",
    "FaultBeat",
    "InitializeBeat",
    "LogBeat",
    "MergeBeat",
    "ProgressBeat",
    "PromptBeat",
    "ResponseBeat",
    "ScreenshotBeat",
    "SessionStartBeat",
    "SetModeBeat",
    "SetModelBeat",
    "StatusBeat",
    "ThinkBeat",
    "ToolBeat",
    "ToolExecutionBeat",
    "ToolResultBeat",
    "ToolStartBeat",
    "Turn",
    "Turns",
    "UserCancelSessionBeat",
    "UserCommandBeat",
    "UserEditsBeat",
    "turns_of",
]
# the tool vocabulary (scenarist.scenario.tools)
__all__ += [
    "TOOLS", "BashOutput", "EditFile", "ExitPlanMode", "Find", "GenericTool", "Grep", "KillShell",
    "ListDir", "NotebookEdit", "ReadFile", "RunCmd", "Sed", "SlashCommand", "Task", "TodoWrite",
    "Tool", "WebFetch", "WebSearch", "WriteFile", "register", "spelling", "tool_args",
    "tool_from_args",
]

# Each name is imported from its module on first access (PEP 562), so that importing one
# submodule (``scenarist.scenario.load``, as ``scenarist validate`` does) does not import
# the others: for ``validate``, ``turns`` and ``bisect`` (~1 ms). The modules in the order
# they import one another (a module after those it takes names from), so the first one that
# has a name is where it is defined; the YAML-reading ones last. A new module whose names
# are exported here joins this tuple (a test resolves every name of ``__all__``).
_HOMES = ("errors", "tools", "model", "beats", "timeline", "turns", "rules", "load")


def __getattr__(name: str) -> object:
    if name in __all__:
        import importlib

        for home in _HOMES:
            module = importlib.import_module(f"{__name__}.{home}")
            if hasattr(module, name):
                value = getattr(module, name)
                globals()[name] = value
                return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
