"""llama-index ``chat_with_tools`` in a tool loop (run by test_llm_llamaindex.py in
``.venv-llamaindex``): ``python llamaindex_chat.py BASE_URL PROMPT``.

``chat_with_tools`` sends ``parallel_tool_calls: false`` unless told otherwise, and the loop
keeps only what ``get_tool_calls_from_response`` gives it. Prints one JSON line:
``{"text": final text, "asked": [cities], "calls_per_answer": [...]}``."""

from __future__ import annotations

import json
import sys

from llama_index.core.llms import ChatMessage
from llama_index.core.tools import FunctionTool
from llama_index.llms.openai import OpenAI

asked: list[str] = []


def get_weather(city: str) -> str:
    """The weather in a city."""
    asked.append(city)
    return f"sunny in {city}" if city == "Paris" else f"rain in {city}"


def main(url: str, prompt: str) -> None:
    llm = OpenAI(model="gpt-4o-mini", api_base=f"{url}/v1", api_key="test", max_retries=0)
    tool = FunctionTool.from_defaults(fn=get_weather)
    history: list[ChatMessage] = [ChatMessage(role="user", content=prompt)]
    per_answer: list[int] = []
    for _ in range(5):
        response = llm.chat_with_tools([tool], chat_history=history)
        calls = llm.get_tool_calls_from_response(response, error_on_no_tool_call=False)
        per_answer.append(len(calls))
        history.append(response.message)
        if not calls:
            break
        for call in calls:
            output = get_weather(**call.tool_kwargs)
            history.append(ChatMessage(role="tool", content=output, additional_kwargs={
                "tool_call_id": call.tool_id, "name": call.tool_name}))
    print(json.dumps({"text": response.message.content, "asked": asked,
                      "calls_per_answer": per_answer}))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
