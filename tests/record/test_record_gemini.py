"""``scenarist record`` in front of a Gemini upstream, driven by the official google-genai SDK:
a tool round (streamed with ``?alt=sse``, and whole, with the SDK's automatic function
calling) is recorded as one conversation that ``scenarist llm`` replays the same; a 429 in
Google's envelope keeps its ``RetryInfo`` delay."""

from __future__ import annotations

from pathlib import Path

import pytest
from google import genai
from google.genai import errors, types
from recordkit import KEY, REPO, assert_private, recorded, upstream_and_proxy

from scenarist.llm.process import run_server
from scenarist.scenario import load_scenario
from scenarist.scenario.model import AgentToolUse, LlmResponse

WEATHER = REPO / "tests" / "llm" / "client_scenarios" / "weather.yaml"
MODEL = "gemini-2.5-flash"


def client(url: str) -> genai.Client:
    return genai.Client(api_key=KEY, http_options=types.HttpOptions(base_url=url))


def weather_round(url: str, stream: bool) -> list[str]:
    """Ask, run the call the model makes, send its result, read the answer: what was said."""
    tool = types.Tool(function_declarations=[types.FunctionDeclaration(
        name="get_weather", parameters=types.Schema(
            type=types.Type.OBJECT, properties={"city": types.Schema(type=types.Type.STRING)}))])
    config = types.GenerateContentConfig(
        tools=[tool], automatic_function_calling=types.AutomaticFunctionCallingConfig(disable=True))
    contents = [types.Content(role="user", parts=[types.Part(text="What is the weather in Paris?")])]
    said: list[str] = []
    models = client(url)  # kept: the SDK closes its connections when the client goes
    for _ in range(3):
        if stream:
            parts = [p for chunk in models.models.generate_content_stream(
                model=MODEL, contents=contents, config=config)
                for c in chunk.candidates or () for p in (c.content.parts if c.content else ())
                or ()]
        else:
            done = models.models.generate_content(model=MODEL, contents=contents,
                                                  config=config)
            parts = list(done.candidates[0].content.parts or ()) if done.candidates and \
                done.candidates[0].content else []
        said.append("".join(p.text or "" for p in parts if not p.thought))
        contents.append(types.Content(role="model", parts=parts))
        calls = [p.function_call for p in parts if p.function_call]
        if not calls:
            return said
        contents.append(types.Content(role="user", parts=[types.Part(
            function_response=types.FunctionResponse(name=c.name, id=c.id,
                                                     response={"output": "sunny"}))
            for c in calls]))
    raise AssertionError(f"no answer without calls: {said}")


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
def test_a_gemini_tool_round_is_recorded_and_replayed(tmp_path: Path, stream: bool) -> None:
    out = tmp_path / "out"
    with upstream_and_proxy(WEATHER, out) as (_, proxy):
        said = weather_round(proxy.base_url, stream)
    assert said == ["Let me check.", "It is sunny in Paris."]
    [path] = recorded(out)
    assert_private(path)
    assert KEY not in path.read_text()
    scenario = load_scenario(path)
    kinds = [type(e).__name__ for e in scenario.timeline if isinstance(e, LlmResponse | AgentToolUse)]
    assert kinds == ["LlmResponse", "AgentToolUse", "LlmResponse"]
    [call] = [e for e in scenario.timeline if isinstance(e, AgentToolUse)]
    assert call.tool.name == "get_weather"
    with run_server(path) as replay:
        assert weather_round(replay.base_url, stream) == said


def test_automatic_function_calling_is_recorded_as_one_conversation(tmp_path: Path) -> None:
    """The SDK's default calls the Python function itself and sends its result back."""

    def get_weather(city: str) -> str:
        """The weather in a city."""
        return f"sunny in {city}"

    out = tmp_path / "out"
    with upstream_and_proxy(WEATHER, out) as (_, proxy):
        recording = client(proxy.base_url)
        chat = recording.chats.create(
            model=MODEL, config=types.GenerateContentConfig(tools=[get_weather]))
        answer = chat.send_message("What is the weather in Paris?").text
    assert answer == "It is sunny in Paris."
    [path] = recorded(out)
    with run_server(path) as replay:
        replaying = client(replay.base_url)
        chat = replaying.chats.create(
            model=MODEL, config=types.GenerateContentConfig(tools=[get_weather]))
        assert chat.send_message("What is the weather in Paris?").text == answer


def test_a_429_in_googles_envelope_keeps_its_retry_delay(tmp_path: Path) -> None:
    out = tmp_path / "out"
    prompt = "Summarise the changelog"
    with upstream_and_proxy(REPO / "examples" / "rate-limit-retry.yaml", out) as (_, proxy):
        recording = client(proxy.base_url)
        with pytest.raises(errors.ClientError) as refused:
            recording.models.generate_content(model=MODEL, contents=prompt)
        assert refused.value.code == 429
        again = recording.models.generate_content(model=MODEL, contents=prompt)
    [path] = recorded(out)
    text = path.read_text()
    assert "retryAfterSeconds: 1" in text, text
    with run_server(path) as replay:
        replaying = client(replay.base_url)
        with pytest.raises(errors.ClientError) as replayed:
            replaying.models.generate_content(model=MODEL, contents=prompt)
        assert replayed.value.code == 429
        assert replaying.models.generate_content(model=MODEL, contents=prompt).text == again.text
