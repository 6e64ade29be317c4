"""Flooder: on its first stdin line writes argv[1] bytes of numbered text lines, then exits 0."""

import sys

total = int(sys.argv[1])
sys.stdin.readline()
block = "".join(f"{i:063d}\n" for i in range(1024)).encode()  # 64 KiB of 64-byte lines
out = sys.stdout.buffer
written = 0
while written + len(block) <= total:
    out.write(block)
    written += len(block)
out.write(block[: total - written])
out.flush()
