"""Forker: spawns a grandchild that ignores SIGTERM (like codex-acp's native child under its Node
wrapper), prints 'grandchild PID', then waits on stdin. With argv[1] == 'exit' it exits at once
after printing, leaving the grandchild behind in its process group."""

import signal
import subprocess
import sys

code = "import signal, time\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\ntime.sleep(600)\n"
child = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.DEVNULL,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
print(f"grandchild {child.pid}", flush=True)
if len(sys.argv) > 1 and sys.argv[1] == "exit":
    sys.exit(0)
signal.signal(signal.SIGTERM, signal.SIG_DFL)
for line in sys.stdin:
    print(f"forker got {line.strip()}", flush=True)
