"""An upstream that is down, answers garbage or breaks off a stream: the client gets the error
in its API's format (502 and the API's error envelope, or the API's error event inside a stream
already begun), stderr names the request, nothing is written, and the proxy serves on."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import anthropic
import openai
import pytest
from recordkit import KEY, recording

from scenarist.llm.process import RunningServer

CHAT = [{"role": "user", "content": "hello"}]
ONE_EVENT = (b'event: message_start\ndata: {"type":"message_start","message":{"id":"m",'
             b'"type":"message","role":"assistant","model":"m","content":[],"stop_reason":null,'
             b'"usage":{"input_tokens":1,"output_tokens":1}}}\n\n')
ANSWERS = {
    "garbage": b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 12\r\n"
               b"\r\nnot json :-(",
    "cut": b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\r\n" + ONE_EVENT,
    "noise": b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\r\n" + ONE_EVENT
             + b"this is no event\n\n",
}


@contextmanager
def bad_upstream(answer: bytes) -> Iterator[str]:
    """A loopback server that answers every request with ``answer`` and hangs up."""
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(0.2)
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                continue
            with conn:
                conn.settimeout(5)
                data = b""
                while b"\r\n\r\n" not in data:
                    more = conn.recv(65536)
                    if not more:
                        break
                    data += more
                head, _, body = data.partition(b"\r\n\r\n")
                length = next((int(line.split(b":")[1]) for line in head.split(b"\r\n")
                               if line.lower().startswith(b"content-length:")), 0)
                while len(body) < length and (more := conn.recv(65536)):
                    body += more
                conn.sendall(answer)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}"
    finally:
        stop.set()
        thread.join(5)
        listener.close()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_for(proxy: RunningServer, text: str) -> str:
    """The proxy's stderr once it says ``text`` (it writes after answering)."""
    deadline = time.monotonic() + 10
    while text not in proxy.stderr and time.monotonic() < deadline:
        time.sleep(0.05)
    assert text in proxy.stderr
    return proxy.stderr


def test_an_upstream_that_is_down_gets_each_api_its_502(tmp_path: Path) -> None:
    out = tmp_path / "out"
    with recording(f"http://127.0.0.1:{free_port()}", out) as proxy:
        client = openai.OpenAI(base_url=f"{proxy.base_url}/v1", api_key=KEY, max_retries=0)
        with pytest.raises(openai.APIStatusError) as chat:
            client.chat.completions.create(model="m", messages=CHAT)
        claude = anthropic.Anthropic(base_url=proxy.base_url, api_key=KEY, max_retries=0)
        with pytest.raises(anthropic.APIStatusError) as messages:
            claude.messages.create(model="m", max_tokens=8, messages=CHAT)
        stderr = wait_for(proxy, "request 2 (POST /v1/messages)")
    assert chat.value.status_code == 502 and "unreachable" in chat.value.message
    assert chat.value.body["type"] == "server_error"  # type: ignore[index,call-overload]
    assert messages.value.status_code == 502
    assert messages.value.body["error"]["type"] == "api_error"  # type: ignore[index,call-overload]
    assert "request 1 (POST /v1/chat/completions)" in stderr
    assert not out.exists() or not list(out.iterdir())


def test_garbage_from_upstream_is_a_502_and_nothing_is_written(tmp_path: Path) -> None:
    out = tmp_path / "out"
    with bad_upstream(ANSWERS["garbage"]) as url, recording(url, out) as proxy:
        client = openai.OpenAI(base_url=f"{proxy.base_url}/v1", api_key=KEY, max_retries=0)
        for _ in range(2):  # the proxy stays up
            with pytest.raises(openai.APIStatusError) as refused:
                client.chat.completions.create(model="m", messages=CHAT)
            assert refused.value.status_code == 502 and "not JSON" in refused.value.message
        wait_for(proxy, "request 2 (POST /v1/chat/completions): upstream answered")
    assert list(out.iterdir()) == []


@pytest.mark.parametrize("answer", ["cut", "noise"])
def test_a_broken_stream_ends_in_the_api_s_error_event(tmp_path: Path, answer: str) -> None:
    out = tmp_path / "out"
    with bad_upstream(ANSWERS[answer]) as url, recording(url, out) as proxy:
        claude = anthropic.Anthropic(base_url=proxy.base_url, api_key=KEY, max_retries=0)
        for _ in range(2):
            with pytest.raises(anthropic.APIStatusError) as failed, claude.messages.stream(
                    model="m", max_tokens=8, messages=CHAT) as stream:
                stream.get_final_message()
            assert "upstream stream unreadable" in str(failed.value)
        wait_for(proxy, "request 2 (POST /v1/messages): upstream stream unreadable")
    assert list(out.iterdir()) == []
