"""The fast screen feed draws the same screen as pyte fed every byte, and reads 50 MB within
the default wait."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pyte
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from runnerkit import write_scenario

from scenarist.runner import RunResult
from scenarist.runner import feed as feed_module
from scenarist.runner.feed import ScreenFeed, plain_tail_start
from scenarist.runner.screen import capture_screen

# pieces of program output: plain text, line ends, styles, and what is not plain (cursor
# moves, erases, scroll margins, modes, insert mode, a title, a lone ESC, C1, wide text)
PIECES = [
    "word", "a longer line of text that wraps past the edge of a narrow screen", " ", "\t",
    "\r\n", "\n", "\r", "\b", "字", "é", "\x1b[31m", "\x1b[1;42m", "\x1b[0m", "\x1b[m",
    "\x1b[0;4m", "\x1b[38;5;196m", "\x1b[7m", "\x1b[H", "\x1b[2J", "\x1b[3;2H", "\x1b[K",
    "\x1b[2;4r", "\x1b[r", "\x1b[?7l", "\x1b[?7h", "\x1b[4h", "\x1b[4l", "\x1b[20h", "\x1b[20l",
    "\x1b]0;title\x07", "\x1b(0", "\x1b(B", "\x0e", "\x0f", "\x1b7", "\x1b8", "\x1bM", "\x1b",
    "\x9b1m", "\x1b[?5h", "\x1b[?5l", "\x1b[3g", "\x1bH", "x" * 25 + "\r\n",
    "row\r\n" * 12, "\x1b[32mok\x1b[0m line\r\n" * 9,
]


def pyte_screen(width: int, height: int) -> pyte.Screen:
    screen = pyte.Screen(width, height)
    screen.write_process_input = lambda data: None  # type: ignore[method-assign]
    return screen


def state(screen: pyte.Screen) -> tuple[object, ...]:
    return (capture_screen(screen), screen.cursor.x, screen.cursor.y, screen.cursor.attrs,
            frozenset(screen.mode), screen.margins, screen.charset)


@settings(max_examples=400, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(pieces=st.lists(st.sampled_from(PIECES), max_size=60),
       cuts=st.lists(st.integers(min_value=1, max_value=40), max_size=30),
       peeks=st.lists(st.booleans(), max_size=30),
       size=st.sampled_from([(10, 4), (20, 6), (7, 2)]),
       compact_at=st.sampled_from([1 << 20, 100]))
def test_the_fast_feed_draws_what_pyte_draws_byte_by_byte(
        pieces: list[str], cuts: list[int], peeks: list[bool], size: tuple[int, int],
        compact_at: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Any output, cut into any reads, the screen looked at between any of them, long
    plain runs compacted early or not."""
    monkeypatch.setattr(feed_module, "_COMPACT_AT", compact_at)
    data = "".join(pieces).encode()
    reference = pyte_screen(*size)
    pyte.ByteStream(reference).feed(data)
    screen = pyte_screen(*size)
    errors: list[Exception] = []
    feed = ScreenFeed(screen, errors.append)
    start = 0
    for n, cut in enumerate([*cuts, len(data)]):
        feed.write(data[start:start + cut])
        start += cut
        if n < len(peeks) and peeks[n]:
            feed.flush()
        if start >= len(data):
            break
    feed.write(data[start:])
    feed.flush()
    assert not errors
    assert state(screen) == state(reference)


def test_a_c1_control_cut_between_two_reads_is_not_taken_for_text() -> None:
    """U+009B (CSI) arrives as 0xC2 0x9B; a read ending between the two bytes must not let
    the next read pass as plain text."""
    data = [b"a\xc2", b"\x9b1m" + b"line\r\n" * 20 + b"\x9b0mend"]
    screen = pyte_screen(10, 4)
    feed = ScreenFeed(screen, lambda exc: None)
    for piece in data:
        feed.write(piece)
    feed.flush()
    reference = pyte_screen(10, 4)
    pyte.ByteStream(reference).feed(b"".join(data))
    assert state(screen) == state(reference)


def test_only_the_tail_of_a_long_plain_run_is_drawn() -> None:
    rows = 3
    text = "".join(f"line {n}\r\n" for n in range(100))
    start = plain_tail_start(text, rows)
    assert text[start] == "\r" and text[start:].count("\n") == 2 * rows
    assert plain_tail_start("a\r\nb\r\n", rows) == 0  # too short to skip anything
    assert plain_tail_start("no carriage return\n" * 10, rows) == 0


def test_styles_of_the_skipped_text_carry_over() -> None:
    text = "\x1b[1m" + "bold\r\n" * 50 + "\x1b[0;32m" + "green\r\n" * 50 + "\x1b[4m" + "end"
    for chunked in (False, True):
        screen = pyte_screen(10, 4)
        feed = ScreenFeed(screen, lambda exc: None)
        data = text.encode()
        for piece in ([data[i:i + 7] for i in range(0, len(data), 7)] if chunked else [data]):
            feed.write(piece)
        feed.flush()
        reference = pyte_screen(10, 4)
        pyte.ByteStream(reference).feed(data)
        assert state(screen) == state(reference)
        assert screen.cursor.attrs.fg == "green" and screen.cursor.attrs.underscore


@pytest.mark.slow
def test_a_program_printing_50_mb_passes_the_default_wait(
        scenarist_run: Callable[..., RunResult], tmp_path: Path) -> None:
    """Issue 27: anything over ~5 MB failed the default wait, blaming the program."""
    path = write_scenario(tmp_path, "big", """
ah:
  cmd: python3
  flags: ['-c', 'import sys; line = "x" * 79 + "\\n"; sys.stdout.write(line * 655360);
          print("the end")']
timeline:
  - assert:
      text: {contains: ["the end"]}
expect:
  exitCode: 0
""")
    result = scenarist_run(path).raise_for_failure()
    assert result.final_screen is not None and result.final_screen.lines[-2] == "the end"
    assert result.final_screen.lines[-3] == "x" * 79
    assert (Path(result.log_dir) / "pty.log").stat().st_size > 50 * 2**20
