"""Load + validate + compile 1,000 realistic scenarios vs a bare libyaml parse of the same files.

Generates 1,000 scenario files of ~100 timeline events each (see ``_scenario_gen.py``) into
a temporary folder, then times, in alternating rounds (the median round is reported):

* baseline: ``yaml.load(f, Loader=yaml.CSafeLoader)`` of every file (parse only);
* scenarist: ``load_scenario(path)`` (parse, rules, typing, validation) and
  ``compile_timeline`` of every file.

Target: scenarist / baseline <= 2.0. ``--profile`` prints where scenarist's time goes.

    .venv/bin/python bench/bench_scenario_load.py [--files 1000] [--rounds 5] [--profile]
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import random
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import yaml
from _scenario_gen import scenario_yaml

from scenarist.scenario import compile_timeline, load_scenario

TARGET_RATIO = 2.0


def write_files(folder: Path, count: int) -> list[Path]:
    rng = random.Random(1)
    paths = []
    for i in range(count):
        path = folder / f"scenario-{i:04}.yaml"
        path.write_text(scenario_yaml(rng, i), encoding="utf-8")
        paths.append(path)
    return paths


def bare_yaml(paths: list[Path]) -> int:
    events = 0
    for path in paths:
        with path.open("rb") as f:
            events += len(yaml.load(f, Loader=yaml.CSafeLoader)["timeline"])
    return events


def scenarist_load(paths: list[Path]) -> int:
    beats = 0
    for path in paths:
        beats += len(compile_timeline(load_scenario(path)).beats)
    return beats


def seconds(fn: Callable[[list[Path]], int], paths: list[Path]) -> float:
    start = time.perf_counter()
    fn(paths)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--profile", action="store_true", help="profile one scenarist round")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="scenarist-bench-") as tmp:
        paths = write_files(Path(tmp), args.files)
        size = sum(p.stat().st_size for p in paths)
        events = bare_yaml(paths)  # also warms the page cache
        beats = scenarist_load(paths)
        base: list[float] = []
        ours: list[float] = []
        for _ in range(args.rounds):
            base.append(seconds(bare_yaml, paths))
            ours.append(seconds(scenarist_load, paths))
        if args.profile:
            profiler = cProfile.Profile()
            profiler.runcall(scenarist_load, paths)
            pstats.Stats(profiler).sort_stats("tottime").print_stats(25)
    b, o = statistics.median(base), statistics.median(ours)
    print(f"{args.files} files, {size / 1e6:.1f} MB, {events} timeline events, {beats} beats; "
          f"median of {args.rounds} rounds")
    print(f"{'':34} {'total s':>8} {'ms/file':>8}")
    print(f"{'yaml.load CSafeLoader (baseline)':34} {b:8.3f} {b * 1000 / args.files:8.3f}")
    print(f"{'scenarist load+validate+compile':34} {o:8.3f} {o * 1000 / args.files:8.3f}")
    print(f"ratio=scenarist/yaml_csafeloader {o / b:.2f}")
    print("target met" if o / b <= TARGET_RATIO else "TARGET MISSED")


if __name__ == "__main__":
    main()
