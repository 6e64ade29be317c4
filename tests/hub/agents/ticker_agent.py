"""Latency probe: on each stdin line 'N' writes N lines 'T <monotonic_ns>', one per millisecond."""

import sys
import time

for line in sys.stdin:
    for _ in range(int(line)):
        sys.stdout.write(f"T {time.monotonic_ns()}\n")
        sys.stdout.flush()
        time.sleep(0.001)
    sys.stdout.write("done\n")
    sys.stdout.flush()
