"""Playing sessions: each session's planned events are paced by ``scenarist.play.Player`` and
appended to the store as they fall due; pause, resume, stop and prompts act on that player.

One replica plays a session: the one holding its lease in the store. It renews the lease
while playing and appends with it (an append without the lease is refused), so a replica
that lost the lease can never write a duplicate. Every replica watches for orphans
(unfinished sessions nobody holds) and takes them over from the stored position, on the
session's stored schedule (``SessionRow.t0_ms``), so a late takeover catches up at once and
then keeps the original timing.

A pause, resume or stop asked of a replica that does not play the session is written to the
session's row (``requested``) and applied by the player at its next lease renewal.
"""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from collections.abc import Mapping, Sequence
from contextlib import suppress
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Literal

from scenarist.play import Clock, Player, RealClock
from scenarist.rest.events import FINAL_STATUSES, Planned, is_final, user_prompt_event
from scenarist.rest.store import SessionRow, Store

__all__ = ["Control", "Sessions", "Wall", "iso"]

Control = Literal["pause", "resume", "stop"]
LEASE_MS = 3000
HALT_WAIT_S = 0.3  # how long a stopping session may take to finish its store write
_CONTROLS: dict[str, Control] = {"pause": "pause", "resume": "resume", "stop": "stop"}


@dataclass(frozen=True, slots=True)
class Wall:
    """The player's clock read as epoch milliseconds: one offset taken once, so every
    timestamp of every session is on the same clock as the schedule."""

    clock: Clock
    offset_ms: float

    @classmethod
    def of(cls, clock: Clock, epoch_ms: float | None = None) -> Wall:
        now = time.time() * 1000 if epoch_ms is None else epoch_ms
        return cls(clock, now - clock.now_ms())

    def now(self) -> float:
        return self.clock.now_ms() + self.offset_ms

    def epoch(self, clock_ms: float) -> float:
        return clock_ms + self.offset_ms

    def clock_ms(self, epoch_ms: float) -> float:
        return epoch_ms - self.offset_ms


def iso(epoch_ms: float) -> str:
    """ISO-8601 UTC with milliseconds and a ``Z``."""
    stamp = datetime.fromtimestamp(epoch_ms / 1000, UTC).isoformat(timespec="milliseconds")
    return stamp.replace("+00:00", "Z")


def _norm(text: str) -> str:
    return " ".join(text.split()).casefold()


class Sessions:
    """Every session this replica knows of: creates them, plays those it holds, controls
    them. ``plans`` maps a scenario name to its planned events."""

    def __init__(self, store: Store, plans: Mapping[str, Sequence[Planned]], *,
                 clock: Clock | None = None, wall: Wall | None = None, speed: float = 1.0,
                 replica: str | None = None, lease_ms: int = LEASE_MS) -> None:
        self.store = store
        self.plans = plans
        self.clock: Clock = clock if clock is not None else RealClock()
        self.wall = wall if wall is not None else Wall.of(self.clock)
        self.speed = speed
        self.replica = replica or uuid.uuid4().hex[:12]
        self.lease_ms = lease_ms
        self.runners: dict[str, _Runner] = {}
        self._watcher: asyncio.Task[None] | None = None

    async def start(self) -> None:
        """Resume orphaned sessions now and keep watching for more."""
        await self.adopt_orphans()
        self._watcher = asyncio.create_task(self._watch())

    async def halt(self) -> None:
        """Stop playing every session, all at once (shutdown must not take a store round
        trip per session in turn): each player stops, then each lease is released, so
        another replica may take the sessions over."""
        if self._watcher is not None:
            self._watcher.cancel()
            with suppress(asyncio.CancelledError):
                await self._watcher
        runners = list(self.runners.values())
        for runner in runners:
            runner.stop()
        tasks = [r.task for r in runners if r.task is not None]
        if tasks:
            _, late = await asyncio.wait(tasks, timeout=HALT_WAIT_S)
            for task in late:  # stuck on the store: cut it short
                task.cancel()
        await asyncio.gather(*(self.store.release(r.sid, self.replica) for r in runners),
                             return_exceptions=True)

    async def close(self) -> None:
        await self.halt()

    async def create(self, scenario: str, task: dict[str, Any]) -> SessionRow:
        """A new session playing ``scenario`` from now."""
        now = self.wall.now()
        row = SessionRow(id=str(uuid.uuid4()), scenario=scenario, status="queued",
                         created_ms=now, updated_ms=now, task=task, speed=self.speed,
                         t0_ms=now)
        await self.store.lease(row.id, self.replica, self.lease_ms)
        await self.store.put(row)
        self._play(row.id)
        return row

    async def control(self, row: SessionRow, action: Control) -> None:
        """Pause, resume or stop; played here at once, else at the holder's next renewal."""
        runner = self.runners.get(row.id)
        if runner is not None:
            await runner.apply(action)
        else:
            await self.store.put(row.but(requested=action))

    async def prompt(self, row: SessionRow, text: str) -> None:
        """Append the user's prompt; when the scenario's next ``userInputs`` says the same,
        the session moves on to it now."""
        runner = self.runners.get(row.id)
        await self._append(row.id, user_prompt_event(text), self.wall.now())
        if runner is not None:
            runner.jump_to_input(text)

    async def delete(self, sid: str) -> bool:
        runner = self.runners.pop(sid, None)
        if runner is not None:
            await runner.halt()
        await self.store.release(sid, self.replica)
        return await self.store.delete(sid)

    async def adopt_orphans(self) -> list[str]:
        """Take over every session that nobody plays; the ids taken."""
        taken = []
        for sid in await self.store.orphans():
            if sid not in self.runners and await self.store.lease(sid, self.replica,
                                                                  self.lease_ms):
                self._play(sid)
                taken.append(sid)
        return taken

    async def _watch(self) -> None:
        while True:
            await self.clock.sleep_until(self.clock.now_ms() + self.lease_ms / 2)
            with suppress(Exception):  # a store hiccup: look again at the next tick
                await self.adopt_orphans()

    def _play(self, sid: str) -> None:
        runner = _Runner(self, sid)
        self.runners[sid] = runner
        runner.task = asyncio.create_task(runner.run())

    async def _append(self, sid: str, body: Mapping[str, Any], epoch_ms: float,
                      pos: int = -1, owner: str | None = None) -> int | None:
        data = json.dumps({**body, "ts": iso(epoch_ms)}, separators=(",", ":"),
                          ensure_ascii=False)
        return await self.store.append(sid, data, pos, owner)

    async def _record(self, sid: str, planned: Planned | None, body: Mapping[str, Any],
                      epoch_ms: float, **changes: Any) -> None:
        """Keep the row in step with an event just appended (status, merge, position)."""
        row = await self.store.get(sid)
        if row is None:
            return
        if body.get("type") == "status":
            changes["status"] = body["status"]
            if body["status"] in FINAL_STATUSES:
                changes["ended_ms"] = epoch_ms
        if planned is not None and planned.merges:
            changes["merged"] = True
        await self.store.put(row.but(updated_ms=epoch_ms, **changes))


class _Runner:
    """Plays one session (see the module doc)."""

    def __init__(self, sessions: Sessions, sid: str) -> None:
        self.s = sessions
        self.sid = sid
        self.task: asyncio.Task[None] | None = None
        self.player: Player[Planned] | None = None
        self.plan: Sequence[Planned] = ()
        self.pos = 0
        self.jump: int | None = None
        self.jump_ms = 0.0
        self.stopped = False

    async def run(self) -> None:
        renewal = asyncio.create_task(self._renew())
        try:
            await self._play()
        finally:
            renewal.cancel()
            with suppress(asyncio.CancelledError):
                await renewal
            if self.s.runners.get(self.sid) is self:
                del self.s.runners[self.sid]
                await self.s.store.release(self.sid, self.s.replica)

    async def _play(self) -> None:
        row = await self.s.store.get(self.sid)
        if row is None or row.status in FINAL_STATUSES:
            return
        self.plan = self.s.plans.get(row.scenario, ())
        self.pos = await self.s.store.position(self.sid)
        while self.pos < len(self.plan) and not self.stopped:
            row = await self.s.store.get(self.sid)
            if row is None or row.t0_ms is None:
                return
            t0 = row.t0_ms
            if row.paused_ms is not None:  # taken over while paused: the pause so far counts
                t0 += self.s.wall.now() - row.paused_ms
            player = Player(self.plan[self.pos:], clock=self.s.clock, speed=row.speed,
                            start_ms=self.s.wall.clock_ms(t0))
            self.player = player
            if row.paused_ms is not None:
                player.pause()
            async for cue in player.cues():
                planned = cue.beat
                epoch = self.s.wall.epoch(cue.scheduled_ms)
                try:
                    seq = await self.s._append(self.sid, planned.body, epoch, self.pos,
                                               self.s.replica)
                except Exception:  # the store failed: let the lease lapse; whoever
                    seq = None     # adopts the session resumes from the stored position
                if seq is None:  # the lease went to another replica
                    self.stopped = True
                    return
                self.pos += 1
                if planned.merges or planned.body["type"] == "status":
                    await self.s._record(self.sid, planned, planned.body, epoch,
                                         position=self.pos)
                if is_final(planned.body):
                    return
            if self.jump is None or self.stopped:
                return
            self.pos, self.jump = self.jump, None
            await self._move_t0(self.jump_ms)

    def jump_to_input(self, text: str) -> None:
        """Move on to the next planned ``userInputs`` if it says ``text`` (its own event is
        skipped: the prompt was just appended)."""
        wanted = _norm(text)
        for n in range(self.pos, len(self.plan)):
            prompt = self.plan[n].prompt
            if prompt is None:
                continue
            if _norm(prompt) != wanted or self.player is None:
                return
            player = self.player
            if player.paused or player.t0_ms is None:
                return
            ahead = (self.plan[n].at_ms * player.speed + player.t0_ms) - self.s.clock.now_ms()
            if ahead <= 0:
                return
            # the rest of the plan moves earlier by ``ahead``: the session's t0 with it
            self.jump, self.jump_ms = n + 1, -ahead
            player.cancel()
            return

    async def _move_t0(self, delta_ms: float) -> None:
        row = await self.s.store.get(self.sid)
        if row is not None and row.t0_ms is not None:
            await self.s.store.put(row.but(t0_ms=row.t0_ms + delta_ms))

    async def apply(self, action: Control) -> None:
        now = self.s.wall.now()
        row = await self.s.store.get(self.sid)
        if row is None:
            return
        player = self.player
        if action == "pause" and row.paused_ms is None:
            if player is not None:
                player.pause()
            await self.s.store.put(row.but(paused_ms=now, requested=None))
            for status in ("pausing", "paused"):
                await self._status(status, now)
        elif action == "resume" and row.paused_ms is not None:
            if player is not None:
                player.resume()
            assert row.t0_ms is not None
            await self.s.store.put(row.but(paused_ms=None, requested=None,
                                           t0_ms=row.t0_ms + now - row.paused_ms))
            for status in ("resuming", "running"):
                await self._status(status, now)
        elif action == "stop":
            await self.halt()
            await self.s.store.put(row.but(requested=None))
            for status in ("stopping", "stopped"):
                await self._status(status, now)

    async def _status(self, status: str, epoch_ms: float) -> None:
        body = {"type": "status", "status": status}
        await self.s._append(self.sid, body, epoch_ms)
        await self.s._record(self.sid, None, body, epoch_ms)

    def stop(self) -> None:
        """Ask the player to stop; :meth:`halt` also waits for it."""
        self.stopped = True
        if self.player is not None:
            self.player.cancel()

    async def halt(self) -> None:
        """Stop playing (the session's row and history stay as they are)."""
        self.stop()
        task = self.task
        if task is not None and task is not asyncio.current_task():
            with suppress(asyncio.CancelledError):
                await task

    async def _renew(self) -> None:
        store, replica, ttl = self.s.store, self.s.replica, self.s.lease_ms
        while True:
            await self.s.clock.sleep_until(self.s.clock.now_ms() + ttl / 3)
            try:
                held = await store.lease(self.sid, replica, ttl)
            except Exception:  # a store hiccup: the fenced appends keep it safe; retry
                continue
            if not held:
                self.stopped = True
                if self.player is not None:
                    self.player.cancel()
                return
            row = await store.get(self.sid)
            action = None if row is None else _CONTROLS.get(row.requested or "")
            if action is not None:
                # aside: a stop waits for the playing task, which cancels this one
                asyncio.get_running_loop().create_task(self.apply(action))
