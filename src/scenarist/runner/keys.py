"""Named keys in ``userInputs``: the text a scenario types, turned into a terminal's bytes.

Plain text is typed literally, one character after another, and a newline is typed as the
Enter key (``\\r``, what a terminal sends). A key is written in angle brackets, vim-style,
names case-insensitive: ``<Enter>``, ``<Esc>``, ``<Tab>``, ``<Up>``, ``<ctrl-c>``,
``<Alt+x>``, ``<F5>``, ``<q>`` (a single character as a key). Text in angle brackets that is
not a key name stays literal (``a<b`` types ``a<b``); ``<lt>`` types a literal ``<``. A
token meant as a key that names none (``<Ctrl+Nope>``) is refused by the scenario loader,
located, with the nearest names: the vocabulary lives in :mod:`scenarist.scenario.keys`.

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

from dataclasses import dataclass

from scenarist.scenario.keys import APPLICATION_KEYS, KEY_TOKEN, KEYS, KeySequenceError, key_bytes

__all__ = ["APPLICATION_KEYS", "KEYS", "KeySequenceError", "Keystrokes", "key_bytes", "parse_input"]


@dataclass(frozen=True, slots=True)
class Keystrokes:
    """What one ``userInputs`` entry types: the bytes, and whether it was a submitted prompt."""

    data: bytes
    prompt: bool


def parse_input(text: str, application_cursor: bool = False) -> Keystrokes:
    """The bytes that typing ``text`` sends (see the module docstring for the rules);
    ``application_cursor`` as for :func:`key_bytes`."""
    parts: list[str] = []
    keys = 0
    position = 0
    for match in KEY_TOKEN.finditer(text):
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
