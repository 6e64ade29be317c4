#!/usr/bin/env python3
"""A stand-in for an agent CLI's TUI with the two faults seen in CI, run as ``--agent codex``.

- It loses the first keys typed into it (Gemini CLI lost a prompt's first letters while
  it was still starting, though it had drawn).
- It turns the tty's CR-to-NL translation back on after entering raw mode, so Enter
  (``\\r``) arrives as Ctrl+J (``\\n``), which it keeps as a newline, as Codex does; the
  kitty keyboard protocol's Enter (``ESC [ 13 u``) submits.

On submit it asks the model server the runner started (the ``base_url`` of the
``model_providers.mock`` setting Codex is given) through the Responses API, and shows the
prompt it sent and the answer's text.
"""

from __future__ import annotations

import json
import os
import re
import sys
import termios
import tty
import urllib.request

LOST_KEYS = 4


def main() -> None:
    base_url = re.search(r'base_url="([^"]+)"', " ".join(sys.argv)).group(1)  # type: ignore[union-attr]
    tty.setraw(0)
    flags = termios.tcgetattr(0)
    flags[0] |= termios.ICRNL
    termios.tcsetattr(0, termios.TCSANOW, flags)
    out = sys.stdout
    out.write("fake agent\r\n> ")
    out.flush()
    typed = ""
    lost = 0
    pending = b""
    while True:
        pending += os.read(0, 1024)
        while pending:
            if pending.startswith(b"\x1b[13u"):
                pending = pending[5:]
                prompt = typed.strip()
                out.write(f"\r\nsubmitted: {prompt}\r\n{ask(base_url, prompt)}\r\n")
                out.flush()
                typed = ""
                continue
            if pending.startswith(b"\x1b") and len(pending) < 5:
                break  # the rest of an escape sequence has not come yet
            key, pending = pending[:1], pending[1:]
            if lost < LOST_KEYS:
                lost += 1
            elif key == b"\x7f":
                if typed:
                    typed = typed[:-1]
                    out.write("\b \b")
            elif key == b"\r":
                out.write("\r\nunexpected CR\r\n")
            elif key == b"\n":
                typed += "\n"
                out.write("\r\n")
            elif key == b"\x03":
                return
            else:
                typed += key.decode()
                out.write(key.decode())
            out.flush()


def ask(base_url: str, prompt: str) -> str:
    body = json.dumps({"model": "mock-model", "stream": False, "input": [
        {"role": "user", "content": [{"type": "input_text", "text": prompt}]}]}).encode()
    request = urllib.request.Request(f"{base_url}/responses", body, {
        "content-type": "application/json", "authorization": "Bearer sk-test"})
    with urllib.request.urlopen(request, timeout=10) as answer:
        output = json.load(answer)["output"]
    return " ".join(part["text"] for item in output if item["type"] == "message"
                    for part in item["content"])


if __name__ == "__main__":
    main()
