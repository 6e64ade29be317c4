"""The pytest plugin's fixtures (loaded through the pytest11 entry point, not imported)."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest

from scenarist.fake import FakeModel, text
from scenarist.llm.process import ServerStartError, start_server

HELLO = Path(__file__).parent / "scenarios" / "hello.yaml"


def test_fake_model_fixture_builds_independent_models(fake_model: Callable[..., Any]) -> None:
    a = fake_model(scripts=[[text("x")]])
    b = fake_model(scripts=[[text("x")]])
    assert isinstance(a, FakeModel) and a.generate().output_text == "x"
    assert b.generate().output_text == "x"


@pytest.mark.slow
def test_scenarist_llm_fixture_serves_a_scenario(scenarist_llm: Callable[..., str]) -> None:
    base = scenarist_llm(HELLO)
    assert base.startswith("http://127.0.0.1:")
    client = openai.OpenAI(api_key="sk-test", base_url=f"{base}/v1", max_retries=0)
    stream = client.chat.completions.create(
        model="mock-model", messages=[{"role": "user", "content": "say hello"}], stream=True)
    assert "".join(c.choices[0].delta.content or "" for c in stream if c.choices) == (
        "Hello from the scenario.")


@pytest.mark.slow
def test_server_is_stopped_and_bad_scenarios_fail_with_stderr(tmp_path: Path) -> None:
    server = start_server(HELLO)
    proc, base = server.process, server.base_url
    server.stop()
    assert proc.returncode is not None
    with pytest.raises(ProcessLookupError):
        os.killpg(proc.pid, 0)  # the whole process group is gone
    with pytest.raises(httpx.ConnectError):
        httpx.get(f"{base}/v1/models", timeout=2)
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: [unclosed\n")
    with pytest.raises(ServerStartError, match="did not print") as info:
        start_server(bad, timeout_s=30)
    assert "bad.yaml:2:1" in str(info.value) and "YAML syntax error" in str(info.value)
