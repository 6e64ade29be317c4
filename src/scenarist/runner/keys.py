"""Named keys in ``userInputs``: the text a scenario types, turned into a terminal's bytes.

Plain text is typed literally, one character after another, and a newline is typed as the
Enter key (``\\r``, what a terminal sends). A key is written in angle brackets, vim-style,
names case-insensitive: ``<Enter>``, ``<Esc>``, ``<Tab>``, ``<Up>``, ``<ctrl-c>``,
``<Alt+x>``, ``<F5>``, ``<q>`` (a single character as a key). Text in angle brackets that is
not a key name stays literal (``a<b`` types ``a<b``); ``<lt>`` types a literal ``<``.

An input is either a *prompt* or *keystrokes*: text without any key is a prompt and is
submitted with Enter (as a user types a message and presses Enter; the runner presses it
once the typed text has settled on the screen, so a TUI does not take the burst for a
paste); text with at least one
key is sent exactly as written, so ``:wq<Enter>`` drives vim and ``<Space>`` pages ``less``
without an extra Enter. The vocabulary is the one of Agent Harbor's TUI keymap (Enter/Return,
Tab, Esc/Escape, Space, Backspace, Delete/Del, arrows, Home, End, PageUp/PgUp,
PageDown/PgDown, modifiers ``Ctrl+``/``C-``/``ctrl-``, ``Alt+``/``M-``/``Option+``,
``Shift+``/``S-``), plus Insert, F1–F12 and ``lt``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["APPLICATION_KEYS", "KEYS", "KeyError_", "Keystrokes", "key_bytes", "parse_input"]

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
_TOKEN = re.compile(r"<([^<>\s]+)>")
_MODIFIER = re.compile(r"^(ctrl|control|c|alt|meta|m|option|opt|shift|s)[+-](.+)$", re.I)


class KeyError_(ValueError):
    """A ``<...>`` token looked like a key with modifiers but names no key we can send."""


@dataclass(frozen=True, slots=True)
class Keystrokes:
    """What one ``userInputs`` entry types: the bytes, and whether it was a submitted prompt."""

    data: bytes
    prompt: bool


def _ctrl(char: str) -> str:
    """Ctrl+<char>: the C0 control code (``ctrl-c`` → ETX); ``ctrl-space`` is NUL."""
    if char == " ":
        return "\x00"
    code = ord(char.upper())
    if 0x40 <= code <= 0x5F:
        return chr(code - 0x40)
    if char == "?":
        return "\x7f"
    raise KeyError_(f"there is no control code for Ctrl+{char!r}; use a letter or one of @[\\]^_")


def _shift(key: str) -> str:
    if key == "tab":
        return f"{ESC}[Z"  # back-tab
    if len(key) == 1:
        return key.upper()
    raise KeyError_(f"Shift+{key} has no distinct sequence in a terminal; write the key alone")


def key_bytes(name: str, application_cursor: bool = False) -> str | None:
    """The characters sent for a key name (``Enter``, ``ctrl-c``, ``Alt+x``, ``q``), or
    ``None`` when ``name`` is no key (the ``<...>`` is then literal text).

    ``application_cursor``: the terminal is in application cursor-key mode (DECCKM).
    Raises :class:`KeyError_` for a modifier applied to something that has no sequence.
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


def parse_input(text: str, application_cursor: bool = False) -> Keystrokes:
    """The bytes that typing ``text`` sends (see the module docstring for the rules);
    ``application_cursor`` as for :func:`key_bytes`."""
    parts: list[str] = []
    keys = 0
    position = 0
    for match in _TOKEN.finditer(text):
        sent = key_bytes(match.group(1), application_cursor)
        if sent is None:
            continue
        parts.append(_literal(text[position:match.start()]))
        parts.append(sent)
        keys += match.group(1).lower() != "lt"
        position = match.end()
    parts.append(_literal(text[position:]))
    typed = "".join(parts)
    prompt = keys == 0
    if prompt:
        typed = typed.rstrip("\r") + "\r"
    return Keystrokes(typed.encode("utf-8"), prompt)


def _literal(text: str) -> str:
    return text.replace("\r\n", "\r").replace("\n", "\r")
