"""Encoded answers as templates: made once per answer *shape*, filled with each request's ids.

Agents never repeat a request, yet the 200 conversations of one scenario get the same answer
but for what names the conversation and the request (issue 28): the id token
(:func:`~scenarist.llm.ids.encode_ref`, inside every message, response and item id), the
tool-call ids (:func:`~scenarist.llm.ids.call_id`), the ``created`` second, and the request's
token count (``input_tokens``, and the usage totals that add the answer's own tokens to it).
These are the :class:`Fill` of an answer; everything else that reaches its bytes is its shape.

A template is an encoded answer's bytes with those values' text cut out: each part (a body, a
stream batch, a fault's frame) becomes a ``bytes`` format string with a named slot
(``%(r)b``) where a value stood, and ``%`` doubled elsewhere, so filling it is one C-level
``%`` per part. The template is made from an answer encoded with sentinel values
(:data:`SENTINEL_A`) and **checked by construction** before it is used: the answer encoded a
second time with other sentinels (:data:`SENTINEL_B`, other lengths too) must equal template A
filled with B's values, byte for byte (:func:`make`). Whatever would make a filled answer
differ from a fresh one fails that check — a sentinel's text also in the scenario's own text,
a value that reaches the bytes in another form than its text, a layout that depends on a
value — and such a shape is never templated.

Pure: bytes and values in, format strings out.
"""

# Annotations are not postponed here: see "Records" in docs/architecture.md.
from collections.abc import Sequence
from typing import NamedTuple

TOKEN, CREATED, INPUT, TOTAL = b"r", b"t", b"i", b"o"  # the slots' names (a call's: c0, c1, ...)


class Fill(NamedTuple):
    """The values an answer of one shape is filled with."""

    token: str  # encode_ref of the answer's TurnRef
    calls: tuple[str, ...]  # the ids of the answer's tool calls, in order
    created: int
    input_tokens: int
    output_tokens: int  # the shape's own (the same for every fill): totals are input + output

    def table(self) -> dict[bytes, bytes]:
        """Each slot's name and the text that goes there."""
        return table(*self)


def table(token: str, calls: Sequence[str], created: int, input_tokens: int,
          output_tokens: int) -> dict[bytes, bytes]:
    """:meth:`Fill.table` of these values, without the :class:`Fill` (the memo's hit path
    fills straight from the request's values)."""
    slots = {TOKEN: token.encode(), CREATED: b"%d" % created, INPUT: b"%d" % input_tokens,
             TOTAL: b"%d" % (input_tokens + output_tokens)}
    for k, cid in enumerate(calls):
        slots[b"c%d" % k] = cid.encode()
    return slots


class Sentinels(NamedTuple):
    """Stand-in values to encode a template with: a conversation key no real one can be (real
    keys are 16 hex digits), a ``created`` and an input size no request sends together."""

    conversation: str
    created: int
    input_tokens: int


# A is as long as real values (a key of 16 characters, a 10-digit second), B is not: a layout
# that depends on a value's length fails the check
SENTINEL_A = Sentinels("scenarist-tmpl-A", 2_958_301_747, 7_304_219)
SENTINEL_B = Sentinels("scenarist-template-B", 618_033_988, 41_421_356_237)


def slotted(data: bytes, table: dict[bytes, bytes]) -> bytes:
    """``data`` as a format string: each value of ``table`` cut out for its slot (the longest
    first, so a value inside another is not cut from it)."""
    out = data.replace(b"%", b"%%")
    for name, text in sorted(table.items(), key=lambda item: -len(item[1])):
        out = out.replace(text, b"%(" + name + b")b")
    return out


def make(parts_a: Sequence[bytes], fill_a: Fill, parts_b: Sequence[bytes],
         fill_b: Fill) -> tuple[bytes, ...] | None:
    """The template of an answer encoded as ``parts_a`` with ``fill_a``'s values, or ``None``
    when filling it with ``fill_b``'s values does not give ``parts_b`` exactly (the same
    answer encoded with those): such an answer is not made from a template."""
    table_a, table_b = fill_a.table(), fill_b.table()
    if len(parts_a) != len(parts_b) or table_a.keys() != table_b.keys():
        return None
    if len(set(table_a.values())) < len(table_a) - (table_a[INPUT] == table_a[TOTAL]):
        return None  # two values with one text (bar a total that adds nothing): ambiguous
    formats = tuple(slotted(part, table_a) for part in parts_a)
    if any(f % table_b != b for f, b in zip(formats, parts_b, strict=True)):
        return None
    return formats


def fill(formats: Sequence[bytes], table: dict[bytes, bytes]) -> list[bytes]:
    """A template's parts filled with one answer's values (:meth:`Fill.table`)."""
    return [f % table for f in formats]
