"""``scenarist record`` in front of an upstream ``scenarist llm``, driven by the official OpenAI
and Anthropic SDKs (streamed and not): the recorded scenario, replayed by ``scenarist llm``,
gives the same answers; the key sent is in no file; ``--redact`` masks what it matches."""

from __future__ import annotations

from pathlib import Path

import anthropic
import openai
import pytest
from recordkit import KEY, REPO, SCENARIOS, assert_private, recorded, upstream_and_proxy

from scenarist.llm.process import run_server
from scenarist.scenario import load_scenario
from scenarist.scenario.model import LlmResponse, TextStep

PROMPT = "Where does the build run?"
ANSWER = "It runs on internal-host-42.corp, every night at two."
APIS = ["chat", "responses", "messages"]


def ask(api: str, url: str, stream: bool, prompt: str = PROMPT) -> str:
    """The answer's text, through the official SDK of ``api``."""
    if api == "messages":
        claude = anthropic.Anthropic(base_url=url, api_key=KEY, max_retries=0)
        if stream:
            with claude.messages.stream(model="m", max_tokens=64,
                                        messages=[{"role": "user", "content": prompt}]) as s:
                return "".join(s.text_stream)
        message = claude.messages.create(model="m", max_tokens=64,
                                         messages=[{"role": "user", "content": prompt}])
        return "".join(b.text for b in message.content if b.type == "text")
    client = openai.OpenAI(base_url=f"{url}/v1", api_key=KEY, max_retries=0)
    if api == "chat":
        if stream:
            chunks = client.chat.completions.create(
                model="m", messages=[{"role": "user", "content": prompt}], stream=True)
            return "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
        done = client.chat.completions.create(model="m",
                                              messages=[{"role": "user", "content": prompt}])
        return done.choices[0].message.content or ""
    if stream:
        events = client.responses.create(model="m", input=prompt, stream=True)
        return "".join(e.delta for e in events if e.type == "response.output_text.delta")
    return client.responses.create(model="m", input=prompt).output_text


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
@pytest.mark.parametrize("api", APIS)
def test_a_recorded_answer_replays_the_same(tmp_path: Path, api: str, stream: bool) -> None:
    out = tmp_path / "out"
    with upstream_and_proxy(SCENARIOS / "answers.yaml", out) as (_, proxy):
        assert ask(api, proxy.base_url, stream) == ANSWER
    [path] = recorded(out)
    assert path.name == "where-does-the-build-run.yaml"
    assert_private(path)
    text = path.read_text()
    assert KEY not in text
    assert not any(f in text for f in ("chatcmpl-", "resp_", "msg_"))  # no upstream ids
    scenario = load_scenario(path)
    assert scenario.effective_initial_prompt == PROMPT
    [answer] = [e for e in scenario.timeline if isinstance(e, LlmResponse)]
    steps = [s.text for s in answer.steps if isinstance(s, TextStep)]
    # streamed, the upstream's two steps come back as two (a pause of 150 ms between them)
    assert steps == (["It runs on internal-host-42.corp, ", "every night at two."] if stream
                     else [ANSWER])
    with run_server(path) as replay:
        assert ask(api, replay.base_url, stream) == ANSWER


def test_a_scripted_429_is_recorded_and_replayed(tmp_path: Path) -> None:
    out = tmp_path / "out"
    with upstream_and_proxy(REPO / "examples" / "rate-limit-retry.yaml", out) as (_, proxy):
        client = openai.OpenAI(base_url=f"{proxy.base_url}/v1", api_key=KEY, max_retries=0)
        with pytest.raises(openai.RateLimitError):
            client.chat.completions.create(
                model="m", messages=[{"role": "user", "content": "Summarise the changelog"}])
        retried = client.chat.completions.create(
            model="m", messages=[{"role": "user", "content": "Summarise the changelog"}])
    [path] = recorded(out)
    with run_server(path) as replay:
        client = openai.OpenAI(base_url=f"{replay.base_url}/v1", api_key="x", max_retries=0)
        with pytest.raises(openai.RateLimitError) as refused:
            client.chat.completions.create(
                model="m", messages=[{"role": "user", "content": "Summarise the changelog"}])
        assert refused.value.response.headers["retry-after"] == "1"
        again = client.chat.completions.create(
            model="m", messages=[{"role": "user", "content": "Summarise the changelog"}])
    assert again.choices[0].message.content == retried.choices[0].message.content
    assert KEY not in path.read_text()


def test_redact_masks_what_it_matches(tmp_path: Path) -> None:
    out = tmp_path / "out"
    with upstream_and_proxy(SCENARIOS / "answers.yaml", out,
                            "--redact", r"internal-host-\d+\.corp") as (_, proxy):
        assert ask("chat", proxy.base_url, True) == ANSWER
    [path] = recorded(out)
    text = path.read_text()
    assert "internal-host-42.corp" not in text and "[REDACTED]" in text
    assert "every night at two." in text


def test_the_scenario_is_named_by_name_or_test_header(tmp_path: Path) -> None:
    out = tmp_path / "out"
    with upstream_and_proxy(SCENARIOS / "answers.yaml", out, "--name", "build host") as (_, p):
        ask("chat", p.base_url, False)
        ask("chat", p.base_url, False)  # a re-run replaces the file
    assert [f.name for f in recorded(out)] == ["build-host.yaml"]
    assert load_scenario(out / "build-host.yaml").name == "build-host"
    out2 = tmp_path / "out2"
    with upstream_and_proxy(SCENARIOS / "answers.yaml", out2) as (_, proxy):
        client = openai.OpenAI(base_url=f"{proxy.base_url}/v1", api_key=KEY, max_retries=0,
                               default_headers={"x-scenario-test": "tests/x.py::test_build"})
        client.chat.completions.create(model="m", messages=[{"role": "user", "content": PROMPT}])
    assert [f.name for f in recorded(out2)] == ["tests-x-py-test-build.yaml"]
