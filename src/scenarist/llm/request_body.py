"""A model request's body parsed, without parsing again the tool list an agent sent before.

An agent declares the same tools on every request, and they are most of its body: Claude
Code's dozen schemas are ~16 KB of a ~19 KB request, Codex's ~6 KB of ~10 KB (the
agent-shaped workload of bench/bench_llm_agent_traffic.py). Both send ``tools`` as the
body's last member, compact, as ``orjson`` writes it. :class:`BodyReader` keeps the bytes of
such a tail (``,"tools":[...]}``); a body that ends with bytes seen before is parsed without
them and gets the list parsed then, a :class:`SeenTools` that carries what was worked out
from it (its validation, its reading as tool declarations; see :meth:`SeenTools.derived`).
On the 800 bodies of that workload, parsing and reading a request (tool checks included) took
~57 µs, ~28 µs this way (orjson.loads alone: 21 µs a body; the part before the tools: 4 µs).

The result is the same value as ``orjson.loads(raw)``: the tail is taken off only where it is
byte for byte one that parsed to that list, and the rest is parsed as JSON (``{...,"tools":T}``
is valid JSON exactly when ``{...}`` is a valid, non-empty object and ``T`` valid JSON; an
invalid body is parsed whole again, so its error names the place in the body as sent).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any, TypeVar

import orjson

T = TypeVar("T")

TAIL_HEAD = b',"tools":['
TAILS_LIMIT = 16  # tool lists kept (a few agents at once); the oldest goes first


class SeenTools(list[Any]):
    """A body's ``tools`` list, parsed once and shared by every body that sends the same bytes.

    Nothing may change it (the readers only read). What is derived from it is kept on it:
    a tool list that passed a check passes it again, and reads the same."""

    __slots__ = ("known",)

    def __init__(self, items: list[Any]) -> None:
        super().__init__(items)
        #: what :meth:`derived` worked out, by key (a reader on every request may look here
        #: first: a look-up without the method call)
        self.known: dict[Hashable, Any] = {}

    def derived(self, key: Hashable, make: Callable[..., T], *args: Any) -> T:
        """``make(*args)``, worked out once per ``key`` (an exception is raised again each
        time: nothing is kept for a list that fails a check). The arguments are passed, not
        closed over by a lambda: a closure and its cells were made on every request."""
        try:
            value: T = self.known[key]
        except KeyError:
            value = self.known[key] = make(*args)
        return value


class BodyReader:
    """``orjson.loads`` for model requests, with the tool lists it has seen (see the module
    doc); bounded to ``limit`` lists. Safe to share with the worker thread that reads large
    bodies: it probes a snapshot of its tails."""

    def __init__(self, limit: int = TAILS_LIMIT) -> None:
        self.limit = limit
        self._tails: dict[bytes, SeenTools] = {}

    def __len__(self) -> int:
        return len(self._tails)

    def parse(self, raw: bytes) -> Any:
        """The body as JSON (raises ``orjson.JSONDecodeError``, a ``ValueError``)."""
        if raw.endswith(b"]}"):
            for tail, tools in tuple(self._tails.items()):
                if raw.endswith(tail):
                    body = self._without(raw, tail)
                    if body is not None:
                        body["tools"] = tools
                        return body
                    break
        body = orjson.loads(raw)
        self._learn(raw, body)
        return body

    @staticmethod
    def _without(raw: bytes, tail: bytes) -> dict[str, Any] | None:
        """The body before ``tail``, closed; ``None`` when that is no non-empty object."""
        try:
            body = orjson.loads(raw[: len(raw) - len(tail)] + b"}")
        except ValueError:
            return None
        return body if isinstance(body, dict) and body else None

    def _learn(self, raw: bytes, body: Any) -> None:
        """Keep the body's tool list when it is its last member, as orjson writes it."""
        if not isinstance(body, dict) or not raw.endswith(b"]}"):
            return
        tools = body.get("tools")
        if not isinstance(tools, list) or not tools or next(reversed(body)) != "tools":
            return
        if TAIL_HEAD not in raw:  # not compact (a Python SDK's ", "): not worth a dump
            return
        try:
            tail = b',"tools":' + orjson.dumps(tools) + b"}"
        except TypeError:
            return
        if not raw.endswith(tail):
            return
        seen = SeenTools(tools)
        if len(self._tails) >= self.limit:
            self._tails.pop(next(iter(self._tails)), None)
        self._tails[tail] = seen
        body["tools"] = seen
