"""ACP throughput and latency: ``scenarist acp`` next to an agent on the ACP TypeScript SDK.

    python bench/bench_acp.py [--updates 10000] [--runs 3]

Both agents stream the same number of ``agent_message_chunk`` updates in one prompt turn
(``scenarist acp`` plays a generated scenario at ``--speed 0.01``; the TypeScript agent is
tests/node/acp_sdk_agent.mjs with ACP_SDK_CHUNKS), read by the same minimal client (raw
JSON lines, orjson; it answers the TypeScript agent's permission request and file write) so
that the client's cost is the same for both. Printed per agent, median of the runs:

- start-up: spawn → ``initialize`` answered (target for scenarist acp: ≤ 0.3 s);
- first update: ``session/prompt`` sent → first ``session/update`` read;
- updates/s over the whole turn (prompt sent → prompt answered);
and the ratios scenarist / TypeScript. Not a test: it prints, it never fails on a time.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import orjson

REPO = Path(__file__).resolve().parents[1]
NODE_DIR = REPO / "tests" / "node"
SMALL = "name: small\ntimeline:\n  - userInputs: [[0, go]]\n  - llmResponse: [{assistant: [[1, hi]]}]\n"


def big_scenario(updates: int) -> str:
    lines = ["name: stream", "timeline:", "  - userInputs: [[0, go]]", "  - llmResponse:",
             "      - assistant:"]
    lines += [f"          - [1, 'chunk {i} ']" for i in range(1, updates + 1)]
    return "\n".join(lines) + "\n"


class RawClient:
    """JSON-RPC over the agent's stdio with no SDK in the way: write a request, read lines."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self.next_id = 0

    async def send(self, message: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(orjson.dumps({"jsonrpc": "2.0", **message}) + b"\n")
        await self.process.stdin.drain()

    async def request(self, method: str, params: dict[str, Any]) -> int:
        self.next_id += 1
        await self.send({"id": self.next_id, "method": method, "params": params})
        return self.next_id

    async def read(self) -> dict[str, Any]:
        assert self.process.stdout is not None
        line = await self.process.stdout.readline()
        if not line:
            raise EOFError("the agent closed its stdout")
        message: dict[str, Any] = orjson.loads(line)
        return message

    async def answer_until(self, request_id: int, on_update: Any = None) -> dict[str, Any]:
        """Read until the answer to ``request_id``, answering the agent's own requests."""
        while True:
            message = await self.read()
            method = message.get("method")
            if method == "session/update":
                if on_update is not None:
                    on_update()
            elif method == "session/request_permission":
                option = message["params"]["options"][0]["optionId"]
                await self.send({"id": message["id"], "result": {
                    "outcome": {"outcome": "selected", "optionId": option}}})
            elif method is not None and "id" in message:
                await self.send({"id": message["id"], "result": {}})
            elif message.get("id") == request_id:
                return message


async def session(command: list[str], env: dict[str, str], cwd: str
                  ) -> tuple[float, float, float, int]:
    """One run: (start-up s, first-update s, turn s, updates read)."""
    started = time.perf_counter()
    process = await asyncio.create_subprocess_exec(
        *command, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL, env=env, cwd=cwd, limit=64 * 1024 * 1024)
    client = RawClient(process)
    try:
        ask = await client.request("initialize", {"protocolVersion": 1, "clientCapabilities": {
            "fs": {"readTextFile": True, "writeTextFile": True}}})
        await client.answer_until(ask)
        startup = time.perf_counter() - started
        ask = await client.request("session/new", {"cwd": cwd, "mcpServers": []})
        sid = (await client.answer_until(ask))["result"]["sessionId"]
        first: list[float] = []
        count = 0

        def seen() -> None:
            nonlocal count
            count += 1
            if not first:
                first.append(time.perf_counter())

        sent = time.perf_counter()
        ask = await client.request("session/prompt", {"sessionId": sid,
                                                      "prompt": [{"type": "text", "text": "go"}]})
        await client.answer_until(ask, seen)
        done = time.perf_counter()
        return startup, (first[0] - sent) if first else float("nan"), done - sent, count
    finally:
        assert process.stdin is not None
        process.stdin.close()
        try:
            await asyncio.wait_for(process.wait(), 10)
        except TimeoutError:
            process.kill()
            await process.wait()


def median(values: list[float]) -> float:
    return statistics.median(values)


async def measure(name: str, command: list[str], env: dict[str, str], runs: int, cwd: str,
                  startup_command: list[str]) -> dict[str, float]:
    await session(startup_command, env, cwd)  # warms the bytecode cache
    startups = [(await session(startup_command, env, cwd))[0] for _ in range(runs)]
    results = [await session(command, env, cwd) for _ in range(runs)]
    counts = {r[3] for r in results}
    figures = {"startup": median(startups), "first": median([r[1] for r in results]),
               "turn": median([r[2] for r in results]),
               "rate": median([r[3] / r[2] for r in results])}
    print(f"{name:<22} start-up {figures['startup'] * 1000:7.1f} ms   first update "
          f"{figures['first'] * 1000:7.2f} ms   turn {figures['turn'] * 1000:8.1f} ms   "
          f"{figures['rate']:9,.0f} updates/s   (updates per turn: {sorted(counts)})")
    return figures


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--updates", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        # bytecode cached and warmed (the first start-up run below), as after `pip install`
        env = {**os.environ, "PYTHONPATH": str(REPO / "src"),
               "PYTHONPYCACHEPREFIX": str(Path(tmp) / "pycache")}
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        big, small = Path(tmp) / "stream.yaml", Path(tmp) / "small.yaml"
        big.write_text(big_scenario(args.updates))
        small.write_text(SMALL)
        ours = [sys.executable, "-m", "scenarist", "acp", "--speed", "0.01", "--scenario"]
        print(f"{args.updates:,} updates per turn, median of {args.runs} runs "
              f"(python {sys.version.split()[0]}, {os.cpu_count()} CPUs)")
        mine = await measure("scenarist acp", [*ours, str(big)], env, args.runs, tmp,
                             [*ours, str(small)])
        node = shutil.which("node")
        if node is None or not (NODE_DIR / "node_modules" / "@agentclientprotocol").exists():
            print("TypeScript SDK agent: skipped (needs node and `npm ci` in tests/node)")
            return
        agent = [node, str(NODE_DIR / "acp_sdk_agent.mjs")]
        theirs = await measure("TypeScript SDK agent", agent,
                               {**env, "ACP_SDK_CHUNKS": str(args.updates)}, args.runs, tmp,
                               agent)
    print(f"ratios scenarist/TypeScript: start-up {mine['startup'] / theirs['startup']:.2f}x, "
          f"first update {mine['first'] / theirs['first']:.2f}x, "
          f"throughput {mine['rate'] / theirs['rate']:.2f}x")


if __name__ == "__main__":
    asyncio.run(main())
