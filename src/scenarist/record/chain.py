"""Which requests make one conversation, and what that conversation was.

An agent re-sends the whole conversation with every request, so requests are not turns: a
conversation is the chain of requests each of whose history extends the one before (its
prompts and tool calls in the same order, then more; a retry after an error repeats it
exactly). :func:`attach` finds the chain a new exchange continues, or starts one; what the
chain said is then read off its exchanges in order by :func:`beats`: first what the first
request carries (its prompts, and the model's earlier answers when it came mid-conversation),
then a user turn opens where a request brings a prompt the previous one did not have, each
answer's steps follow with their delays, and a tool call's result is the one a later request
carries for its id.

Side requests (a title or a classification an agent asks for on the side: no tools declared
while the conversation has some, or another system prompt) never extend the chain of a
conversation with tools; :func:`is_side` says which chains to leave out when writing.

Pure: exchanges in, chains and beats out; the proxy keeps the chains.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace

from scenarist.record.answers import Failure, Reading
from scenarist.record.history import Call, History, Outcome, Prompt, Said, Thought


@dataclass(frozen=True, slots=True)
class Exchange:
    """One request the proxy forwarded and the answer it relayed."""

    history: History
    reading: Reading
    test_id: str | None = None  # the ``x-scenario-test`` header


@dataclass(slots=True)
class Chain:
    """The exchanges of one conversation, in the order they happened."""

    exchanges: list[Exchange] = field(default_factory=list)

    @property
    def first(self) -> History:
        return self.exchanges[0].history

    @property
    def last(self) -> History:
        return self.exchanges[-1].history

    @property
    def cwd(self) -> str | None:
        """The working directory the agent reported (the workspace of the recording)."""
        return next((e.history.cwd for e in self.exchanges if e.history.cwd), None)

    @property
    def test_id(self) -> str | None:
        return next((e.test_id for e in self.exchanges if e.test_id), None)


def extends(earlier: History, later: History, *, retry: bool = False) -> bool:
    """Whether ``later`` continues the conversation of ``earlier``, or (``retry``: the earlier
    one failed) repeats it. The same history again after an answer is a new run."""
    if earlier.system != later.system or bool(earlier.tools) != bool(later.tools):
        return False
    before, after = earlier.key(), later.key()
    longer = len(after) > len(before) or (retry and len(after) == len(before))
    return longer and len(before) > 0 and after[: len(before)] == before


def attach(chains: list[Chain], exchange: Exchange) -> Chain:
    """Add ``exchange`` to the chain it continues (the longest such), else to a new one."""
    fits = [c for c in chains if extends(c.last, exchange.history,
                                         retry=c.exchanges[-1].reading.failure is not None)]
    if fits:
        chain = max(fits, key=lambda c: len(c.last.key()))
    else:  # a new conversation; one that started the same way before was a run of it
        chain = Chain()
        chains[:] = [c for c in chains if not _same_start(c.first, c.test_id, exchange)]
        chains.append(chain)
    if len(chain.exchanges) > 1:  # the new history carries all the last one did
        # (the first is kept whole: what it carries from before is the chain's lead-in)
        last = chain.exchanges[-1]
        chain.exchanges[-1] = replace(last, history=last.history.slim())
    chain.exchanges.append(exchange)
    return chain


def _same_start(first: History, test_id: str | None, exchange: Exchange) -> bool:
    """Whether a chain began as ``exchange`` begins: the same conversation run again, whose
    file the new run replaces (so a session keeps one chain per conversation, not per run)."""
    other = exchange.history
    return (test_id == exchange.test_id and first.prompts[:1] == other.prompts[:1]
            and first.system == other.system and bool(first.tools) == bool(other.tools))


def is_side(chain: Chain, chains: Sequence[Chain]) -> bool:
    """A request on the side of a conversation: it declares no tools while another chain
    that started with the same prompt or test id does, or it has no prompt at all."""
    if not chain.first.prompts:
        return True
    if chain.first.tools:
        return False
    return any(other.first.tools and (other.test_id == chain.test_id or
                                      other.first.prompts[:1] == chain.first.prompts[:1])
               for other in chains if other is not chain)


# --------------------------------------------------------------------------- beats


@dataclass(frozen=True, slots=True)
class Beat:
    """One step of a conversation: a prompt, or a model step with its delay in ms from the
    previous step of the same answer (the first from the request), with the result of a call."""

    item: Prompt | Thought | Said | Call | Failure
    delay_ms: int = 0
    outcome: Outcome | None = None


def beats(chain: Chain) -> Iterator[Beat]:
    """What the conversation said, in order (see the module docstring)."""
    outcomes = {o.id: o for o in chain.last.items if isinstance(o, Outcome)}
    calls: dict[str, int] = {}  # how many calls of each function so far
    for beat in _said(chain, outcomes):
        if isinstance(beat.item, Call):
            name = beat.item.name
            calls[name] = calls.get(name, 0) + 1
            if not beat.item.id:  # an answer's call without an id (Gemini may leave it out)
                call = replace(beat.item, id=f"{name}#{calls[name]}")  # named as history.py does
                beat = Beat(call, beat.delay_ms, outcomes.get(call.id))
        yield beat


def _said(chain: Chain, outcomes: dict[str, Outcome]) -> Iterator[Beat]:
    yield from _lead_in(chain.first, outcomes)
    seen_prompts = len(chain.first.prompts)
    for exchange in chain.exchanges:
        prompts = exchange.history.prompts
        for text in prompts[seen_prompts:]:
            yield Beat(Prompt(text))
        seen_prompts = max(seen_prompts, len(prompts))
        yield from _answer_beats(exchange.reading, outcomes)


def _lead_in(first: History, outcomes: dict[str, Outcome]) -> Iterator[Beat]:
    """What the first request already carries: its prompts and, when the chain starts
    mid-conversation (``llm --record-on-miss`` forwards the request a scenario did not
    answer, after the turns it did), the model's earlier answers and their tools' results."""
    for item in first.items:
        if isinstance(item, Call):
            yield Beat(item, 0, outcomes.get(item.id))
        elif not isinstance(item, Outcome):
            yield Beat(item)


def _answer_beats(reading: Reading, outcomes: dict[str, Outcome]) -> Iterator[Beat]:
    previous = 0
    for step in reading.steps:
        outcome = outcomes.get(step.item.id) if isinstance(step.item, Call) else None
        yield Beat(step.item, max(0, step.at_ms - previous), outcome)
        previous = step.at_ms
    if reading.failure is not None:
        yield Beat(reading.failure, max(0, reading.failure.at_ms - previous))
