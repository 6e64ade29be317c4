"""Screen captures from the real emulator (pyte), the golden format, diffs and text search."""

from __future__ import annotations

import pyte

from scenarist.runner.golden import GOLDEN_HEADER, golden_diff, golden_text
from scenarist.runner.screen import (
    StyleRun,
    capture_screen,
    contains_text,
    normalise_line,
    screen_text,
)


def screen(data: str, width: int = 20, height: int = 4) -> pyte.Screen:
    scr = pyte.Screen(width, height)
    pyte.Stream(scr).feed(data)
    return scr


def test_capture_reads_rows_cursor_and_styles() -> None:
    cap = capture_screen(screen("plain \x1b[1;31mred bold\x1b[0m\r\n\x1b[7m  bar  \x1b[0m"))
    assert cap.lines == ("plain red bold", "  bar", "", "")
    assert cap.cursor == (1, 7)
    assert cap.styles == (StyleRun(0, 6, 13, "red", "default", ("bold",)),
                          StyleRun(1, 0, 6, "default", "default", ("reverse",)))


def test_a_space_inside_a_styled_run_does_not_split_it_and_a_coloured_blank_shows() -> None:
    cap = capture_screen(screen("\x1b[32mtwo words\x1b[0m \x1b[44m  \x1b[0m"))
    assert cap.styles == (StyleRun(0, 0, 8, "green"), StyleRun(0, 10, 11, bg="blue"))


def test_256_and_true_colours_are_kept() -> None:
    cap = capture_screen(screen("\x1b[38;5;208mA\x1b[38;2;1;2;3mB"))
    assert [run.fg for run in cap.styles] == ["ff8700", "010203"]


def test_wide_characters_take_one_place_in_the_text() -> None:
    cap = capture_screen(screen("日本 ok"))
    assert cap.lines[0] == "日本 ok"


def test_golden_text_format() -> None:
    cap = capture_screen(screen("\x1b[31mhi\x1b[0m /tmp/ws/x", width=16, height=2))
    text = golden_text(cap, {"/tmp/ws": "$WORKSPACE"})
    assert text == f"{GOLDEN_HEADER} 16x2\n|hi $WORKSPACE/x\n|\n-- styles\n0 0-1 fg=red\n"


def test_golden_diff_names_the_changed_row_and_ignores_trailing_space() -> None:
    a = golden_text(capture_screen(screen("one\r\ntwo")))
    b = golden_text(capture_screen(screen("one\r\nTWO")))
    assert golden_diff(a, a.replace("\n", "  \n")) == ""
    assert golden_diff(a, a.rstrip("\n")) == ""
    diff = golden_diff(a, b)
    assert "-|two" in diff and "+|TWO" in diff and diff.startswith("--- golden")


def test_a_style_change_alone_is_a_difference() -> None:
    a = golden_text(capture_screen(screen("same")))
    b = golden_text(capture_screen(screen("\x1b[1msame")))
    assert "+0 0-3 bold" in golden_diff(a, b)


def test_normalisation_masks_volatile_text() -> None:
    line = "saved 2025-03-04T05:06:07.123Z by /home/u/ws 5s ago   "
    assert normalise_line(line, {"/home/u/ws": "$WORKSPACE"}) == \
        "saved [TIMESTAMP] by $WORKSPACE [TIME_AGO]"


def test_text_search_within_across_wrap_and_whitespace() -> None:
    cap = capture_screen(screen("0123456789abcdefghijKLMN\r\n\r\nsome   spaced   words", 20, 6))
    assert cap.lines[0] == "0123456789abcdefghij"
    assert contains_text(cap, "abcdef")
    assert contains_text(cap, "ghijKLMN")  # the row wrapped
    assert contains_text(cap, "some spaced words")
    assert not contains_text(cap, "missing")
    assert screen_text(cap).endswith("some   spaced   word\ns")
