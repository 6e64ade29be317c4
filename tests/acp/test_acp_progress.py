"""``scenarist.acp.progress``: where a session stands, from the messages in wire order, and the
prompt-turn rules ACP states (pure)."""

from __future__ import annotations

from typing import Any

from scenarist.acp.progress import SessionProgress, exit_text


def _prompt(n: int) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": n, "method": "session/prompt",
            "params": {"sessionId": "s", "prompt": []}}


def _update(kind: str, **fields: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "method": "session/update",
            "params": {"sessionId": "s", "update": {"sessionUpdate": kind, **fields}}}


def _answer(n: int, reason: str = "end_turn") -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": n, "result": {"stopReason": reason}}


CANCEL = {"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": "s"}}


def test_where_names_the_request_the_turn_and_the_updates() -> None:
    p = SessionProgress()
    assert p.where() == "before any request was answered"
    p.sent({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {}})
    assert p.where() == "during initialize"
    p.received({"jsonrpc": "2.0", "id": 0, "result": {}})
    p.sent(_prompt(1))
    p.received(_answer(1))
    p.sent(_prompt(2))
    for _ in range(3):
        p.received(_update("agent_message_chunk"))
    assert p.where() == "during session/prompt of turn 2, after 3 updates"
    p.received({"jsonrpc": "2.0", "id": 9, "method": "session/request_permission", "params": {}})
    assert p.where() == ("during session/prompt of turn 2, after 3 updates, while the client "
                         "answered session/request_permission")
    p.sent({"jsonrpc": "2.0", "id": 9, "result": {}})
    p.sent(CANCEL)
    p.received(_update("agent_message_chunk"))
    assert p.where() == "during session/prompt of turn 2, after 4 updates (1 since session/cancel)"
    p.received(_answer(2, "cancelled"))
    assert p.where() == "after the answer to session/prompt of turn 2"
    assert p.turns[1].problems == [] and p.late_problems() == []


def test_an_answer_other_than_cancelled_after_a_cancel_breaks_the_rule() -> None:
    p = SessionProgress()
    p.sent(_prompt(1))
    p.sent(CANCEL)
    p.received(_answer(1, "end_turn"))
    assert p.turns[0].problems == [
        "session/prompt of turn 1 was answered with stopReason 'end_turn' after the client's "
        "session/cancel; ACP requires 'cancelled'"]


def test_updates_after_the_answer_and_an_update_before_its_tool_call_are_named() -> None:
    p = SessionProgress()
    p.sent(_prompt(1))
    p.received(_update("tool_call_update", toolCallId="t1", status="completed"))
    p.received(_update("tool_call", toolCallId="t1", title="x"))
    p.received(_answer(1))
    p.received(_update("agent_message_chunk"))
    p.received(_update("current_mode_update", currentModeId="m"))  # not a turn's content
    assert p.turns[0].problems == ["update 1 of turn 1: a tool_call_update for toolCallId 't1' "
                                   "came before its tool_call"]
    assert p.late_problems() == ["1 session/update of turn 1 came after its session/prompt "
                                 "answer; ACP sends every update before the answer"]


def test_exit_text_names_a_code_or_a_signal() -> None:
    assert exit_text(3) == "exited with code 3"
    assert exit_text(-9) == "was killed by SIGKILL"
    assert exit_text(None) == "still running"
