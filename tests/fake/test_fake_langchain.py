"""The LangChain chat model: bind_tools, a real tool loop, tool calls streamed correctly."""

from __future__ import annotations

from langchain_core.messages import AIMessageChunk, BaseMessage, HumanMessage, ToolMessage
from langchain_core.tools import tool

from scenarist.fake import FakeModel, finish, text, tool_call, tool_call_delta, usage
from scenarist.fake.langchain_model import FakeChatModel


@tool
def word_count(sentence: str) -> int:
    """Count the words of a sentence."""
    return len(sentence.split())


def test_bind_tools_and_a_tool_loop() -> None:
    fake = FakeModel(scripts=[
        [tool_call(id="call_1", name="word_count", arguments={"sentence": "a b c"})],
        [text("It has 3 words."), usage(input_tokens=20, output_tokens=5), finish("stop")]])
    llm = FakeChatModel(fake=fake).bind_tools([word_count])
    messages: list[BaseMessage] = [HumanMessage("How many words in 'a b c'?")]
    for _ in range(4):
        ai = llm.invoke(messages)
        messages.append(ai)
        if not ai.tool_calls:
            break
        for call in ai.tool_calls:
            result = word_count.invoke(call["args"])
            messages.append(ToolMessage(str(result), tool_call_id=call["id"]))
    assert messages[-1].content == "It has 3 words."
    assert messages[2].content == "3"
    first_request = fake.requests[0]
    assert first_request["tools"][0]["function"]["name"] == "word_count"
    assert messages[-1].usage_metadata["total_tokens"] == 25  # type: ignore[attr-defined]


def test_tool_calls_stream_as_mergeable_chunks() -> None:
    fake = FakeModel(script=[
        text("Counting."),
        tool_call_delta(id="c1", name="word_count", arguments_delta='{"sentence": '),
        tool_call_delta(id="c1", arguments_delta='"x y"}'),
        tool_call(id="c2", name="word_count", arguments={"sentence": "z"})])
    llm = FakeChatModel(fake=fake).bind_tools([word_count])
    chunks = list(llm.stream("count"))
    assert all(isinstance(c, AIMessageChunk) for c in chunks)
    merged = chunks[0]
    for chunk in chunks[1:]:
        merged = merged + chunk  # type: ignore[assignment]
    assert merged.content == "Counting."
    assert [(c["id"], c["name"], c["args"]) for c in merged.tool_calls] == [
        ("c1", "word_count", {"sentence": "x y"}), ("c2", "word_count", {"sentence": "z"})]
    assert merged.response_metadata["finish_reason"] == "tool_calls"


async def test_async_stream_and_invoke() -> None:
    fake = FakeModel(scripts=[[text("a"), text("b")], [text("c")]])
    llm = FakeChatModel(fake=fake)
    assert "".join([str(c.content) async for c in llm.astream("hi")]) == "ab"
    assert (await llm.ainvoke("hi")).content == "c"
