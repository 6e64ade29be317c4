"""A hostile ACP agent for ``acp-test``: ``hostile_agent.py MODE SEED LINES SUMMARY``.

It starts a child that ignores SIGTERM (``acp-test`` must end it with the agent's process
group), then, per MODE: ``garbage`` sends hostile lines (``hostile.py``) before each
correct answer; ``broken-answers`` answers each request in a way JSON-RPC or ACP does not
allow; ``exit`` sends hostile lines, then exits without an answer; ``silent`` never
answers. Before answering, it waits (bounded) for the client to answer its own hostile
requests, and writes SUMMARY (JSON: lines sent, requests with an id left unanswered, the
child's pid) so the test can check that the client answered every one.
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import time
from typing import Any, Literal

from hostile import CATEGORIES, CLIENT_METHODS, Hostile

ANSWERS = {"initialize": {"protocolVersion": 1, "agentCapabilities": {"loadSession": False}},
           "session/new": {"sessionId": "hostile"}, "session/prompt": {"stopReason": "end_turn"},
           "session/set_config_option": {"configOptions": []}}
BROKEN: list[Any] = [
    {"result": 5}, {"result": "x"}, {"result": []}, {"result": None},
    {"error": "x"}, {"error": {"code": "x"}}, {"result": {}, "error": {"code": 1, "message": "m"}},
    {"id": [1], "result": {}}, {"id": "other", "result": {}}, {"jsonrpc": "1.0", "result": {}},
]


class Agent:
    def __init__(self, mode: str, seed: int, lines: int, summary: str) -> None:
        self.mode, self.lines, self.summary = mode, lines, summary
        self.hostile = Hostile(seed, CLIENT_METHODS)
        self.broken = iter(BROKEN[seed % len(BROKEN):] + BROKEN[:seed % len(BROKEN)])
        self.sent = 0
        self.waiting: set[str] = set()
        self.queue: list[dict[str, Any]] = []
        self.buffer = b""
        self.child = subprocess.Popen(["sh", "-c", "trap '' TERM; exec sleep 300"])
        self.write_summary()

    def write_summary(self) -> None:
        """Written whole or not at all: acp-test may stop this agent at any moment."""
        with open(self.summary + ".tmp", "w") as out:
            json.dump({"sent": self.sent, "unanswered": sorted(self.waiting),
                       "child": self.child.pid}, out)
        os.replace(self.summary + ".tmp", self.summary)

    def out(self, data: bytes) -> None:
        os.write(1, data + b"\n")

    def read(self, timeout: float | None) -> dict[str, Any] | Literal[False] | None:
        """The next message (False at the end of stdin, None on timeout)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while b"\n" not in self.buffer:
            left = None if deadline is None else max(deadline - time.monotonic(), 0)
            if not select.select([0], [], [], left)[0]:
                return None
            chunk = os.read(0, 1 << 20)
            if not chunk:
                return False
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        try:
            message = json.loads(line)
        except ValueError:
            return {}
        if isinstance(message, list):  # a batch of answers to one of our batches
            for item in message:
                self.answered(item)
            return {}
        return message if isinstance(message, dict) else {}

    def answered(self, message: Any) -> bool:
        if isinstance(message, dict) and "method" not in message and "id" in message:
            self.waiting.discard(json.dumps(message["id"]))
            return True
        return False

    def attack(self, n: int) -> None:
        """Send ``n`` hostile lines, then wait (bounded) for the answers they are owed."""
        kinds = tuple(c for c in CATEGORIES if c != "response")
        for line in self.hostile.lines(n, kinds):
            self.out(line.data)
            self.sent += 1
            if line.waits:
                self.waiting.add(json.dumps(line.answer_id))
        deadline = time.monotonic() + 5
        while self.waiting and time.monotonic() < deadline:
            message = self.read(deadline - time.monotonic())
            if message is False:
                return
            if message and not self.answered(message):
                self.queue.append(message)
        self.write_summary()

    def answer(self, message: dict[str, Any]) -> None:
        method, request_id = message["method"], message["id"]
        if self.mode == "silent":
            return
        self.attack(max(self.lines // 4, 1))
        if self.mode == "exit":
            self.write_summary()
            sys.exit(3)
        reply: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id,
                                 "result": ANSWERS.get(method, {})}
        if self.mode == "broken-answers":
            reply.update(next(self.broken, {"result": 7}))
            if "error" in reply and "result" in reply and reply["result"] == ANSWERS.get(method):
                del reply["result"]
        self.out(json.dumps(reply).encode())

    def run(self) -> None:
        while True:
            message = self.queue.pop(0) if self.queue else self.read(None)
            if message is False:
                break
            assert isinstance(message, dict)
            if isinstance(message.get("method"), str) and "id" in message:
                self.answer(message)
            else:
                self.answered(message)
        self.write_summary()


if __name__ == "__main__":
    mode, seed, lines, summary = sys.argv[1:5]
    Agent(mode, int(seed), int(lines), summary).run()
