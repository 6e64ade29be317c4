"""Named keys: what typing a ``userInputs`` text sends to the terminal."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scenarist.runner.keys import KeyError_, key_bytes, parse_input


@pytest.mark.parametrize(("name", "sent"), [
    ("Enter", "\r"), ("return", "\r"), ("Tab", "\t"), ("Esc", "\x1b"), ("Escape", "\x1b"),
    ("Space", " "), ("Backspace", "\x7f"), ("Delete", "\x1b[3~"), ("Up", "\x1b[A"),
    ("Down", "\x1b[B"), ("Right", "\x1b[C"), ("Left", "\x1b[D"), ("Home", "\x1b[H"),
    ("End", "\x1b[F"), ("PageUp", "\x1b[5~"), ("PgDn", "\x1b[6~"), ("F1", "\x1bOP"),
    ("F12", "\x1b[24~"), ("ctrl-c", "\x03"), ("Ctrl+D", "\x04"), ("C-a", "\x01"),
    ("control-z", "\x1a"), ("ctrl-[", "\x1b"), ("ctrl-space", "\x00"), ("Alt+x", "\x1bx"),
    ("M-Enter", "\x1b\r"), ("Option+b", "\x1bb"), ("Shift+Tab", "\x1b[Z"), ("S-a", "A"),
    ("q", "q"), ("G", "G"), ("lt", "<"),
])
def test_key_names(name: str, sent: str) -> None:
    assert key_bytes(name) == sent


def test_cursor_keys_follow_application_mode() -> None:
    assert key_bytes("Up", application_cursor=True) == "\x1bOA"
    assert key_bytes("Home", application_cursor=True) == "\x1bOH"
    assert key_bytes("Alt+Left", application_cursor=True) == "\x1b\x1bOD"
    assert key_bytes("PageUp", application_cursor=True) == "\x1b[5~"


def test_unknown_names_are_not_keys() -> None:
    assert key_bytes("b") == "b"
    assert key_bytes("div") is None
    assert key_bytes("ctrl-nothing") is None


def test_a_modifier_without_a_sequence_is_an_error() -> None:
    with pytest.raises(KeyError_, match="control code"):
        key_bytes("ctrl-1")
    with pytest.raises(KeyError_, match="Shift"):
        key_bytes("Shift+Up")


def test_plain_text_is_a_prompt_submitted_with_enter() -> None:
    typed = parse_input("print('hi')")
    assert typed.prompt and typed.data == b"print('hi')\r"
    assert parse_input("two\nlines\n").data == b"two\rlines\r"


def test_text_with_keys_is_sent_exactly() -> None:
    typed = parse_input(":wq<Enter>")
    assert not typed.prompt and typed.data == b":wq\r"
    assert parse_input("<a>milk<Enter><Up><Space>").data == b"amilk\r\x1b[A "
    assert parse_input("<q>").data == b"q"


def test_angle_brackets_that_name_no_key_stay_literal() -> None:
    assert parse_input("if a<b and c>d: pass").data == b"if a<b and c>d: pass\r"
    assert parse_input("<div>").data == b"<div>\r"
    assert parse_input("<lt>Enter>").data == b"<Enter>\r"  # the way to type a key's name
    assert parse_input("<<Esc>").data == b"<\x1b"


def test_non_ascii_text_is_utf8() -> None:
    assert parse_input("café ✓<Enter>").data == "café ✓\r".encode()


@given(st.text(alphabet=st.characters(blacklist_characters="<\r\n", blacklist_categories=("Cs",))))
def test_text_without_brackets_is_typed_as_is_then_enter(text: str) -> None:
    typed = parse_input(text)
    assert typed.prompt
    assert typed.data == text.encode() + b"\r"
