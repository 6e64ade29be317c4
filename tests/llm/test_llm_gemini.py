"""The Gemini API of ``scenarist llm`` (issue 24), played to its real clients.

The official google-genai SDK (Python) and ``@google/genai`` (JavaScript), the Vercel AI
SDK's Google provider and LangChain's ``ChatGoogleGenerativeAI`` each run a tool round. The
scenarios are tests/llm/client_scenarios, the same files the OpenAI and Anthropic clients
play (tests/llm/test_llm_clients.py), unchanged: one tool round with thinking, a scripted 429,
a 529. Requests declare the scenario's tool, as an agent would; the raw wire forms (the
JSON-array stream, Google's error envelope, hostile requests) are checked with httpx.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
from pathlib import Path
from typing import Any

import httpx
import pytest
from google import genai
from google.genai import errors, types
from llm_agents import REPO, kill_group

from scenarist.llm.cli import load_scripts

WEATHER = "What is the weather in Paris?"
FLAKY = "Is it raining in Oslo?"
OVERLOADED = "Are you overloaded?"
HELLO = "Say hello after some thought"
SCENARIOS = Path(__file__).resolve().parent / "client_scenarios"
NODE = REPO / "tests" / "node"
MODEL = "gemini-2.5-flash"
WEATHER_TOOL = types.Tool(function_declarations=[types.FunctionDeclaration(
    name="get_weather", description="The weather in a city",
    parameters=types.Schema(type=types.Type.OBJECT,
                            properties={"city": types.Schema(type=types.Type.STRING)},
                            required=["city"]))])
RAW_TOOLS: Any = [{"functionDeclarations": [{
    "name": "get_weather", "parameters": {"type": "OBJECT",
                                          "properties": {"city": {"type": "STRING"}}}}]}]


@pytest.fixture
def srv(serve: Any) -> Any:
    paths = [str(SCENARIOS / f"{n}.yaml")
             for n in ("weather", "flaky_weather", "overloaded", "think_then_answer")]
    return serve(load_scripts(paths, []), speed=0.01)


def _client(srv: Any, retries: int | None = None) -> genai.Client:
    retry = types.HttpRetryOptions(attempts=retries, initial_delay=0.05) if retries else None
    return genai.Client(api_key="test-key", http_options=types.HttpOptions(
        base_url=srv.url, retry_options=retry))


def _config(**kw: Any) -> types.GenerateContentConfig:
    return types.GenerateContentConfig(
        tools=[WEATHER_TOOL],
        automatic_function_calling=types.AutomaticFunctionCallingConfig(disable=True), **kw)


def _round(client: genai.Client, prompt: str, stream: bool,
           config: types.GenerateContentConfig | None = None) -> dict[str, Any]:
    """One tool round as an agent loop runs it: ask, run the calls, send the results, until
    the model answers without calls. What was said, thought and called."""
    config = config or _config()
    contents: list[types.Content] = [types.Content(role="user",
                                                   parts=[types.Part(text=prompt)])]
    said: list[str] = []
    thought: list[str] = []
    called: list[dict[str, Any]] = []
    for _ in range(4):
        if stream:
            parts = [p for chunk in client.models.generate_content_stream(
                model=MODEL, contents=contents, config=config)
                for p in (chunk.candidates[0].content.parts or [])]  # type: ignore[index,union-attr]
        else:
            response = client.models.generate_content(model=MODEL, contents=contents,
                                                      config=config)
            parts = response.candidates[0].content.parts or []  # type: ignore[index,union-attr]
        said.append("".join(p.text or "" for p in parts if not p.thought))
        thought.append("".join(p.text or "" for p in parts if p.thought))
        calls = [p.function_call for p in parts if p.function_call]
        if not calls:
            break
        contents.append(types.Content(role="model", parts=parts))
        results = []
        for call in calls:
            called.append({"id": call.id, "name": call.name, "args": call.args})
            results.append(types.Part(function_response=types.FunctionResponse(
                id=call.id, name=call.name, response={"result": "sunny"})))
        contents.append(types.Content(role="user", parts=results))
    return {"said": said, "thought": thought, "called": called}


@pytest.mark.parametrize("stream", [False, True], ids=["generate", "stream"])
def test_google_genai_runs_the_tool_round(srv: Any, stream: bool) -> None:
    result = _round(_client(srv), WEATHER, stream)
    assert result["said"] == ["Let me check.", "It is sunny in Paris."]
    assert [(c["name"], c["args"]) for c in result["called"]] == [
        ("get_weather", {"city": "Paris"})]
    assert result["called"][0]["id"].startswith("call_")
    assert result["thought"] == ["", ""]  # no thoughts unless the request asks for them
    journal = [e for e in srv.journal if e.get("api") == "gemini"]
    assert [(e["api"], e["status"], e["tool_results"]) for e in journal] == [
        ("gemini", 200, 0), ("gemini", 200, 1)]
    assert journal[0]["scenario"] == "weather" and journal[1]["turn"] == 1


@pytest.mark.parametrize("stream", [False, True], ids=["generate", "stream"])
def test_thought_parts_only_when_the_request_includes_thoughts(srv: Any, stream: bool) -> None:
    config = _config(thinking_config=types.ThinkingConfig(include_thoughts=True))
    result = _round(_client(srv), WEATHER, stream, config)
    assert result["thought"] == ["The user wants the weather; call the tool.", ""]
    assert result["said"] == ["Let me check.", "It is sunny in Paris."]


def test_the_signature_travels_on_the_part_after_the_thoughts(srv: Any) -> None:
    config = _config(thinking_config=types.ThinkingConfig(include_thoughts=True))
    client = _client(srv)  # kept: a client collected closes its connections
    response = client.models.generate_content(model=MODEL, contents=WEATHER, config=config)
    parts = response.candidates[0].content.parts  # type: ignore[index,union-attr]
    assert [bool(p.thought) for p in parts] == [True, False, False]  # type: ignore[union-attr]
    assert parts[1].thought_signature and not parts[2].thought_signature  # type: ignore[index]
    usage = response.usage_metadata
    assert usage is not None and usage.thoughts_token_count
    assert usage.total_token_count == (usage.prompt_token_count + usage.candidates_token_count
                                       + usage.thoughts_token_count)  # type: ignore[operator]
    assert response.model_version == MODEL and response.response_id


def test_a_scripted_429_is_the_sdks_client_error_then_retried(srv: Any) -> None:
    client = _client(srv)
    with pytest.raises(errors.ClientError) as raised:
        client.models.generate_content(model=MODEL, contents=FLAKY, config=_config())
    assert raised.value.code == 429 and raised.value.status == "RESOURCE_EXHAUSTED"
    assert raised.value.message == "Rate limit reached for requests."
    details = raised.value.details["error"]["details"]
    assert {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "0.1s"} in details
    httpx.post(f"{srv.url}/_scenarist/reset", timeout=10)
    retrying = _client(srv, retries=3)
    result = _round(retrying, FLAKY, stream=True)
    assert result["said"] == ["Let me check.", "No rain in Oslo."]
    journal = [e for e in srv.journal if e.get("api") == "gemini"]
    assert [e["status"] for e in journal] == [429, 200, 200]


def test_a_scripted_overload_is_unavailable_a_server_error(srv: Any) -> None:
    client = _client(srv)
    with pytest.raises(errors.ServerError) as raised:
        client.models.generate_content(model=MODEL, contents=OVERLOADED)
    assert raised.value.code == 529 and raised.value.status == "UNAVAILABLE"


def test_the_async_client_streams(srv: Any) -> None:
    async def run() -> list[types.Part]:
        client = _client(srv)
        config = types.GenerateContentConfig(
            thinking_config=types.ThinkingConfig(include_thoughts=True))
        stream = await client.aio.models.generate_content_stream(model=MODEL, contents=HELLO,
                                                                 config=config)
        return [p async for chunk in stream
                for p in chunk.candidates[0].content.parts or []]  # type: ignore[index,union-attr]

    parts = asyncio.run(run())
    assert "".join(p.text or "" for p in parts if p.thought) == "A short greeting will do."
    assert "".join(p.text or "" for p in parts if not p.thought) == "Hello!"


def test_forced_calling_and_none(srv: Any) -> None:
    client = _client(srv)
    none = _config(tool_config=types.ToolConfig(function_calling_config=types.FunctionCallingConfig(
        mode=types.FunctionCallingConfigMode.NONE)))
    response = client.models.generate_content(model=MODEL, contents=WEATHER, config=none)
    assert response.text == "Let me check." and not response.function_calls
    forced = _config(tool_config=types.ToolConfig(function_calling_config=types.FunctionCallingConfig(
        mode=types.FunctionCallingConfigMode.ANY, allowed_function_names=["nope"])))
    with pytest.raises(errors.ClientError) as raised:
        client.models.generate_content(model=MODEL, contents=WEATHER, config=forced)
    assert raised.value.code == 400 and "nope" in (raised.value.message or "")
    hello = types.GenerateContentConfig(tools=[WEATHER_TOOL], tool_config=types.ToolConfig(
        function_calling_config=types.FunctionCallingConfig(
            mode=types.FunctionCallingConfigMode.ANY)))
    with pytest.raises(errors.ClientError, match="must call a tool"):
        client.models.generate_content(model=MODEL, contents=HELLO, config=hello)


def test_count_tokens_and_the_model_list(srv: Any) -> None:
    client = _client(srv)
    counted = client.models.count_tokens(model=MODEL, contents=WEATHER)
    assert counted.total_tokens and counted.total_tokens > 0
    assert client.models.get(model=MODEL).name == f"models/{MODEL}"
    assert [m.name for m in client.models.list()] == ["models/mock-model"]


# --------------------------------------------------------------------------- the raw wire


def _post(srv: Any, path: str, body: Any, **kw: Any) -> httpx.Response:
    return httpx.post(f"{srv.url}{path}", json=body, timeout=10, **kw)


def test_the_json_array_stream_without_alt_sse(srv: Any) -> None:
    body = {"contents": [{"role": "user", "parts": [{"text": WEATHER}]}], "tools": RAW_TOOLS}
    resp = _post(srv, f"/v1/models/{MODEL}:streamGenerateContent", body,
                 headers={"x-goog-api-key": "k"})
    assert resp.status_code == 200 and resp.headers["content-type"] == "application/json"
    chunks = json.loads(resp.text)
    assert "".join(p.get("text", "") for c in chunks
                   for p in c["candidates"][0]["content"]["parts"]) == "Let me check."
    assert all("usageMetadata" in c for c in chunks)
    assert chunks[-1]["candidates"][0]["finishReason"] == "STOP"
    assert chunks[-1]["candidates"][0]["content"]["parts"][0]["functionCall"]["args"] == {
        "city": "Paris"}
    sse = _post(srv, f"/v1beta/models/{MODEL}:streamGenerateContent?alt=sse&key=secret", body)
    assert sse.headers["content-type"].startswith("text/event-stream")
    frames = [json.loads(line[6:]) for line in sse.text.splitlines() if line.startswith("data: ")]
    assert frames == chunks and "[DONE]" not in sse.text
    assert "secret" not in json.dumps(srv.journal)  # ?key= is kept out of the journal


@pytest.mark.parametrize(("body", "status", "words"), [
    ({}, 400, "contents is not specified"),
    ({"contents": "hi"}, 400, "'contents'"),
    ({"contents": [{"role": "assistant", "parts": [{"text": "x"}]}]}, 400, "valid role"),
    ({"contents": [{"parts": [{"text": 5}]}]}, 400, "contents[0].parts[0].text"),
    ({"contents": [{"parts": [{"text": "x"}]}], "generationConfig": {"temperature": "hot"}},
     400, "generationConfig.temperature"),
    ({"contents": [{"parts": [{"text": "x"}]}], "tools": [{"functionDeclarations": [{}]}]},
     400, "name is not specified"),
    ({"contents": [{"parts": [{"text": "x"}]}],
      "toolConfig": {"functionCallingConfig": {"mode": "SOMETIMES"}}}, 400, "mode"),
    ([1, 2], 400, "body"),
])
def test_requests_google_refuses_get_its_400(srv: Any, body: Any, status: int,
                                             words: str) -> None:
    resp = _post(srv, f"/v1beta/models/{MODEL}:generateContent", body)
    assert resp.status_code == status
    error = resp.json()["error"]
    assert error["code"] == status and error["status"] == "INVALID_ARGUMENT"
    assert words in error["message"]


def test_unknown_paths_and_methods_get_googles_404_and_405(srv: Any) -> None:
    missing = _post(srv, f"/v1beta/models/{MODEL}:embedContent", {})
    assert missing.status_code == 404 and missing.json()["error"]["status"] == "NOT_FOUND"
    nowhere = httpx.get(f"{srv.url}/v1beta/tunedModels", timeout=10)
    assert nowhere.status_code == 404 and nowhere.json()["error"]["code"] == 404
    wrong = httpx.get(f"{srv.url}/v1beta/models/{MODEL}:generateContent", timeout=10)
    assert wrong.status_code == 405 and wrong.headers["allow"] == "POST"
    assert wrong.json()["error"]["message"].endswith("use POST")


def test_a_body_over_the_limit_is_googles_413(serve: Any) -> None:
    srv = serve(load_scripts([str(SCENARIOS / "weather.yaml")], []), body_limit=64 * 1024)
    huge = {"contents": [{"role": "user", "parts": [{"text": "x" * 1000}]}] * 100}
    resp = _post(srv, f"/v1beta/models/{MODEL}:generateContent", huge)
    assert resp.status_code == 413 and resp.json()["error"]["status"] == "INVALID_ARGUMENT"


# --------------------------------------------------------------------------- other clients


def _node(script: str, *args: str) -> dict[str, Any]:
    """Run a node client (tests/node) in a process group of its own; its last JSON line."""
    proc = subprocess.Popen(["node", str(NODE / script), *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=120)
    finally:
        kill_group(proc)
    lines = [line for line in out.splitlines() if line.startswith("{")]
    assert lines, f"{script} printed no JSON (exit {proc.returncode}): {err[-2000:]}"
    result: dict[str, Any] = json.loads(lines[-1])
    return result


@pytest.mark.real_agent  # @google/genai from tests/node
@pytest.mark.parametrize("mode", ["generate", "stream"])
def test_google_genai_for_javascript_runs_the_tool_round(srv: Any, mode: str) -> None:
    result = _node("google_genai.mjs", srv.url, mode, WEATHER, "0", "think")
    assert result["ok"] is True, result
    assert result["said"] == ["Let me check.", "It is sunny in Paris."]
    assert result["thoughts"] == ["The user wants the weather; call the tool.", ""]
    assert [(c["name"], c["args"]) for c in result["calls"]] == [("get_weather", {"city": "Paris"})]


@pytest.mark.real_agent  # @google/genai from tests/node
def test_google_genai_for_javascript_surfaces_a_scripted_429_and_retries_it(srv: Any) -> None:
    refused = _node("google_genai.mjs", srv.url, "generate", FLAKY, "0")
    assert refused["ok"] is False and refused["status"] == 429, refused
    assert json.loads(refused["message"])["error"]["status"] == "RESOURCE_EXHAUSTED"
    httpx.post(f"{srv.url}/_scenarist/reset", timeout=10)
    retried = _node("google_genai.mjs", srv.url, "stream", FLAKY, "3")
    assert retried["ok"] is True, retried
    assert retried["said"] == ["Let me check.", "No rain in Oslo."]
    assert [e["status"] for e in srv.journal if e.get("api") == "gemini"] == [429, 200, 200]


def _vercel(srv: Any, mode: str, prompt: str, retries: int = 2,
            think: bool = False) -> dict[str, Any]:
    """generateText/streamText through ``ai`` with the Google provider (tests/node/vercel_ai.mjs)."""
    return _node("vercel_ai.mjs", srv.url, "google", mode, prompt, str(retries),
                 *(["think"] if think else []))


@pytest.mark.real_agent  # ai + @ai-sdk/google from tests/node
@pytest.mark.parametrize("mode", ["generate", "stream"])
@pytest.mark.parametrize("think", [False, True], ids=["plain", "think"])
def test_vercel_ai_sdk_google_provider_runs_the_tool_round(srv: Any, mode: str,
                                                           think: bool) -> None:
    result = _vercel(srv, mode, WEATHER, think=think)
    assert result["ok"] is True, result
    assert result["calls"] == ["Paris"] and result["steps"] == 2
    assert result["finishes"] == ["tool-calls", "stop"]
    assert result["text"] == "It is sunny in Paris."
    # thoughts only when the request asks for them (includeThoughts)
    assert result["reasoning"] == ("The user wants the weather; call the tool." if think
                                   else None)


@pytest.mark.real_agent  # ai + @ai-sdk/google from tests/node
def test_vercel_ai_sdk_google_provider_retries_a_scripted_429_and_reports_it(srv: Any) -> None:
    refused = _vercel(srv, "generate", FLAKY, retries=0)
    assert refused["ok"] is False and refused["status"] == 429, refused
    assert refused["data"]["error"]["status"] == "RESOURCE_EXHAUSTED"
    httpx.post(f"{srv.url}/_scenarist/reset", timeout=10)
    retried = _vercel(srv, "stream", FLAKY)
    assert retried["ok"] is True, retried
    assert retried["calls"] == ["Oslo"] and retried["text"] == "No rain in Oslo."
    assert [e["status"] for e in srv.journal if e.get("api") == "gemini"] == [429, 200, 200]


@pytest.mark.parametrize("stream", [False, True], ids=["invoke", "stream"])
def test_langchain_chat_google_genai_runs_the_tool_round(srv: Any, stream: bool) -> None:
    from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
    from langchain_google_genai import ChatGoogleGenerativeAI

    def get_weather(city: str) -> str:
        """The weather in a city."""
        return f"sunny in {city}"

    chat = ChatGoogleGenerativeAI(model=MODEL, google_api_key="test-key", base_url=srv.url,
                                  max_retries=0).bind_tools([get_weather])
    messages: list[BaseMessage] = [HumanMessage(WEATHER)]
    said: list[Any] = []
    for _ in range(4):
        if stream:
            chunks = list(chat.stream(messages))
            reply: Any = chunks[0]
            for chunk in chunks[1:]:
                reply = reply + chunk
        else:
            reply = chat.invoke(messages)
        assert isinstance(reply, AIMessage)
        said.append(reply.text)
        if not reply.tool_calls:
            break
        messages.append(reply)
        messages.extend(ToolMessage(get_weather(**call["args"]), tool_call_id=call["id"] or "")
                        for call in reply.tool_calls)
    assert said == ["Let me check.", "It is sunny in Paris."]
    calls = next(m for m in messages if isinstance(m, AIMessage)).tool_calls
    assert [(c["name"], c["args"]) for c in calls] == [("get_weather", {"city": "Paris"})]


def test_one_scenario_file_serves_gemini_openai_and_anthropic_clients_unchanged(
        srv: Any) -> None:
    """The weather scenario, played to the three official SDKs in turn by one server."""
    import anthropic
    import openai

    gemini = _round(_client(srv), WEATHER, stream=True)
    oa = openai.OpenAI(base_url=f"{srv.url}/v1", api_key="x", max_retries=0)
    oa_tools: Any = [{"type": "function", "function": {
        "name": "get_weather", "parameters": {"type": "object",
                                              "properties": {"city": {"type": "string"}}}}}]
    messages: list[Any] = [{"role": "user", "content": WEATHER}]
    first = oa.chat.completions.create(model="m", messages=messages, tools=oa_tools).choices[0]
    call = first.message.tool_calls[0]  # type: ignore[index]
    messages += [first.message.model_dump(exclude_none=True),
                 {"role": "tool", "tool_call_id": call.id, "content": "sunny"}]
    last = oa.chat.completions.create(model="m", messages=messages, tools=oa_tools).choices[0]
    an = anthropic.Anthropic(base_url=srv.url, api_key="x", max_retries=0)
    an_tools: Any = [{"name": "get_weather", "input_schema": {
        "type": "object", "properties": {"city": {"type": "string"}}}}]
    turns: list[Any] = [{"role": "user", "content": WEATHER}]
    one = an.messages.create(model="c", max_tokens=100, messages=turns, tools=an_tools)
    use = next(b for b in one.content if b.type == "tool_use")
    turns += [{"role": "assistant", "content": one.content},
              {"role": "user", "content": [{"type": "tool_result", "tool_use_id": use.id,
                                            "content": "sunny"}]}]
    two = an.messages.create(model="c", max_tokens=100, messages=turns, tools=an_tools)
    assert gemini["said"] == [first.message.content, last.message.content] == [
        one.content[0].text, two.content[0].text]  # type: ignore[union-attr]
    assert gemini["called"][0]["args"] == json.loads(call.function.arguments) == use.input  # type: ignore[union-attr]
    assert [e["api"] for e in srv.journal] == ["gemini", "gemini", "chat", "chat",
                                               "messages", "messages"]


def test_a_turn_that_cannot_be_fitted_is_invalid_argument(srv: Any) -> None:
    """The server's own 400s carry Google's status, not another API's error type."""
    body = {"contents": [{"role": "user", "parts": [{"text": HELLO}]}], "tools": RAW_TOOLS,
            "toolConfig": {"functionCallingConfig": {"mode": "ANY"}}}
    resp = _post(srv, f"/v1beta/models/{MODEL}:generateContent", body)
    assert resp.status_code == 400 and resp.json()["error"]["status"] == "INVALID_ARGUMENT"
    assert "must call a tool" in resp.json()["error"]["message"]


def test_automatic_function_calling_in_a_chat_runs_the_round(srv: Any) -> None:
    """The SDK's default: Python functions as tools, called and answered by the SDK."""
    called: list[str] = []

    def get_weather(city: str) -> str:
        """The weather in a city."""
        called.append(city)
        return f"sunny in {city}"

    client = _client(srv)
    chat = client.chats.create(model=MODEL,
                               config=types.GenerateContentConfig(tools=[get_weather]))
    assert chat.send_message(WEATHER).text == "It is sunny in Paris."
    assert called == ["Paris"]
    assert [(e["turn"], e["tool_results"]) for e in srv.journal] == [(0, 0), (1, 1)]


def test_vertex_ai_paths_are_served_too(srv: Any) -> None:
    """google-genai with ``vertexai=True`` (express mode, an API key) posts to
    ``/v1beta1/publishers/google/models/...``; with a project, under ``projects/P/locations/L``."""
    vertex = genai.Client(vertexai=True, api_key="test-key",
                          http_options=types.HttpOptions(base_url=srv.url))
    result = _round(vertex, WEATHER, stream=True)
    assert result["said"] == ["Let me check.", "It is sunny in Paris."]
    path = f"/v1beta1/projects/p/locations/us-central1/publishers/google/models/{MODEL}"
    resp = _post(srv, f"{path}:generateContent",
                 {"contents": [{"role": "user", "parts": [{"text": HELLO}]}]})
    assert resp.status_code == 200 and srv.journal[-1]["scenario"] == "think_then_answer"
