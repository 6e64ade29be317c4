"""Agent-shaped traffic (issue 28): ``scenarist llm`` vs aimock and two floors.

Real agents do not repeat one tiny request: every Claude Code or Codex request carries a long
system prompt, a dozen tool schemas and a history that is new each time. The workload:

- 200 conversations x (turn 1, turn 2) x (Claude Code on ``/v1/messages``, Codex on
  ``/v1/responses``) = 800 distinct requests per mode, built from the captured requests in
  tests/data/real-agent-requests (full system prompt and tool list; elided strings,
  ``...<+N chars>``, re-inflated with filler text, capped at ``--inflate`` characters each so
  bodies are ~15 KB; ``--inflate 0`` restores the captured size, 29-50 KB). Each conversation
  varies a nonce in the prompt, every UUID, the tool-call ids and the tool result;
- answers: a line of text plus one shell tool call (turn 1), a ~100-word text (turn 2);
- loads: streamed at c=8 and c=32, non-streamed at c=32; keep-alive connections, each
  connection taking the next body in turn.

Servers side by side: aimock (npm, bench/llm; the same answers through its fixtures),
``scenarist llm`` (default, and ``--no-memo``) and two floors that parse the same bodies with
orjson and answer canned bytes, one ASGI message per SSE event: ``starlette``, the floor as
issue 28 words it (a minimal Starlette + uvicorn app: Starlette's router, ``Request`` and
``Response``), and ``floor``, stricter, the same work as a bare ASGI function on uvicorn;
beside them ``bare``, the HTTP layer alone: the same uvicorn configuration as
``scenarist llm`` (httptools, uvloop) and an ASGI app that reads the body, picks the canned
answer by a byte search (no JSON parse) and sends it as one body message, as scenarist sends
a stream that is all due at once. Its CPU per answer is what uvicorn, the loop and the socket
writes cost on this traffic, the most a faster HTTP server could save. Every server answers
every request kind before the rounds and a sample (1 in 40) of
the answers under load; each answer is parsed and checked (text, tool name, command).

The servers run on CPU 0 and the load generator (a raw-socket asyncio client on uvloop) on
CPU 1; the generator reports its own CPU use per run, so a saturated client shows, and each
server's CPU per answer (from /proc: the figure the shared machine's load moves least). Loads are
measured in interleaved rounds (every server once per load and round, the order turning from
run to run, a 1 s pause before each), figures are medians.

    .venv/bin/python bench/bench_llm_agent_traffic.py [--rounds 3] [--seconds 3] [--inflate 200]
        [--profile OUT.prof]  # the default server under cProfile (pstats file at exit)
        [--base TREE]         # also another source tree's server, e.g. a worktree of HEAD~1

Targets (issue 28): streams/s (c=8, c=32) and non-streaming req/s >= 2x aimock, TTFB p99 <=
aimock's, default >= ``--no-memo``, non-streaming >= 0.8x the floor (the Starlette one, as the
issue words it; the ratio to the stricter ASGI floor is printed beside it), RSS <= 100 MB.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from bench_llm_throughput import (
    PY,
    aimock_argv,
    ensure_tools,
    free_port,
    peer,
    wait_port,
)

from scenarist.llm.process import run_server

ROOT = Path(__file__).resolve().parents[1]
CAPTURES = ROOT / "tests" / "data" / "real-agent-requests"
PROMPT = "create hi.txt"
LINE = "I will create the file with one shell command."
COMMAND = "echo hi > hi.txt"
FINAL = (  # ~100 words
    "Done: hi.txt now exists in the working directory and holds a single line, hi, followed by"
    " a newline. I used one shell command, echo with output redirection, which creates the"
    " file when it is missing and replaces it when it is already there. Nothing else in the"
    " project was touched, no dependency was installed and no test was run, because the"
    " request only asked for the file. If you want different content, another name or a"
    " commit of the change, say so and I will do it next."
)
CONVERSATIONS = 200
SAMPLE_EVERY = 40  # answers under load kept and checked
SETTLE_S = 1.0  # idle before each measured run
SERVER_CPU, CLIENT_CPU = 0, 1
ELIDED = re.compile(r"\.\.\.<\+(\d+) chars>")
UUID_RE = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
FILLER = (
    "Follow the user's instructions, keep changes small and explain what was done. "
    "Prefer the tools provided over guessing; read before editing and check afterwards. "
)

# --- the workload ----------------------------------------------------------------------


def inflate(text: str, cap: int) -> str:
    """Replace each ``...<+N chars>`` by N (at most ``cap``; 0: no cap) characters of filler."""

    def fill(m: re.Match[str]) -> str:
        n = int(m.group(1)) if cap == 0 else min(int(m.group(1)), cap)
        return (FILLER * (n // len(FILLER) + 1))[:n]

    return ELIDED.sub(fill, text)


def capture(name: str, cap: int) -> tuple[dict[str, Any], dict[str, str]]:
    """A captured request's body (its tools put back) and headers, elisions re-inflated."""
    raw = json.loads((CAPTURES / name).read_text())
    body = json.loads(inflate(json.dumps(raw["body"]), cap))
    body["tools"] = json.loads(inflate(json.dumps(raw["tools"]), cap))
    return body, raw["headers"]


def claude_bodies(cap: int) -> tuple[dict[str, Any], dict[str, Any]]:
    """Claude Code's turn 1 and turn 2 (history: our turn 1 answer, its tool result)."""
    one, _ = capture("claude_turn1_request.json", cap)
    two = json.loads(json.dumps(one))
    two["messages"] = [
        *one["messages"],
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": LINE},
                {
                    "type": "tool_use",
                    "id": "toolu_TOOLCALLID",
                    "name": "Bash",
                    "input": {"command": COMMAND},
                },
            ],
        },
        {
            "role": "user",
            "content": [
                {
                    "tool_use_id": "toolu_TOOLCALLID",
                    "type": "tool_result",
                    "content": "TOOLRESULT",
                    "is_error": False,
                }
            ],
        },
    ]
    return one, two


def codex_bodies(cap: int) -> tuple[dict[str, Any], dict[str, Any]]:
    """Codex's turn 1 and turn 2 (its turn-2 capture with our turn 1 answer as history)."""
    two, _ = capture("codex_turn2_followup_request.json", cap)
    history = [item for item in two["input"] if item.get("type") == "message"]
    one = {**two, "input": history}
    two["input"] = [
        *history,
        {
            "type": "message",
            "role": "assistant",
            "id": "msg_TOOLCALLID",
            "content": [{"type": "output_text", "text": LINE, "annotations": []}],
        },
        {
            "type": "function_call",
            "id": "fc_TOOLCALLID",
            "name": "exec_command",
            "arguments": json.dumps({"cmd": COMMAND}),
            "call_id": "call_TOOLCALLID",
        },
        {
            "type": "function_call_output",
            "call_id": "call_TOOLCALLID",
            "output": "TOOLRESULT",
        },
    ]
    return one, two


def vary(template: str, conv: int) -> str:
    """One conversation's copy: its own UUIDs, nonce in the prompt, tool-call id and result."""

    def new_uuid(m: re.Match[str]) -> str:
        return str(uuid.UUID(hashlib.md5(f"{conv}:{m.group(0)}".encode()).hexdigest()))

    nonce = hashlib.sha1(f"nonce {conv}".encode()).hexdigest()[:10]
    text = UUID_RE.sub(new_uuid, template)
    text = text.replace(json.dumps(PROMPT), json.dumps(f"{PROMPT} (ticket {nonce})"), 1)
    text = text.replace("TOOLCALLID", f"{conv:04d}{nonce}")
    result = f"Chunk ID: {nonce[:6]}\\nWall time: 0.{conv:04d} seconds\\nProcess exited with code 0"
    return text.replace("TOOLRESULT", result)


@dataclass(frozen=True)
class Request:
    api: str  # "messages" | "responses"
    turn: int
    path: str
    headers: bytes  # extra header lines, CRLF-terminated
    body: bytes


def workload(stream: bool, cap: int) -> list[Request]:
    """800 distinct requests: conversations interleaved, so turn 2 follows turn 1 closely."""
    kinds = [
        ("messages", "/v1/messages?beta=true", claude_bodies(cap)),
        ("responses", "/v1/responses", codex_bodies(cap)),
    ]
    out: list[Request] = []
    for conv in range(CONVERSATIONS):
        session = str(uuid.UUID(hashlib.md5(f"session {conv}".encode()).hexdigest()))
        for turn in (1, 2):
            for api, path, bodies in kinds:
                tmpl = dict(bodies[turn - 1], stream=stream)
                body = vary(json.dumps(tmpl, separators=(",", ":"), ensure_ascii=False), conv)
                if api == "messages":
                    head = (
                        "anthropic-version: 2023-06-01\r\nx-api-key: sk-test\r\n"
                        f"x-claude-code-session-id: {session}\r\n"
                    )
                else:
                    head = f"authorization: Bearer sk-test\r\nsession-id: {session}\r\n"
                out.append(Request(api, turn, path, head.encode(), body.encode()))
    return out


# --- the servers -----------------------------------------------------------------------


SCENARIO = f"""name: agent-bench
timeline:
  - userInputs:
      - [0, {json.dumps(PROMPT)}]
  - llmResponse:
      - assistant:
          - [0, {json.dumps(LINE)}]
  - agentActions:
      - runCmd: {{ cmd: {json.dumps(COMMAND)} }}
  - llmResponse:
      - assistant:
          - [0, {json.dumps(FINAL)}]
"""


def aimock_fixtures() -> dict[str, Any]:
    """The same answers for aimock: one fixture per agent (its shell tool) and turn."""
    fixtures = []
    for tool, args in (("Bash", {"command": COMMAND}), ("exec_command", {"cmd": COMMAND})):
        fixtures.append(
            {
                "match": {"userMessage": PROMPT, "toolName": tool, "hasToolResult": False},
                "response": {
                    "content": LINE,
                    "toolCalls": [{"name": tool, "arguments": json.dumps(args)}],
                },
            }
        )
        fixtures.append(
            {
                "match": {"userMessage": PROMPT, "toolName": tool, "hasToolResult": True},
                "response": {"content": FINAL},
            }
        )
    return {"fixtures": fixtures}


#: what the floor and the bare server share: the canned answers, reading a body, serving
PEER_HEAD = """
import sys, orjson, uvicorn
from pathlib import Path
CANNED = {p.name: p.read_bytes() for p in Path(sys.argv[2]).iterdir()}
async def read_body(receive):
    chunks = []
    more = True
    while more:
        message = await receive()
        chunks.append(message.get("body", b""))
        more = message.get("more_body", False)
    return b"".join(chunks)
"""
PEER_RUN = """
uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[1]), log_level="warning",
            access_log=False, lifespan="off", http="httptools", loop="uvloop")
"""

#: what the two floors share: the canned streams as events, the turn read from the parsed body
PEER_PICK = """
def events(raw):
    return [e + b"\\n\\n" for e in raw.split(b"\\n\\n") if e]
STREAMS = {k: events(v) for k, v in CANNED.items() if k.endswith("-stream")}
def turn_of(body):
    if "messages" in body:
        last = body["messages"][-1]["content"]
        return 2 if isinstance(last, list) and last[0].get("type") == "tool_result" else 1
    return 2 if body["input"][-1].get("type") == "function_call_output" else 1
"""

FLOOR = (
    PEER_HEAD
    + PEER_PICK
    + """
async def app(scope, receive, send):
    if scope["type"] != "http":
        return
    body = orjson.loads(await read_body(receive))
    api = "messages" if scope["path"].startswith("/v1/messages") else "responses"
    name = f"{api}-{turn_of(body)}-{'stream' if body.get('stream') else 'json'}"
    if name.endswith("-stream"):
        await send({"type": "http.response.start", "status": 200,
                    "headers": [(b"content-type", b"text/event-stream")]})
        for event in STREAMS[name]:
            await send({"type": "http.response.body", "body": event, "more_body": True})
        await send({"type": "http.response.body", "body": b""})
    else:
        data = CANNED[name]
        await send({"type": "http.response.start", "status": 200,
                    "headers": [(b"content-type", b"application/json"),
                                (b"content-length", str(len(data)).encode())]})
        await send({"type": "http.response.body", "body": data})
"""
    + PEER_RUN
)

#: the floor as issue 28 words it, "a minimal Starlette + uvicorn app": the same work as FLOOR
#: behind Starlette's router, Request and Response (StreamingResponse: one message per event)
STARLETTE = (
    PEER_HEAD
    + PEER_PICK
    + """
from starlette.applications import Starlette
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route
async def sse(events):  # async: Starlette would take a plain iterator's items in threads
    for event in events:
        yield event
async def model(request):
    body = orjson.loads(await request.body())
    api = "messages" if request.url.path.startswith("/v1/messages") else "responses"
    name = f"{api}-{turn_of(body)}-{'stream' if body.get('stream') else 'json'}"
    if name.endswith("-stream"):
        return StreamingResponse(sse(STREAMS[name]), media_type="text/event-stream")
    return Response(CANNED[name], media_type="application/json")
app = Starlette(routes=[Route(p, model, methods=["POST"]) for p in ("/v1/messages", "/v1/responses")])
"""
    + PEER_RUN
)

BARE = (
    PEER_HEAD
    + """
async def app(scope, receive, send):
    if scope["type"] != "http":
        return
    body = await read_body(receive)
    api = "messages" if scope["path"].startswith("/v1/messages") else "responses"
    turn = 2 if b'"tool_result"' in body or b'"function_call_output"' in body else 1
    stream = b'"stream":true' in body
    data = CANNED[f"{api}-{turn}-{'stream' if stream else 'json'}"]
    headers = [(b"content-type", b"text/event-stream" if stream else b"application/json")]
    if not stream:
        headers.append((b"content-length", str(len(data)).encode()))
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    await send({"type": "http.response.body", "body": data, "more_body": stream})
    if stream:
        await send({"type": "http.response.body", "body": b""})
"""
    + PEER_RUN
)


# --- the client ------------------------------------------------------------------------


class Exchange(asyncio.Protocol):
    """One keep-alive connection: send a request, collect its response, repeat."""

    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self.buf = bytearray()
        self.done: asyncio.Future[None] | None = None
        self.first = 0.0
        self.head_end = -1
        self.length = -1  # content-length, or -1 for chunked

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)  # uvloop's is no subclass

    def data_received(self, data: bytes) -> None:
        if not self.buf:
            self.first = time.perf_counter()
        self.buf += data
        if self.head_end < 0:
            self.head_end = self.buf.find(b"\r\n\r\n")
            if self.head_end < 0:
                return
            head = bytes(self.buf[: self.head_end]).lower()
            m = re.search(rb"\r\ncontent-length: *(\d+)", head)
            self.length = int(m.group(1)) if m else -1
        if self.length >= 0:
            complete = len(self.buf) - self.head_end - 4 >= self.length
        else:
            complete = self.buf.endswith(b"\r\n0\r\n\r\n") or self.buf.endswith(
                b"\r\n\r\n0\r\n\r\n"
            )
        if complete and self.done is not None and not self.done.done():
            self.done.set_result(None)

    def connection_lost(self, exc: Exception | None) -> None:
        if self.done is not None and not self.done.done():
            self.done.set_exception(ConnectionError(f"connection closed: {exc}"))

    async def exchange(self, head: bytes, body: bytes) -> tuple[float, bytes]:
        """Send one request; (seconds to the first response byte, the raw response)."""
        assert self.transport is not None
        self.buf = bytearray()
        self.head_end = -1
        self.done = asyncio.get_running_loop().create_future()
        start = time.perf_counter()
        self.transport.writelines((head, body))
        await self.done
        return self.first - start, bytes(self.buf)


def request_head(req: Request, port: int) -> bytes:
    return (
        (
            f"POST {req.path} HTTP/1.1\r\nhost: 127.0.0.1:{port}\r\n"
            f"content-type: application/json\r\ncontent-length: {len(req.body)}\r\n"
        ).encode()
        + req.headers
        + b"\r\n"
    )


def decode(raw: bytes) -> tuple[int, bytes]:
    """Status and de-chunked body of one raw HTTP/1.1 response."""
    head, _, rest = raw.partition(b"\r\n\r\n")
    status = int(head.split(b" ", 2)[1])
    if b"transfer-encoding: chunked" not in head.lower():
        return status, rest
    out = bytearray()
    while True:
        size_line, _, rest = rest.partition(b"\r\n")
        size = int(size_line.split(b";")[0], 16)
        if size == 0:
            return status, bytes(out)
        out += rest[:size]
        rest = rest[size + 2 :]


@dataclass
class LoadResult:
    rate: float
    ttfb_p99_ms: float
    client_cpu: float  # share of one core the generator used
    samples: list[tuple[Request, bytes]] = field(default_factory=list)
    answers: int = 0  # answers received in the run
    server_us: float = 0.0  # the server's CPU (user + system) per answer, µs


async def load(port: int, reqs: list[Request], seconds: float, connections: int) -> LoadResult:
    """``connections`` keep-alive connections sending the workload round-robin for ``seconds``."""
    loop = asyncio.get_running_loop()
    heads = [request_head(r, port) for r in reqs]
    state = {"next": 0}
    ttfbs: list[float] = []
    samples: list[tuple[Request, bytes]] = []
    deadline = time.perf_counter() + seconds

    async def worker() -> int:
        _, conn = await loop.create_connection(Exchange, "127.0.0.1", port)
        n = 0
        try:
            while time.perf_counter() < deadline:
                i = state["next"]
                state["next"] = i + 1
                k = i % len(reqs)
                ttfb, raw = await conn.exchange(heads[k], reqs[k].body)
                ttfbs.append(ttfb)
                if i % SAMPLE_EVERY == 0:
                    samples.append((reqs[k], raw))
                n += 1
        finally:
            if conn.transport is not None:
                conn.transport.close()
        return n

    cpu0 = resource.getrusage(resource.RUSAGE_SELF)
    t0 = time.perf_counter()
    counts = await asyncio.gather(*(worker() for _ in range(connections)))
    wall = time.perf_counter() - t0
    cpu1 = resource.getrusage(resource.RUSAGE_SELF)
    cpu = (cpu1.ru_utime - cpu0.ru_utime) + (cpu1.ru_stime - cpu0.ru_stime)
    ttfbs.sort()
    p99 = ttfbs[min(len(ttfbs) - 1, int(len(ttfbs) * 0.99))] * 1000
    return LoadResult(sum(counts) / wall, p99, cpu / wall, samples, sum(counts))


# --- checking answers ------------------------------------------------------------------


def sse_events(body: bytes) -> list[dict[str, Any]]:
    out = []
    for block in body.decode().split("\n\n"):
        for line in block.split("\n"):
            if line.startswith("data:"):
                data = line[5:].strip()
                if data and data != "[DONE]":
                    out.append(json.loads(data))
    return out


def answer_of(req: Request, body: bytes, stream: bool) -> tuple[str, list[tuple[str, str]]]:
    """The answer's text and tool calls (name, arguments JSON) from either wire form."""
    text: list[str] = []
    calls: list[tuple[str, str]] = []
    if not stream:
        doc = json.loads(body)
        if req.api == "messages":
            for block in doc["content"]:
                if block["type"] == "text":
                    text.append(block["text"])
                elif block["type"] == "tool_use":
                    calls.append((block["name"], json.dumps(block["input"])))
        else:
            for item in doc["output"]:
                if item["type"] == "message":
                    text += [c["text"] for c in item["content"] if c["type"] == "output_text"]
                elif item["type"] == "function_call":
                    calls.append((item["name"], item["arguments"]))
        return "".join(text), calls
    args: dict[int, list[str]] = {}
    names: dict[int, str] = {}
    for ev in sse_events(body):
        kind = ev.get("type")
        if req.api == "messages":
            if kind == "content_block_start" and ev["content_block"]["type"] == "tool_use":
                names[ev["index"]] = ev["content_block"]["name"]
                args[ev["index"]] = []
            elif kind == "content_block_delta":
                delta = ev["delta"]
                if delta["type"] == "text_delta":
                    text.append(delta["text"])
                elif delta["type"] == "input_json_delta":
                    args[ev["index"]].append(delta["partial_json"])
        elif kind == "response.output_text.delta":
            text.append(ev["delta"])
        elif kind == "response.output_item.done" and ev["item"]["type"] == "function_call":
            names[ev["output_index"]] = ev["item"]["name"]
            args[ev["output_index"]] = [ev["item"]["arguments"]]
    calls = [(names[i], "".join(args[i])) for i in sorted(names)]
    return "".join(text), calls


def check(server: str, req: Request, raw: bytes, stream: bool) -> None:
    """Raise unless ``raw`` answers ``req`` as scripted (text, tool, command)."""
    status, body = decode(raw)
    where = f"{server}, {req.api} turn {req.turn}, {'stream' if stream else 'json'}"
    if status != 200:
        raise AssertionError(f"{where}: status {status}: {body[:300]!r}")
    text, calls = answer_of(req, body, stream)
    want = LINE if req.turn == 1 else FINAL
    if text.strip() != want:
        raise AssertionError(f"{where}: text {text[:120]!r}, expected {want[:60]!r}")
    if req.turn == 2:
        if calls:
            raise AssertionError(f"{where}: unexpected tool calls {calls}")
        return
    tool = "Bash" if req.api == "messages" else "exec_command"
    if len(calls) != 1 or calls[0][0] != tool or COMMAND not in json.loads(calls[0][1]).values():
        raise AssertionError(f"{where}: tool calls {calls}, expected {tool} running {COMMAND!r}")


async def verify(server: str, port: int, reqs: list[Request], stream: bool) -> None:
    """Every request kind of a few conversations, one connection, checked one by one."""
    kinds: dict[tuple[str, int], int] = {}
    picked = [r for i, r in enumerate(reqs) if kinds.setdefault((r.api, r.turn), i) == i]
    picked += reqs[-4:]
    _, conn = await asyncio.get_running_loop().create_connection(Exchange, "127.0.0.1", port)
    try:
        for req in picked:
            _, raw = await conn.exchange(request_head(req, port), req.body)
            check(server, req, raw, stream)
    finally:
        assert conn.transport is not None
        conn.transport.close()


# --- running it ------------------------------------------------------------------------


def _tree(pid: int) -> list[int]:
    """``pid`` and its children (aimock's bin may be a wrapper)."""
    try:
        return [pid, *map(int, Path(f"/proc/{pid}/task/{pid}/children").read_text().split())]
    except OSError:
        return [pid]


def cpu_s(pid: int) -> float:
    """CPU seconds (user + system) used so far by ``pid`` and its children: per answer, the
    server's cost is a figure the shared machine's load moves far less than its rate."""
    total = 0
    for p in _tree(pid):
        try:
            fields = Path(f"/proc/{p}/stat").read_text().rpartition(")")[2].split()
            total += int(fields[11]) + int(fields[12])  # utime, stime (fields 14, 15)
        except OSError:
            pass
    return total / os.sysconf("SC_CLK_TCK")


def rss_mb(pid: int) -> float:
    """Resident set of ``pid`` and its children (aimock's bin may be a wrapper)."""
    total = 0
    for p in _tree(pid):
        try:
            for line in Path(f"/proc/{p}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
        except OSError:
            pass
    return total / 1024


@contextmanager
def scenarist(
    scenario: Path, *flags: str, profile: Path | None = None, tree: Path | None = None
) -> Iterator[tuple[int, int]]:
    """``scenarist llm`` (optionally under cProfile, written to ``profile`` at exit; or from
    another source ``tree``, to compare commits in one run)."""
    if profile is None:
        env = None if tree is None else {**os.environ, "PYTHONPATH": str(tree / "src")}
        with run_server(scenario, *flags, env=env) as server:
            yield server.port, server.pid
        return
    port = free_port()
    argv = [PY, "-m", "cProfile", "-o", str(profile), "-m", "scenarist", "llm"]
    argv += ["--scenario", str(scenario), "--port", str(port), *flags]
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_port(port)
        yield port, proc.pid
    finally:
        proc.send_signal(2)  # SIGINT: cProfile writes its figures on the way out
        proc.wait(30)


def capture_floor(work: Path, port: int, streamed: list[Request], plain: list[Request]) -> None:
    """The floor answers with what scenarist sent for the first conversation."""

    async def grab() -> None:
        _, conn = await asyncio.get_running_loop().create_connection(Exchange, "127.0.0.1", port)
        for reqs, mode in ((streamed, "stream"), (plain, "json")):
            for req in reqs[:4]:
                _, raw = await conn.exchange(request_head(req, port), req.body)
                status, body = decode(raw)
                assert status == 200, body[:300]
                (work / "canned" / f"{req.api}-{req.turn}-{mode}").write_bytes(body)
        assert conn.transport is not None
        conn.transport.close()

    (work / "canned").mkdir()
    asyncio.run(grab())


def report(
    results: dict[str, dict[str, list[LoadResult]]], rss: dict[str, float], sizes: str
) -> None:
    names = ["aimock", "default", "no-memo", "starlette", "floor", "bare"]
    extra = [n for n in ("base", "base-no-memo") if n in rss]
    print(
        f"\nmedians of the rounds ({sizes}); server on CPU {SERVER_CPU}, client on CPU {CLIENT_CPU}"
    )
    print(
        f"{'load':24s}"
        + "".join(f"{n:>12s}" for n in names)
        + "   default/aimock  no-memo/aimock  default/starlette  default/floor  default/no-memo"
    )
    for load_name, by in results.items():
        rate = {n: statistics.median(r.rate for r in by[n]) for n in names}
        ttfb = {n: statistics.median(r.ttfb_p99_ms for r in by[n]) for n in names}
        print(
            f"{load_name + ' /s':24s}"
            + "".join(f"{rate[n]:12,.0f}" for n in names)
            + f"   {rate['default'] / rate['aimock']:14.2f}  {rate['no-memo'] / rate['aimock']:14.2f}"
            + f"  {rate['default'] / rate['starlette']:17.2f}"
            + f"  {rate['default'] / rate['floor']:13.2f}  {rate['default'] / rate['no-memo']:15.2f}"
        )
        print(
            f"{'  TTFB p99 ms':24s}"
            + "".join(f"{ttfb[n]:12.1f}" for n in names)
            + f"   {ttfb['default'] / ttfb['aimock']:14.2f}  {ttfb['no-memo'] / ttfb['aimock']:14.2f}"
        )
        us = {n: statistics.median(r.server_us for r in by[n]) for n in names}
        print(
            f"{'  server CPU µs/answer':24s}"
            + "".join(f"{us[n]:12.0f}" for n in names)
            + f"   {us['default'] / us['aimock']:14.2f}  {us['no-memo'] / us['aimock']:14.2f}"
            + f"  {us['default'] / us['starlette']:17.2f}"
            + f"  {us['default'] / us['floor']:13.2f}  {us['default'] / us['no-memo']:15.2f}"
        )
        cpu = max(r.client_cpu for n in names for r in by[n])
        print(f"{'  client CPU (max)':24s}{cpu:12.0%}")
    print(f"{'RSS max MB':24s}" + "".join(f"{rss[n]:12.0f}" for n in names))
    for name in extra:  # the other tree: this tree's rate over its rate
        mine = "default" if name == "base" else "no-memo"
        for load_name, by in results.items():
            ratio = statistics.median(r.rate for r in by[mine]) / statistics.median(
                r.rate for r in by[name]
            )
            p99 = statistics.median(r.ttfb_p99_ms for r in by[name])
            us = statistics.median(r.server_us for r in by[mine]) / statistics.median(
                r.server_us for r in by[name]
            )
            print(
                f"{load_name:24s} {mine} vs {name}: {ratio:5.2f}x, server CPU per answer"
                f" {us:4.2f}x  ({name} TTFB p99 {p99:.1f} ms)"
            )
        print(f"{'RSS max MB':24s} {name}: {rss[name]:.0f}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=3, help="per load, round and server")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument(
        "--inflate", type=int, default=200, help="characters per elided string (0: as captured)"
    )
    ap.add_argument(
        "--only", help="comma-separated servers (aimock,default,no-memo,starlette,floor,bare)"
    )
    ap.add_argument(
        "--base", type=Path, help="also run another source tree (e.g. a worktree of HEAD~1)"
    )
    ap.add_argument(
        "--profile", type=Path, help="cProfile `scenarist llm` (default) into this file"
    )
    args = ap.parse_args()
    ensure_tools()
    try:
        import uvloop

        uvloop.install()
    except ImportError:
        pass
    streamed = workload(True, args.inflate)
    plain = workload(False, args.inflate)
    sizes = sorted(len(r.body) for r in streamed)
    size_note = f"bodies {sizes[0] / 1024:.1f}-{sizes[-1] / 1024:.1f} KB"
    print(f"{len(streamed)} distinct requests per mode, {size_note}; uptime: {os.getloadavg()}")
    loads: dict[str, tuple[list[Request], int, bool]] = {
        "streams c=32": (streamed, 32, True),
        "streams c=8": (streamed, 8, True),
        "non-streaming c=32": (plain, 32, False),
    }
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        scenario = work / "agent-bench.yaml"
        scenario.write_text(SCENARIO)
        (work / "aimock.json").write_text(json.dumps(aimock_fixtures()))
        (work / "floor.py").write_text(FLOOR)
        (work / "bare.py").write_text(BARE)
        (work / "starlette_floor.py").write_text(STARLETTE)  # not starlette.py: the package
        with run_server(scenario) as server:
            capture_floor(work, server.port, streamed, plain)
        ports: dict[str, int] = {}
        for name in ("aimock", "floor", "starlette", "bare"):
            while (port := free_port()) in ports.values():  # the kernel may give one twice
                pass
            ports[name] = port
        servers: dict[str, Callable[[], AbstractContextManager[tuple[int, int]]]] = {
            "aimock": lambda: pid_peer(
                aimock_argv(ports["aimock"], work / "aimock.json", "--chunk-size", "16"),
                ports["aimock"],
            ),
            "default": lambda: scenarist(scenario, profile=args.profile),
            "no-memo": lambda: scenarist(scenario, "--no-memo"),
            "floor": lambda: pid_peer(
                [PY, str(work / "floor.py"), str(ports["floor"]), str(work / "canned")],
                ports["floor"],
            ),
            "starlette": lambda: pid_peer(
                [PY, str(work / "starlette_floor.py"), str(ports["starlette"]), str(work / "canned")],
                ports["starlette"],
            ),
            "bare": lambda: pid_peer(
                [PY, str(work / "bare.py"), str(ports["bare"]), str(work / "canned")],
                ports["bare"],
            ),
        }
        if args.base is not None:
            base = args.base.resolve()
            servers["base"] = lambda: scenarist(scenario, tree=base)
            servers["base-no-memo"] = lambda: scenarist(scenario, "--no-memo", tree=base)
        if args.only:
            keep = set(args.only.split(","))
            servers = {n: s for n, s in servers.items() if n in keep}
        results: dict[str, dict[str, list[LoadResult]]] = {name: {} for name in loads}
        rss: dict[str, float] = {}
        with ExitStack() as stack:
            os.sched_setaffinity(0, {SERVER_CPU})  # the servers inherit CPU 0
            running = {name: stack.enter_context(start()) for name, start in servers.items()}
            os.sched_setaffinity(0, {CLIENT_CPU})
            for name, (port, _) in running.items():
                for reqs, _, stream in loads.values():
                    asyncio.run(verify(name, port, reqs, stream))
                    asyncio.run(load(port, reqs, 1, 8))  # warm-up
            print("answers verified for every server, API, turn and mode", flush=True)
            order = list(running.items())
            for rnd in range(args.rounds):
                for k, (load_name, (reqs, conns, stream)) in enumerate(loads.items()):
                    # each run starts after another server's: aimock (V8) keeps CPU 0 busy
                    # for a moment after its load (collecting ~200 MB), so the order turns
                    # every run and every server gets a pause to settle before its run
                    turn = (rnd * len(loads) + k) % len(order)
                    for name, (port, pid) in order[turn:] + order[:turn]:
                        time.sleep(SETTLE_S)
                        cpu0 = cpu_s(pid)
                        res = asyncio.run(load(port, reqs, args.seconds, conns))
                        res.server_us = (cpu_s(pid) - cpu0) / max(1, res.answers) * 1e6
                        for req, raw in res.samples:
                            check(name, req, raw, stream)
                        rss[name] = max(rss.get(name, 0.0), rss_mb(pid))
                        results[load_name].setdefault(name, []).append(res)
                        print(
                            f"round {rnd + 1} {load_name:20s} {name:8s} {res.rate:8.0f}/s"
                            f" ttfb p99 {res.ttfb_p99_ms:6.1f} ms client CPU {res.client_cpu:4.0%}"
                            f" server {res.server_us:5.0f} µs/answer"
                            f" ({len(res.samples)} answers checked)",
                            flush=True,
                        )
        if not args.only:
            report(results, rss, size_note)
        print(f"uptime: {os.getloadavg()}")
    return 0


@contextmanager
def pid_peer(argv: list[str], port: int) -> Iterator[tuple[int, int]]:
    """A peer (see ``bench_llm_throughput.peer``) as (port, pid)."""
    with peer(argv, port) as p:
        yield p, peer_pid(port)


def peer_pid(port: int) -> int:
    """The pid listening on ``port`` (the peer's real server process)."""
    inode = None
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        parts = line.split()
        if parts[1].endswith(f":{port:04X}") and parts[3] == "0A":
            inode = parts[9]
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            for fd in (proc / "fd").iterdir():
                if os.readlink(fd) == f"socket:[{inode}]":
                    return int(proc.name)
        except OSError:
            continue
    raise RuntimeError(f"no process listens on port {port}")


if __name__ == "__main__":
    sys.exit(main())
