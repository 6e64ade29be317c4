"""Model requests answered in uvicorn's parser callback (:mod:`scenarist.llm.model_http`).

A model request whose answer is all due at once is written by the protocol itself, head and
body in one write; everything else takes uvicorn's ASGI way. Both must put the same bytes on
the wire (but the ``date`` header), keep requests in order on a keep-alive connection, and
leave no request unanswered. Raw sockets here, so that the wire itself is compared; the SDK
and agent tests run over the same protocol (``serve`` and ``scenarist llm`` use it).
"""

from __future__ import annotations

import asyncio
import json
import socket
from contextlib import closing
from typing import Any

import pytest

from scenarist.llm import model_http
from scenarist.llm.script import ModelTurn, Script, Segment, TimedText, ToolAction

PROMPT = "list the project files"


def _script(name: str, prompt: str, at_ms: int = 0, text: str = "Listing the files.") -> Script:
    turn = ModelTurn(0, text=(TimedText(at_ms, text),),
                     actions=(ToolAction("runCmd", {"cmd": "ls -la"}),))
    return Script(name=name, prompt=prompt, segments=(Segment(prompt, (turn,)),),
                  api_style="anthropic")


SCRIPTS = [_script("now", PROMPT), _script("paced", "show the paced answer", at_ms=30),
           _script("other", "show the other answer", text="Otherwise")]


def _body(path: str, prompt: str = PROMPT, stream: bool = False) -> bytes:
    if path == "/v1/messages":
        body: dict[str, Any] = {"model": "m", "max_tokens": 100,
                                "messages": [{"role": "user", "content": prompt}]}
    elif path == "/v1/responses":
        body = {"model": "m", "input": prompt}
    else:
        body = {"model": "m", "messages": [{"role": "user", "content": prompt}]}
    return json.dumps({**body, "stream": stream}).encode()


def _request(path: str, body: bytes, *, chunked: bool = False, extra: bytes = b"") -> bytes:
    """A raw HTTP/1.1 request: with a content-length, or the body in chunks (uvicorn's way)."""
    head = b"POST %s HTTP/1.1\r\nhost: test\r\ncontent-type: application/json\r\n" % path.encode()
    if not chunked:
        return head + b"content-length: %d\r\n%s\r\n%s" % (len(body), extra, body)
    half = len(body) // 2
    chunks = b"".join(b"%x\r\n%s\r\n" % (len(part), part) for part in (body[:half], body[half:]))
    return head + b"transfer-encoding: chunked\r\n%s\r\n%s0\r\n\r\n" % (extra, chunks)


class Wire:
    """One client connection, reading whole responses as raw bytes."""

    def __init__(self, port: int) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        self.file = self.sock.makefile("rb")

    def send(self, data: bytes) -> None:
        self.sock.sendall(data)

    def response(self) -> bytes:
        """The next response's bytes, as they came (the ``date`` line left out)."""
        lines = [self.file.readline()]
        while lines[-1] not in (b"\r\n", b""):
            lines.append(self.file.readline())
        head = b"".join(line for line in lines if not line.lower().startswith(b"date:"))
        length = next((int(line.split(b":")[1]) for line in lines
                       if line.lower().startswith(b"content-length:")), None)
        if lines[0].startswith(b"HTTP/1.1 1"):  # 100 Continue: a head alone
            return head
        if length is not None:
            return head + self.file.read(length)
        body = b""
        while True:
            size_line = self.file.readline()
            body += size_line
            size = int(size_line, 16)
            body += self.file.read(size + 2)
            if size == 0:
                return head + body

    def closed(self) -> bool:
        return self.file.read(1) == b""

    def close(self) -> None:
        self.file.close()
        self.sock.close()


@pytest.fixture
def written(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The status of each answer the protocol wrote itself (not through uvicorn's cycle)."""
    statuses: list[int] = []
    response = model_http.ModelHttpProtocol._response

    def spy(self: model_http.ModelHttpProtocol, reply: Any) -> bytes:
        statuses.append(reply.status)
        return response(self, reply)

    monkeypatch.setattr(model_http.ModelHttpProtocol, "_response", spy)
    return statuses


@pytest.mark.parametrize("stream", [False, True], ids=["json", "sse"])
@pytest.mark.parametrize("path", ["/v1/messages", "/v1/responses", "/v1/chat/completions"])
def test_an_answer_written_in_place_is_the_answer_uvicorn_sends(
        serve: Any, written: list[int], path: str, stream: bool) -> None:
    served = serve(SCRIPTS, wall=lambda: 1_700_000_000.0)
    body = _body(path, stream=stream)
    with closing(Wire(served.port)) as wire:
        wire.send(_request(path, body))
        in_place = wire.response()
        wire.send(_request(path, body, chunked=True))  # no content-length: uvicorn's way
        through_asgi = wire.response()
    assert written == [200]
    assert in_place == through_asgi
    assert in_place.startswith(b"HTTP/1.1 200 OK\r\n")
    assert b"Listing" in in_place
    assert (b"transfer-encoding: chunked" in in_place) is stream


def test_requests_on_one_connection_are_answered_in_order(serve: Any, written: list[int]) -> None:
    """A body split over several writes, then pipelined requests with one in the ASGI way
    among them: each answered, in the order sent."""
    served = serve(SCRIPTS)
    messages, responses = _body("/v1/messages"), _body("/v1/responses")
    with closing(Wire(served.port)) as wire:
        split = _request("/v1/responses", responses)
        for piece in (split[:40], split[40:90], split[90:]):
            wire.send(piece)
        answers = [wire.response()]
        wire.send(_request("/v1/messages", messages) + _request("/v1/responses", responses)
                  + _request("/v1/messages", messages, chunked=True)
                  + _request("/v1/responses", responses))
        answers += [wire.response() for _ in range(4)]
    assert [b'"object":"response"' in a for a in answers] == [True, False, True, False, True]
    assert all(b"Listing" in a for a in answers)
    # the last waits behind the chunked one's cycle (uvicorn's pipeline), or comes after it
    assert written[:3] == [200, 200, 200]
    assert [e["status"] for e in served.journal] == [200] * 5


def test_paced_answers_and_errors_go_through_uvicorn(serve: Any, written: list[int]) -> None:
    served = serve(SCRIPTS)
    with closing(Wire(served.port)) as wire:
        wire.send(_request("/v1/messages", _body("/v1/messages", "show the paced answer", True)))
        paced = wire.response()
        wire.send(_request("/v1/messages", _body("/v1/messages", "no scenario has this")))
        missing = wire.response()
        wire.send(_request("/v1/messages", b"{not json"))
        broken = wire.response()
    assert b"Listing" in paced and paced.endswith(b"0\r\n\r\n")
    assert missing.startswith(b"HTTP/1.1 404 ") and b"x-should-retry: false" in missing
    assert broken.startswith(b"HTTP/1.1 400 ") and b'"type":"error"' in broken
    assert written == []
    assert [e["status"] for e in served.journal] == [200, 404, 400]


def test_what_the_protocol_leaves_to_uvicorn_is_answered(serve: Any, written: list[int]) -> None:
    """``Expect: 100-continue``, ``Connection: close``, HTTP/1.0, a body over the limit."""
    served = serve(SCRIPTS)
    body = _body("/v1/messages")
    with closing(Wire(served.port)) as wire:
        wire.send(_request("/v1/messages", body, extra=b"expect: 100-continue\r\n"))
        assert wire.response() == b"HTTP/1.1 100 Continue\r\n\r\n"
        assert b"Listing" in wire.response()
    with closing(Wire(served.port)) as wire:
        wire.send(_request("/v1/messages", body, extra=b"connection: close\r\n"))
        assert b"Listing" in wire.response()
        assert wire.closed()
    with closing(Wire(served.port)) as wire:
        wire.send(_request("/v1/messages", body).replace(b"HTTP/1.1", b"HTTP/1.0", 1))
        assert b"Listing" in wire.response()
        assert wire.closed()
    small = serve(SCRIPTS, body_limit=64)
    with closing(Wire(small.port)) as wire:
        wire.send(_request("/v1/messages", body))
        assert wire.response().startswith(b"HTTP/1.1 413 ")
    assert written == []


def test_an_answer_that_raises_is_a_500_and_the_server_goes_on(
        serve: Any, written: list[int], monkeypatch: pytest.MonkeyPatch) -> None:
    served = serve(SCRIPTS)
    respond = served.server.respond

    def broken(api: str, *args: Any) -> Any:
        if api == "responses":
            raise RuntimeError("a bug")
        return respond(api, *args)

    monkeypatch.setattr(served.server, "respond", broken)
    with closing(Wire(served.port)) as wire:
        wire.send(_request("/v1/responses", _body("/v1/responses")))
        assert wire.response().startswith(b"HTTP/1.1 500 Internal Server Error\r\n")
        assert wire.closed()
    with closing(Wire(served.port)) as wire:
        wire.send(_request("/v1/messages", _body("/v1/messages")))
        assert b"Listing" in wire.response()
    assert written == [200]


def test_answers_written_together_reach_their_own_clients(serve: Any, written: list[int]) -> None:
    """Answers of one turn of the loop go out together (``model_http.Writes``): 24 clients at
    once, each asking four times for its own scenario's answer, each gets its own."""
    served = serve(SCRIPTS)
    prompts = {PROMPT: b"Listing", "show the other answer": b"Otherwise"}

    async def client(k: int) -> list[bool]:
        prompt, path = list(prompts)[k % 2], ("/v1/messages", "/v1/responses")[k // 2 % 2]
        reader, writer = await asyncio.open_connection("127.0.0.1", served.port)
        got = []
        try:
            for _ in range(4):
                writer.write(_request(path, _body(path, prompt)))
                head = await reader.readuntil(b"\r\n\r\n")
                length = int(head.lower().split(b"content-length: ")[1].split(b"\r\n")[0])
                answer = await reader.readexactly(length)
                found = tuple(text for text in prompts.values() if text in answer)
                got.append(found == (prompts[prompt],))
        finally:
            writer.close()
        return got

    async def clients() -> list[list[bool]]:
        return await asyncio.gather(*(client(k) for k in range(24)))

    assert asyncio.run(clients()) == [[True] * 4] * 24
    assert written == [200] * 96


def test_a_uvicorn_without_the_hooks_gets_plain_httptools(monkeypatch: pytest.MonkeyPatch) -> None:
    from scenarist.llm.cli import model_http_protocol
    from scenarist.llm.server import MockModelServer

    server = MockModelServer(SCRIPTS)
    assert model_http.fits_uvicorn()
    assert issubclass(model_http_protocol(server), model_http.ModelHttpProtocol)
    monkeypatch.delattr(model_http.HttpToolsProtocol, "on_response_complete")
    assert not model_http.fits_uvicorn()
    assert model_http_protocol(server) == "httptools"
