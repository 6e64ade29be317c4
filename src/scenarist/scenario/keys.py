"""The names of keys a scenario's ``userInputs`` may write (``<Enter>``, ``<Ctrl+c>``), and
what an xterm sends for each: the vocabulary of the format, kept pure and light so the
loader can refuse a misspelt key (``<Ctrl+Nope>``, ``<Entr>``) where it is written, with the
nearest valid names, instead of the test executor typing it literally.

:mod:`scenarist.runner.keys` turns a whole input into the bytes it types; the rules of the
notation are in docs/test-executor.md ("Named keys").
"""

from __future__ import annotations

import re

from scenarist.errors import ScenaristError

__all__ = ["APPLICATION_KEYS", "KEYS", "KEY_TOKEN", "KeySequenceError", "key_bytes", "key_problem",
           "key_tokens"]

ESC = "\x1b"

#: Key name (lower case) → what an xterm sends for it (normal cursor-key mode).
KEYS: dict[str, str] = {
    "enter": "\r", "return": "\r", "cr": "\r",
    "tab": "\t",
    "esc": ESC, "escape": ESC,
    "space": " ",
    "backspace": "\x7f", "bs": "\x7f",
    "delete": f"{ESC}[3~", "del": f"{ESC}[3~",
    "insert": f"{ESC}[2~", "ins": f"{ESC}[2~",
    "up": f"{ESC}[A", "down": f"{ESC}[B", "right": f"{ESC}[C", "left": f"{ESC}[D",
    "home": f"{ESC}[H", "end": f"{ESC}[F",
    "pageup": f"{ESC}[5~", "pgup": f"{ESC}[5~",
    "pagedown": f"{ESC}[6~", "pgdown": f"{ESC}[6~", "pgdn": f"{ESC}[6~",
    "f1": f"{ESC}OP", "f2": f"{ESC}OQ", "f3": f"{ESC}OR", "f4": f"{ESC}OS",
    "f5": f"{ESC}[15~", "f6": f"{ESC}[17~", "f7": f"{ESC}[18~", "f8": f"{ESC}[19~",
    "f9": f"{ESC}[20~", "f10": f"{ESC}[21~", "f11": f"{ESC}[23~", "f12": f"{ESC}[24~",
    "lt": "<",
}

#: What the cursor keys send once the program switched the terminal to application cursor
#: keys (DECCKM, ``ESC [ ? 1 h``), as curses programs, vim and less do.
APPLICATION_KEYS: dict[str, str] = {
    "up": f"{ESC}OA", "down": f"{ESC}OB", "right": f"{ESC}OC", "left": f"{ESC}OD",
    "home": f"{ESC}OH", "end": f"{ESC}OF",
}

_CTRL = ("ctrl", "c", "control")
_ALT = ("alt", "m", "meta", "option", "opt")
_SHIFT = ("shift", "s")
KEY_TOKEN = re.compile(r"<([^<>\s]+)>")
_MODIFIER = re.compile(r"^(ctrl|control|c|alt|meta|m|option|opt|shift|s)[+-](.+)$", re.I)


class KeySequenceError(ScenaristError, ValueError):
    """A ``<...>`` token applies a modifier to a key that has no such sequence (``<ctrl-1>``);
    the loader reports it, located, through :func:`key_problem`."""


def _ctrl(char: str) -> str:
    """Ctrl+<char>: the C0 control code (``ctrl-c`` → ETX); ``ctrl-space`` is NUL."""
    if char == " ":
        return "\x00"
    code = ord(char.upper())
    if 0x40 <= code <= 0x5F:
        return chr(code - 0x40)
    if char == "?":
        return "\x7f"
    raise KeySequenceError(f"there is no control code for Ctrl+{char!r}; use a letter or one of @[\\]^_")


def _shift(key: str) -> str:
    if key == "tab":
        return f"{ESC}[Z"  # back-tab
    if len(key) == 1:
        return key.upper()
    raise KeySequenceError(f"Shift+{key} has no distinct sequence in a terminal; write the key alone")


def key_bytes(name: str, application_cursor: bool = False) -> str | None:
    """The characters sent for a key name (``Enter``, ``ctrl-c``, ``Alt+x``, ``q``), or
    ``None`` when ``name`` is no key (the ``<...>`` is then literal text).

    ``application_cursor``: the terminal is in application cursor-key mode (DECCKM).
    Raises :class:`KeySequenceError` for a modifier applied to something that has no sequence.
    """
    lower = name.lower()
    if application_cursor and lower in APPLICATION_KEYS:
        return APPLICATION_KEYS[lower]
    if lower in KEYS:
        return KEYS[lower]
    if len(name) == 1:
        return name
    match = _MODIFIER.match(name)
    if match is None:
        return None
    modifier, rest = match.group(1).lower(), match.group(2)
    inner = key_bytes(rest, application_cursor)
    if inner is None:
        return None
    rest_lower = rest.lower()
    if modifier in _CTRL:
        return _ctrl(" " if rest_lower == "space" else inner) if len(inner) == 1 else None
    if modifier in _ALT:
        return ESC + inner
    if modifier in _SHIFT:
        return _shift(rest_lower if rest_lower in KEYS else rest)
    return None


#: How a key is written in docs and suggestions, one spelling per name in :data:`KEYS`.
_SHOWN = {name: name.capitalize() for name in KEYS}
_SHOWN.update({"pageup": "PageUp", "pagedown": "PageDown", "pgup": "PgUp", "pgdown": "PgDown",
               "pgdn": "PgDn", "cr": "CR", "bs": "BS", "lt": "lt"})
_NEAR = 3  # how many valid names a misspelt key's message suggests


def key_tokens(text: str) -> list[str]:
    """The ``<...>`` tokens of ``text`` (the names inside the brackets), in order."""
    return [m.group(1) for m in KEY_TOKEN.finditer(text)]


def _distance(a: str, b: str) -> int:
    from rapidfuzz.distance import Levenshtein  # only when a token is no key: rare

    return int(Levenshtein.distance(a, b))


def _nearest(name: str, modifier: str = "") -> list[str]:
    """Valid spellings nearest to ``name``, after ``modifier`` (``"Alt+"``, or ``""``)."""
    ranked = sorted(KEYS, key=lambda key: (_distance(name.lower(), key), key))
    out: list[str] = []
    for key in ranked:
        spelled = modifier + _SHOWN[key]
        try:
            if key_bytes(spelled) is not None and f"<{spelled}>" not in out:
                out.append(f"<{spelled}>")
        except KeySequenceError:
            continue
        if len(out) == _NEAR:
            break
    return out


def _looks_like_key(name: str) -> bool:
    """Whether a token that names no key was meant as one: a long modifier (``Ctrl+``,
    ``Alt-``), a short one before something near a key (``C-Entr``), or a capitalised word
    near a key name (``<Entr>``, ``<Escpae>``). Lower-case words stay literal text
    (``<div>``, ``<span>``), as the notation promises."""
    match = _MODIFIER.match(name)
    if match is not None:
        if len(match.group(1)) > 1:
            return True
        rest = match.group(2).lower()
        return any(_distance(rest, key) <= 1 for key in KEYS if len(key) > 1)
    if name.islower() or len(name) < 3:
        return False
    limit = 1 if len(name) < 5 else 2
    return any(_distance(name.lower(), key) <= limit for key in KEYS if len(key) > 2)


def key_problem(name: str) -> tuple[str, str] | None:
    """``(what is wrong, how to fix it)`` when the token ``<name>`` was meant as a key but
    names none the terminal can send; None when it is a key or plain text."""
    try:
        if key_bytes(name) is not None:
            return None
    except KeySequenceError as exc:
        return f"<{name}> cannot be typed: {exc}", "write a key from docs/test-executor.md"
    if not _looks_like_key(name):
        return None
    match = _MODIFIER.match(name)
    modifier = name[:match.end(1) + 1] if match is not None else ""  # "Ctrl+", "C-"
    rest = match.group(2) if match is not None else name
    if match is not None and match.group(1).lower() in _CTRL:  # a control code: one character
        near = [f"<{modifier}{c}>" for c in (rest[0].lower(), "Space") if c.isalpha()]
    else:
        near = _nearest(rest, modifier)
    hint = (f"did you mean {', '.join(near)}? " if near else "") + \
        "(write <lt> for a literal '<'; key names: docs/test-executor.md)"
    return f"<{name}> is not a key name", hint
