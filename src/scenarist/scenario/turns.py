"""A compiled timeline cut into turns: the lead-in, then what follows each ``userInputs``.

Pure, and the one place the cut is made; every front end that plays a conversation (the
model server's segments, ACP's prompt turns, fake-codex's turns) reads it. The cut is by
file order: a turn is one ``userInputs`` event's prompts and the live beats of the events
written after it, up to the next ``userInputs``. Prompts are timed absolutely and may fall
inside an agent event written before them (the user types while the agent works); that
event still answers the earlier prompt. Beats written before the first ``userInputs`` are
the *lead-in* (the agent working on the initial prompt, or a session loaded mid-task); each
front end says what it does with them. Beats before ``sessionStart`` are history.

Inside a turn the beats keep their time order (which, prompts aside, is file order: the
compiler's cursor only moves forward).
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterator
from dataclasses import dataclass

from scenarist.scenario.beats import Beat, PromptBeat
from scenarist.scenario.timeline import Timeline

__all__ = ["Turn", "Turns", "turns_of"]


@dataclass(frozen=True, slots=True)
class Turn:
    """One ``userInputs`` event's prompts (none for the lead-in) and the beats after them."""

    prompts: tuple[PromptBeat, ...]
    beats: tuple[Beat, ...]  # the other live beats up to the next userInputs, time order

    @property
    def origin_ms(self) -> int | None:
        """When the turn starts: its first prompt, else its first beat (None if empty)."""
        first = self.prompts or self.beats
        return first[0].at_ms if first else None


@dataclass(frozen=True, slots=True)
class Turns:
    """A timeline's turn structure (see the module doc)."""

    history: tuple[Beat, ...]  # before sessionStart: replayed on ACP session/load
    lead_in: tuple[Beat, ...]  # live beats written before the first userInputs
    turns: tuple[Turn, ...]  # one per live userInputs event, in file order

    def __iter__(self) -> Iterator[Turn]:
        """The lead-in (as a turn without prompts), then the turns."""
        yield Turn((), self.lead_in)
        yield from self.turns


def turns_of(timeline: Timeline) -> Turns:
    """Cut ``timeline`` into history, lead-in and turns (see the module doc)."""
    history = tuple(b for b in timeline.beats if not b.live)
    live = [b for b in timeline.beats if b.live]
    bounds = sorted({b.index for b in live if isinstance(b, PromptBeat)})
    lead_in: list[Beat] = []
    prompts: list[list[PromptBeat]] = [[] for _ in bounds]
    beats: list[list[Beat]] = [[] for _ in bounds]
    for beat in live:
        number = _turn_number(bounds, beat.index)
        if isinstance(beat, PromptBeat):
            prompts[number].append(beat)
        elif number < 0:
            lead_in.append(beat)
        else:
            beats[number].append(beat)
    turns = tuple(Turn(tuple(p), tuple(b)) for p, b in zip(prompts, beats, strict=True))
    return Turns(history, tuple(lead_in), turns)


def _turn_number(bounds: list[int], index: int) -> int:
    """The turn holding timeline index ``index``: the last bound at or before it (-1: none)."""
    return bisect_right(bounds, index) - 1
