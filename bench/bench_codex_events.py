"""Events per second of fake-codex at cadence 0 for a 100,000-event command sequence.

Target (issue 4): >= 100,000 events/s. Prints, measured in the same run:
  * in-process: ``run()`` parsing the prompt and writing every line to memory;
  * end to end: the ``fake-codex`` process, prompt on stdin, output read from a pipe;
  * the floor: only serialising the same events into envelope lines with the same
    encoder (no parsing, no building): what the whole program costs beyond JSON.

    .venv/bin/python bench/bench_codex_events.py
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
import time
from pathlib import Path

from scenarist.codex.cli import run
from scenarist.codex.encode import dumps

FAKE_CODEX = str(Path(sys.executable).parent / "fake-codex")
TARGET = 100_000
# one cycle = 20 events: exec (3), mcp (2), web (2), warning (1), background (1),
# message of 3 deltas + agent_message (4), reasoning of 2 deltas + agent_reasoning (3),
# patch (2), emit (1), notify (1)
CYCLE = (
    "exec; mcp; web q; warning w; background b; message abcdefghijklmnopqrstuvwxyzabcdef; "
    "reasoning abcdefghijklmnopqrst; patch; "
    'emit {"type":"turn_diff","unified_diff":""}; notify {"jsonrpc":"2.0","method":"x/y"}'
)
ARGS = ["--seed", "1", "--cwd", "/repo", "--chunk-min", "10", "--chunk-max", "10", "-"]


def prompt(events: int) -> bytes:
    return ("help " + "; ".join([CYCLE] * (events // 20))).encode()


def in_process(data: bytes) -> tuple[float, bytes]:
    out = io.BytesIO()
    start = time.perf_counter()
    code = run(ARGS, stdin=io.BytesIO(data), stdout=out, stderr=io.StringIO(), environ={})
    elapsed = time.perf_counter() - start
    assert code == 0
    return elapsed, out.getvalue()


def end_to_end(data: bytes) -> tuple[float, int]:
    start = time.perf_counter()
    proc = subprocess.run([FAKE_CODEX, *ARGS], input=data, capture_output=True, check=True)
    return time.perf_counter() - start, proc.stdout.count(b"\n")


def floor(lines: list[bytes]) -> float:
    msgs = [json.loads(line).get("params", {}).get("msg", {}) for line in lines]
    prefix = '{"jsonrpc":"2.0","method":"codex/event","params":{"id":"1","msg":'
    start = time.perf_counter()
    text = "".join([prefix + dumps(m) + "}}\n" for m in msgs])
    io.BytesIO().write(text.encode())
    return time.perf_counter() - start


def main() -> None:
    data = prompt(100_000)
    best_in, out = min((in_process(data) for _ in range(3)), key=lambda r: r[0])
    events = out.count(b"\n")
    best_e2e, e2e_events = min(end_to_end(data) for _ in range(3))
    best_floor = min(floor(out.splitlines()) for _ in range(3))
    print(f"{events:,} events, cadence 0, prompt of {len(data) / 1e6:.1f} MB (best of 3)")
    rows = [
        ("in-process run()", events / best_in),
        ("fake-codex process (end to end)", e2e_events / best_e2e),
        ("floor: serialising the same lines", events / best_floor),
    ]
    for name, rate in rows:
        print(f"  {name:<38} {rate:>11,.0f} events/s   {rate / TARGET:5.2f}x the 100,000/s target")
    print(f"  in-process speed is {rows[0][1] / rows[2][1]:.0%} of the serialisation floor")


if __name__ == "__main__":
    main()
