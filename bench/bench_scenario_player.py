"""Player fidelity on the real clock: 500 beats over 10 s at speed 1.

Prints, for the scenarist Player (absolute schedule, coarse sleep + short spin) and for a
naive chain of ``asyncio.sleep(gap)`` calls (what the reference REST server does):
the p50/p99/max of |actual - scheduled| per beat and the end drift (how late the last beat
is). Target for the Player: p99 <= 2 ms and end drift <= 2 ms.

    .venv/bin/python bench/bench_scenario_player.py [--beats 500] [--seconds 10]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from dataclasses import dataclass

from scenarist.play import Player, RealClock

TARGET_MS = 2.0


@dataclass(frozen=True)
class Beat:
    at_ms: int


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


async def play_player(beats: list[Beat]) -> tuple[list[float], float]:
    errors: list[float] = []
    last = 0.0
    async for cue in Player(beats, clock=RealClock()).cues():
        errors.append(abs(cue.late_ms))
        last = cue.late_ms
    return errors, last


async def play_naive(beats: list[Beat]) -> tuple[list[float], float]:
    clock = RealClock()
    t0 = clock.now_ms()
    previous = 0
    errors: list[float] = []
    last = 0.0
    for beat in beats:
        await asyncio.sleep((beat.at_ms - previous) / 1000)
        previous = beat.at_ms
        last = clock.now_ms() - (t0 + beat.at_ms)
        errors.append(abs(last))
    return errors, last


def row(name: str, errors: list[float], drift: float) -> tuple[str, float, float, float, float]:
    return (name, statistics.median(errors), percentile(errors, 0.99), max(errors), drift)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--beats", type=int, default=500)
    parser.add_argument("--seconds", type=float, default=10.0)
    args = parser.parse_args()
    span = args.seconds * 1000
    beats = [Beat(round(i * span / (args.beats - 1))) for i in range(args.beats)]

    cpu0 = time.process_time()
    player = row("scenarist Player", *asyncio.run(play_player(beats)))
    cpu_player = time.process_time() - cpu0
    naive = row("naive sleep chain", *asyncio.run(play_naive(beats)))

    print(f"{args.beats} beats over {args.seconds:g} s at speed 1, real clock")
    print(f"{'':20} {'p50 ms':>8} {'p99 ms':>8} {'max ms':>8} {'end drift ms':>13}")
    for name, p50, p99, worst, drift in (player, naive):
        print(f"{name:20} {p50:8.3f} {p99:8.3f} {worst:8.3f} {drift:13.3f}")
    print(f"player CPU time: {cpu_player:.2f} s for {args.seconds:g} s of playback")
    print(f"ratio=player_p99/target {player[2] / TARGET_MS:.3f}")
    print(f"ratio=player_end_drift/target {abs(player[4]) / TARGET_MS:.3f}")
    print(f"ratio=naive_end_drift/player_end_drift {abs(naive[4]) / max(abs(player[4]), 1e-3):.1f}")
    ok = player[2] <= TARGET_MS and abs(player[4]) <= TARGET_MS
    print("target met" if ok else "TARGET MISSED")


if __name__ == "__main__":
    main()
