"""A recorded conversation as a scenario: its beats put into the transcript the writer takes.

The proxy's chain (:mod:`.chain`) says what the conversation was in wire-neutral beats; this
module turns them into the agent-neutral :class:`~.transcript.Transcript` that ``scenarist
import`` builds from session files too, so one writer (:mod:`.writer`) and one set of inverse
tool tables make every scenario. Everything written is masked by the writer with the
session's :class:`~.redact.Masker` (the client's credentials, key shapes, ``--redact``), ids
are left out (the upstream's call ids
mean nothing to a replay), and the built-in normalisers make the workspace path, temporary
folders, UUIDs and dates stable (:mod:`.normalise`), then the user's ``--normalise`` hooks.
"""

from __future__ import annotations

import re

from scenarist.record.answers import Failure as Refusal
from scenarist.record.chain import Beat, Chain, beats
from scenarist.record.history import Call, History, Prompt, Said, Thought
from scenarist.record.normalise import normaliser
from scenarist.record.redact import Masker
from scenarist.record.transcript import (
    Failure,
    Step,
    Text,
    Thinking,
    ToolCall,
    Transcript,
    Turn,
    Vocabulary,
)

HEADER = "Recorded by `scenarist record` (docs/recording.md); edit freely."
#: tools that only Claude Code / only Codex declare: the table that reads their calls back
_CLAUDE_TOOLS = frozenset({"Bash", "Write", "Edit", "Read"})
_CODEX_TOOLS = frozenset({"exec_command", "apply_patch", "shell", "exec"})


def render(chain: Chain, name: str, masker: Masker, hooks: tuple[str, ...] = ()) -> str:
    """The scenario YAML of ``chain``, named ``name``; ``hooks`` (``--normalise``) normalise
    after the built-in normalisers."""
    from scenarist.record.writer import write_scenario

    transcript = transcript_of(chain, name)
    header = HEADER if not hooks else f"{HEADER} Normalised with --normalise {' '.join(hooks)}."
    return write_scenario(transcript, normalise=normaliser(transcript.cwd, hooks), header=header,
                          mask=masker.text)


def vocabulary_of(history: History) -> Vocabulary:
    """Whose tool names the conversation's calls use, from the tools its requests declare."""
    declared = set(history.tools)
    if history.api == "messages" and declared & _CLAUDE_TOOLS:
        return "claude-code"
    if history.api == "responses" and declared & _CODEX_TOOLS:
        return "codex"
    return "format"


def transcript_of(chain: Chain, name: str) -> Transcript:
    """``chain`` as a transcript: a turn per prompt, its steps in order (ids left out)."""
    vocabulary = vocabulary_of(chain.first)
    turns: list[Turn] = []
    prompt: str | None = None
    steps: list[Step] = []
    for beat in beats(chain):
        if isinstance(beat.item, Prompt):
            if prompt is not None:
                turns.append(Turn(prompt, tuple(steps)))
            prompt, steps = beat.item.text, []
        elif prompt is not None:
            steps.append(_step(beat, vocabulary))
    if prompt is not None:
        turns.append(Turn(prompt, tuple(steps)))
    return Transcript(name, tuple(turns), vocabulary, chain.cwd,
                      tags=("recorded",))


#: Codex's report around what a command printed: ``Chunk ID``, ``Wall time`` (new every run),
#: the exit code, ``Output:``, then the output itself
_CODEX_OUTPUT = re.compile(r"\A(?:[A-Z][A-Za-z ]*: [^\n]*\n|Process exited with code -?\d+\n)*"
                           r"Output:\n")


def printed(result: str, vocabulary: Vocabulary) -> str:
    """What a tool printed, as a scenario expects it: Codex's report around a command's
    output changes every run (its chunk id, its wall time), so only the output is kept;
    a replay checks it inside the result the agent sends (``llm.divergence``)."""
    if vocabulary == "codex":
        report = _CODEX_OUTPUT.match(result)
        if report is not None:
            return result[report.end():]
    return result


def _step(beat: Beat, vocabulary: Vocabulary) -> Step:
    item, delay = beat.item, beat.delay_ms
    if isinstance(item, Thought):
        return Thinking(item.text, delay)
    if isinstance(item, Said):
        return Text(item.text, delay)
    if isinstance(item, Call):
        outcome = beat.outcome
        value = item.input if isinstance(item.input, dict | str) else {"input": item.input}
        return ToolCall(item.name, value,
                        result=printed(outcome.output, vocabulary) if outcome else None,
                        status="error" if outcome and outcome.is_error else None,
                        delay_ms=delay)
    assert isinstance(item, Refusal)
    return Failure(item.message, item.status, item.error_type or "api_error",
                   item.retry_after_s, delay)
