"""Faults on the REST server's SSE streams (issue 25): the scenario's and ``--chaos``'s.

A real SSE client (httpx + httpx-sse) reads each session the way an ``EventSource`` does:
until the stream is cut or ends, then again with ``Last-Event-ID`` (the last id it saw),
dropping frames whose data is not JSON and ids it already has. Whatever the faults, what it
ends up with is the session's stored history, no event lost, none twice, on every store.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
from httpx_sse import aconnect_sse
from restkit import HERE, SCENARIOS, problem, rest_server
from sse import API

from scenarist.faults import CHAOS_HEADER, Close, End, Pause, Write
from scenarist.rest.delivery import Delivery, Outgoing, malformed_frame
from scenarist.rest.events import plan_session
from scenarist.scenario import compile_timeline, load_scenario, load_scenario_text
from scenarist.scenario.model import Fault

FAULTED = HERE / "fault_scenarios" / "rest-stream-faults.yaml"
FINAL = ("completed", "failed", "stopped", "cancelled")


@dataclass
class Leg:
    """One connection: the Last-Event-ID it sent, the frames it got (id, event, data) and
    how it ended: ``cut`` (the body was incomplete), ``end`` (a clean end without the
    final status), ``final``, or the status of a refused request."""

    since: int | None
    frames: list[tuple[int, str, str]] = field(default_factory=list)
    ending: str = "end"


@dataclass
class Reader:
    """What the client kept: the data of each id, and the legs it took."""

    legs: list[Leg] = field(default_factory=list)
    by_id: dict[int, list[Any]] = field(default_factory=dict)
    malformed: int = 0

    @property
    def events(self) -> list[tuple[int, Any]]:
        return sorted((n, copies[0]) for n, copies in self.by_id.items())


async def read_resuming(client: httpx.AsyncClient, sid: str, legs: int = 60) -> Reader:
    """Read ``sid`` to its final status as an ``EventSource`` would (see the module doc)."""
    reader = Reader()
    last: int | None = None
    for _ in range(legs):
        leg = Leg(last)
        reader.legs.append(leg)
        headers = {} if last is None else {"last-event-id": str(last)}
        try:
            async with aconnect_sse(client, "GET", f"{API}/sessions/{sid}/events",
                                    headers=headers) as source:
                if source.response.status_code != 200:
                    leg.ending = str(source.response.status_code)
                    continue
                async for sse in source.aiter_sse():
                    if not sse.data:
                        continue  # a heartbeat
                    leg.frames.append((int(sse.id), sse.event, sse.data))
                    last = int(sse.id)
                    try:
                        body = json.loads(sse.data)
                    except json.JSONDecodeError:
                        reader.malformed += 1
                        continue
                    reader.by_id.setdefault(int(sse.id), []).append(body)
                    if body["type"] == "status" and body["status"] in FINAL:
                        leg.ending = "final"
        except httpx.RemoteProtocolError:
            leg.ending = "cut"
        if leg.ending == "final":
            return reader
    raise AssertionError(f"no final status after {legs} connections: {reader.legs}")


async def history(client: httpx.AsyncClient, sid: str) -> list[tuple[int, Any]]:
    page = (await client.get(f"{API}/sessions/{sid}/events?sort=asc&perPage=200")).json()
    return [(item.pop("id"), item) for item in page["items"]]


async def start(client: httpx.AsyncClient, scenario: str) -> str:
    created = await client.post(f"{API}/tasks", headers={"x-scenario-name": scenario},
                                json={"prompt": "Break the stream"})
    assert created.status_code == 201, created.text
    sid: str = created.json()["session_ids"][0]
    return sid


async def finished(client: httpx.AsyncClient, sid: str) -> None:
    for _ in range(400):
        if (await client.get(f"{API}/sessions/{sid}")).json()["status"] in FINAL:
            return
        await asyncio.sleep(0.025)
    raise AssertionError(f"session {sid} did not finish")


def without_faults(source: Path, target: Path) -> Path:
    """The same scenario with every ``fault`` line removed (named ``stream-uncut``)."""
    lines = [line for line in source.read_text().splitlines() if "fault:" not in line]
    text = "\n".join(lines).replace("name: rest-stream-faults", "name: stream-uncut")
    target.write_text(text + "\n")
    return target


def content(events: list[tuple[int, Any]]) -> list[tuple[int, Any]]:
    return [(n, {k: v for k, v in body.items() if k != "ts"}) for n, body in events]


@pytest.fixture(params=["memory", "file", "redis"])
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "memory":
        yield "sqlite://"
    elif request.param == "file":
        yield f"sqlite:///{tmp_path / 'rest.db'}"
    else:
        import redis

        url = request.getfixturevalue("redis_url")
        redis.Redis.from_url(url).flushdb()
        yield url


async def test_a_resuming_client_loses_and_repeats_nothing_whatever_the_faults(
        store_url: str, tmp_path: Path) -> None:
    uncut = without_faults(FAULTED, tmp_path / "uncut.yaml")
    with rest_server("--store", store_url, scenarios=[FAULTED, uncut]) as srv:
        async with httpx.AsyncClient(base_url=srv.base_url, timeout=30) as client:
            faulted, plain = await start(client, "rest-stream-faults"), \
                await start(client, "stream-uncut")
            reader, whole = await asyncio.gather(read_resuming(client, faulted),
                                                 read_resuming(client, plain))
            stored = await history(client, faulted)
        logged = srv.stderr
    assert logged == "", logged  # a cut is no error of the server's: not even a log line
    assert [leg.ending for leg in reader.legs] == ["cut", "cut", "end", "cut", "final"]
    assert [leg.ending for leg in whole.legs] == ["final"]
    # the union is the stored history, which is the uncut run's, id for id
    assert reader.events == stored
    assert [n for n, _ in stored] == list(range(1, len(stored) + 1))
    assert content(stored) == content(whole.events)
    # each fault did what it says, and only once (``times: 1``)
    assert reader.malformed == 1
    repeated = {n: len(c) for n, c in reader.by_id.items() if len(c) > 1}
    texts = {n: body.get("thought") or body.get("message") for n, body in stored}
    assert [texts[n] for n in repeated] == ["six"]  # the duplicate, id and all
    second = [texts[n] for n, _, _ in reader.legs[1].frames]
    assert second[second.index("seven") + 1:][:3] == ["nine", "eight", "ten"]  # reordered
    assert texts[reader.legs[2].frames[0][0]] == "eleven"  # cut inside its frame: resent
    assert reader.legs[3].since == reader.legs[2].frames[-1][0]


#: chaos that makes the client reconnect, so a run has many streams
CUTTING = "0.8:disconnect,truncate,httpStatus"


async def test_times_counts_the_strikes_of_every_replica(redis_url: str,
                                                         tmp_path: Path) -> None:
    """A fault with ``times: 1`` cuts the first stream that reaches it, on one replica; a
    stream from the start on another replica goes through; both get the stored history."""
    import redis

    redis.Redis.from_url(redis_url).flushdb()
    path = one_fault("disconnect", tmp_path)
    args = ("--store", redis_url)
    with rest_server(*args, scenarios=[path]) as a, rest_server(*args, scenarios=[path]) as b:
        async with httpx.AsyncClient(base_url=a.base_url, timeout=30) as on_a, \
                httpx.AsyncClient(base_url=b.base_url, timeout=30) as on_b:
            sid = await start(on_a, "fault-disconnect")
            first = await read_resuming(on_a, sid)
            again = await read_resuming(on_b, sid)
            stored = await history(on_b, sid)
    assert [leg.ending for leg in first.legs] == ["cut", "final"]
    assert [leg.ending for leg in again.legs] == ["final"]
    assert first.events == again.events == stored


async def test_the_same_chaos_seed_cuts_the_same_streams(tmp_path: Path) -> None:
    paced = SCENARIOS / "paced.yaml"

    async def trace(seed: int) -> tuple[list[tuple[int | None, int, str]], bool]:
        with rest_server("--speed", "0.05", "--chaos", CUTTING, "--seed", str(seed),
                         scenarios=[paced]) as srv:
            async with httpx.AsyncClient(base_url=srv.base_url, timeout=30) as client:
                sid = await start(client, "paced")
                await finished(client, sid)
                reader = await read_resuming(client, sid, legs=200)
                exact = reader.events == await history(client, sid)
        return [(leg.since, len(leg.frames), leg.ending) for leg in reader.legs], exact

    (legs, exact), again, (other, other_exact) = await trace(7), await trace(7), await trace(8)
    assert again == (legs, exact) and other != legs
    assert sum(1 for leg in legs if leg[2] != "final") >= 3  # it did strike
    assert exact and other_exact  # whatever the cuts: the whole history, each event once


async def test_a_request_header_asks_for_chaos_on_its_stream_alone() -> None:
    with rest_server("--speed", "0.05", "--seed", "3",
                     scenarios=[SCENARIOS / "paced.yaml"]) as srv:
        async with httpx.AsyncClient(base_url=srv.base_url, timeout=30) as client:
            sid = await start(client, "paced")
            await finished(client, sid)
            url, sse = f"{API}/sessions/{sid}/events", {"accept": "text/event-stream"}
            cut = await client.get(url, headers=sse | {CHAOS_HEADER: "1:truncate"})
            whole = await client.get(url, headers=sse)
            bad = await client.get(url, headers=sse | {CHAOS_HEADER: "often"})
    assert 1 <= cut.text.count("data: ") <= 16 and whole.text.count("data: ") == 124
    assert CHAOS_HEADER in str(problem(bad, 400)["detail"])


def test_faults_are_placed_on_the_event_a_stream_reaches_them_at() -> None:
    planned = plan_session(compile_timeline(load_scenario(FAULTED)))
    placed = [(p.body.get("thought") or p.body.get("message") or p.body.get("status"),
               [f.kind for f in p.faults]) for p in planned if p.faults]
    assert placed == [("three", ["disconnect"]), ("five", ["malformed"]), ("six", ["duplicate"]),
                      ("eight", ["reorder"]), ("ten", ["stall"]),
                      ("eleven", ["fragment", "disconnect"]), ("fourteen", ["truncate"]),
                      ("fifteen", ["stall"])]
    counted = load_scenario_text(
        "name: t\ntimeline:\n  - llmResponse:\n      - think: [[0, a], [0, b], [0, c]]\n"
        "      - fault: {kind: truncate, afterEvents: 1}\n  - fault: {kind: exit}\n")
    plan = plan_session(compile_timeline(counted))
    assert [(p.body.get("thought"), [f.kind for f in p.faults]) for p in plan if p.faults] == [
        ("b", ["truncate"]), (None, ["exit"])]  # the last: before the final status


def frame(n: int, text: str = "x") -> Outgoing:
    return Outgoing(n, f"id: {n}\ndata: {{\"t\":\"{text}\"}}\n\n".encode())


def writes(actions: list[Any]) -> bytes:
    return b"".join(a.data for a in actions if isinstance(a, Write))


def test_delivery_strikes_between_and_inside_frames() -> None:
    d = Delivery()
    assert d.feed(frame(1)) == [Write(frame(1).frame or b"", 1)]
    d.arm(Fault(kind="duplicate"))
    assert writes(d.feed(frame(2))) == (frame(2).frame or b"") * 2
    d.arm(Fault(kind="reorder"))
    assert d.feed(frame(3)) == []
    assert writes(d.feed(frame(4))) == (frame(4).frame or b"") + (frame(3).frame or b"")
    d.arm(Fault(kind="stall", ms=50))
    assert d.feed(frame(5))[0] == Pause(50)
    d.arm(Fault(kind="disconnect"), 5)
    assert d.feed(frame(6)) == [Write(b"id: 6", 6), Close()] and d.done
    assert d.feed(frame(7)) == []
    truncated = Delivery()
    truncated.arm(Fault(kind="truncate"))
    assert truncated.feed(frame(1)) == [End()]


def test_reorder_never_moves_an_event_past_the_final_status() -> None:
    d = Delivery()
    d.arm(Fault(kind="reorder"))
    assert d.feed(frame(1)) == []
    final = Outgoing(2, b"id: 2\ndata: {}\n\n", final=True)
    assert writes(d.feed(final)) == (frame(1).frame or b"") + (final.frame or b"")


def test_fragments_and_whole_frame_kinds_placed_by_bytes() -> None:
    d = Delivery()
    d.arm(Fault(kind="fragment", chunk_bytes=4), 3)
    actions = d.feed(frame(1))
    assert [len(a.data) for a in actions if isinstance(a, Write)] == [3, 4, 4, 4, 4, 4]  # 23 bytes
    assert writes(actions) == frame(1).frame
    late = Delivery()
    late.arm(Fault(kind="malformed", text="not json"), 2)
    assert writes(late.feed(frame(1))) == frame(1).frame  # waits for the frame's end
    assert writes(late.feed(frame(2))) == b"data: not json\n\n" + (frame(2).frame or b"")


def test_a_malformed_frame_has_no_id_and_keeps_the_event_name() -> None:
    bad = malformed_frame(b'id: 4\nevent: status\ndata: {"status":"running"}\n\n', None)
    assert bad == b'event: status\ndata: {"status":\n\n'
    with pytest.raises(json.JSONDecodeError):
        json.loads(bad.split(b"data: ")[1])


#: one fault of each kind an SSE stream plays, placed after the response's first two events
KINDS = {
    "disconnect": "{kind: disconnect}",
    "truncate": "{kind: truncate}",
    "malformed": "{kind: malformed}",
    "stall": "{kind: stall, ms: 200}",
    "slowFirstByte": "{kind: slowFirstByte, ms: 200}",
    "duplicate": "{kind: duplicate}",
    "reorder": "{kind: reorder}",
    "httpStatus": "{kind: httpStatus, statusCode: 503, retryAfterSeconds: 1}",
    "fragment": "{kind: fragment, bytes: 5}",
}


def one_fault(kind: str, folder: Path) -> Path:
    path = folder / f"{kind}.yaml"
    path.write_text(f"name: fault-{kind}\ntimeline:\n  - llmResponse:\n"
                    "      - think: [[10, one], [10, two]]\n"
                    f"      - fault: {KINDS[kind]}\n"
                    "      - assistant: [[10, three], [10, four]]\n")
    return path


def verdict(reader: Reader, exact: bool) -> str:
    """What the resuming httpx-sse client saw and did, in words (docs/faults.md's rows)."""
    said = {"cut": "body cut (httpx RemoteProtocolError)",
            "end": "stream ends before the final status"}
    parts = [said.get(leg.ending, f"HTTP {leg.ending} (problem+json)")
             for leg in reader.legs[:-1]]
    if len(reader.legs) > 1:
        parts.append("reconnects with Last-Event-ID")
    if reader.malformed:
        parts.append(f"{reader.malformed} frame not JSON (JSONDecodeError), skipped")
    twice = sum(len(copies) - 1 for copies in reader.by_id.values())
    if twice:
        parts.append(f"{twice} id sent twice, dropped by id")
    ids = [n for leg in reader.legs for n, _, _ in leg.frames]
    if any(b < a for a, b in itertools.pairwise(ids)):
        parts.append("ids out of order, kept by id")
    parts.append("every event once" if exact else "events lost")
    return "; ".join(parts)


Verdict = Callable[[str, str, str, str], None]
#: the clients of docs/faults.md's REST rows
HTTPX_SSE = "httpx-sse, reconnecting like an EventSource"
CHROMIUM_EVENT_SOURCE = "EventSource (chromium)"


async def test_each_kind_with_a_resuming_httpx_sse_client(tmp_path: Path,
                                                          fault_verdict: Verdict) -> None:
    paths = [one_fault(kind, tmp_path) for kind in KINDS]
    with rest_server(scenarios=paths) as srv:
        async with httpx.AsyncClient(base_url=srv.base_url, timeout=30) as client:
            seen = {}
            for kind in KINDS:
                sid = await start(client, f"fault-{kind}")
                reader = await read_resuming(client, sid)
                seen[kind] = verdict(reader, reader.events == await history(client, sid))
    for kind, observed in seen.items():
        fault_verdict("rest", HTTPX_SSE, kind, observed)
    assert all(v.endswith("every event once") for v in seen.values()), seen
    assert seen["disconnect"].startswith("body cut") and seen["truncate"].startswith("stream ends")
    assert seen["httpStatus"].startswith("HTTP 503")
    assert seen["stall"] == seen["fragment"] == seen["slowFirstByte"] == "every event once"


def test_the_server_warns_at_start_about_kinds_it_does_not_play(tmp_path: Path) -> None:
    path = tmp_path / "exit.yaml"
    path.write_text("name: exits\ntimeline:\n  - llmResponse:\n      - assistant: [[0, hi]]\n"
                    "  - fault: {kind: exit, code: 3}\n  - fault: {kind: stderr, text: noise}\n")
    with rest_server(scenarios=[path]) as srv:
        for _ in range(100):  # stderr is read by a thread of its own
            if (warned := srv.stderr).count("warning:") >= 2:
                break
            time.sleep(0.05)
    assert warned.count("warning:") == 2 and "exit" in warned and "stderr" in warned
    assert f"{path}:5:" in warned


EVENT_SOURCE_PAGE = """<!doctype html><meta charset=utf-8><title>faults</title><script>
const sid = new URLSearchParams(location.search).get("sid");
const seen = [], log = {opens: 0, errors: 0, malformed: 0};
const source = new EventSource(`/api/v1/sessions/${sid}/events`);
function done(how) { source.close(); log.end = how; window.result = {seen, ...log}; }
source.onopen = () => { log.opens += 1; };
source.onerror = () => {
  log.errors += 1;
  if (source.readyState === EventSource.CLOSED) done("closed");
};
source.onmessage = e => {
  let body;
  try { body = JSON.parse(e.data); } catch { log.malformed += 1; return; }
  seen.push([Number(e.lastEventId), body]);
  if (body.type === "status" && ["completed", "failed"].includes(body.status)) done("final");
};
</script>"""


def browser_verdict(result: dict[str, Any], stored: list[tuple[int, Any]]) -> str:
    """What chromium's EventSource did, in words (docs/faults.md's rows)."""
    ids = [n for n, _ in result["seen"]]
    parts = []
    if result["end"] == "closed":
        parts.append("error event, readyState CLOSED: no reconnect")
    elif result["opens"] > 1:
        parts.append(f"reconnects by itself {result['opens'] - 1}× with Last-Event-ID")
    if result["malformed"]:
        parts.append(f"JSON.parse throws on {result['malformed']} message")
    if len(ids) > len(set(ids)):
        parts.append(f"{len(ids) - len(set(ids))} message repeated (no dedup by id)")
    if ids != sorted(ids):
        parts.append("messages out of order")
    kept = sorted(dict(result["seen"]).items())
    if result["end"] == "final":
        parts.append("every event once by id" if kept == stored else "events lost")
    return "; ".join(parts) or "no visible effect"


@pytest.mark.browser
async def test_each_kind_in_chromium_event_source(tmp_path: Path,
                                                  fault_verdict: Verdict) -> None:
    from playwright.async_api import Route, async_playwright
    from test_rest_browser import ARGS, CHROMIUM

    paths = [one_fault(kind, tmp_path) for kind in KINDS]
    seen = {}
    with rest_server(scenarios=paths) as srv:
        async with httpx.AsyncClient(base_url=srv.base_url, timeout=30) as client, \
                async_playwright() as pw:
            browser = await pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            try:
                page = await browser.new_page()

                async def serve_page(route: Route) -> None:
                    await route.fulfill(body=EVENT_SOURCE_PAGE, content_type="text/html")

                await page.route(f"{srv.base_url}/viewer*", serve_page)
                for kind in KINDS:
                    sid = await start(client, f"fault-{kind}")
                    await page.goto(f"{srv.base_url}/viewer?sid={sid}")
                    await page.wait_for_function("window.result !== undefined", timeout=30_000)
                    result = await page.evaluate("window.result")
                    seen[kind] = browser_verdict(
                        {**result, "seen": [(n, b) for n, b in result["seen"]]},
                        await history(client, sid))
            finally:
                await browser.close()
    for kind, observed in seen.items():
        fault_verdict("rest", CHROMIUM_EVENT_SOURCE, kind, observed)
    assert seen["disconnect"].startswith("reconnects by itself 1×"), seen
    assert seen["httpStatus"] == "error event, readyState CLOSED: no reconnect"
    assert "repeated" in seen["duplicate"] and "out of order" in seen["reorder"]
    assert seen["stall"] == seen["fragment"] == "every event once by id"


def chunks(raw: bytes) -> list[bytes]:
    """The chunks of a chunked HTTP/1.1 response, as sent."""
    head, _, body = raw.partition(b"\r\n\r\n")
    assert b"transfer-encoding: chunked" in head.lower(), head
    out = []
    while True:
        size_line, _, body = body.partition(b"\r\n")
        size = int(size_line, 16)
        if size == 0:
            return out
        out.append(body[:size])
        body = body[size + 2:]


async def test_a_fragment_writes_each_frame_in_pieces_on_the_wire(tmp_path: Path) -> None:
    with rest_server(scenarios=[one_fault("fragment", tmp_path)]) as srv:
        async with httpx.AsyncClient(base_url=srv.base_url, timeout=30) as client:
            sid = await start(client, "fault-fragment")
            await finished(client, sid)
        reader, writer = await asyncio.open_connection("127.0.0.1", srv.port)
        writer.write(f"GET {API}/sessions/{sid}/events HTTP/1.1\r\nhost: x\r\n"
                     "accept: text/event-stream\r\nconnection: close\r\n\r\n".encode())
        raw = await reader.read(-1)
        writer.close()
    sent = chunks(raw)
    pieces = sent[next(n for n, c in enumerate(sent) if len(c) == 5):]
    assert len(pieces) > 20 and all(len(c) <= 5 for c in pieces)
    ids = [line for line in b"".join(pieces).split(b"\n") if line.startswith(b"id: ")]
    assert len(ids) == 3  # three, four and the final status, each in pieces
