"""Clients that our agent tests never run, against ``scenarist llm`` (issue 16, items 6-8).

Each test runs the real, pinned client: the official openai and anthropic SDKs (a mismatch is
one request, not three; scripted errors come as the SDK's own exception types), LangChain's
``ChatAnthropic`` (``content`` stays a string unless thinking is enabled), litellm (in its own
venv, ``.venv-litellm``: it needs openai<3), instructor (``.venv-instructor``: its
``jiter`` bound holds openai back to 3.3), and the Vercel AI SDK (a node script,
tests/node/vercel_ai.mjs). The server is reset between plays of a scripted error.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import anthropic
import httpx
import openai
import pytest
from llm_agents import REPO, kill_group

from installs import missing_install
from scenarist.llm.cli import load_scripts

WEATHER = "What is the weather in Paris?"
FLAKY = "Is it raining in Oslo?"
OVERLOADED = "Are you overloaded?"
HELLO = "Say hello after some thought"
THINK = {"type": "enabled", "budget_tokens": 1024}
# Requests declare the scenario's tool, as an agent would: a request without tools is
# a side request that must not get tool calls (issue 16, item 2).
AN_TOOLS: Any = [{"name": "get_weather", "input_schema": {"type": "object"}}]
OA_TOOLS: Any = [{"type": "function", "function": {"name": "get_weather", "parameters": {}}}]
NODE_SCRIPT = REPO / "tests" / "node" / "vercel_ai.mjs"
LITELLM_PYTHON = REPO / ".venv-litellm" / "bin" / "python"
INSTRUCTOR_PYTHON = REPO / ".venv-instructor" / "bin" / "python"
SCENARIOS = Path(__file__).resolve().parent / "client_scenarios"


@pytest.fixture
def url(serve: Any) -> Any:
    paths = [
        str(SCENARIOS / f"{n}.yaml")
        for n in ("weather", "flaky_weather", "overloaded", "think_then_answer")
    ]
    return serve(load_scripts(paths, []), speed=0.01)


def _model_requests(srv: Any) -> list[dict[str, Any]]:
    return [e for e in srv.journal if e["path"].startswith("/v1/")]


def _reset(srv: Any) -> dict[str, Any]:
    resp = httpx.post(f"{srv.url}/_scenarist/reset", timeout=10)
    assert resp.status_code == 200
    answer: dict[str, Any] = resp.json()
    return answer


# --------------------------------------------------------------------------- item 7: errors


def test_a_mismatch_is_one_request_for_the_official_sdks(url: Any) -> None:
    """409 (out of step) and 404 (no scenario) carry ``x-should-retry: false``: the SDKs'
    default two retries would otherwise make three requests of one."""
    an = anthropic.Anthropic(base_url=url.url, api_key="x")
    with pytest.raises(anthropic.ConflictError) as conflict:
        an.messages.create(
            model="m",
            max_tokens=100,
            tools=AN_TOOLS,
            messages=[
                {"role": "user", "content": WEATHER},
                {"role": "assistant", "content": "Sunny."},
                {"role": "user", "content": "and tomorrow?"},
            ],
        )
    assert conflict.value.response.headers["x-should-retry"] == "false"
    assert conflict.value.body["error"]["type"] == "invalid_request_error"  # type: ignore[index]
    assert len(_model_requests(url)) == 1
    oa = openai.OpenAI(base_url=f"{url.url}/v1", api_key="x")
    with pytest.raises(openai.NotFoundError) as missing:
        oa.chat.completions.create(
            model="m",
            messages=[{"role": "user", "content": "an unknown prompt xyz"}],
            tools=OA_TOOLS,
        )
    assert missing.value.response.headers["x-should-retry"] == "false"
    assert missing.value.type == "invalid_request_error"
    assert len(_model_requests(url)) == 2


def test_scripted_rate_limit_is_the_sdks_rate_limit_error_then_retried(url: Any) -> None:
    messages: Any = [{"role": "user", "content": FLAKY}]
    tools = AN_TOOLS
    an = anthropic.Anthropic(base_url=url.url, api_key="x", max_retries=0)
    with pytest.raises(anthropic.RateLimitError) as limited:
        an.messages.create(model="m", max_tokens=100, messages=messages, tools=tools)
    assert limited.value.body == {
        "type": "error",
        "error": {"type": "rate_limit_error", "message": "Rate limit reached for requests.",
                  "details": {"limit": 10, "window": "1m"}},
    }
    assert limited.value.response.headers["retry-after"] == "0.1"
    assert "x-should-retry" not in limited.value.response.headers
    _reset(url)
    retried = an.with_options(max_retries=2).messages.create(
        model="m", max_tokens=100, messages=messages, tools=tools
    )
    assert [b.type for b in retried.content] == ["text", "tool_use"]
    assert [e["status"] for e in _model_requests(url)] == [429, 200]

    _reset(url)
    oa = openai.OpenAI(base_url=f"{url.url}/v1", api_key="x", max_retries=0)
    chat: Any = [{"role": "user", "content": FLAKY}]
    with pytest.raises(openai.RateLimitError) as oa_limited:
        oa.chat.completions.create(model="m", messages=chat, tools=OA_TOOLS)
    assert (oa_limited.value.type, oa_limited.value.code) == ("requests", "rate_limit_exceeded")
    assert oa_limited.value.message.endswith("Rate limit reached for requests.")
    assert oa_limited.value.body == {  # the error object, with the scenario's details
        "message": "Rate limit reached for requests.", "type": "requests", "param": None,
        "code": "rate_limit_exceeded", "details": {"limit": 10, "window": "1m"}}


def test_scripted_overload_is_the_apis_own_overload_error(url: Any) -> None:
    an = anthropic.Anthropic(base_url=url.url, api_key="x", max_retries=0)
    messages: Any = [{"role": "user", "content": OVERLOADED}]
    with pytest.raises(anthropic.APIStatusError) as overloaded:
        an.messages.create(model="m", max_tokens=100, messages=messages, tools=AN_TOOLS)
    assert overloaded.value.status_code == 529
    assert overloaded.value.body["error"]["type"] == "overloaded_error"  # type: ignore[index]
    _reset(url)
    oa = openai.OpenAI(base_url=f"{url.url}/v1", api_key="x", max_retries=0)
    with pytest.raises(openai.InternalServerError) as oa_overloaded:
        oa.responses.create(
            model="m",
            input=OVERLOADED,
            tools=[{"type": "function", "name": "get_weather", "parameters": {}, "strict": False}],
        )
    assert oa_overloaded.value.status_code == 529
    assert (oa_overloaded.value.type, oa_overloaded.value.code) == ("server_error", "overloaded")


# --------------------------------------------------------------------------- item 8: reset


def test_reset_serves_the_scripted_error_again(url: Any) -> None:
    body = {"model": "m", "messages": [{"role": "user", "content": FLAKY}], "tools": OA_TOOLS}
    post = lambda: httpx.post(f"{url.url}/v1/chat/completions", json=body, timeout=10)  # noqa: E731
    assert [post().status_code for _ in range(3)] == [429, 200, 200]
    assert _reset(url) == {"reset": True, "scripted_errors_forgotten": 1, "journal_cleared": 3}
    assert url.journal == []
    assert [post().status_code for _ in range(2)] == [429, 200]


INNER_TESTS = """
import httpx

SCENARIO = {scenario!r}


def _play(base_url):
    body = {{"model": "m", "messages": [{{"role": "user", "content": {prompt!r}}}],
            "tools": {tools!r}}}
    return [httpx.post(base_url + "/v1/chat/completions", json=body, timeout=10).status_code
            for _ in range(2)]


def test_first(scenarist_llm_shared):
    assert _play(scenarist_llm_shared(SCENARIO)) == [429, 200]


def test_second_gets_the_429_again(scenarist_llm_shared):
    url = scenarist_llm_shared(SCENARIO)
    assert scenarist_llm_shared(SCENARIO) == url  # one server, reset once per test
    assert _play(url) == [429, 200]
"""


def test_the_shared_pytest_fixture_resets_between_tests(tmp_path: Path) -> None:
    """A suite whose two tests play the same scripted 429 against one shared server (the
    ``scenarist_llm_shared`` fixture of the plugin): both meet the 429."""
    inner = tmp_path / "test_inner.py"
    inner.write_text(
        INNER_TESTS.format(
            scenario=str(SCENARIOS / "flaky_weather.yaml"), prompt=FLAKY, tools=OA_TOOLS
        )
    )
    proc = subprocess.Popen(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(inner)],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    try:
        out, _ = proc.communicate(timeout=120)
    finally:
        kill_group(proc)
    assert proc.returncode == 0, out
    assert "2 passed" in out


# --------------------------------------------------------------------------- item 6: thinking


def test_langchain_chat_anthropic_content_is_text_unless_thinking_is_enabled(url: Any) -> None:
    from langchain_anthropic import ChatAnthropic

    plain = ChatAnthropic(  # type: ignore[call-arg]
        model="claude-mock", base_url=url.url, api_key="x", max_retries=0
    )
    answer = plain.invoke(HELLO)
    assert answer.content == "Hello!"  # a string: no unasked thinking block in front
    thinking = ChatAnthropic(  # type: ignore[call-arg]
        model="claude-mock",
        base_url=url.url,
        api_key="x",
        max_tokens=2048,
        thinking=THINK,
        max_retries=0,
    )
    blocks = thinking.invoke(HELLO).content
    assert isinstance(blocks, list)
    assert [b["type"] for b in blocks] == ["thinking", "text"]  # type: ignore[index]
    assert blocks[0]["thinking"] == "A short greeting will do."  # type: ignore[index]


# --------------------------------------------------------------------------- litellm


LITELLM_SCRIPT = """
import json, sys
import litellm

url, prompt, retries, weather = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
tools = [{"type": "function", "function": {"name": "get_weather", "parameters": {}}}]
out = {}
try:
    r = litellm.completion(model="openai/mock-model", api_base=url + "/v1", api_key="x",
                           messages=[{"role": "user", "content": prompt}],
                           num_retries=retries, max_retries=retries, tools=tools)
    out["openai"] = {"text": r.choices[0].message.content}
except Exception as exc:
    out["openai"] = {"error": type(exc).__name__, "status": getattr(exc, "status_code", None),
                     "message": str(exc)}
try:
    r = litellm.completion(model="anthropic/claude-mock", api_base=url, api_key="x",
                           messages=[{"role": "user", "content": weather}], max_tokens=100,
                           tools=tools)
    out["anthropic"] = {"text": r.choices[0].message.content,
                        "reasoning": getattr(r.choices[0].message, "reasoning_content", None),
                        "tools": [c.function.name for c in r.choices[0].message.tool_calls or []]}
except Exception as exc:
    out["anthropic"] = {"error": type(exc).__name__, "message": str(exc)}
print(json.dumps(out))
"""


def _json_of(argv: list[str], env: dict[str, str] | None = None) -> dict[str, Any]:
    """Run a client's script in a process group of its own (stopped after) and return the
    JSON line it prints last."""
    proc = subprocess.Popen(
        argv,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        env={**os.environ, **(env or {})},
    )
    try:
        out, err = proc.communicate(timeout=120)
    finally:
        kill_group(proc)
    assert proc.returncode == 0, err
    result: dict[str, Any] = json.loads(out.strip().splitlines()[-1])
    return result


def _in_side_venv(python: Path, script: str, *args: str,
                  env: dict[str, str] | None = None) -> dict[str, Any]:
    """``script`` run by a client that lives in its own venv (scripts/test makes it)."""
    missing_install(python, python.parent.parent.name)
    return _json_of([str(python), "-c", script, *args], env)


def _litellm(srv: Any, retries: int) -> dict[str, Any]:
    return _in_side_venv(LITELLM_PYTHON, LITELLM_SCRIPT, srv.url, FLAKY, str(retries), WEATHER,
                         env={"LITELLM_LOCAL_MODEL_COST_MAP": "True"})


def test_litellm_scripted_429_then_retry_and_an_anthropic_model(url: Any) -> None:
    refused = _litellm(url, 0)
    assert refused["openai"]["error"] == "RateLimitError", refused
    assert refused["openai"]["status"] == 429
    assert "Rate limit reached for requests." in refused["openai"]["message"]
    assert refused["anthropic"]["text"] == "Let me check."
    assert refused["anthropic"]["reasoning"] is None  # thinking was not asked for
    _reset(url)
    retried = _litellm(url, 2)
    assert retried["openai"] == {"text": "Let me check."}
    flaky = [e["status"] for e in _model_requests(url) if e.get("scenario") == "flaky_weather"]
    assert flaky == [429, 200]


# --------------------------------------------------------------------------- instructor

INSTRUCTOR_SCRIPT = """
import json, sys
import instructor, openai
from pydantic import BaseModel

class Weather(BaseModel):
    city: str
    celsius: int

client = instructor.from_openai(openai.OpenAI(base_url=sys.argv[1] + "/v1", api_key="x"))
weather = client.chat.completions.create(
    model="mock-model", response_model=Weather,
    messages=[{"role": "user", "content": sys.argv[2]}])
print(json.dumps(weather.model_dump()))
"""


def test_instructor_gets_its_response_model_through_the_tool_it_declared(serve: Any) -> None:
    """instructor (TOOLS mode) declares one function named after the response model and
    validates the call's arguments into it: the scenario's call arrives under that name."""
    srv = serve(load_scripts([str(SCENARIOS / "instructor_weather.yaml")], []), speed=0.01)
    weather = _in_side_venv(INSTRUCTOR_PYTHON, INSTRUCTOR_SCRIPT, srv.url, "Weather in Lyon?")
    assert weather == {"city": "Lyon", "celsius": 19}
    (entry,) = _model_requests(srv)
    assert entry["calls"] == ["Weather"] and entry["status"] == 200


INSTRUCTOR_PARTIAL_SCRIPT = """
import json, sys
import instructor, openai
from pydantic import BaseModel

class Release(BaseModel):
    version: str
    highlights: list[str]
    breaking: bool

client = instructor.from_openai(openai.OpenAI(base_url=sys.argv[1] + "/v1", api_key="x"))
partials = list(client.chat.completions.create_partial(
    model="mock-model", response_model=Release,
    messages=[{"role": "user", "content": sys.argv[2]}]))
print(json.dumps({"partials": len(partials), "last": partials[-1].model_dump()}))
"""


def test_instructor_create_partial_gets_its_object_through_the_forced_tool(serve: Any) -> None:
    """Streamed ``create_partial`` (Mode.TOOLS) declares ``PartialRelease`` only and forces
    it with ``tool_choice``: the scenario's ``Release`` call is renamed to it, streamed."""
    srv = serve(load_scripts([str(SCENARIOS / "instructor_release.yaml")], []), speed=0.01)
    got = _in_side_venv(INSTRUCTOR_PYTHON, INSTRUCTOR_PARTIAL_SCRIPT, srv.url,
                        "Draft the 2.0 release")
    assert got["last"] == {"version": "2.0.0", "highlights": ["WebSocket mode", "tool_choice"],
                           "breaking": False}
    assert got["partials"] > 1  # streamed: the object grows over several chunks
    (entry,) = _model_requests(srv)
    assert entry["calls"] == ["PartialRelease"] and entry["status"] == 200
    assert entry["tool_choice"] == "PartialRelease" and entry["stream"] is True


# --------------------------------------------------------------------------- Vercel AI SDK


def _vercel(
    srv: Any, provider: str, mode: str, prompt: str, retries: int = 2, think: bool = False
) -> dict[str, Any]:
    args = [srv.url, provider, mode, prompt, str(retries), *(["think"] if think else [])]
    return _json_of(["node", str(NODE_SCRIPT), *args])


@pytest.mark.real_agent  # the Vercel AI SDK from tests/node
@pytest.mark.parametrize("provider", ["openai", "openai-chat", "anthropic"])
@pytest.mark.parametrize("mode", ["generate", "stream"])
def test_vercel_ai_sdk_runs_the_tool_round(url: Any, provider: str, mode: str) -> None:
    result = _vercel(url, provider, mode, WEATHER)
    assert result["ok"] is True, result
    assert result["calls"] == ["Paris"] and result["steps"] == 2
    assert result["text"] == "It is sunny in Paris."
    assert result["reasoning"] is None  # no thinking unless the request asks for it


@pytest.mark.real_agent  # the Vercel AI SDK from tests/node
@pytest.mark.parametrize("provider", ["openai", "anthropic"])
@pytest.mark.parametrize("mode", ["generate", "stream"])
def test_vercel_ai_sdk_gets_thinking_when_it_asks(url: Any, provider: str, mode: str) -> None:
    result = _vercel(url, provider, mode, WEATHER, think=True)
    assert result["ok"] is True, result
    assert result["reasoning"] == "The user wants the weather; call the tool."
    assert result["calls"] == ["Paris"] and result["text"] == "It is sunny in Paris."


@pytest.mark.real_agent  # the Vercel AI SDK from tests/node
@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_vercel_ai_sdk_retries_a_scripted_429_and_reports_it_without_retries(
    url: Any, provider: str
) -> None:
    refused = _vercel(url, provider, "generate", FLAKY, retries=0)
    assert refused["ok"] is False and refused["status"] == 429, refused
    expected = "rate_limit_error" if provider == "anthropic" else "requests"
    assert refused["data"]["error"]["type"] == expected
    _reset(url)
    retried = _vercel(url, provider, "generate", FLAKY)
    assert retried["ok"] is True, retried
    assert retried["calls"] == ["Oslo"] and retried["text"] == "No rain in Oslo."
    assert [e["status"] for e in _model_requests(url)] == [429, 200, 200]
