"""Named keys: what typing a ``userInputs`` text sends to the terminal."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scenarist.runner.keys import KeySequenceError, key_bytes, parse_input
from scenarist.scenario import ScenarioError, load_scenario
from scenarist.scenario.keys import key_problem


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
    with pytest.raises(KeySequenceError, match="control code"):
        key_bytes("ctrl-1")
    with pytest.raises(KeySequenceError, match="Shift"):
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


def test_a_misspelt_key_is_a_located_load_error_with_the_nearest_names(tmp_path: Path) -> None:
    path = tmp_path / "keys.yaml"
    path.write_text("""name: keys
timeline:
  - userInputs:
      - [0, "vim<Ctrl+Nope>"]
      - relativeTime: 10
        input: ":wq<Entr>"
      - relativeTime: 20
        input: "<ctrl-1>"
      - relativeTime: 30
        input: "an <div> and a<b stay text<Enter>"
      - relativeTime: 40
        target: webui
        input: "<Ctrl+Nope> is not typed into a terminal"
""")
    with pytest.raises(ScenarioError) as info:
        load_scenario(path)
    issues = [(i.line, i.col, i.path, i.message, i.hint) for i in info.value.errors]
    assert [i[:4] for i in issues] == [
        (4, 13, "timeline[0].userInputs[0][1]", "<Ctrl+Nope> is not a key name"),
        (6, 16, "timeline[0].userInputs[1].input", "<Entr> is not a key name"),
        (8, 16, "timeline[0].userInputs[2].input",
         "<ctrl-1> cannot be typed: there is no control code for Ctrl+'1'; use a letter or "
         "one of @[\\]^_"),
    ]
    assert issues[0][4].startswith("did you mean <Ctrl+n>, <Ctrl+Space>?")
    assert issues[1][4].startswith("did you mean <Enter>, <End>, <CR>?")
    assert "<lt>" in issues[1][4]


@pytest.mark.parametrize(("token", "nearest"), [
    ("Escpae", "<Escape>"), ("PgDwn", "<PgDn>"), ("Alt+Entr", "<Alt+Enter>"),
    ("M-Entr", "<M-Enter>"), ("C-Entr", "<C-e>"), ("Tabb", "<Tab>"),
])
def test_misspelt_keys_suggest_the_nearest_name(token: str, nearest: str) -> None:
    problem = key_problem(token)
    assert problem is not None and problem[1].startswith(f"did you mean {nearest}")


@pytest.mark.parametrize("text", ["div", "span", "table", "b", "Enter", "ctrl-c", "lt",
                                  "s-expression", "m-dash", "T", "HTML"])
def test_text_and_keys_are_no_problem(text: str) -> None:
    assert key_problem(text) is None
