"""``scenarist record --normalise`` and ``--redact``: what the user's rules replaced at record
time matches at replay, through the official openai SDK against real processes (an upstream
``scenarist llm``, the recording proxy, then ``scenarist llm`` playing the recording).

The rules travel with the recording as its placeholders: a hook writes ``<BUILD>`` for what
changes between runs, ``--redact`` writes ``[REDACTED]``, and the replay reads each as "some
text on this line" (docs/recording.md), so no option has to be repeated at replay and no code
named by a scenario file is ever run.
"""

from __future__ import annotations

import os
from pathlib import Path

import openai
import pytest
from recordkit import KEY, recorded

from scenarist.llm.divergence import result_matches
from scenarist.llm.process import run_server
from scenarist.llm.selection import is_match

FIRST, LATER = "3f2a9c1e8b7d6a5f4e3d2c1b0a9f8e7d6c5b4a39", "9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e0d"
UPSTREAM = f"""\
name: review
timeline:
  - userInputs: [[0, "Review commit {FIRST} from runner eu-7"]]
  - llmResponse: [{{assistant: [[0, "Looks good: ship it."]]}}]
"""
HOOK = '''\
import re


def mask_commits(text: str) -> str:
    return re.sub(r"\\b[0-9a-f]{40}\\b", "<SHA>", text)
'''


def _ask(url: str, prompt: str) -> str:
    client = openai.OpenAI(base_url=f"{url}/v1", api_key=KEY, max_retries=0)
    done = client.chat.completions.create(
        model="m", messages=[{"role": "user", "content": prompt}])
    return done.choices[0].message.content or ""


@pytest.fixture
def recording(tmp_path: Path) -> Path:
    """The scenario recorded from one run (commit FIRST, on runner eu-7)."""
    (tmp_path / "hooks").mkdir()
    (tmp_path / "hooks" / "review_hooks.py").write_text(HOOK)
    (tmp_path / "upstream.yaml").write_text(UPSTREAM)
    out = tmp_path / "recordings"
    env = {"PYTHONPATH": os.pathsep.join(filter(None, [str(tmp_path / "hooks"),
                                                       os.environ.get("PYTHONPATH")]))}
    with run_server(tmp_path / "upstream.yaml") as upstream, run_server(
            [], "--upstream", upstream.base_url, "--out", str(out), "--normalise",
            "review_hooks:mask_commits", "--redact", r"\b(?:eu|us)-\d+", command="record",
            env=env) as proxy:
        assert _ask(proxy.base_url, f"Review commit {FIRST} from runner eu-7") == \
            "Looks good: ship it."
    (path,) = recorded(out)
    return path


def test_what_the_rules_replaced_is_a_placeholder(recording: Path) -> None:
    text = recording.read_text()
    assert "Review commit <SHA> from runner [REDACTED]" in text
    assert FIRST not in text and "eu-7" not in text
    assert recording.name == "review-commit-sha-from-runner-redacted.yaml"  # as written
    assert "--normalise review_hooks:mask_commits" in text  # the header says how it was made


def test_a_later_run_with_other_values_replays(recording: Path) -> None:
    with run_server(recording) as replay:
        assert _ask(replay.base_url, f"Review commit {LATER} from runner us-2") == \
            "Looks good: ship it."
        with pytest.raises(openai.NotFoundError, match="no scenario matches"):
            _ask(replay.base_url, f"Revert commit {LATER} from runner us-2")  # not replaced


def test_a_hook_that_cannot_be_loaded_is_a_usage_error(tmp_path: Path) -> None:
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-m", "scenarist", "record", "--upstream", "http://127.0.0.1:9",
         "--out", str(tmp_path), "--normalise", "no_such_module_here:f"],
        capture_output=True, text=True, timeout=60)
    assert done.returncode == 2, done
    assert "--normalise" in done.stderr and "no_such_module_here" in done.stderr


def test_a_hooks_placeholder_or_a_mask_stands_for_text_on_its_line() -> None:
    assert is_match(f"Review commit {LATER} from runner us-2",
                    "Review commit <SHA> from runner [REDACTED]")
    assert result_matches("build <BUILD> passed", "ok\nbuild 9977 passed\n")
    assert not result_matches("build <BUILD> passed", "build 99\n77 passed")  # within a line
    assert not result_matches("build <BUILD> passed", "build 9977 failed")
    assert not result_matches("<div>hello</div>", "<span>hello</span>")  # not capitals: text
