"""The Responses API over WebSocket (``/v1/responses``), as the official openai SDK's
``responses.connect()`` and a raw ``websockets`` client speak it: the same events as SSE,
several turns on one socket, continuations on the socket with ``store: false``, warm-ups,
scripted errors as ``error`` events, and hostile clients (garbage, binary frames, oversized
messages, 200 disconnects mid-answer) that leave the server up and leak nothing."""

from __future__ import annotations

import gc
import json
import os
import socket
import time
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest
from llm_agents import SCENARIOS as AGENT_SCENARIOS
from llm_agents import codex, dirs
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from scenarist.llm.answer import Batch
from scenarist.llm.cli import load_scripts
from scenarist.llm.process import run_server
from scenarist.llm.websocket import Held, batch_writer, http_body, sse_to_messages, text_frame

SCENARIOS = Path(__file__).resolve().parent / "client_scenarios"
WEATHER = "What is the weather in Paris?"
FLAKY = "Is it raining in Oslo?"
TOOLS: Any = [
    {
        "type": "function",
        "name": "get_weather",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
    }
]
SLOW = """\
name: slow
timeline:
  - userInputs: [[0, "Take your time"]]
  - llmResponse:
      - assistant:
          - [0, "Thinking it over"]
          - [3000, "... done."]
"""


@pytest.fixture
def srv(serve: Any) -> Any:
    paths = [str(SCENARIOS / "weather.yaml"), str(SCENARIOS / "flaky_weather.yaml")]
    return serve(load_scripts(paths, []), speed=0.01)


def _ws_url(srv: Any) -> str:
    return srv.url.replace("http://", "ws://") + "/v1/responses"


def _events(ws: ClientConnection, until: tuple[str, ...] = ("response.completed", "error")
            ) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    while True:
        event = json.loads(ws.recv(timeout=10))
        out.append(event)
        if event["type"] in until:
            return out


def _create(ws: ClientConnection, **body: Any) -> list[dict[str, Any]]:
    ws.send(json.dumps({"type": "response.create", "model": "m", "tools": TOOLS, **body}))
    return _events(ws)


def test_the_sdk_plays_a_tool_round_on_one_socket_continuing_without_storage(srv: Any) -> None:
    """``store: false`` and ``previous_response_id`` with only the tool output: the socket
    holds its latest response, as the real service does."""
    client = openai.OpenAI(base_url=srv.url + "/v1", api_key="x")
    with client.responses.connect() as conn:
        conn.response.create(model="m", input=WEATHER, tools=TOOLS, store=False)
        first = next(e for e in conn if e.type == "response.completed").response
        (call,) = [o for o in first.output if o.type == "function_call"]
        assert call.name == "get_weather" and json.loads(call.arguments) == {"city": "Paris"}
        conn.response.create(
            model="m", previous_response_id=first.id, tools=TOOLS, store=False,
            input=[{"type": "function_call_output", "call_id": call.call_id, "output": "sun"}])
        second = next(e for e in conn if e.type == "response.completed").response
    assert second.output_text == "It is sunny in Paris."
    model = [e for e in srv.journal if e["path"] == "/v1/responses"]
    assert [(e["turn"], e["status"], e["websocket"], e["completed"]) for e in model] == [
        (0, 200, True, True), (1, 200, True, True)]
    assert model[1]["continued_on_socket"] == first.id


def test_websocket_events_are_the_sse_stream_events(srv: Any) -> None:
    body = {"model": "m", "input": WEATHER, "tools": TOOLS}
    sse = httpx.post(srv.url + "/v1/responses", json={**body, "stream": True}, timeout=10)
    over_http = [json.loads(line[6:]) for line in sse.text.splitlines()
                 if line.startswith("data: ")]
    with connect(_ws_url(srv)) as ws:
        over_socket = _create(ws, input=WEATHER)

    def shape(events: list[dict[str, Any]]) -> list[Any]:
        return [(e["type"], e["sequence_number"], e.get("delta")) for e in events]

    assert shape(over_socket) == shape(over_http)
    assert over_socket[-1]["response"]["output"] == over_http[-1]["response"]["output"]


def test_a_scripted_error_is_an_error_event_and_the_socket_goes_on(srv: Any) -> None:
    """The shape Codex maps back to an HTTP error: status beside the error, and the
    headers (retry-after) beside it and, for the SDKs, inside it."""
    with connect(_ws_url(srv)) as ws:
        (error,) = _create(ws, input=FLAKY)
        assert error["type"] == "error" and error["status"] == 429
        assert error["error"]["code"] == "rate_limit_exceeded"
        assert error["error"]["message"] == "Rate limit reached for requests."
        assert error["error"]["details"] == {"limit": 10, "window": "1m"}  # the scenario's
        assert error["headers"] == {"retry-after": "0.1"} == error["error"]["headers"]
        retried = _create(ws, input=FLAKY)  # the retry, on the same socket
    assert retried[-1]["type"] == "response.completed"
    assert retried[-1]["response"]["output"][0]["content"][0]["text"] == "Let me check."


def test_a_warm_up_answers_no_output_and_the_next_request_continues_from_it(srv: Any) -> None:
    """Codex warms the socket up with ``generate: false`` and then sends nothing new."""
    with connect(_ws_url(srv)) as ws:
        warm = _create(ws, input=WEATHER, generate=False, store=False)
        assert [e["type"] for e in warm] == ["response.created", "response.completed"]
        assert warm[-1]["response"]["output"] == []
        warm_id = warm[-1]["response"]["id"]
        answer = _create(ws, input=[], previous_response_id=warm_id, store=False)
    assert answer[-1]["response"]["output"][-1]["name"] == "get_weather"
    entries = [e for e in srv.journal if e["path"] == "/v1/responses"]
    assert entries[0]["warmup"] is True and entries[1]["turn"] == 0


def test_an_id_the_socket_does_not_hold_gets_the_apis_400(srv: Any) -> None:
    with connect(_ws_url(srv)) as ws:
        (error,) = _create(ws, input=[], previous_response_id="resp_nothing", store=False)
        assert error["status"] == 400 and error["error"]["code"] == "previous_response_not_found"
        assert _create(ws, input=WEATHER)[-1]["type"] == "response.completed"


def test_the_websocket_body_is_the_http_body() -> None:
    """``type``/``generate`` dropped, ``stream`` on, a held response expanded (pure)."""
    held = Held("resp_1", ({"role": "user", "content": "hi"},), ({"type": "function_call"},))
    event = {"type": "response.create", "generate": True, "model": "m",
             "previous_response_id": "resp_1", "input": [{"type": "function_call_output"}]}
    assert http_body(event, held) == {
        "model": "m", "stream": True,
        "input": [{"role": "user", "content": "hi"}, {"type": "function_call"},
                  {"type": "function_call_output"}]}
    other = {**event, "previous_response_id": "resp_2"}
    assert http_body(other, held)["previous_response_id"] == "resp_2"
    batches = (Batch(0, b'event: a\ndata: {"type":"a"}\n\nevent: b\ndata: {"type":"b"}\n\n'),
               Batch(40, b'event: response.completed\ndata: {"type":"response.completed",'
                         b'"response":{"id":"resp_9","output":[1]}}\n\n'))
    frames = sse_to_messages(batches)
    assert [(d.at_ms, len(d.payloads)) for d in frames.batches] == [(0, 2), (40, 1)]
    assert (frames.response_id, frames.output) == ("resp_9", (1,))


SETTINGS: dict[str, dict[str, Any]] = {
    "cli": {},  # filled in the test: scenarist llm's own settings
    "compressed": {"ws": "websockets-sansio", "ws_per_message_deflate": True},
    "legacy protocol": {"ws": "websockets"},
}


@pytest.mark.parametrize("settings", [
    "cli", "compressed",
    # uvicorn and websockets deprecate the legacy protocol, which is why it is the fallback
    pytest.param("legacy protocol", marks=[
        pytest.mark.filterwarnings("ignore::DeprecationWarning"),
        pytest.mark.filterwarnings("ignore:The .websockets. implementation is deprecated")]),
])
def test_a_batch_goes_out_in_one_write_under_the_cli_settings(settings: str) -> None:
    """``scenarist llm``'s uvicorn settings let a batch of events go out in one write (the
    frames framed here, no compression); with per-message deflate the batch is framed
    through the connection's extension; a protocol without a sans-I/O connection gets one
    ASGI message an event. The client reads the same events every way."""
    import threading

    import uvicorn

    from scenarist.llm.cli import WEBSOCKET_SETTINGS
    from scenarist.llm.websocket import Due
    from scenarist.serving import bind

    payloads = (b'{"type":"a"}', b'{"type":"b","text":"' + b"x" * 300 + b'"}')
    batch = Due(0, payloads, b"".join(map(text_frame, payloads)))

    async def app(scope: Any, receive: Any, send: Any) -> None:
        await receive()
        await send({"type": "websocket.accept"})
        write = batch_writer(send)
        await send({"type": "websocket.send", "text": json.dumps({"batched": bool(write)})})
        if write is not None:
            write(batch)
        else:
            for payload in payloads:
                await send({"type": "websocket.send", "text": payload.decode()})
        await receive()

    sock = bind("127.0.0.1", 0)
    extra = WEBSOCKET_SETTINGS if settings == "cli" else SETTINGS[settings]
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off", **extra))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 10
        while not server.started and time.monotonic() < deadline:
            time.sleep(0.005)
        with connect(f"ws://127.0.0.1:{sock.getsockname()[1]}/") as ws:
            batched = settings != "legacy protocol"
            assert json.loads(ws.recv(timeout=10)) == {"batched": batched}
            assert [ws.recv(timeout=10) for _ in payloads] == [p.decode() for p in payloads]
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def test_text_frames_are_rfc_6455_server_frames() -> None:
    assert text_frame(b"hi") == b"\x81\x02hi"
    assert text_frame(b"x" * 200)[:4] == b"\x81\x7e\x00\xc8"
    assert text_frame(b"x" * 70_000)[:10] == b"\x81\x7f" + (70_000).to_bytes(8, "big")


# --------------------------------------------------------------------------- hostile clients


def test_garbage_gets_error_events_and_the_socket_stays_usable(srv: Any) -> None:
    with connect(_ws_url(srv)) as ws:
        for garbage, status in (("{not json", 400), ("[1, 2]", 400),
                                ('{"type": "session.update"}', 400)):
            ws.send(garbage)
            (error,) = _events(ws)
            assert error["type"] == "error" and error["status"] == status, error
            assert error["error"]["message"]
        ws.send(json.dumps({"type": "response.processed", "response_id": "resp_x"}))  # silent
        assert _create(ws, input=WEATHER)[-1]["type"] == "response.completed"


def test_a_binary_frame_gets_an_error_event_and_close_1003(srv: Any) -> None:
    with connect(_ws_url(srv)) as ws:
        ws.send(b"\x00\x01binary")
        (error,) = _events(ws)
        assert error["status"] == 400 and "binary" in error["error"]["message"]
        with pytest.raises(ConnectionClosed) as closed:
            ws.recv(timeout=10)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 1003


@pytest.mark.parametrize("text", ["x" * 100_000, "é" * 40_000])  # 40,000 characters, 80 kB
def test_an_oversized_message_gets_close_1009(serve: Any, text: str) -> None:
    srv = serve(load_scripts([str(SCENARIOS / "weather.yaml")], []), body_limit=64 * 1024)
    with connect(_ws_url(srv), max_size=None) as ws:
        ws.send(json.dumps({"type": "response.create", "model": "m", "input": text},
                           ensure_ascii=False))
        (error,) = _events(ws)
        assert error["status"] == 413 and "--body-limit" in error["error"]["message"]
        with pytest.raises(ConnectionClosed) as closed:
            ws.recv(timeout=10)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 1009
    assert httpx.get(srv.url + "/health", timeout=10).status_code == 200


def _health(http: httpx.Client) -> dict[str, Any]:
    answer: dict[str, Any] = http.get("/health").json()
    return answer


def _open_fds() -> int:
    return len(os.listdir("/proc/self/fd"))


def test_200_disconnects_mid_answer_leak_nothing(serve: Any, tmp_path: Path) -> None:
    """Half the clients close cleanly mid-answer, half drop the TCP connection: every
    answer stops at once (no task waits out the 3 s turn), and the server's tasks and this
    process's file descriptors come back to where they were."""
    (tmp_path / "slow.yaml").write_text(SLOW)
    srv = serve(load_scripts([str(tmp_path / "slow.yaml")], []))
    # One kept-alive connection asks for /health throughout: a new one per question would
    # leave the server's end of the last one open until the server reads its FIN, one
    # descriptor that a loaded machine counts now and then (24 vs 23 in a CI run).
    with httpx.Client(base_url=srv.url, timeout=10) as http:
        _play_200_disconnects(srv, http)


def _play_200_disconnects(srv: Any, http: httpx.Client) -> None:
    with connect(_ws_url(srv)) as ws:  # warm: imports and first-use allocations
        ws.send(json.dumps({"type": "response.create", "model": "m", "input": "Take your time"}))
        ws.recv(timeout=10)
    _wait_idle(http)
    time.sleep(0.2)  # the warm-up socket's closing handshake
    gc.collect()
    tasks, fds = _health(http)["tasks"], _open_fds()
    for n in range(200):
        ws = connect(_ws_url(srv))
        ws.send(json.dumps({"type": "response.create", "model": "m", "input": "Take your time"}))
        first = json.loads(ws.recv(timeout=10))
        assert first["type"] == "response.created"
        if n % 2:
            ws.close()
        else:
            ws.socket.shutdown(socket.SHUT_RDWR)
            ws.socket.close()
    _wait_idle(http, tasks, fds)
    health = _health(http)
    assert health["status"] == "ok" and health["active_streams"] == 0
    assert health["tasks"] <= tasks
    assert _open_fds() <= fds
    entries = [e for e in srv.journal if e["path"] == "/v1/responses"]
    assert len(entries) == 201 and all(e.get("disconnected") for e in entries[1:])


def _wait_idle(http: httpx.Client, tasks: int = 0, fds: int = 0) -> None:
    """Until no answer streams and (when given) tasks and descriptors are back to a baseline:
    closing handshakes and the clients' socket threads finish on their own time (30 s at
    most, for a loaded machine; the assertions that follow say what did not come back)."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        health = _health(http)
        if not health["active_streams"] and (not tasks or (
                health["tasks"] <= tasks and _open_fds() <= fds)):
            return
        time.sleep(0.05)


# --------------------------------------------------------------------------- Codex


@pytest.mark.real_agent
def test_codex_builtin_provider_stays_on_the_websocket(tmp_path: Path) -> None:
    """Codex's own OpenAI provider (``openai_base_url``) opens the socket, warms it up, and
    plays every turn on it, continuing with ``store: false``; it never falls back to HTTP.
    Run with ``model=gpt-5.5``: Codex's default model needs code mode (task E1)."""
    work, home = dirs(tmp_path)
    with run_server(AGENT_SCENARIOS / "shell_and_patch.yaml", "--scenario-speed", "0.01") as srv:
        result = codex(srv.base_url, "Create the greeting files", work, home,
                       provider="builtin")
        journal = srv.journal()
    assert result.returncode == 0, result.stderr
    assert "Falling back from WebSockets" not in result.stderr + result.stdout
    assert (work / "greeting.txt").read_text() == "hello from scenarist\n"
    assert (work / "notes" / "todo.md").read_text() == "# Todo\n- greet\n- wave back\n- smile\n"
    model = [e for e in journal if e["path"] == "/v1/responses"]
    assert all(e["websocket"] is True and e["status"] == 200 for e in model), model
    turns = [e for e in model if not e.get("warmup")]
    assert [e["turn"] for e in turns] == [0, 1, 2, 3]
    assert [e["calls"] for e in turns] == [["exec_command"], ["apply_patch"], ["apply_patch"], []]
    assert all(e.get("continued_on_socket") for e in turns[1:])  # incremental input only
