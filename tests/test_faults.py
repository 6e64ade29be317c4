"""scenarist.faults as pure functions: the planner per kind, seeded chaos, the warnings for
faults a channel does not play, and docs/faults.md's statement of who plays what."""

from __future__ import annotations

import re
import textwrap
from collections import Counter
from pathlib import Path

import pytest

from scenarist.faults import (
    CHANNELS,
    Action,
    Chaos,
    ChaosError,
    Close,
    End,
    Exit,
    Pause,
    Reject,
    Stderr,
    Write,
    chaos_fault,
    describe,
    parse_chaos,
    plan,
    unplayed,
)
from scenarist.scenario import Fault, load_scenario_text
from scenarist.scenario.model import FAULT_KINDS

FRAMES = [b"e0\n\n", b"e1\n\n", b"e2\n\n", b"end\n\n"]
PAGE = Path(__file__).resolve().parents[1] / "docs" / "faults.md"


def written(actions: tuple[Action, ...]) -> bytes:
    return b"".join(a.data for a in actions if isinstance(a, Write))


def test_disconnect_at_its_place_after_events_and_after_bytes() -> None:
    assert plan(FRAMES, Fault("disconnect"), at=2) == (
        Write(b"e0\n\n", 0), Write(b"e1\n\n", 1), Close())
    assert plan(FRAMES, Fault("disconnect", after_events=1), at=3) == (
        Write(b"e0\n\n", 0), Close())
    # mid-frame: the frame is cut, its first part written (due when that frame is)
    assert plan(FRAMES, Fault("disconnect", after_bytes=6), at=0) == (
        Write(b"e0\n\n", 0), Write(b"e1", 1), Close())
    assert plan(FRAMES, Fault("disconnect", after_events=0), at=2) == (Close(),)
    assert plan(FRAMES, Fault("disconnect", after_events=99), at=0)[-1] == Close()


def test_truncate_leaves_out_the_final_events_and_ends_cleanly() -> None:
    assert written(plan(FRAMES, Fault("truncate"), at=4, final=1)) == b"e0\n\ne1\n\ne2\n\n"
    assert plan(FRAMES, Fault("truncate"), at=4, final=1)[-1] == End()
    assert written(plan(FRAMES, Fault("truncate", after_events=1), at=4, final=1)) == b"e0\n\n"
    # a body cut at a byte (a non-streamed answer: one frame)
    assert plan([b'{"id": 1}'], Fault("truncate", after_bytes=4), at=1) == (
        Write(b'{"id', 0), End())


def test_malformed_inserts_one_bad_frame_and_goes_on() -> None:
    actions = plan(FRAMES, Fault("malformed"), at=1, malformed=b"data: {\n\n")
    assert written(actions) == b"e0\n\ndata: {\n\ne1\n\ne2\n\nend\n\n"
    assert actions[1] == Write(b"data: {\n\n", 1) and actions[-1] == End()
    # afterBytes inside a frame moves a whole-frame fault to that frame's end
    actions = plan(FRAMES, Fault("malformed", after_bytes=5), at=0, malformed=b"X")
    assert written(actions) == b"e0\n\ne1\n\nXe2\n\nend\n\n"


def test_stall_pauses_then_continues_or_closes() -> None:
    assert plan(FRAMES[:2], Fault("stall", ms=250), at=1) == (
        Write(b"e0\n\n", 0), Pause(250), Write(b"e1\n\n", 1), End())
    assert plan(FRAMES[:2], Fault("stall", ms=250, then="close"), at=1) == (
        Write(b"e0\n\n", 0), Pause(250), Close())
    assert plan(FRAMES[:1], Fault("stall", ms=9, after_bytes=2), at=0) == (
        Write(b"e0", 0), Pause(9), Write(b"\n\n", 0), End())


def test_slow_first_byte_waits_before_anything() -> None:
    assert plan(FRAMES[:2], Fault("slowFirstByte", ms=700), at=1) == (
        Pause(700), Write(b"e0\n\n", 0), Write(b"e1\n\n", 1), End())


def test_duplicate_and_reorder_the_next_events() -> None:
    assert written(plan(FRAMES, Fault("duplicate"), at=1)) == b"e0\n\ne1\n\ne1\n\ne2\n\nend\n\n"
    assert written(plan(FRAMES, Fault("reorder"), at=1)) == b"e0\n\ne2\n\ne1\n\nend\n\n"
    # at the end there is no next event: the last one (two) take the fault
    assert written(plan(FRAMES, Fault("duplicate"), at=9)).endswith(b"end\n\nend\n\n")
    assert written(plan(FRAMES, Fault("reorder"), at=9)).endswith(b"end\n\ne2\n\n")


def test_http_status_rejects_before_the_first_byte_and_errors_in_stream_after() -> None:
    fault = Fault("httpStatus", status_code=529, retry_after_seconds=2.0)
    assert plan(FRAMES, fault, at=0) == (Reject(529, "Overloaded (a scenarist fault)", 2.0),)
    assert plan(FRAMES, fault, at=2, error=b"ERR") == (
        Write(b"e0\n\n", 0), Write(b"e1\n\n", 1), Write(b"ERR", 1), End())
    assert plan(FRAMES, fault, at=2)[-1] == Close()  # a channel without an error event
    assert plan(FRAMES, Fault("httpStatus", message="busy"), at=0) == (Reject(503, "busy"),)


def test_exit_stderr_and_fragment() -> None:
    assert plan(FRAMES, Fault("exit", exit_code=137), at=1) == (Write(b"e0\n\n", 0), Exit(137))
    assert plan(FRAMES, Fault("exit", exit_code=None, signal="SIGKILL"), at=0) == (
        Exit(None, "SIGKILL"),)
    actions = plan(FRAMES[:2], Fault("stderr", text="noise"), at=1)
    assert actions == (Write(b"e0\n\n", 0), Stderr("noise"), Write(b"e1\n\n", 1), End())
    actions = plan(FRAMES[:2], Fault("fragment", chunk_bytes=3), at=1)
    assert actions == (Write(b"e0\n\n", 0), Write(b"e1\n", 1), Write(b"\n", 1), End())


@pytest.mark.parametrize("kind", FAULT_KINDS)
def test_every_kind_keeps_the_frames_order_and_ends_once(kind: str) -> None:
    fault = Fault(kind, ms=1, text="t")  # type: ignore[arg-type]
    actions = plan(FRAMES, fault, at=2, final=1, malformed=b"M", error=b"E")
    enders = [a for a in actions if isinstance(a, (Close, End, Reject, Exit))]
    assert len(enders) == 1 and actions[-1] is enders[0]
    frames = [a.frame for a in actions if isinstance(a, Write)]
    assert frames == sorted(frames) or kind == "reorder"


# -- chaos ----------------------------------------------------------------------------------------

LLM = CHANNELS["llm"].response | {"disconnect", "stall", "httpStatus", "truncate"}


def test_parse_chaos() -> None:
    assert parse_chaos("0.25", 7, LLM) == Chaos(0.25, tuple(k for k in FAULT_KINDS if k in LLM), 7)
    assert parse_chaos("1:stall,disconnect,stall", 0, LLM).kinds == ("stall", "disconnect")
    for bad, needle in [("lots", "not a number"), ("1.5", "outside 0..1"),
                        ("0.5:exit", "'exit' is not a fault kind played here"),
                        ("0.5:disconect", "use some of: disconnect")]:
        with pytest.raises(ChaosError, match=re.escape(needle)):
            parse_chaos(bad, 0, LLM)


def test_chaos_is_a_function_of_the_seed_and_the_request() -> None:
    chaos = Chaos(0.5, ("disconnect", "stall", "httpStatus", "slowFirstByte"), seed=7)
    requests = [f"conversation-{i % 5}/position-{i}".encode() for i in range(400)]
    first = [chaos_fault(chaos, r, 6) for r in requests]
    again = [chaos_fault(chaos, r, 6) for r in reversed(requests)][::-1]  # order is no input
    assert [describe(f) if f else None for f in first] == [
        describe(f) if f else None for f in again]
    other = [chaos_fault(Chaos(0.5, chaos.kinds, seed=8), r, 6) for r in requests]
    assert [describe(f) if f else None for f in other] != [
        describe(f) if f else None for f in first]
    struck = [f for f in first if f is not None]
    assert 150 < len(struck) < 250  # about half
    assert set(Counter(f.kind for f in struck)) == set(chaos.kinds)
    assert all(f.times == 1 for f in struck)
    assert all(f.after_events is not None and 0 <= f.after_events < 6
               for f in struck if f.kind != "slowFirstByte")
    assert {f.ms for f in struck if f.kind == "stall"} <= {100, 200, 300, 500, 800, 1000}
    assert {f.status_code for f in struck if f.kind == "httpStatus"} <= {429, 500, 503}


def test_chaos_at_rate_zero_and_one() -> None:
    assert all(chaos_fault(Chaos(0, ("disconnect",)), bytes([i]), 3) is None for i in range(50))
    assert all(chaos_fault(Chaos(1, ("stall",)), bytes([i]), 3) is not None for i in range(50))
    assert chaos_fault(Chaos(1, ()), b"x", 3) is None


# -- warnings for faults a channel does not play ------------------------------------------------


def test_unplayed_faults_are_located_warnings() -> None:
    scenario = load_scenario_text(textwrap.dedent("""\
        name: w
        timeline:
          - llmResponse:
              - assistant: [[0, hi]]
              - fault: {kind: exit}
          - fault: {kind: stderr, text: noise}
        """), path="w.yaml")
    issues = unplayed(scenario, "hub")
    assert [(i.line, i.col, i.path, i.severity) for i in issues] == [
        (5, 16, "timeline[0].llmResponse.fault", "warning"), (6, 12, "timeline[1].fault",
                                                               "warning")]
    assert str(issues[0]).startswith(
        "w.yaml:5:16: warning: the hub (scenarist hub) does not play exit faults in an "
        "llmResponse; it is ignored here")
    assert "docs/faults.md" in issues[1].hint


def test_describe_spells_a_fault_as_the_scenario_does() -> None:
    assert describe(Fault("disconnect")) == {"kind": "disconnect"}
    assert describe(Fault("stall", ms=20, then="close", after_bytes=3, times=2)) == {
        "kind": "stall", "afterBytes": 3, "ms": 20, "then": "close", "times": 2}
    assert describe(Fault("exit", exit_code=None, signal="SIGKILL")) == {
        "kind": "exit", "signal": "SIGKILL"}
    assert describe(Fault("fragment", chunk_bytes=3)) == {"kind": "fragment", "bytes": 3}


def _played(kinds: frozenset[str]) -> str:
    return ", ".join(f"`{k}`" for k in FAULT_KINDS if k in kinds) or "none"


def test_the_page_says_which_kinds_each_channel_plays() -> None:
    """docs/faults.md's "Kinds played" line of each channel, in the page's order, is the
    table's (so the page changes when a channel learns a kind)."""
    lines = [line for line in PAGE.read_text().splitlines()
             if "kinds played (`scenarist.faults.channels`)" in line.lower()]
    order = ("llm", "rest", "acp", "codex", "agent", "hub")
    assert len(lines) == len(order) and set(order) == set(CHANNELS)
    for channel, line in zip(order, lines, strict=True):
        plays = CHANNELS[channel]
        assert line.endswith(f"in an `llmResponse`: {_played(plays.response)}; as a timeline "
                             f"event: {_played(plays.timeline)}."), (channel, line)
