"""Timeline → session events (pure): golden files of both dialects, and the rules one by one.

Regenerate after a deliberate change with ``SCENARIST_REGOLD=1 pytest tests/rest`` and
review the diff.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from restkit import EXAMPLE, SCENARIOS

from scenarist.rest.events import (
    FINAL_STATUSES,
    diff_event,
    is_final,
    plan_session,
    webui_event,
)
from scenarist.scenario import compile_timeline, load_scenario, load_scenario_text

CASES = {"simulation-rest": EXAMPLE, "edit-and-test": SCENARIOS / "edit-and-test.yaml",
         "failing": SCENARIOS / "failing.yaml", "retry": SCENARIOS / "retry.yaml"}


def plan(text: str) -> list[tuple[int, dict[str, object]]]:
    scenario = load_scenario_text("name: t\ntimeline:\n" + text)
    return [(p.at_ms, p.body) for p in plan_session(compile_timeline(scenario))]


@pytest.mark.parametrize("case", sorted(CASES))
def test_golden_typed_and_webui(case: str, golden: Callable[[str, str], None]) -> None:
    planned = plan_session(compile_timeline(load_scenario(CASES[case])))
    typed = [{"at_ms": p.at_ms, **p.body} for p in planned]
    golden(f"{case}.typed.json", json.dumps(typed, indent=1, ensure_ascii=False) + "\n")
    webui = [webui_event({**p.body, "ts": f"t+{p.at_ms}"}, "S") for p in planned]
    golden(f"{case}.webui.json", json.dumps([w for w in webui if w is not None], indent=1,
                                            ensure_ascii=False) + "\n")


def test_status_wraps_a_scenario_without_status_events() -> None:
    events = plan("  - log: hello\n  - baseTimeDelta: 100\n  - log: bye\n")
    assert events == [
        (0, {"type": "status", "status": "queued"}),
        (0, {"type": "status", "status": "running"}),
        (0, {"type": "log", "level": "info", "message": "hello", "tool_execution_id": None,
             "source": "scenario"}),
        (100, {"type": "log", "level": "info", "message": "bye", "tool_execution_id": None,
               "source": "scenario"}),
        (100, {"type": "status", "status": "completed"}),
    ]


def test_nothing_after_the_final_status_but_merge_moves_before_it() -> None:
    events = plan("  - status: running\n  - complete: true\n  - log: late\n  - merge: true\n")
    assert [b["type"] for _, b in events] == ["status", "log", "status"]
    assert events[1][1]["source"] == "merge" and is_final(events[-1][1])
    failed = plan("  - log: a\n  - complete: false\n")
    assert failed[-1][1] == {"type": "status", "status": "failed"}


def test_one_final_status_always_ends_the_plan() -> None:
    for case in CASES.values():
        planned = plan_session(compile_timeline(load_scenario(case)))
        finals = [p for p in planned if is_final(p.body)]
        assert finals == [planned[-1]] and planned[-1].body["status"] in FINAL_STATUSES
        assert [p.at_ms for p in planned] == sorted(p.at_ms for p in planned)


def test_large_diffs_are_cut_to_head_and_tail() -> None:
    old = "".join(f"line {n}\n" for n in range(3000))
    body = diff_event("t1", "big.txt", old, old + "more\n")
    assert body["truncated"] is True and "oldText" not in body
    assert body["oldTextHead"].count("\n") == 200 and body["newTextTail"].endswith("more\n")
    small = diff_event(None, "a", "x\n", "y\n")
    assert small == {"type": "diff", "tool_execution_id": None, "path": "a", "oldText": "x\n",
                     "newText": "y\n"}


def test_webui_dialect_rules() -> None:
    assert webui_event({"type": "diff", "path": "a"}, "S") is None
    name, data = webui_event({"type": "log", "level": "info", "message": "hi",
                              "source": "assistant", "ts": "T"}, "S") or ("", {})
    assert (name, data) == ("log", {"sessionId": "S", "ts": "T", "level": "info",
                                    "message": "Assistant: hi"})
    name, data = webui_event({"type": "error", "message": "boom", "ts": "T"}, "S") or ("", {})
    assert (name, data["level"]) == ("log", "error")


def test_apply_patch_is_a_user_log_naming_the_patch_and_its_commit(tmp_path: Path) -> None:
    """Simulation mode streams the user's actions, and changes no file (no executor here)."""
    (tmp_path / "fix.patch").write_text("--- a/x\n+++ b/x\n")
    scenario = load_scenario_text(
        "name: t\ntimeline:\n  - applyPatch: {path: fix.patch, commit: true, message: Fix}\n"
        "  - applyPatch: {path: fix.patch}\n", path=tmp_path / "t.yaml")
    logs = [p.body for p in plan_session(compile_timeline(scenario)) if p.body["type"] == "log"]
    assert logs == [
        {"type": "log", "level": "info", "message": "apply patch: fix.patch",
         "tool_execution_id": None, "source": "applyPatch", "commit": "Fix"},
        {"type": "log", "level": "info", "message": "apply patch: fix.patch",
         "tool_execution_id": None, "source": "applyPatch"},
    ]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fix.patch"]


def test_an_error_fails_the_session_only_when_nothing_of_the_session_follows() -> None:
    error = ("  - llmResponse:\n      - error: {errorType: overloaded, statusCode: 529, "
             "message: busy, details: {region: eu}}\n")
    retried = plan(error + "  - llmResponse:\n      - assistant: [[10, again]]\n")
    assert [b["type"] for _, b in retried] == ["status", "status", "error", "log", "status"]
    assert retried[2][1]["details"] == {"region": "eu"}
    assert retried[-1][1]["status"] == "completed"
    for tail in ("", "  - screenshot: {label: after}\n"):  # a harness item is no answer
        failed = plan(error + tail)
        assert [b["type"] for _, b in failed if b.get("level") != "debug"][-2:] == [
            "error", "status"] and failed[-1][1]["status"] == "failed"
