"""``scenarist llm --record-on-miss``: what a scenario answers is served as always; what none
answers goes to the upstream and is recorded, and the next start serves it without it."""

from __future__ import annotations

import shutil
from pathlib import Path

import openai
from recordkit import KEY, REPO, SCENARIOS, assert_private, recorded

from scenarist.llm.process import run_server

KNOWN = "Summarise the changelog"  # examples/rate-limit-retry.yaml, served locally
MISSED = "Where does the build run?"  # only the upstream plays it (scenarios/answers.yaml)
ANSWER = "It runs on internal-host-42.corp, every night at two."


def chat(url: str, prompt: str) -> str:
    client = openai.OpenAI(base_url=f"{url}/v1", api_key=KEY, max_retries=2)
    done = client.chat.completions.create(model="m", messages=[{"role": "user", "content": prompt}])
    return done.choices[0].message.content or ""


def test_misses_are_recorded_and_served_next_time(tmp_path: Path) -> None:
    suite = tmp_path / "suite"
    suite.mkdir()
    shutil.copy(REPO / "examples" / "rate-limit-retry.yaml", suite)
    with run_server(SCENARIOS / "answers.yaml") as upstream, run_server(
            suite, "--record-on-miss", "--upstream", upstream.base_url) as server:
        known = chat(server.base_url, KNOWN)
        assert chat(server.base_url, MISSED) == ANSWER
        journal = server.journal()
        upstream_journal = upstream.journal()
    assert known == "The changelog adds retries and fixes two crashes."
    assert [e.get("proxied", False) for e in journal] == [False, False, True]
    assert [e["status"] for e in journal] == [429, 200, 404]
    assert len(upstream_journal) == 1  # only the miss went upstream
    files = recorded(suite)
    assert [f.name for f in files] == ["rate-limit-retry.yaml", "where-does-the-build-run.yaml"]
    assert_private(files[1])
    assert KEY not in files[1].read_text()
    with run_server(suite) as offline:  # no upstream now: the recording answers
        assert chat(offline.base_url, MISSED) == ANSWER


def test_record_on_miss_needs_an_upstream(tmp_path: Path) -> None:
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "scenarist", "llm", "--scenario",
                           str(SCENARIOS / "answers.yaml"), "--record-on-miss"],
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 2
    assert "--record-on-miss needs --upstream URL" in done.stderr
    done = subprocess.run([sys.executable, "-m", "scenarist", "llm", "--scenario",
                           str(SCENARIOS / "answers.yaml"), "--upstream", "http://127.0.0.1:9"],
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 2 and "--upstream: only with --record-on-miss" in done.stderr


TURN_ONE = """\
name: first-turn
timeline:
  - userInputs:
      - [0, "Which branch is the release on?"]
  - llmResponse:
      - assistant: [[0, "The release is on branch stable."]]
"""
BOTH_TURNS = TURN_ONE.replace("first-turn", "both-turns") + """\
  - userInputs:
      - [0, "And who cut it?"]
  - llmResponse:
      - assistant: [[0, "Maria cut it on Monday."]]
"""


def test_a_miss_mid_conversation_records_the_turns_before_it(tmp_path: Path) -> None:
    suite, upstream_file = tmp_path / "suite", tmp_path / "both-turns.yaml"
    suite.mkdir()
    (suite / "first-turn.yaml").write_text(TURN_ONE)
    upstream_file.write_text(BOTH_TURNS)
    client_messages: list[dict[str, str]] = [
        {"role": "user", "content": "Which branch is the release on?"}]
    with run_server(upstream_file) as upstream, run_server(
            suite, "--record-on-miss", "--upstream", upstream.base_url) as server:
        client = openai.OpenAI(base_url=f"{server.base_url}/v1", api_key=KEY, max_retries=0)
        for prompt in (None, "And who cut it?"):
            if prompt is not None:
                client_messages.append({"role": "user", "content": prompt})
            done = client.chat.completions.create(model="m", messages=client_messages)
            client_messages.append({"role": "assistant",
                                    "content": done.choices[0].message.content or ""})
        journal = server.journal()
    assert [e.get("proxied", False) for e in journal] == [False, True]
    [recording] = [f for f in recorded(suite) if f.name != "first-turn.yaml"]
    # the second turn alone would not replay: the file starts where the conversation did
    with run_server(recording) as offline:
        replay = openai.OpenAI(base_url=f"{offline.base_url}/v1", api_key=KEY, max_retries=0)
        first = replay.chat.completions.create(model="m", messages=client_messages[:1])
        second = replay.chat.completions.create(model="m", messages=client_messages[:3])
    assert first.choices[0].message.content == "The release is on branch stable."
    assert second.choices[0].message.content == "Maria cut it on Monday."
