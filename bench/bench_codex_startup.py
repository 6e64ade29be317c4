"""Time to the first event line of fake-codex, next to ``python -c pass``.

Target (issue 4): the first line of ``fake-codex`` in command mode arrives within 3x
the time a bare ``python -c pass`` takes to run, on the same interpreter, measured
in the same run (interleaved, median of N). Prints the figures and the ratios.

    .venv/bin/python bench/bench_codex_startup.py [N]
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
from pathlib import Path

PYTHON = sys.executable
FAKE_CODEX = str(Path(PYTHON).parent / "fake-codex")
TARGET = 3.0


def first_line_seconds(argv: list[str]) -> float:
    """Spawn ``argv`` and return the seconds until its first output line (or its exit)."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE)
    assert proc.stdout is not None
    proc.stdout.readline()
    elapsed = time.perf_counter() - start
    proc.stdout.read()
    proc.stdout.close()
    proc.wait()
    return elapsed


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 40
    cases = {
        "python -c pass": [PYTHON, "-c", "pass"],
        "fake-codex (command mode)": [FAKE_CODEX, "--seed", "1", "help exec; message hi"],
        "fake-codex (random mode)": [FAKE_CODEX, "--seed", "1", "Fix the failing test"],
        "fake-codex exec --json": [FAKE_CODEX, "exec", "--json", "--seed", "1", "hi"],
        "python -m scenarist codex": [PYTHON, "-m", "scenarist", "codex", "--seed", "1", "help"],
    }
    samples: dict[str, list[float]] = {name: [] for name in cases}
    for argv in cases.values():  # warm the page cache and .pyc files
        first_line_seconds(argv)
    for _ in range(n):
        for name, argv in cases.items():
            samples[name].append(first_line_seconds(argv))
    base = statistics.median(samples["python -c pass"])
    print(f"time to first event line, median of {n} (interleaved runs)")
    for name, values in samples.items():
        med = statistics.median(values)
        ratio = med / base
        verdict = (
            ""
            if name == "python -c pass"
            else (f"  {'meets' if ratio <= TARGET else 'MISSES'} the <= {TARGET:.0f}x target")
        )
        print(f"  {name:<28} {med * 1000:7.1f} ms   {ratio:5.2f}x python -c pass{verdict}")


if __name__ == "__main__":
    main()
