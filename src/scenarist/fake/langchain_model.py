"""A LangChain chat model driven by a :class:`~scenarist.fake.FakeModel` script (extra
``langchain``).

Unlike LangChain's own fakes, ``bind_tools`` works and tool calls stream as real
``tool_call_chunks`` (id and name first, then argument fragments), so agent loops and
chunk-merging code see what a provider integration would give them.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from typing import Any

from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel, LanguageModelInput
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.messages.ai import UsageMetadata
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from langchain_core.runnables import Runnable
from langchain_core.tools import BaseTool
from langchain_core.utils.function_calling import convert_to_openai_tool

from scenarist.fake.events import (
    ErrorEvent,
    FakeEvent,
    MessageCompleted,
    TextDelta,
    ToolCallDelta,
    ToolCallStarted,
)
from scenarist.fake.model import FakeModel, Response, wire_usage


def _usage(counts: dict[str, int]) -> UsageMetadata:
    u = wire_usage(counts)
    return UsageMetadata(input_tokens=u.input_tokens, output_tokens=u.output_tokens,
                         total_tokens=u.total_tokens)


class FakeChatModel(BaseChatModel):
    """``FakeChatModel(fake=FakeModel(scripts=[...]))``; the messages go to ``fake.requests``."""

    fake: Any
    """The :class:`FakeModel` that answers (typed ``Any`` for pydantic)."""

    @property
    def _llm_type(self) -> str:
        return "scenarist-fake"

    def bind_tools(self, tools: Sequence[dict[str, Any] | type | Callable[..., Any] | BaseTool],
                   *, tool_choice: str | None = None, **kwargs: Any
                   ) -> Runnable[LanguageModelInput, AIMessage]:
        """Bind tools as an OpenAI-style tools list (recorded with each request)."""
        formatted = [convert_to_openai_tool(t) for t in tools]
        if tool_choice is not None:
            kwargs["tool_choice"] = tool_choice
        return super().bind(tools=formatted, **kwargs)

    def _model(self) -> FakeModel:
        if not isinstance(self.fake, FakeModel):
            raise TypeError("FakeChatModel(fake=...) needs a scenarist.fake.FakeModel")
        return self.fake

    def _generate(self, messages: list[BaseMessage], stop: list[str] | None = None,
                  run_manager: CallbackManagerForLLMRun | None = None, **kwargs: Any
                  ) -> ChatResult:
        return _result(self._model().generate(messages, **kwargs))

    async def _agenerate(self, messages: list[BaseMessage], stop: list[str] | None = None,
                         run_manager: AsyncCallbackManagerForLLMRun | None = None,
                         **kwargs: Any) -> ChatResult:
        return _result(await self._model().agenerate(messages, **kwargs))

    def _stream(self, messages: list[BaseMessage], stop: list[str] | None = None,
                run_manager: CallbackManagerForLLMRun | None = None, **kwargs: Any
                ) -> Iterator[ChatGenerationChunk]:
        indexes: dict[str, int] = {}
        with self._model().stream(messages, **kwargs) as stream:
            for event in stream:
                chunk = _chunk(event, indexes)
                if chunk is not None:
                    if run_manager and isinstance(event, TextDelta):
                        run_manager.on_llm_new_token(event.delta, chunk=chunk)
                    yield chunk

    async def _astream(self, messages: list[BaseMessage], stop: list[str] | None = None,
                       run_manager: AsyncCallbackManagerForLLMRun | None = None,
                       **kwargs: Any) -> AsyncIterator[ChatGenerationChunk]:
        indexes: dict[str, int] = {}
        async with self._model().astream(messages, **kwargs) as stream:
            async for event in stream:
                chunk = _chunk(event, indexes)
                if chunk is not None:
                    if run_manager and isinstance(event, TextDelta):
                        await run_manager.on_llm_new_token(event.delta, chunk=chunk)
                    yield chunk


def _result(r: Response) -> ChatResult:
    message = AIMessage(
        content=r.output_text,
        tool_calls=[{"id": c.id, "name": c.name, "args": c.arguments or {}, "type": "tool_call"}
                    for c in r.tool_calls],
        usage_metadata=_usage(r.usage),
        response_metadata={"finish_reason": r.finish_reason, "model_name": r.model},
    )
    return ChatResult(generations=[ChatGeneration(message=message)])


def _chunk(event: FakeEvent, indexes: dict[str, int]) -> ChatGenerationChunk | None:
    if isinstance(event, TextDelta):
        return ChatGenerationChunk(message=AIMessageChunk(content=event.delta))
    if isinstance(event, ToolCallStarted):
        index = indexes.setdefault(event.id, len(indexes))
        return ChatGenerationChunk(message=AIMessageChunk(content="", tool_call_chunks=[
            {"id": event.id, "name": event.name, "args": "", "index": index,
             "type": "tool_call_chunk"}]))
    if isinstance(event, ToolCallDelta):
        return ChatGenerationChunk(message=AIMessageChunk(content="", tool_call_chunks=[
            {"id": None, "name": None, "args": event.delta, "index": indexes[event.id],
             "type": "tool_call_chunk"}]))
    if isinstance(event, MessageCompleted):
        return ChatGenerationChunk(message=AIMessageChunk(
            content="", usage_metadata=_usage(event.usage), chunk_position="last",
            response_metadata={"finish_reason": event.finish_reason}))
    if isinstance(event, ErrorEvent):
        raise event.error
    return None
