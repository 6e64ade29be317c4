"""A scenario as the model server sees it: user segments of model turns.

A *model turn* is one ``llmResponse`` plus the agent actions that follow it up to the next
``llmResponse`` or ``userInputs``: what one API response must contain. A *segment* is the run
of model turns that answer one user prompt. This shape is all the server needs; it is built
# Annotations are not postponed here: see "Records" in docs/architecture.md.
from a loaded scenario by :mod:`scenarist.llm.plan` and is pure data.
"""


from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from scenarist.scenario.model import Assert, Fault
from scenarist.scenario.tools import Tool, tool_args, tool_from_args


@dataclass(slots=True)
class TimedText:
    """A piece of thinking or answer text, due ``at_ms`` after the turn starts (unscaled)."""

    at_ms: int
    text: str


@dataclass(slots=True)
class ToolAction:
    """A tool call in the scenario's own vocabulary: ``runCmd``, ``writeFile``, ... or any
    ``agentToolUse`` tool name, with its arguments as the format spells them. ``call`` is its
    typed record (:mod:`scenarist.scenario.tools`), which renderers match on."""

    tool: str
    args: Mapping[str, Any]
    result: Any = None  # the scenario's expected result (None: not stated)
    status: str | None = None  # the scenario's expected status (ok, error, ...)
    line: int = 0  # where the event is written in the scenario file (0: unknown)
    call: Tool = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self.call = tool_from_args(self.tool, self.args)

    @classmethod
    def of(cls, record: Tool, *, result: Any = None, status: str | None = None,
           line: int = 0) -> "ToolAction":
        """The action for a loaded tool record (with the scenario's expected outcome)."""
        return cls(record.name, tool_args(record), result, status, line)


@dataclass(slots=True)
class EditAction:
    """``agentEdits``: a real edit of ``path`` with the scenario's text, or deterministic text
    with exactly ``lines_added``/``lines_removed`` lines."""

    path: str
    lines_added: int = 0
    lines_removed: int = 0
    old_text: str | None = None
    new_text: str | None = None
    line: int = 0  # where the event is written in the scenario file (0: unknown)


Action = ToolAction | EditAction


@dataclass(slots=True)
class ScriptedError:
    """An ``error`` element: answered as HTTP ``status`` in the API's own error body."""

    message: str
    status: int = 400
    error_type: str | None = None
    details: Any = None
    retry_after_seconds: float | None = None


@dataclass(slots=True)
class Check:
    """One ``assert`` event that must hold before the next turn is served (as loaded, typed)."""

    assertion: Assert
    label: str = "assert"


@dataclass(slots=True)
class ModelTurn:
    """What one API response carries."""

    index: int  # position in the whole scenario (0-based)
    thinking: tuple[TimedText, ...] = ()
    text: tuple[TimedText, ...] = ()
    actions: tuple[Action, ...] = ()
    error: ScriptedError | None = None
    checks: tuple[Check, ...] = ()  # asserts that sit before this turn
    duration_ms: int = 0  # unscaled time the turn's own steps take
    meta: Mapping[str, Any] = field(default_factory=dict)
    line: int = 0  # where its llmResponse (else its first action) is written (0: unknown)
    fault: Fault | None = None  # the llmResponse's fault (docs/faults.md)
    # what precedes the fault: (thinking steps, text steps) of ``thinking`` and ``text``
    fault_after: tuple[int, int] = (0, 0)

    def describe(self) -> str:
        """A short human description, for errors that name the expected next step."""
        if self.error is not None:
            return f"turn {self.index}: error {self.error.status} {self.error.message!r}"
        bits: list[str] = []
        if self.thinking:
            bits.append("thinking")
        if self.text:
            first = self.text[0].text
            bits.append(f"text {first[:40]!r}" + ("..." if len(first) > 40 else ""))
        for action in self.actions:
            if isinstance(action, EditAction):
                bits.append(f"agentEdits {action.path}")
            else:
                bits.append(f"{action.tool}")
        return f"turn {self.index}: " + (", ".join(bits) or "empty answer")


@dataclass(slots=True)
class Segment:
    """The model turns that answer one user prompt (``prompt`` None: before any userInputs)."""

    prompt: str | None
    turns: tuple[ModelTurn, ...]
    line: int = 0  # where its userInputs entry is written (0: the initial prompt, or unknown)


ApiStyle = Literal["openai", "anthropic"]


@dataclass(slots=True)
class Script:
    """One scenario, ready to serve."""

    name: str
    prompt: str | None  # the effective initial prompt (what selection matches)
    segments: tuple[Segment, ...]
    api_style: ApiStyle = "openai"
    coalesce_thinking_with_tool_use: bool = True
    final_checks: tuple[Check, ...] = ()  # asserts after the last model turn
    source: str = ""  # where it was loaded from, for messages
    has_errors: bool = field(init=False, default=False)  # any scripted error turn
    # any tool call whose result or status the scenario states: only then does the server
    # read the tool results a request carries (:mod:`scenarist.llm.divergence`)
    has_results: bool = field(init=False, default=False)

    def __post_init__(self) -> None:
        turns = [t for s in self.segments for t in s.turns]
        self.has_errors = any(t.error is not None for t in turns)
        self.has_results = any(isinstance(a, ToolAction)
                               and (a.result is not None or a.status is not None)
                               for t in turns for a in t.actions)

    def where(self, line: int) -> str:
        """``file:line`` of a line of the scenario (the file alone when the line is unknown)."""
        source = self.source or self.name
        return f"{source}:{line}" if line else source

    @property
    def effective_initial_prompt(self) -> str | None:
        return self.prompt

    @property
    def source_path(self) -> str | None:
        return self.source or None

    @property
    def turns(self) -> tuple[ModelTurn, ...]:
        return tuple(t for s in self.segments for t in s.turns)
