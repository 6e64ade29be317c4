"""Prints its argv (one item a line, repr'd) and each stdin line repr'd: shows nothing was shell-expanded."""

import sys

for arg in sys.argv[1:]:
    print(f"argv {arg!r}", flush=True)
for line in sys.stdin:
    print(f"stdin {line!r}", flush=True)
