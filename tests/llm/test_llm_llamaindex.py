"""llama-index ``chat_with_tools`` (``parallel_tool_calls: false`` by default) against
``scenarist llm``: a turn with two calls is served as two one-call answers.

llama-index-llms-openai 0.8.3 needs ``openai<3`` and the OpenAI Agents SDK ``openai>=3``, so
llama-index lives in its own venv, ``.venv-llamaindex``, which ``scripts/test`` creates. The
test is skipped only when that venv is absent and ``SCENARIST_REQUIRE_ALL`` is unset.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from two_cities import PROMPT, WEATHER

from installs import missing_install

pytestmark = pytest.mark.real_agent
REPO = Path(__file__).resolve().parents[2]
PYTHON = REPO / ".venv-llamaindex" / "bin" / "python"
SCRIPT = Path(__file__).with_name("llamaindex_chat.py")


@pytest.fixture
def python() -> Path:
    missing_install(PYTHON, "llama-index (.venv-llamaindex)")
    return PYTHON


def test_chat_with_tools_gets_one_call_per_answer(serve: Any, python: Path) -> None:
    served = serve([WEATHER], speed=0.01)
    done = subprocess.run([str(python), str(SCRIPT), served.url, PROMPT], capture_output=True,
                          text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result == {"text": "Paris is sunnier than London today.",
                      "asked": ["Paris", "London"], "calls_per_answer": [1, 1, 0]}
    requests = [e for e in served.journal if e.get("api") == "chat"]
    assert [r["status"] for r in requests] == [200, 200, 200]
    assert [r.get("part", 0) for r in requests] == [0, 1, 0]
