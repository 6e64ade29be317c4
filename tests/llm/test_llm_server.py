"""Server behaviour over real HTTP: selection, position, errors, asserts, strict, bad input."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from scenarist.llm.journal import Journal
from scenarist.llm.script import (
    Check,
    ModelTurn,
    Script,
    ScriptedError,
    Segment,
    TimedText,
    ToolAction,
)
from scenarist.play import VirtualClock
from scenarist.scenario.model import Assert


def _turn(i: int, text: str, *actions: ToolAction, **kw: Any) -> ModelTurn:
    return ModelTurn(i, text=(TimedText(0, text),), actions=tuple(actions), **kw)


ALPHA = Script(
    name="alpha",
    prompt="build the alpha module",
    segments=(
        Segment(
            "build the alpha module",
            (
                _turn(0, "Running.", ToolAction("run", {"cmd": "make alpha"})),
                _turn(1, "Alpha is built."),
            ),
        ),
        Segment(
            "now test it",
            (
                _turn(2, "Testing.", ToolAction("run", {"cmd": "make test"})),
                _turn(3, "All tests pass."),
            ),
        ),
    ),
)
BETA = Script(
    name="beta",
    prompt="write the beta docs",
    segments=(Segment("write the beta docs", (_turn(0, "Beta docs written."),)),),
)
FLAKY = Script(
    name="flaky",
    prompt="try the flaky thing",
    segments=(
        Segment(
            "try the flaky thing",
            (
                ModelTurn(
                    0,
                    error=ScriptedError(
                        "Rate limit exceeded.", 429, "rate_limit_exceeded", retry_after_seconds=2
                    ),
                ),
                _turn(1, "Worked on retry."),
            ),
        ),
    ),
)


RUN_TOOL = [{"type": "function", "function": {"name": "run", "parameters": {}}}]


def chat(prompt: str, *history: dict[str, Any], **extra: Any) -> dict[str, Any]:
    """A Chat request that declares the scenarios' tool ``run`` unless ``tools`` is given."""
    return {"model": "m", "messages": [{"role": "user", "content": prompt}, *history],
            "tools": RUN_TOOL, **extra}


def tool_round(call_id: str, name: str = "run") -> list[dict[str, Any]]:
    return [
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": call_id, "type": "function", "function": {"name": name, "arguments": "{}"}}
            ],
        },
        {"role": "tool", "tool_call_id": call_id, "content": "ok"},
    ]


@pytest.fixture
def srv(serve: Any) -> Any:
    return serve([ALPHA, BETA, FLAKY], speed=0.01)


def post(srv: Any, path: str, body: Any, **headers: str) -> httpx.Response:
    return httpx.post(f"{srv.url}{path}", json=body, headers=headers, timeout=10)


def text_of(resp: httpx.Response) -> str:
    return str(resp.json()["choices"][0]["message"]["content"])


def test_selection_by_prompt_name_and_header(srv: Any) -> None:
    assert (
        text_of(post(srv, "/v1/chat/completions", chat("write the beta docs")))
        == "Beta docs written."
    )
    assert (
        text_of(post(srv, "/v1/chat/completions", chat("Write the BETA docs please")))
        == "Beta docs written."
    )
    by_name = post(srv, "/v1/chat/completions", chat("anything"), **{"x-scenario-name": "beta"})
    assert text_of(by_name) == "Beta docs written."
    by_header = post(
        srv,
        "/v1/chat/completions",
        chat("anything"),
        **{"x-scenario-prompt": "write the beta docs"},
    )
    assert text_of(by_header) == "Beta docs written."
    kinds = [e["selected_by"] for e in srv.journal]
    assert kinds == ["prompt", "prompt", "name", "header-prompt"]


def test_no_match_names_nearest_with_distances(srv: Any) -> None:
    resp = post(srv, "/v1/chat/completions", chat("cook dinner for six people tonight"))
    assert resp.status_code == 404
    message = resp.json()["error"]["message"]
    assert "no scenario matches" in message and "distance" in message and "'alpha'" in message
    unknown = post(
        srv,
        "/v1/messages",
        {"model": "m", "max_tokens": 5, "messages": [{"role": "user", "content": "x"}]},
        **{"x-scenario-name": "gamma"},
    )
    assert unknown.status_code == 404
    assert unknown.json()["type"] == "error" and "gamma" in unknown.json()["error"]["message"]


def test_a_fragment_of_a_prompt_is_no_match_but_an_added_sentence_is(srv: Any) -> None:
    for fragment in ("a", "alpha", "the alpha"):
        resp = post(srv, "/v1/chat/completions", chat(fragment))
        assert resp.status_code == 404, fragment
        assert "no scenario matches" in resp.json()["error"]["message"]
    longer = chat("Build the alpha module. Then tell me how long it took, and why it was slow.")
    assert text_of(post(srv, "/v1/chat/completions", longer)) == "Running."
    # a later prompt that is a fragment of the scenario's next userInputs is refused too
    body = chat(
        "build the alpha module",
        *tool_round("c1"),
        {"role": "assistant", "content": "Alpha is built."},
        {"role": "user", "content": "test"},
    )
    assert post(srv, "/v1/chat/completions", body).status_code == 409


def test_position_comes_from_the_history(srv: Any) -> None:
    first = post(srv, "/v1/chat/completions", chat("build the alpha module"))
    call = first.json()["choices"][0]["message"]["tool_calls"][0]
    assert json.loads(call["function"]["arguments"]) == {"cmd": "make alpha"}
    done = post(srv, "/v1/chat/completions", chat("build the alpha module", *tool_round("c1")))
    assert text_of(done) == "Alpha is built."
    # a second user prompt continues at the scenario's next userInputs
    second = chat(
        "build the alpha module",
        *tool_round("c1"),
        {"role": "assistant", "content": "Alpha is built."},
        {"role": "user", "content": "now test it"},
    )
    assert text_of(post(srv, "/v1/chat/completions", second)) == "Testing."
    assert [e["turn"] for e in srv.journal] == [0, 1, 2]


def test_past_the_end_fails_loudly(srv: Any) -> None:
    body = chat(
        "write the beta docs",
        {"role": "assistant", "content": "Beta docs written."},
        {"role": "user", "content": "and more"},
    )
    resp = post(srv, "/v1/chat/completions", body)
    assert resp.status_code == 409
    assert "past its end" in resp.json()["error"]["message"]
    body = chat(
        "build the alpha module",
        *tool_round("c1"),
        {"role": "assistant", "content": "Alpha is built."},
    )
    resp = post(srv, "/v1/chat/completions", body)
    assert resp.status_code == 409
    assert "expected next: a new user prompt" in resp.json()["error"]["message"]


def test_concurrent_conversations_at_different_positions(srv: Any) -> None:
    async def run() -> list[str]:
        async with httpx.AsyncClient(base_url=srv.url, timeout=10) as client:
            bodies = [
                chat("build the alpha module"),
                chat("build the alpha module", *tool_round("c9")),
                chat("write the beta docs"),
            ] * 10
            resps = await asyncio.gather(
                *(client.post("/v1/chat/completions", json=b) for b in bodies)
            )
            return [r.json()["choices"][0]["message"]["content"] for r in resps]

    texts = asyncio.run(run())
    assert texts == ["Running.", "Alpha is built.", "Beta docs written."] * 10


def test_scripted_error_status_retry_after_then_next_turn(srv: Any) -> None:
    headers = {"x-scenario-session": "s1"}
    body = {
        "model": "m",
        "max_tokens": 100,
        "messages": [{"role": "user", "content": "try the flaky thing"}],
    }
    first = post(srv, "/v1/messages", body, **headers)
    assert first.status_code == 429
    assert first.headers["retry-after"] == "2"
    assert first.json() == {
        "type": "error",
        "error": {"type": "rate_limit_error", "message": "Rate limit exceeded."},
    }
    assert "x-should-retry" not in first.headers  # a scripted 429 is retried, as for real
    retry = post(srv, "/v1/messages", body, **headers)
    assert retry.status_code == 200
    assert retry.json()["content"][0]["text"] == "Worked on retry."
    other = post(
        srv, "/v1/chat/completions", chat("try the flaky thing"), **{"x-scenario-session": "s2"}
    )
    assert other.status_code == 429
    assert other.json()["error"] == {"message": "Rate limit exceeded.", "type": "requests",
                                     "param": None, "code": "rate_limit_exceeded"}


@pytest.mark.parametrize(
    ("path", "content", "status"),
    [
        ("/v1/chat/completions", b"{not json", 400),
        ("/v1/responses", b"[1, 2]", 400),
        ("/v1/messages", b'{"model": "m", "messages": "x", "max_tokens": 1}', 400),
        ("/v1/messages", b'{"model": "m", "messages": []}', 400),
        ("/v1/chat/completions", b'{"model": "m", "messages": [{"role": 5}]}', 400),
    ],
)
def test_bad_input_in_each_apis_format(srv: Any, path: str, content: bytes, status: int) -> None:
    resp = httpx.post(
        f"{srv.url}{path}", content=content, headers={"content-type": "application/json"}
    )
    assert resp.status_code == status
    body = resp.json()
    if path == "/v1/messages":
        assert body["type"] == "error" and body["error"]["type"] == "invalid_request_error"
    else:
        assert body["error"]["type"] == "invalid_request_error" and body["error"]["message"]
    assert httpx.get(f"{srv.url}/health").json()["status"] == "ok"


def test_wrong_content_type_and_body_limit(serve: Any) -> None:
    small = serve([BETA], body_limit=1000)
    resp = httpx.post(
        f"{small.url}/v1/chat/completions",
        content=b"model=m",
        headers={"content-type": "application/x-www-form-urlencoded"},
    )
    assert resp.status_code == 415 and "application/json" in resp.json()["error"]["message"]
    big = chat("write the beta docs", {"role": "user", "content": "x" * 5000})
    resp = httpx.post(f"{small.url}/v1/messages", json=big)
    assert resp.status_code == 413
    assert resp.json()["error"]["type"] == "request_too_large"

    def chunks() -> Any:
        yield b'{"model": "m", "messages": ['
        for _ in range(100):
            yield b'{"role": "user", "content": "xxxxxxxxxxxxxxxxxxxx"},'
        yield b"]}"

    resp = httpx.post(
        f"{small.url}/v1/chat/completions",
        content=chunks(),
        headers={"content-type": "application/json"},
    )
    assert resp.status_code == 413
    ok = httpx.post(f"{small.url}/v1/chat/completions", json=chat("write the beta docs"))
    assert ok.status_code == 200


def test_health_models_journal(srv: Any) -> None:
    health = httpx.get(f"{srv.url}/health").json()
    assert health["status"] == "ok" and health["scenarios"] == ["alpha", "beta", "flaky"]
    models = httpx.get(f"{srv.url}/v1/models").json()
    assert models["object"] == "list" and models["data"][0]["id"]
    post(srv, "/v1/chat/completions", chat("write the beta docs"), **{"x-scenario-name": "beta"})
    journal = httpx.get(f"{srv.url}/_scenarist/journal").json()["requests"]
    assert journal[-1]["scenario"] == "beta" and journal[-1]["status"] == 200
    assert journal[-1]["stream"] is False and journal[-1]["turn"] == 0
    httpx.delete(f"{srv.url}/_scenarist/journal")
    assert httpx.get(f"{srv.url}/_scenarist/journal").json()["requests"] == []


def test_asserts_between_turns(serve: Any, tmp_path: Path) -> None:
    checked = Script(
        name="checked",
        prompt="make the file",
        segments=(
            Segment(
                "make the file",
                (
                    _turn(0, "Writing.", ToolAction("run", {"cmd": "touch made.txt"})),
                    _turn(
                        1,
                        "Made.",
                        checks=(
                            Check(
                                Assert(index=2, key_path="timeline[2].assert", line=9, col=5,
                                       fs_exists=("made.txt",), fs_not_exists=("nope.txt",))
                            ),
                        ),
                    ),
                ),
            ),
        ),
    )
    srv = serve([checked], workspace=tmp_path)
    body = chat("make the file", *tool_round("c1"))
    failed = post(srv, "/v1/chat/completions", body)
    assert failed.status_code == 400
    assert "assertion failed" in failed.json()["error"]["message"]
    assert "fs.exists made.txt" in failed.json()["error"]["message"]
    (tmp_path / "made.txt").write_text("x")
    passed = post(srv, "/v1/chat/completions", body)
    assert text_of(passed) == "Made."
    outcomes = [[a["outcome"] for a in e["assertions"]] for e in srv.journal]
    assert outcomes == [["failed", "ok"], ["ok", "ok"]]


def test_an_action_that_no_declared_tool_can_carry_is_a_400(serve: Any) -> None:
    srv = serve([ALPHA], strict=True)
    other = [{"type": "function", "function": {"name": "other", "parameters": {}}}]
    missing = post(srv, "/v1/chat/completions", chat("build the alpha module", tools=other))
    assert missing.status_code == 400
    message = missing.json()["error"]["message"]
    assert "it calls run, but the request declares no tool that can carry it" in message
    assert "declared: other" in message
    ok = post(srv, "/v1/chat/completions", chat("build the alpha module"))
    assert ok.status_code == 200
    responses = post(srv, "/v1/responses", {
        "model": "m", "input": "build the alpha module",
        "tools": [{"type": "function", "name": "other", "parameters": {}}]})
    assert responses.status_code == 400
    error = responses.json()["error"]
    assert error["type"] == "invalid_request_error" and "declared: other" in error["message"]
    assert responses.headers["x-should-retry"] == "false"


def test_a_request_without_tools_gets_the_turn_s_text_and_moves_nothing(serve: Any) -> None:
    """opencode's title request declares no tools: it must not get the scenario's call."""
    srv = serve([ALPHA])
    side = post(srv, "/v1/chat/completions", chat("build the alpha module", tools=None))
    message = side.json()["choices"][0]["message"]
    assert message["content"] == "Running." and not message.get("tool_calls")
    assert srv.journal[-1]["side_request"] is True
    first = post(srv, "/v1/chat/completions", chat("build the alpha module"))
    call = first.json()["choices"][0]["message"]["tool_calls"][0]
    assert call["function"]["name"] == "run"
    assert "side_request" not in srv.journal[-1]


def test_streamed_deltas_follow_the_schedule(serve: Any) -> None:
    paced = Script(
        name="paced",
        prompt="pace it",
        segments=(
            Segment(
                "pace it",
                (
                    ModelTurn(
                        0,
                        text=(TimedText(0, "first "), TimedText(150, "second "), TimedText(300, "third")),
                        duration_ms=300,
                    ),
                ),
            ),
        ),
    )
    srv = serve([paced], speed=1.0)
    arrivals: list[tuple[float, str]] = []
    start = time.monotonic()
    with httpx.stream(
        "POST", f"{srv.url}/v1/chat/completions", json=chat("pace it", stream=True), timeout=10
    ) as resp:
        for line in resp.iter_lines():
            if line.startswith("data: {"):
                delta = json.loads(line[6:])["choices"][0]["delta"].get("content")
                if delta:
                    arrivals.append((time.monotonic() - start, delta))
    assert [d for _, d in arrivals] == ["first ", "second ", "third"]
    # never early (a lower bound only: a busy machine may deliver late, never before time)
    assert arrivals[1][0] >= 0.14 and arrivals[2][0] >= 0.29
    assert srv.journal[-1]["completed"] is True


def test_virtual_clock_makes_long_scenarios_instant(serve: Any) -> None:
    slow = Script(
        name="slow",
        prompt="take your time",
        segments=(
            Segment(
                "take your time",
                (ModelTurn(0, text=(TimedText(600_000, "ten minutes later"),), duration_ms=600_000),),
            ),
        ),
    )
    srv = serve([slow], clock=VirtualClock())
    started = time.monotonic()
    assert text_of(post(srv, "/v1/chat/completions", chat("take your time"))) == "ten minutes later"
    assert time.monotonic() - started < 60  # liveness only: the virtual ten minutes pass at once


def test_several_server_processes_agree(serve: Any) -> None:
    """A conversation may hop between servers (restarts, replicas): no per-server cursor."""
    one, two = serve([ALPHA, BETA], speed=0.01), serve([ALPHA, BETA], speed=0.01)
    first = post(one, "/v1/chat/completions", chat("build the alpha module"))
    call = first.json()["choices"][0]["message"]["tool_calls"][0]["id"]
    second = post(two, "/v1/chat/completions", chat("build the alpha module", *tool_round(call)))
    assert text_of(second) == "Alpha is built."
    again = post(one, "/v1/chat/completions", chat("build the alpha module", *tool_round(call)))
    assert text_of(again) == "Alpha is built."


def test_a_stream_sends_what_is_due_at_once_then_keeps_its_schedule() -> None:
    """The first frames go out before any other task runs (not a loop cycle later, which
    made them late and every later frame early relative to them); later ones at t0 + at."""
    from scenarist.llm.answer import Batch
    from scenarist.llm.reply import PacedStream, Streams
    from scenarist.play import Schedule

    async def play() -> list[tuple[float, bytes, bool]]:
        clock = VirtualClock(1000.0)
        others_ran: list[bool] = []
        sent: list[tuple[float, bytes, bool]] = []

        async def receive() -> Any:
            await asyncio.Event().wait()  # the client never leaves

        async def send(message: Any) -> None:
            if message["type"] == "http.response.body" and message["body"]:
                sent.append((clock.now_ms(), message["body"], bool(others_ran)))

        async def other() -> None:
            others_ran.append(True)

        asyncio.get_running_loop().create_task(other())
        batches = (Batch(0, b"a"), Batch(50, b"b"), Batch(120, b"c"))
        entry: dict[str, Any] = {}
        await PacedStream(batches, Schedule(clock), entry, Journal(), Streams())(
            {}, receive, send)
        assert entry["completed"] is True
        return sent

    assert asyncio.run(play()) == [
        (1000.0, b"a", False),
        (1050.0, b"b", True),
        (1120.0, b"c", True),
    ]
