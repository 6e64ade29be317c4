"""The fake model served to the official google-genai SDK in-process (the Gemini API)."""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest
from google.genai import errors, types

from scenarist.fake import FakeModel, error, text, tool_call, usage
from scenarist.fake.http import transport
from scenarist.play.clock import VirtualClock

MODEL = "gemini-2.5-flash"
NO_AUTO = types.GenerateContentConfig(
    automatic_function_calling=types.AutomaticFunctionCallingConfig(disable=True))


def test_google_client_tool_loop_and_recorded_requests() -> None:
    model = FakeModel(scripts=[
        [text("Let me look."), tool_call(id="c1", name="ls", arguments={"path": "."}),
         usage(input_tokens=7, output_tokens=3)],
        [text("There is a.txt.")]])
    client = model.google_client()
    first = client.models.generate_content(model=MODEL, contents="list files", config=NO_AUTO)
    assert first.text == "Let me look." and first.model_version == MODEL
    call = first.function_calls[0]  # type: ignore[index]
    assert (call.id, call.name, call.args) == ("c1", "ls", {"path": "."})
    assert first.usage_metadata is not None
    assert (first.usage_metadata.prompt_token_count,
            first.usage_metadata.candidates_token_count) == (7, 3)
    contents = [types.Content(role="user", parts=[types.Part(text="list files")]),
                first.candidates[0].content,  # type: ignore[index]
                types.Content(role="user", parts=[types.Part(function_response=types.FunctionResponse(
                    id="c1", name="ls", response={"output": "a.txt"}))])]
    chunks = list(client.models.generate_content_stream(model=MODEL, contents=contents,  # type: ignore[arg-type]
                                                        config=NO_AUTO))
    assert "".join(c.text or "" for c in chunks) == "There is a.txt."
    assert chunks[-1].candidates[0].finish_reason == types.FinishReason.STOP  # type: ignore[index]
    sent = model.requests[1]["contents"][2]["parts"][0]["functionResponse"]
    assert sent == {"id": "c1", "name": "ls", "response": {"output": "a.txt"}}


async def test_the_async_google_client_streams() -> None:
    model = FakeModel(scripts=[[text("one two three")]])
    stream = await model.google_client().aio.models.generate_content_stream(
        model=MODEL, contents="count")
    assert "".join([c.text or "" async for c in stream]) == "one two three"


def test_scripted_errors_reach_the_google_sdk_in_googles_envelope() -> None:
    model = FakeModel(scripts=[[error("rate_limited", message="slow down", status=429)]])
    with pytest.raises(errors.ClientError) as raised:
        model.google_client().models.generate_content(model=MODEL, contents="hi")
    assert (raised.value.code, raised.value.status, raised.value.message) == (
        429, "RESOURCE_EXHAUSTED", "slow down")


def test_the_asgi_app_streams_gemini_as_sse_or_one_json_array() -> None:
    model = FakeModel(scripts=[[text("hello")], [text("again")]], clock=VirtualClock())

    async def post(path: str) -> httpx.Response:
        transport = httpx.ASGITransport(app=model.asgi_app())
        async with httpx.AsyncClient(transport=transport, base_url="http://fake") as client:
            return await client.post(path, json={"contents": [{"parts": [{"text": "hi"}]}]})

    sse = asyncio.run(post(f"/v1beta/models/{MODEL}:streamGenerateContent?alt=sse"))
    assert sse.headers["content-type"].startswith("text/event-stream")
    frames = [json.loads(line[6:]) for line in sse.text.splitlines() if line.startswith("data: ")]
    array = asyncio.run(post(f"/v1beta/models/{MODEL}:streamGenerateContent"))
    chunks = json.loads(array.text)
    assert frames[0]["candidates"][0]["content"]["parts"][0]["text"] == "hello"
    assert chunks[0]["candidates"][0]["content"]["parts"][0]["text"] == "again"
    assert chunks[-1]["candidates"][0]["finishReason"] == "STOP"


def test_the_sync_transport_streams_one_json_array_without_alt_sse() -> None:
    model = FakeModel(scripts=[[text("a longer answer")]])
    answered = transport(model.serve)  # httpx's own (google-genai takes httpx clients)
    with httpx.Client(transport=answered, base_url="http://fake") as client:
        resp = client.post(f"/v1/models/{MODEL}:streamGenerateContent",
                           json={"contents": [{"parts": [{"text": "hi"}]}]})
    chunks = json.loads(resp.text)
    assert resp.headers["content-type"] == "application/json" and len(chunks) == 2
    assert "".join(p.get("text", "") for c in chunks
                   for p in c["candidates"][0]["content"]["parts"]) == (
        "a longer answer")
