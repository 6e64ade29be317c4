"""Test executor (``scenarist run``): how fast program output gets into the screen model.

A program (``cat`` of a prepared file, so the writer costs next to nothing) prints N MB of
80-column lines into the runner's pty; the figure is MB/s from spawn until the output is read,
the program reaped and the screen captured (``Terminal``: pty reads, pty.log, the pyte
screen). Next to it, in the same run and on the same file:

- the screen model alone: the same bytes handed to ``ScreenFeed`` from memory in the pty's
  4 KB reads, then the screen captured (no pty, no process: what the runner itself costs);
- the floor: a bare non-blocking read loop on the same kind of pty, no screen (the most any
  reader gets from a pty on this machine);
- the old feed: every byte through ``pyte.ByteStream`` (what the runner did before), on a
  smaller slice (it is slow), as MB/s;
- coloured lines (an SGR sequence and a reset on each line), the same plain-text fast path;
- a TUI-like stream (cursor moves on every line: nothing can be skipped), for the other end.

Prints ``ratio=`` lines against the 50 MB/s target, the floor and the old feed.

    .venv/bin/python bench/bench_runner_output.py [--mb 50] [--rounds 3]
"""

from __future__ import annotations

import argparse
import os
import select
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import ptyprocess
import pyte

from scenarist.runner.feed import ScreenFeed
from scenarist.runner.screen import capture_screen
from scenarist.runner.terminal import Terminal

TARGET_MB_S = 50.0
LINE = "x" * 79 + "\n"


def write_file(folder: Path, name: str, mb: float, line_of: Callable[[int], str]) -> Path:
    path = folder / name
    lines = int(mb * 2**20 / 80)
    with path.open("w", encoding="utf-8") as file:
        block = 4096
        for start in range(0, lines, block):
            file.write("".join(line_of(n) for n in range(start, min(start + block, lines))))
    return path


def through_terminal(path: Path) -> float:
    """MB/s of ``cat path`` into a Terminal: spawn → all read, reaped, screen captured."""
    started = time.perf_counter()
    terminal = Terminal(["cat", str(path)], cwd=path.parent, env={"PATH": os.defpath,
                        "TERM": "xterm-256color"}, width=100, height=30)
    try:
        terminal.wait_exit(terminal.clock.now_ms() + 600_000)
        terminal.capture()
        elapsed = time.perf_counter() - started
        return terminal.bytes_read / 1e6 / elapsed
    finally:
        terminal.close()


def floor(path: Path) -> float:
    """MB/s of a bare non-blocking read loop on a pty running ``cat path``: no screen."""
    started = time.perf_counter()
    process = ptyprocess.PtyProcess.spawn(["cat", str(path)], dimensions=(30, 100))
    os.set_blocking(process.fd, False)
    total = 0
    while True:
        try:
            data = os.read(process.fd, 65536)
        except BlockingIOError:
            select.select([process.fd], [], [], 5.0)
            continue
        except OSError:
            break
        if not data:
            break
        total += len(data)
    process.wait()
    process.close()
    return total / 1e6 / (time.perf_counter() - started)


def intake(path: Path) -> float:
    """MB/s of the file (with the pty's CRLF) into ScreenFeed from memory, 4 KB a write."""
    data = path.read_bytes().replace(b"\n", b"\r\n")
    screen = pyte.Screen(100, 30)
    feed = ScreenFeed(screen, lambda exc: None)
    started = time.perf_counter()
    for offset in range(0, len(data), 4096):
        feed.write(data[offset:offset + 4096])
    feed.flush()
    capture_screen(screen)
    return len(data) / 1e6 / (time.perf_counter() - started)


def old_feed(path: Path, mb: float) -> float:
    """MB/s of pyte.ByteStream fed the first ``mb`` MB of the file (with the pty's CRLF)."""
    data = path.read_bytes()[: int(mb * 2**20)].replace(b"\n", b"\r\n")
    screen = pyte.Screen(100, 30)
    stream = pyte.ByteStream(screen)
    started = time.perf_counter()
    for offset in range(0, len(data), 4096):
        stream.feed(data[offset:offset + 4096])
    return len(data) / 1e6 / (time.perf_counter() - started)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mb", type=float, default=50.0, help="MB of output per run")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds (median)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        plain = write_file(folder, "plain.txt", args.mb, lambda n: LINE)
        coloured = write_file(folder, "coloured.txt", args.mb,
                              lambda n: f"\x1b[3{n % 7 + 1}mline {n:>9}\x1b[0m " + "y" * 63 + "\n")
        tui = write_file(folder, "tui.txt", min(args.mb, 1.0),
                         lambda n: f"\x1b[{n % 30 + 1};1H\x1b[K" + "z" * 70 + "\n")
        figures: dict[str, list[float]] = {"terminal": [], "floor": [], "coloured": [],
                                           "tui": [], "intake": [], "intake_coloured": []}
        for _ in range(args.rounds):
            figures["intake"].append(intake(plain))
            figures["intake_coloured"].append(intake(coloured))
            figures["floor"].append(floor(plain))
            figures["terminal"].append(through_terminal(plain))
            figures["coloured"].append(through_terminal(coloured))
            figures["tui"].append(through_terminal(tui))
        old = old_feed(plain, min(args.mb, 2.0))
    median = {name: statistics.median(values) for name, values in figures.items()}
    load = os.getloadavg()[0]
    print(f"{args.mb:g} MB of 80-column lines, median of {args.rounds} rounds, "
          f"load average {load:.1f}")
    print(f"runner (plain)        {median['terminal']:8.1f} MB/s")
    print(f"runner (coloured)     {median['coloured']:8.1f} MB/s")
    print(f"runner (TUI, 1 MB)    {median['tui']:8.1f} MB/s   cursor moves: drawn in full")
    print(f"pty floor (no screen) {median['floor']:8.1f} MB/s")
    print(f"screen model alone    {median['intake']:8.1f} MB/s   (coloured "
          f"{median['intake_coloured']:.1f}; from memory, 4 KB writes)")
    print(f"old feed (pyte, all)  {old:8.2f} MB/s")
    print(f"ratio=runner/target {median['terminal'] / TARGET_MB_S:.2f}  (target >= 1.0 at "
          f"{TARGET_MB_S:g} MB/s)")
    print(f"ratio=screen_model/target {median['intake'] / TARGET_MB_S:.2f}")
    print(f"ratio=runner/floor {median['terminal'] / median['floor']:.2f}")
    print(f"ratio=runner/old_feed {median['terminal'] / old:.0f}")


if __name__ == "__main__":
    main()
