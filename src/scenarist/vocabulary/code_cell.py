"""Reading the nested tool calls of a Codex code-mode ``exec`` cell (its JavaScript).

``llm.code_mode`` writes a cell as ``text(await tools.NAME(ARG));`` with ``ARG`` a JSON
value; the model Codex runs writes JavaScript of its own (unquoted keys, single quotes,
template strings, several calls). This reader finds each ``tools.NAME(`` /
``tools["NAME"](`` and reads its argument when it is a literal (string, number, boolean,
null, object, array, a template string without ``${}``). A cell whose calls are not all
literals (a variable, a computed path) reads as no calls: the caller keeps the cell as
written rather than guess what it would do.
"""

from __future__ import annotations

import json
import re
from typing import Any

from scenarist.errors import ScenaristError

__all__ = ["nested_calls"]

_CALL_RE = re.compile(r"\btools\s*(?:\.\s*([A-Za-z_$][\w$]*)|\[\s*(\"[^\"]*\"|'[^']*')\s*\])"
                      r"\s*\(")
_IDENT_RE = re.compile(r"[A-Za-z_$][\w$]*")
_NUMBER_RE = re.compile(r"-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?")
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "v": "\v", "0": "\0"}


class _Unreadable(ScenaristError):
    """The argument is not a literal (caught here: a cell that is not read stays as written)."""


def nested_calls(source: str) -> list[tuple[str, Any]]:
    """Each nested call of ``source`` in order: (tool name, argument), or [] when any call's
    argument is not a literal this reader can follow."""
    out: list[tuple[str, Any]] = []
    for m in _CALL_RE.finditer(source):
        name = m.group(1) or m.group(2)[1:-1]
        try:
            value, end = _Reader(source).value(m.end())
            end = _skip(source, end)
            if source[end:end + 1] != ")":
                return []
        except (_Unreadable, IndexError, ValueError):
            return []
        out.append((name, value))
    return out


def _skip(text: str, i: int) -> int:
    """Past white space and comments."""
    while i < len(text):
        if text[i].isspace():
            i += 1
        elif text.startswith("//", i):
            j = text.find("\n", i)
            i = len(text) if j == -1 else j + 1
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            if j == -1:
                raise _Unreadable
            i = j + 2
        else:
            break
    return i


class _Reader:
    """A JavaScript literal read from ``text`` (recursive descent; depth bounded)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.depth = 0

    def value(self, i: int) -> tuple[Any, int]:
        text = self.text
        i = _skip(text, i)
        c = text[i]
        if c in "\"'`":
            return self.string(i)
        if c in "{[":
            self.depth += 1
            if self.depth > 64:
                raise _Unreadable
            out = self.object(i) if c == "{" else self.array(i)
            self.depth -= 1
            return out
        m = _NUMBER_RE.match(text, i)
        if m:
            return json.loads(m.group()), m.end()
        for word, value in (("true", True), ("false", False), ("null", None)):
            if text.startswith(word, i) and not _IDENT_RE.match(text[i + len(word):i + len(word) + 1]):
                return value, i + len(word)
        raise _Unreadable

    def string(self, i: int) -> tuple[str, int]:
        text, quote = self.text, self.text[i]
        out: list[str] = []
        i += 1
        while True:
            c = text[i]
            if c == quote:
                return "".join(out), i + 1
            if c == "\\":
                e = text[i + 1]
                if e == "u":
                    if text[i + 2] == "{":
                        j = text.index("}", i)
                        out.append(chr(int(text[i + 3:j], 16)))
                        i = j + 1
                    else:
                        out.append(chr(int(text[i + 2:i + 6], 16)))
                        i += 6
                    continue
                if e == "x":
                    out.append(chr(int(text[i + 2:i + 4], 16)))
                    i += 4
                    continue
                if e == "\n":
                    i += 2
                    continue
                out.append(_ESCAPES.get(e, e))
                i += 2
                continue
            if quote == "`" and text.startswith("${", i):
                raise _Unreadable
            if c == "\n" and quote != "`":
                raise _Unreadable
            out.append(c)
            i += 1

    def object(self, i: int) -> tuple[dict[str, Any], int]:
        text = self.text
        out: dict[str, Any] = {}
        i = _skip(text, i + 1)
        while text[i] != "}":
            if text[i] in "\"'":
                key, i = self.string(i)
            else:
                m = _IDENT_RE.match(text, i)
                if not m:
                    raise _Unreadable
                key, i = m.group(), m.end()
            i = _skip(text, i)
            if text[i] != ":":
                raise _Unreadable  # a shorthand property names a variable
            out[key], i = self.value(i + 1)
            i = self.after_item(i, "}")
        return out, i + 1

    def array(self, i: int) -> tuple[list[Any], int]:
        text = self.text
        out: list[Any] = []
        i = _skip(text, i + 1)
        while text[i] != "]":
            item, i = self.value(i)
            out.append(item)
            i = self.after_item(i, "]")
        return out, i + 1

    def after_item(self, i: int, close: str) -> int:
        """Past the comma after an item (a trailing one too), or at the closing bracket."""
        i = _skip(self.text, i)
        if self.text[i] == ",":
            return _skip(self.text, i + 1)
        if self.text[i] != close:
            raise _Unreadable
        return i
