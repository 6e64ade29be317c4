"""Ids that name one conversation's answer, and carry where it stands in its scenario.

Real APIs never hand out an id twice; hosts that keep many agents' tool calls or responses by
id (a board that runs several agents, a trace store) rely on it. The ids here are still
deterministic, so a replayed conversation gets the same ids again: they derive from the
conversation itself, never from a counter or the clock.

- The *conversation key* (:func:`conversation_key`) is a digest of the scenario name and what
  tells one conversation from another: the agent's session id when it sends one, else its
  first prompt as typed.
- A :class:`TurnRef` is one answer: scenario, conversation key, the model turn's index and,
  when tool calls are served one per answer, which of the turn's calls this answer makes;
  also what re-rendering it needs (``one_call``, the model) and whether it was ``store``d.
  :func:`encode_ref` packs it into the token that the message id, response id and Responses
  item ids are built from; :func:`decode_ref` reads it back. This is what lets a
  ``previous_response_id``, a message-thread ``previous_message_id`` or a
  ``GET /v1/responses/{id}`` be served by any replica with no stored state: the id says
  which scenario and which position to continue from or re-render.
- Tool-call ids (:func:`call_id`) are a digest of the reference and the call's place.
"""

# Annotations are not postponed here: see "Records" in docs/architecture.md.
import base64
import binascii
import hashlib
from binascii import b2a_base64
from collections.abc import Mapping
from typing import NamedTuple

import orjson

SESSION_HEADERS = ("x-scenario-session", "x-claude-code-session-id", "session-id", "thread-id")
_KEY_CHARS = 16
_KEYS_LIMIT = 4096
_keys: dict[tuple[str, str], str] = {}  # conversation keys already derived (hot path)
_URLSAFE = bytes.maketrans(b"+/", b"-_")


class TurnRef(NamedTuple):
    """One answer of one conversation: the scenario, the conversation, the turn and its part.

    A ``NamedTuple``, made afresh for every request: a frozen dataclass costs 4 µs to build
    here, a third of a memoised answer (see :mod:`scenarist.llm.answer`)."""

    scenario: str
    conversation: str  # :func:`conversation_key`
    turn: int  # ModelTurn.index
    part: int = 0  # the first of the turn's calls this answer makes (one call per answer)
    one_call: bool = False  # the request refused parallel tool calls
    stored: bool = True  # Responses ``store``: whether the answer may be continued/retrieved
    model: str = ""  # the model the request named (a re-rendered answer names it again)


def conversation_key(scenario: str, headers: Mapping[str, str], first_prompt: str | None) -> str:
    """What tells this conversation apart: the agent's session id, else its first prompt."""
    for header in SESSION_HEADERS:
        value = headers.get(header)
        if value:
            seed = f"{header}:{value}"
            break
    else:  # the prompt copied into a seed only when no session id says it (a long one costs)
        seed = f"prompt:{first_prompt or ''}"
    key = _keys.get((scenario, seed))
    if key is None:
        digest = hashlib.blake2b(f"{scenario}\0{seed}".encode(), digest_size=_KEY_CHARS // 2)
        key = digest.hexdigest()
        if len(_keys) >= _KEYS_LIMIT:
            _keys.clear()
        _keys[(scenario, seed)] = key
    return key


def encode_ref(ref: TurnRef) -> str:
    """The id token of ``ref`` (base64url of a small JSON array, unpadded): URL- and id-safe."""
    raw = orjson.dumps([ref.scenario, ref.conversation, ref.turn, ref.part, ref.one_call,
                        ref.stored, ref.model])
    # base64.urlsafe_b64encode's own steps without its two Python frames (on every answer)
    return b2a_base64(raw, newline=False).translate(_URLSAFE).rstrip(b"=").decode("ascii")


def decode_ref(token: str) -> TurnRef | None:
    """The :class:`TurnRef` an id token carries, or ``None`` when it is none of ours."""
    try:
        raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
        value = orjson.loads(raw)
    except (ValueError, binascii.Error):
        return None
    if not (isinstance(value, list) and len(value) == 7):
        return None
    scenario, conversation, turn, part, one_call, stored, model = value
    if not (isinstance(scenario, str) and isinstance(conversation, str) and _natural(turn)
            and _natural(part) and isinstance(one_call, bool) and isinstance(stored, bool)
            and isinstance(model, str)):
        return None
    return TurnRef(scenario, conversation, turn, part, one_call, stored, model)


def ref_of_id(value: str, prefix: str) -> TurnRef | None:
    """The reference in an API id such as ``resp_…`` or ``msg_…`` (``None`` if not ours)."""
    if not value.startswith(prefix):
        return None
    return decode_ref(value[len(prefix):])


def call_id(prefix: str, ref: TurnRef, index: int) -> str:
    """The id of the ``index``-th tool call of the answer ``ref`` (``call_``/``toolu_``)."""
    seed = f"{ref.scenario}\0{ref.conversation}\0{ref.turn}\0{ref.part + index}"
    return prefix + hashlib.blake2b(seed.encode(), digest_size=12).hexdigest()


def _natural(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0
