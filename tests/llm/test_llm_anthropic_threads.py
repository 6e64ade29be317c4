"""The Anthropic Node SDK's ``toolRunner`` with its defaults against ``scenarist llm``.

With its defaults (``@anthropic-ai/sdk`` 1.12.0) the runner uses message threads: the first
request carries the whole conversation with ``thread: {"type": "create"}``, every later one
only the tool results with ``thread: {"type": "continue", "previous_message_id"}`` and no
``system`` or ``tools``. The position comes from the message id; a thread this process no
longer holds is answered ``thread_not_found``, on which the SDK replays the full history.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import anthropic
import pytest
from two_cities import PROMPT, WEATHER

REPO = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.real_agent
NODE_DIR = REPO / "tests" / "node"
SCRIPT = NODE_DIR / "anthropic_tool_runner.mjs"


def _run(url: str, *extra: str) -> dict[str, Any]:
    node = shutil.which("node")
    assert node is not None, "node is needed for the Anthropic Node SDK (tests/node)"
    done = subprocess.run([node, str(SCRIPT), url, PROMPT, *extra], cwd=NODE_DIR,
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def _requests(served: Any) -> list[dict[str, Any]]:
    return [e for e in served.journal if e.get("api") == "messages"]


def test_tool_runner_continues_its_thread(serve: Any) -> None:
    served = serve([WEATHER], speed=0.01)
    result = _run(served.url)
    assert result["text"] == "Paris is sunnier than London today."
    assert result["asked"] == ["Paris", "London"]
    requests = _requests(served)
    assert [r["status"] for r in requests] == [200, 200]
    assert "continues" not in requests[0]
    assert requests[1]["continues"].startswith("msg_")  # a thread continue: tool results only
    assert (requests[1]["user_turns"], requests[1]["tool_results"]) == (0, 2)
    assert requests[1]["profile"] == requests[0]["profile"]


def test_tool_runner_one_call_per_answer_on_a_thread(serve: Any) -> None:
    served = serve([WEATHER], speed=0.01)
    result = _run(served.url, "disable_parallel")
    assert result["text"] == "Paris is sunnier than London today."
    assert result["asked"] == ["Paris", "London"]
    requests = _requests(served)
    assert [r["calls"] for r in requests] == [["get_weather"], ["get_weather"], []]
    assert all(r["status"] == 200 for r in requests)


def test_tool_runner_replays_a_thread_the_server_no_longer_holds(serve: Any) -> None:
    served = serve([WEATHER], speed=0.01)
    server = served.server  # a replica that keeps no thread (as if another one served it)
    threads = server.answerer.threads
    assert threads is not None
    threads.limit = 0
    result = _run(served.url)
    assert result["text"] == "Paris is sunnier than London today."
    requests = _requests(served)
    assert [r["status"] for r in requests] == [200, 404, 200]
    assert "no thread continues from message" in requests[1]["error"]
    assert (requests[2]["user_turns"], requests[2]["tool_results"]) == (1, 2)  # in full


def test_thread_not_found_is_the_real_apis_error(serve: Any) -> None:
    served = serve([WEATHER], speed=0.01)
    client = anthropic.Anthropic(base_url=served.url, api_key="t", max_retries=0)
    with pytest.raises(anthropic.NotFoundError) as missing:
        client.messages.create(
            model="mock-model", max_tokens=64, messages=[{"role": "user", "content": "hi"}],
            extra_body={"thread": {"type": "continue", "previous_message_id": "msg_nope"}})
    body: Any = missing.value.body
    assert body["error"]["type"] == "not_found_error"
    assert body["error"]["details"] == {"error_code": "thread_not_found"}
