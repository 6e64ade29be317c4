"""Hanger: ignores SIGTERM, says 'ready', then never reads stdin and never exits on its own."""

import signal
import time

signal.signal(signal.SIGTERM, signal.SIG_IGN)
print("ready", flush=True)
while True:
    time.sleep(60)
