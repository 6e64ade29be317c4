"""Line agent: echoes each stdin line to stdout as 'echo: LINE' and to stderr as 'err: LINE'."""

import sys

for line in sys.stdin:
    text = line.rstrip("\n")
    sys.stdout.write(f"echo: {text}\n")
    sys.stdout.flush()
    sys.stderr.write(f"err: {text}\n")
    sys.stderr.flush()
    if text == "exit":
        sys.exit(3)
