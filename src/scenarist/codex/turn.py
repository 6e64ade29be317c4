"""What one turn of the fake agent produces, and the frame Codex puts around it.

Every mode (commands, random simulation, replay, scenario) yields *steps*: an
EventMsg ``dict``, a :class:`Raw` line written verbatim, a :class:`Sleep`, or a scenario's
fault (:class:`Strike`).
:func:`frame_turn` adds what a real Codex turn has around its content: the
``session_configured`` a host waits for and the ``task_started`` /
``token_count`` / ``task_complete`` lifecycle.

The records of fake-codex (here, ``commands.Command``, ``config.Config``) are plain slotted
classes, not dataclasses: importing :mod:`dataclasses` imports :mod:`inspect` (~47 M
instructions, about half of what fake-codex's first line took, ~89 M), and that line has a
start-up budget (docs/architecture.md, "Start-up budgets and ordinary code").
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from scenarist.codex.build import session_configured
from scenarist.codex.rng import Rng

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator
    from typing import Any

    from scenarist.scenario.model import Fault

    CodexEvent = dict[str, Any]


class Raw:
    """A JSON value written as one line exactly as given (e.g. a raw JSON-RPC notification)."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Raw) and other.value == self.value

    def __repr__(self) -> str:
        return f"Raw({self.value!r})"


#: the longest pause fake-codex takes (``sleep``, ``cadence_ms``, a replayed sleep): one day;
#: anything longer is a typo, and would overflow the operating system's timers
MAX_PAUSE_MS = 86_400_000


class Sleep:
    """A pause of ``ms`` milliseconds in the output (no line)."""

    __slots__ = ("ms",)

    def __init__(self, ms: int) -> None:
        self.ms = ms

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Sleep) and other.ms == self.ms

    def __repr__(self) -> str:
        return f"Sleep({self.ms})"


class Strike:
    """A scenario's fault reaching the output here (:mod:`scenarist.fault_lines` says what it
    does to the lines; ``afterEvents``/``afterBytes`` count from here)."""

    __slots__ = ("fault",)

    def __init__(self, fault: Fault) -> None:
        self.fault = fault

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Strike) and other.fault is self.fault

    def __repr__(self) -> str:
        return f"Strike({self.fault.kind})"


if TYPE_CHECKING:
    Step = CodexEvent | Raw | Sleep | Strike


NIL_SESSION_ID = "00000000-0000-4000-a000-000000000000"


class CodexTurn:
    """Everything an event builder needs to know about the turn it builds for."""

    __slots__ = (
        "approvals",
        "chunk_max",
        "chunk_min",
        "cwd",
        "number",
        "rng",
        "session",
        "turn_id",
    )

    def __init__(
        self,
        rng: Rng,
        *,
        number: int = 1,
        cwd: str = "/workspace",
        chunk_min: int = 4,
        chunk_max: int = 14,
        approvals: bool = False,
        session: CodexEvent | None = None,
    ) -> None:
        self.rng = rng
        self.number = number
        self.turn_id = f"turn-{number}"
        self.cwd = cwd
        self.chunk_min = chunk_min
        self.chunk_max = chunk_max
        self.approvals = approvals
        #: the run's ``session_configured`` event (what the ``session`` command re-emits)
        self.session: CodexEvent = session or session_configured(NIL_SESSION_ID, cwd=cwd)


_TEXT_DELTAS = frozenset(("agent_message_delta", "agent_reasoning_delta"))


def frame_turn(
    steps: Iterable[Step],
    turn: CodexTurn,
    *,
    prompt: str,
    session: CodexEvent | None,
    lifecycle: bool,
) -> Iterator[Step]:
    """Wrap a turn's steps in the session and lifecycle events a Codex host expects.

    ``session`` is prepended when given (callers pass it when the turn's own steps
    lack one). With ``lifecycle`` the turn opens with ``task_started`` (after any
    leading ``session_configured``) and closes with ``token_count`` and
    ``task_complete``, whose token figures are estimated from the text streamed.
    """
    if session is not None:
        yield session
    if not lifecycle:
        yield from steps
        return
    it = iter(steps)
    started = False
    for step in it:  # leading session_configured events come before task_started
        if not isinstance(step, dict) or step.get("type") != "session_configured":
            yield task_started(turn)
            started = True
            yield from _counting(step, it, turn, prompt)
            return
        yield step
    if not started:
        yield task_started(turn)
    yield from _counting(None, it, turn, prompt)


def _counting(first: Step | None, rest: Iterator[Step], turn: CodexTurn, prompt: str) -> Iterator[Step]:
    """Pass the steps through, then close the turn with token figures for the text streamed."""
    out_chars = 0
    last_message: str | None = None
    deltas = _TEXT_DELTAS
    if first is not None:
        rest = _chain(first, rest)
    for step in rest:
        if isinstance(step, dict):
            etype = step.get("type")
            if etype in deltas:
                out_chars += len(step.get("delta", ""))
            elif etype == "agent_message":
                last_message = step.get("message")
        yield step
    yield token_count(len(prompt), out_chars)
    yield {"type": "task_complete", "turn_id": turn.turn_id, "last_agent_message": last_message}


def _chain(first: Step, rest: Iterator[Step]) -> Iterator[Step]:
    yield first
    yield from rest


CONTEXT_WINDOW = 272_000


def task_started(turn: CodexTurn) -> CodexEvent:
    return {"type": "task_started", "turn_id": turn.turn_id, "model_context_window": CONTEXT_WINDOW}


def token_count(prompt_chars: int, output_chars: int) -> CodexEvent:
    """A ``token_count`` with a stable estimate (about four characters per token)."""
    inp = 1200 + prompt_chars // 4
    out = 1 + output_chars // 4
    usage = {
        "input_tokens": inp,
        "cached_input_tokens": 0,
        "output_tokens": out,
        "reasoning_output_tokens": 0,
        "total_tokens": inp + out,
    }
    return {
        "type": "token_count",
        "info": {
            "total_token_usage": usage,
            "last_token_usage": usage,
            "model_context_window": CONTEXT_WINDOW,
        },
        "rate_limits": None,
    }
