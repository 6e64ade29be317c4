"""The line-fault rules (pure): what each kind does to a process's output lines."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from scenarist.fault_lines import LineFaults, cut_line
from scenarist.faults import Action, Close, End, Exit, Pause, Stderr, Write
from scenarist.scenario.model import Fault

LINES = [json.dumps({"n": n}).encode() + b"\n" for n in range(5)]


def fault(kind: str, **kw: Any) -> Fault:
    return Fault(kind=kind, **kw)  # type: ignore[arg-type]


def play(faults: list[tuple[int, Fault]], lines: list[bytes] = LINES) -> list[Action]:
    """Write ``lines``, telling the machine each fault before the line at its index."""
    machine = LineFaults()
    out: list[Action] = []
    for n, line in enumerate(lines):
        for at, f in faults:
            if at == n:
                out += machine.fault(f)
        out += machine.write(line)
    return out + machine.end()


def written(actions: list[Action]) -> bytes:
    return b"".join(a.data for a in actions if isinstance(a, Write))


def test_no_fault_writes_the_lines_as_they_come() -> None:
    assert play([]) == [Write(line, n) for n, line in enumerate(LINES)]


def test_exit_keeps_what_was_written_and_ends_there() -> None:
    out = play([(2, fault("exit", exit_code=3))])
    assert out == [Write(LINES[0], 0), Write(LINES[1], 1), Exit(3)]
    assert play([(1, fault("exit"))])[-1] == Exit(1)  # default code
    assert play([(1, fault("exit", signal="SIGKILL"))])[-1] == Exit(None, "SIGKILL")


def test_after_events_and_after_bytes_count_from_where_the_fault_was_told() -> None:
    out = play([(1, fault("exit", after_events=2))])
    assert written(out) == b"".join(LINES[:3]) and out[-1] == Exit(1)
    cut = len(LINES[0]) + 4  # inside the second line: the line is cut there
    out = play([(0, fault("exit", after_bytes=cut, exit_code=7))])
    assert written(out) == (LINES[0] + LINES[1])[:cut] and out[-1] == Exit(7)
    # a line fault with afterBytes strikes at the end of the line the count falls in
    out = play([(0, fault("duplicate", after_bytes=cut))])
    assert written(out) == b"".join([*LINES[:2], LINES[2], *LINES[2:]])


def test_truncate_and_stall_close_end_cleanly_and_stall_pauses() -> None:
    assert play([(3, fault("truncate"))])[-1] == End()
    out = play([(1, fault("stall", ms=250))])
    assert out[1] == Pause(250) and written(out) == b"".join(LINES)
    out = play([(1, fault("stall", ms=250, then="close"))])
    assert out == [Write(LINES[0], 0), Pause(250), Close()]


def test_stderr_goes_aside_and_the_output_goes_on() -> None:
    out = play([(2, fault("stderr", text="warning: disk almost full"))])
    assert out[2] == Stderr("warning: disk almost full")
    assert written(out) == b"".join(LINES)


def test_malformed_adds_a_line_that_is_not_json_and_loses_nothing() -> None:
    out = play([(2, fault("malformed"))])
    lines = written(out).splitlines(keepends=True)
    assert lines == [*LINES[:2], cut_line(LINES[2]), *LINES[2:]]
    assert sum(1 for line in lines if not _json(line)) == 1
    out = play([(0, fault("malformed", text="<html>502</html>"))])
    assert written(out).splitlines()[0] == b"<html>502</html>"


def test_duplicate_and_reorder_act_on_the_next_lines() -> None:
    assert written(play([(1, fault("duplicate"))])) == b"".join(
        [LINES[0], LINES[1], *LINES[1:]])
    assert written(play([(1, fault("reorder"))])) == b"".join(
        [LINES[0], LINES[2], LINES[1], *LINES[3:]])
    # the output ends before the second line: the held one is still written
    assert written(play([(4, fault("reorder"))])) == b"".join(LINES)


def test_fragment_writes_every_later_line_in_pieces() -> None:
    out = play([(3, fault("fragment", chunk_bytes=3))])
    assert out[:3] == [Write(line, n) for n, line in enumerate(LINES[:3])]
    pieces = [a.data for a in out[3:] if isinstance(a, Write)]
    assert all(len(p) <= 3 for p in pieces) and b"".join(pieces) == b"".join(LINES[3:])


def test_a_count_not_reached_strikes_at_the_end() -> None:
    out = play([(0, fault("exit", after_events=99, exit_code=5))])
    assert written(out) == b"".join(LINES) and out[-1] == Exit(5)


def test_after_events_zero_strikes_at_once() -> None:
    assert play([(0, fault("exit", after_events=0))]) == [Exit(1)]


def test_kinds_a_process_does_not_play_change_nothing() -> None:
    assert play([(1, fault("httpStatus")), (2, fault("slowFirstByte", ms=5))]) == [
        Write(line, n) for n, line in enumerate(LINES)]


def _json(line: bytes) -> bool:
    try:
        json.loads(line)
    except ValueError:
        return False
    return True


@given(st.lists(st.integers(min_value=0, max_value=30), min_size=1, max_size=12),
       st.integers(min_value=0, max_value=400), st.integers(min_value=1, max_value=7))
def test_without_an_ending_fault_every_byte_gets_out_in_order(
        lengths: list[int], after: int, size: int) -> None:
    """Stall and fragment, anywhere: the bytes written are the lines, whole."""
    lines = [bytes(range(48, 48 + n)) + b"\n" for n in lengths]
    out = play([(0, fault("fragment", chunk_bytes=size, after_bytes=after)),
                (len(lines) // 2, fault("stall", ms=1, after_bytes=after // 2))], lines)
    assert written(out) == b"".join(lines)
    # and an exit after N bytes writes exactly the first N
    total = b"".join(lines)
    out = play([(0, fault("exit", after_bytes=after))], lines)
    assert written(out) == total[:after] and out[-1] == Exit(1)
