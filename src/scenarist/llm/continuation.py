"""Conversations continued through state the real API keeps on its side.

Two APIs let a client send only what is new and name the answer it follows:

- OpenAI Responses: ``previous_response_id`` (the OpenAI Agents SDK with
  ``auto_previous_response_id=True``, any client with ``store``). Every request still carries
  its tools and instructions, so the answer's id (see :mod:`scenarist.llm.ids`) is all the
  server needs: it names the scenario, the conversation and the turn. Nothing is stored, and
  any replica continues any conversation. ``GET /v1/responses/{id}`` re-renders the answer
  from its id.
- Anthropic message threads (``thread: {"type": "continue", "previous_message_id"}``, which
  the Anthropic SDKs' ``toolRunner`` sends by default): a ``continue`` leaves ``system`` and
  ``tools`` out, and the thread keeps those of its ``create`` request. The position still
  comes from the id; the create request's ``system`` and ``tools`` are kept in a bounded
  in-memory table (:class:`ThreadFields`). A ``continue`` whose thread this process does not
  hold (another replica, a restart, evicted) is answered as the real API answers a thread it
  no longer has: 404 with ``error_code: thread_not_found``, on which the SDK replays the full
  history under a new thread.

Unknown or malformed ids are refused with the real APIs' own errors.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Mapping
from contextlib import suppress
from typing import Any

from scenarist.errors import WireError
from scenarist.llm.conversation import Api, Conversation
from scenarist.llm.ids import TurnRef, ref_of_id

THREAD_LIMIT = 4096  # threads whose create-only fields are kept (oldest dropped first)
CREATE_ONLY = ("system", "tools")


class ContinuationError(WireError, LookupError):
    """The id a request continues is none of this server's: the API's own error answers it."""

    def __init__(self, status: int, message: str, *, param: str | None = None,
                 code: str | None = None, details: Mapping[str, Any] | None = None) -> None:
        super().__init__(message)
        self.status, self.message, self.param, self.code = status, message, param, code
        self.details = dict(details) if details else None


def previous_ref(api: Api, conv: Conversation) -> TurnRef | None:
    """The answer the request continues, or ``None`` when it carries its whole history."""
    if conv.previous is None:
        return None
    if api == "responses":
        return _response_ref(conv.previous)
    return _message_ref(conv.previous)


def _response_ref(value: str) -> TurnRef:
    if not value.startswith("resp"):
        raise ContinuationError(
            400, f"Invalid 'previous_response_id': '{value}'. Expected an ID that begins with "
                 "'resp'.", param="previous_response_id", code="invalid_value")
    ref = ref_of_id(value, "resp_")
    if ref is None:
        raise response_not_found(value, param="previous_response_id")
    return ref


def response_not_found(value: str, *, param: str | None) -> ContinuationError:
    """How OpenAI answers a response id it does not hold (400 on ``previous_response_id``,
    404 on ``GET /v1/responses/{id}``)."""
    if param is None:
        return ContinuationError(404, f"Response with id '{value}' not found.")
    return ContinuationError(400, f"Previous response with id '{value}' not found.",
                             param=param, code="previous_response_not_found")


def _message_ref(value: str) -> TurnRef:
    ref = ref_of_id(value, "msg_")
    if ref is None:
        raise thread_not_found(value)
    return ref


def thread_not_found(value: str) -> ContinuationError:
    """The real API's answer to a thread it no longer holds: the SDKs replay the history."""
    return ContinuationError(
        404, f"thread.previous_message_id: no thread continues from message '{value}'; send "
             "the full conversation with thread.type 'create'",
        param="thread.previous_message_id", details={"error_code": "thread_not_found"})


class ThreadFields:
    """The ``system`` and ``tools`` of each message thread, by the id of its latest reply.

    A bounded table (:data:`THREAD_LIMIT` entries, least recently used dropped): the real
    API holds a thread for minutes and answers ``thread_not_found`` after; this process
    answers the same once it has dropped one."""

    def __init__(self, limit: int = THREAD_LIMIT) -> None:
        self.limit = limit
        self._fields: OrderedDict[str, dict[str, Any]] = OrderedDict()

    def __len__(self) -> int:
        return len(self._fields)

    def expand(self, body: Any) -> Any:
        """A ``continue`` body with its thread's ``system`` and ``tools`` put back (other
        bodies as they are); raises :class:`ContinuationError` for a thread not held."""
        if not isinstance(body, dict):
            return body  # the reader refuses it in the API's terms
        thread = body.get("thread")
        if not isinstance(thread, dict) or thread.get("type") != "continue":
            return body
        previous = thread.get("previous_message_id")
        if not isinstance(previous, str):
            return body  # the reader names the missing field
        kept = self._fields.get(previous)
        if kept is None:
            raise thread_not_found(previous)
        with suppress(KeyError):  # dropped meanwhile by a worker thread (large bodies)
            self._fields.move_to_end(previous)
        present = [k for k in CREATE_ONLY if k in body]
        if present:
            raise ContinuationError(
                400, f"{present[0]}: a thread 'continue' request takes {present[0]} from its "
                     "thread; leave it out", param=present[0])
        return {**body, **kept}

    def remember(self, body: Mapping[str, Any], message_id: str) -> None:
        """Keep the thread's fields under the id of the reply the next turn continues from."""
        if not isinstance(body.get("thread"), dict):
            return
        self._fields[message_id] = {k: body[k] for k in CREATE_ONLY if k in body}
        while len(self._fields) > self.limit:
            with suppress(KeyError):
                self._fields.popitem(last=False)
