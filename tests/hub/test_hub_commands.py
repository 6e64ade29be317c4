"""CommandTracker: which commands are finished, from the agent's done marker (pure)."""

from __future__ import annotations

from scenarist.hub.sessions import MAX_MARKER_LINE, CommandTracker


def test_marker_lines_finish_the_oldest_commands_across_chunks() -> None:
    tracker = CommandTracker(r'"type":"task_complete"')
    tracker.sent(1.0)
    tracker.sent(2.0)
    assert tracker.finished_by('{"type":"task_st') == []
    assert tracker.finished_by('arted"}\n{"type":"task_com') == []
    assert tracker.finished_by('plete"}\n') == [1.0]  # split across three chunks
    assert tracker.finished_by('{"type":"task_complete"}\n{"type":"task_complete"}\n') == [2.0]
    assert not tracker.sent_at  # a marker with nothing running finishes nothing


def test_without_a_marker_nothing_finishes_before_the_process_exits() -> None:
    tracker = CommandTracker(None)
    tracker.sent(1.0)
    assert tracker.finished_by("anything\n") == []
    tracker.clear()
    assert not tracker.sent_at


def test_a_huge_line_is_bounded() -> None:
    tracker = CommandTracker("END")
    tracker.sent(0.0)
    for _ in range(100):
        tracker.finished_by("x" * MAX_MARKER_LINE)
    assert tracker.finished_by("\nEND\n") == [0.0]
