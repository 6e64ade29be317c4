"""In-process fake model speed, measured against its peers in the same run.

1. Events per second streaming a 10,000-entry script in-process: scenarist's
   ``FakeModel.stream()`` / ``.astream()`` vs LangChain's ``GenericFakeChatModel.stream()`` and
   pydantic-ai's ``FunctionModel`` (``request_stream``). Target: ratio >= 1x against both.
2. The cost of one official-SDK call (openai Chat Completions, streamed and not) answered by the
   in-process transport vs the same call answered over loopback by the mock model server
   (``scenarist llm``) and by a minimal uvicorn app serving the same bytes.

    .venv/bin/python bench/bench_fake_stream.py [--entries 10000] [--repeat 5] [--calls 200]
"""

from __future__ import annotations

import argparse
import asyncio
import socket
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from scenarist.fake import FakeModel, text

SCENARIO = """\
name: bench_hello
timeline:
  - userInputs:
      - relativeTime: 0
        input: "say hello"
  - llmResponse:
      - assistant:
          - [0, "Hello from the scenario."]
"""
MSG = [{"role": "user", "content": "say hello"}]


def best_of(repeat: int, run: Callable[[], int]) -> tuple[int, float]:
    """(events, best seconds) over ``repeat`` runs (best-of damps a noisy shared machine)."""
    times, events = [], 0
    for _ in range(repeat):
        t0 = time.perf_counter()
        events = run()
        times.append(time.perf_counter() - t0)
    return events, min(times)


def stream_rates(entries: int, repeat: int) -> dict[str, float]:
    from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
    from langchain_core.messages import AIMessage
    from pydantic_ai.messages import ModelRequest, UserPromptPart
    from pydantic_ai.models import ModelRequestParameters
    from pydantic_ai.models.function import AgentInfo, FunctionModel

    script = [text("tok ") for _ in range(entries)]

    def ours_sync() -> int:
        return sum(1 for _ in FakeModel(script=script).stream())

    def ours_async() -> int:
        async def run() -> int:
            return len([e async for e in FakeModel(script=script).astream()])
        return asyncio.run(run())

    words = " ".join(["tok"] * ((entries + 1) // 2))  # split on whitespace: ~entries chunks

    def langchain() -> int:
        model = GenericFakeChatModel(messages=iter([AIMessage(content=words)]))
        return sum(1 for _ in model.stream("hi"))

    async def deltas(messages: Any, info: AgentInfo) -> Any:
        for _ in range(entries):
            yield "tok "

    def pydantic_ai() -> int:
        async def run() -> int:
            model = FunctionModel(stream_function=deltas)
            request = [ModelRequest(parts=[UserPromptPart("hi")])]
            n = 0
            async with model.request_stream(request, None, ModelRequestParameters()) as resp:
                async for _ in resp:
                    n += 1
            return n
        return asyncio.run(run())

    rates = {}
    for name, run in [("scenarist FakeModel.stream", ours_sync),
                      ("scenarist FakeModel.astream", ours_async),
                      ("langchain GenericFakeChatModel.stream", langchain),
                      ("pydantic-ai FunctionModel.request_stream", pydantic_ai)]:
        events, seconds = best_of(repeat, run)
        rates[name] = events / seconds
        print(f"  {name:<44} {events:>6} events  {seconds * 1000:8.1f} ms  "
              f"{events / seconds:>12,.0f} events/s")
    return rates


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def per_call_ms(client: Any, calls: int, stream: bool) -> float:
    def once() -> None:
        if stream:
            for _ in client.chat.completions.create(model="mock-model", messages=MSG,
                                                    stream=True):
                pass
        else:
            client.chat.completions.create(model="mock-model", messages=MSG)

    for _ in range(5):
        once()  # warm up connections and caches
    samples = []
    for _ in range(calls):
        t0 = time.perf_counter()
        once()
        samples.append(time.perf_counter() - t0)
    return statistics.median(samples) * 1000


def sdk_costs(calls: int) -> None:
    import openai
    import uvicorn

    from scenarist.llm.process import start_server

    answer = [text("Hello from the scenario.")]
    model = FakeModel(scripts=[answer] * (2 * calls + 20))
    in_process = model.openai_client(max_retries=0)

    app_model = FakeModel(scripts=[answer] * (2 * calls + 20))
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app_model.asgi_app(), host="127.0.0.1", port=port,
                                           log_level="warning", lifespan="off"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.01)
    uvicorn_client = openai.OpenAI(api_key="k", base_url=f"http://127.0.0.1:{port}/v1",
                                   max_retries=0)
    with tempfile.TemporaryDirectory() as tmp:
        scenario = Path(tmp) / "hello.yaml"
        scenario.write_text(SCENARIO)
        llm_server = start_server(scenario)
        try:
            mock_client = openai.OpenAI(api_key="k", base_url=f"{llm_server.base_url}/v1",
                                        max_retries=0)
            for stream in (False, True):
                kind = "stream=True " if stream else "stream=False"
                ours = per_call_ms(in_process, calls, stream)
                app = per_call_ms(uvicorn_client, calls, stream)
                mock = per_call_ms(mock_client, calls, stream)
                print(f"  chat {kind} in-process transport {ours:7.3f} ms/call | "
                      f"uvicorn + same ASGI app {app:7.3f} ms ({app / ours:5.1f}x) | "
                      f"mock server (scenarist llm) {mock:7.3f} ms ({mock / ours:5.1f}x)")
        finally:
            llm_server.stop()
            server.should_exit = True
            thread.join(10)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--calls", type=int, default=200)
    args = parser.parse_args(argv)
    print(f"1. streaming a {args.entries:,}-entry script in-process (best of {args.repeat})")
    rates = stream_rates(args.entries, args.repeat)
    ours = rates["scenarist FakeModel.stream"]
    ours_async = rates["scenarist FakeModel.astream"]
    lc = rates["langchain GenericFakeChatModel.stream"]
    pa = rates["pydantic-ai FunctionModel.request_stream"]
    print(f"  ratio vs LangChain GenericFakeChatModel: sync {ours / lc:.1f}x  "
          f"(target >= 1x: {'met' if ours >= lc else 'NOT met'})")
    print(f"  ratio vs pydantic-ai FunctionModel:      async {ours_async / pa:.1f}x, "
          f"sync {ours / pa:.1f}x  (target >= 1x: {'met' if ours_async >= pa else 'NOT met'})")
    print(f"2. one openai SDK call, median of {args.calls}")
    sdk_costs(args.calls)
    return 0


if __name__ == "__main__":
    sys.exit(main())
