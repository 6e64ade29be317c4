"""A client's outbox: output beyond the budget is skipped with one notice; control frames are
never dropped, but a client that lets them pile up is cut off."""

from __future__ import annotations

import asyncio
import json

from scenarist.hub.outbox import Outbox


class StuckSocket:
    """A send that blocks until released, like a client that stopped reading."""

    def __init__(self) -> None:
        self.sent: list[bytes] = []
        self.release = asyncio.Event()

    async def send(self, frame: bytes) -> None:
        await self.release.wait()
        self.sent.append(frame)


async def drain(box: Outbox, sock: StuckSocket) -> list[dict[str, object]]:
    sock.release.set()
    writer = asyncio.get_running_loop().create_task(box.run())
    while box.pending_bytes or box._queue:
        await asyncio.sleep(0)
    box.close()
    await writer
    return [json.loads(f) for f in sock.sent]


async def test_output_over_budget_is_skipped_and_announced_before_the_next_frame() -> None:
    sock = StuckSocket()
    box = Outbox(sock.send, max_bytes=10, max_messages=100)
    box.push_output("a", b'{"n":1}', 6)
    box.push_output("a", b'{"n":2}', 6)   # 12 > 10: skipped
    box.push_output("b", b'{"n":3}', 4)   # fits: another agent, no notice for it
    box.push_output("a", b'{"n":4}', 6)   # still over: skipped
    assert (box.pending_bytes, box.skipped_total) == (10, 12)
    box.push(b'{"exit":"a"}', "a")        # control frame: the notice for "a" goes first
    frames = await drain(box, sock)
    assert frames == [{"n": 1}, {"n": 3}, {"type": "skipped", "agent": "a", "bytes": 12},
                      {"exit": "a"}]


async def test_control_frames_are_kept_until_the_cap_then_the_client_is_dropped() -> None:
    sock = StuckSocket()
    dropped: list[bool] = []
    box = Outbox(sock.send, max_bytes=10, max_messages=5, on_overflow=lambda: dropped.append(True))
    for i in range(5):
        box.push(f'{{"c":{i}}}'.encode())
    assert not box.closed and not dropped
    box.push(b'{"c":5}')
    assert box.closed and dropped == [True]
    box.push(b'{"c":6}')  # ignored once closed
    assert await drain(box, sock) == []


async def test_drain_below_low_water_resumes_pacing_and_notifies() -> None:
    sock = StuckSocket()
    box = Outbox(sock.send, max_bytes=100, max_messages=100, low_water=8)
    drained: list[Outbox] = []
    box.on_drain = drained.append
    box.pacing = False
    for _ in range(3):
        box.push_output("a", b"{}", 5)
    await drain(box, sock)
    assert drained == [box] and box.pacing
