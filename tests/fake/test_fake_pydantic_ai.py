"""The pydantic-ai model: an agent runs a tool loop against the script, run and run_stream."""

from __future__ import annotations

from pydantic_ai import Agent

from scenarist.fake import FakeModel, text, tool_call, tool_call_delta, usage
from scenarist.fake.pydantic_ai_model import pydantic_ai_model


def make_agent(fake: FakeModel) -> tuple[Agent[None, str], list[str]]:
    calls: list[str] = []
    agent: Agent[None, str] = Agent(pydantic_ai_model(fake))

    @agent.tool_plain
    def read_file(path: str) -> str:
        """Read a file."""
        calls.append(path)
        return "hello from " + path

    return agent, calls


def test_agent_tool_loop_with_run_sync() -> None:
    fake = FakeModel(scripts=[
        [tool_call(id="c1", name="read_file", arguments={"path": "a.txt"}),
         usage(input_tokens=10, output_tokens=3)],
        [text("a.txt says hello."), usage(input_tokens=15, output_tokens=4)]])
    agent, calls = make_agent(fake)
    result = agent.run_sync("What is in a.txt?")
    assert result.output == "a.txt says hello."
    assert calls == ["a.txt"]
    assert fake.requests[0]["tools"] == ["read_file"]
    assert result.usage.input_tokens == 25


async def test_agent_tool_loop_streamed_with_tool_call_deltas() -> None:
    fake = FakeModel(stream_scripts=[
        [tool_call_delta(id="c1", name="read_file", arguments_delta='{"path": '),
         tool_call_delta(id="c1", arguments_delta='"b.txt"}')],
        [text("b.txt "), text("says hello.")]])
    agent, calls = make_agent(fake)
    async with agent.run_stream("What is in b.txt?") as run:
        output = await run.get_output()
    assert output == "b.txt says hello."
    assert calls == ["b.txt"]
    assert fake.stream_cursor.index == 2
