"""The rules of the format's ``assert.json.file``: RFC 6901 pointers and JSON equality (pure).

Every front end that checks asserts (the model server, the test executor) reads a value with
:func:`json_pointer` and compares it with :func:`json_equal`, so a scenario means the same
thing to all of them: ``""`` is the whole document and ``"/"`` the key ``""``; ``~1`` is ``/``
and ``~0`` is ``~`` in a token; an array index is ``0`` or ASCII digits without a leading zero;
``true`` is not ``1`` and ``1`` is not ``"1"``, while ``1`` equals ``1.0`` (JSON has one number
type).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from scenarist.errors import ScenaristError
from scenarist.json_kind import json_kind

__all__ = ["PointerError", "json_equal", "json_pointer"]


class PointerError(ScenaristError, LookupError):
    """A JSON pointer is malformed or names something the document does not have."""


def _array_index(token: str) -> bool:
    return token == "0" or (token.isdigit() and token.isascii() and not token.startswith("0"))


def json_pointer(doc: Any, pointer: str) -> Any:
    """The value ``pointer`` (RFC 6901) names in ``doc``; :class:`PointerError` says which
    step is missing."""
    if pointer == "":
        return doc
    if not pointer.startswith("/"):
        raise PointerError(f"pointer {pointer!r} must be empty or start with '/'")
    node = doc
    walked = ""
    for raw in pointer[1:].split("/"):
        token = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(node, list):
            if not _array_index(token):
                raise PointerError(f"{walked or '/'} is an array; {raw!r} is not an index")
            if int(token) >= len(node):
                raise PointerError(f"{walked or '/'} has {len(node)} items, no index {token}")
            node = node[int(token)]
        elif isinstance(node, dict):
            if token not in node:
                raise PointerError(f"{walked or '/'} has no key {token!r}")
            node = node[token]
        else:
            raise PointerError(f"{walked} is {json_kind(node)}, it has no {token!r}")
        walked += "/" + raw
    return node


def json_equal(left: Any, right: Any) -> bool:
    """JSON equality without Python's coercions: booleans equal only booleans."""
    if isinstance(left, bool) or isinstance(right, bool):
        return isinstance(left, bool) and isinstance(right, bool) and left is right
    if isinstance(left, int | float) and isinstance(right, int | float):
        return left == right or (isinstance(left, float) and isinstance(right, float)
                                 and math.isnan(left) and math.isnan(right))
    if isinstance(left, list | tuple) and isinstance(right, list | tuple):
        return len(left) == len(right) and all(map(json_equal, left, right))
    if isinstance(left, Mapping) and isinstance(right, Mapping):
        return left.keys() == right.keys() and all(json_equal(left[k], right[k]) for k in left)
    if left is None or right is None:
        return left is None and right is None
    return type(left) is type(right) and bool(left == right)
