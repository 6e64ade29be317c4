"""The lean HTTP path (``scenarist.llm.lean_http``) answers byte for byte what ASGI answers.

A request with a ``Content-Length`` takes the lean path; the same request sent with a chunked
body goes through uvicorn's ASGI cycle, so the two can be compared on one server. Raw sockets:
the framing (chunked SSE, keep-alive, pipelining, ``Connection: close``) is what is tested.
"""

from __future__ import annotations

import socket
from typing import Any

from scenarist.llm.script import ModelTurn, Script, Segment, TimedText

FAST = Script(
    name="fast",
    prompt="say hi",
    segments=(Segment("say hi", (ModelTurn(0, text=(TimedText(0, "hi there"),)),)),),
)
PACED = Script(
    name="paced",
    prompt="say it slowly",
    segments=(
        Segment(
            "say it slowly",
            (ModelTurn(0, text=(TimedText(0, "one "), TimedText(30, "two")), duration_ms=30),),
        ),
    ),
)


def _body(prompt: str, stream: bool) -> bytes:
    stream_field = "true" if stream else "false"
    return (b'{"model":"m","stream":' + stream_field.encode() + b',"max_tokens":64,'
            b'"messages":[{"role":"user","content":"' + prompt.encode() + b'"}]}')


def _request(body: bytes, *, chunked: bool = False, close: bool = False,
             ctype: str = "application/json") -> bytes:
    head = f"POST /v1/messages HTTP/1.1\r\nhost: x\r\ncontent-type: {ctype}\r\n"
    if close:
        head += "connection: close\r\n"
    if chunked:
        return ((head + "transfer-encoding: chunked\r\n\r\n").encode()
                + b"%x\r\n" % len(body) + body + b"\r\n0\r\n\r\n")
    return (head + f"content-length: {len(body)}\r\n\r\n").encode() + body


def _read_answer(sock: socket.socket, buffered: bytearray) -> tuple[bytes, bytes]:
    """One whole HTTP answer (head, body) from ``sock``; what follows stays in ``buffered``."""
    while b"\r\n\r\n" not in buffered:
        buffered += _recv(sock)
    head, _, rest = bytes(buffered).partition(b"\r\n\r\n")
    lines = head.lower().split(b"\r\n")
    length = next((int(v.split(b":")[1]) for v in lines if v.startswith(b"content-length")),
                  None)
    rest_buf = bytearray(rest)
    if length is not None:
        while len(rest_buf) < length:
            rest_buf += _recv(sock)
        body, left = bytes(rest_buf[:length]), rest_buf[length:]
    else:  # chunked
        body_parts: list[bytes] = []
        while True:
            while b"\r\n" not in rest_buf:
                rest_buf += _recv(sock)
            size_line, _, after = bytes(rest_buf).partition(b"\r\n")
            size = int(size_line, 16)
            while len(after) < size + 2:
                after += _recv(sock)
            body_parts.append(after[:size])
            rest_buf = bytearray(after[size + 2:])
            if size == 0:
                break
        body, left = b"".join(body_parts), rest_buf
    buffered[:] = left
    return head, body


def _recv(sock: socket.socket) -> bytes:
    data = sock.recv(65536)
    assert data, "the server closed the connection before the answer was whole"
    return data


def _headers(head: bytes) -> dict[bytes, bytes]:
    """The answer's headers without ``date`` (it ticks) and without the framing ones."""
    pairs = (line.split(b": ", 1) for line in head.lower().split(b"\r\n")[1:])
    return {k: v for k, v in pairs if k not in (b"date", b"content-length",
                                                  b"transfer-encoding")}


def test_lean_and_asgi_answers_are_the_same(serve: Any) -> None:
    srv = serve([FAST], wall=lambda: 1_700_000_000.0)
    lean_paths: list[str] = []  # which requests the lean path answered
    answer_now = srv.server.answer_now
    srv.server.answer_now = lambda *a: (lean_paths.append(a[2]), answer_now(*a))[1]
    with socket.create_connection(("127.0.0.1", srv.port), timeout=10) as sock:
        buffered = bytearray()
        for stream in (True, False):
            body = _body("say hi", stream)
            sock.sendall(_request(body))
            lean = _read_answer(sock, buffered)
            sock.sendall(_request(body, chunked=True))  # a chunked body: the ASGI path
            asgi = _read_answer(sock, buffered)
            assert lean[0].split(b"\r\n")[0] == asgi[0].split(b"\r\n")[0] == b"HTTP/1.1 200 OK"
            assert _headers(lean[0]) == _headers(asgi[0])
            assert lean[1] == asgi[1] and b"hi there" in lean[1]
    assert lean_paths == ["/v1/messages", "/v1/messages"]  # the chunked ones went by ASGI
    entries = srv.journal
    assert [e["status"] for e in entries] == [200, 200, 200, 200]
    assert entries[0]["completed"] is True and entries[1]["completed"] is True


def test_pipelined_requests_are_answered_in_order_on_one_connection(serve: Any) -> None:
    srv = serve([FAST, PACED])
    pipelined = (_request(_body("say it slowly", True)) + _request(_body("say hi", False))
                 + _request(_body("say hi", True)))
    with socket.create_connection(("127.0.0.1", srv.port), timeout=10) as sock:
        sock.sendall(pipelined)  # a paced stream first: the next two wait for its end
        buffered = bytearray()
        paced, plain, streamed = (_read_answer(sock, buffered) for _ in range(3))
    assert b"one " in paced[1] and b"two" in paced[1] and paced[1].endswith(b"\n\n")
    assert b'"type":"message"' in plain[1] and b"hi there" in plain[1]
    assert b"event: message_stop" in streamed[1]
    entries = srv.journal
    assert [e["status"] for e in entries] == [200, 200, 200]
    assert entries[0]["completed"] is True and entries[2]["completed"] is True


def test_connection_close_and_refusals(serve: Any) -> None:
    srv = serve([FAST])
    with socket.create_connection(("127.0.0.1", srv.port), timeout=10) as sock:
        sock.sendall(_request(_body("say hi", False), close=True))
        buffered = bytearray()
        head, body = _read_answer(sock, buffered)
        assert b"connection: close" in head.lower() and b"hi there" in body
        assert sock.recv(65536) == b""  # and the server closed it
    with socket.create_connection(("127.0.0.1", srv.port), timeout=10) as sock:
        buffered = bytearray()
        sock.sendall(_request(_body("say hi", False), ctype="text/plain"))
        head, body = _read_answer(sock, buffered)
        assert head.startswith(b"HTTP/1.1 415") and b"application/json" in body
        sock.sendall(_request(_body("nothing scripted", False)))  # keep-alive after an error
        head, body = _read_answer(sock, buffered)
        assert head.startswith(b"HTTP/1.1 404") and b"x-should-retry: false" in head.lower()
        assert b'"type":"error"' in body
