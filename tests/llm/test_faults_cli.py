"""``scenarist llm`` and faults at start: the faults it does not play are named with their
place, a bad ``--chaos`` is a usage error, and ``--chaos`` reaches the server."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import httpx

from scenarist.llm.process import run_server

SCENARIO = """\
name: warned
timeline:
  - userInputs: [[0, "go"]]
  - llmResponse:
      - assistant: [[0, "ok"]]
  - fault: {kind: exit, code: 3}
"""


def test_unplayed_faults_are_named_at_start(tmp_path: Path) -> None:
    path = tmp_path / "warned.yaml"
    path.write_text(SCENARIO)
    with run_server(path) as srv:
        httpx.get(f"{srv.base_url}/health", timeout=5)
    assert (f"{path}:6:12: warning: the model API (scenarist llm) does not play exit faults "
            "as a timeline event; it is ignored here") in srv.stderr


def test_a_bad_chaos_is_a_usage_error(tmp_path: Path) -> None:
    path = tmp_path / "warned.yaml"
    path.write_text(SCENARIO)
    for bad, needle in [("2", "outside 0..1"), ("0.5:exit", "'exit' is not a fault kind played")]:
        result = subprocess.run([sys.executable, "-m", "scenarist", "llm", "--scenario",
                                 str(path), "--chaos", bad, "--port", "0"],
                                capture_output=True, text=True, timeout=30, check=False)
        assert result.returncode == 2 and "scenarist llm: --chaos: chaos" in result.stderr
        assert needle in result.stderr and "Traceback" not in result.stderr


def test_chaos_reaches_the_server(tmp_path: Path) -> None:
    path = tmp_path / "warned.yaml"
    path.write_text(SCENARIO)
    with run_server(path, "--chaos", "1:httpStatus", "--seed", "5") as srv:
        response = httpx.post(f"{srv.base_url}/v1/chat/completions", timeout=5, json={
            "model": "m", "messages": [{"role": "user", "content": "go"}]})
        assert response.status_code in (429, 500, 503)
        assert srv.journal()[-1]["chaos"] is True


def test_a_fault_on_an_error_response_is_named_at_start(tmp_path: Path) -> None:
    path = tmp_path / "error.yaml"
    path.write_text('name: e\ntimeline:\n  - userInputs: [[0, "go"]]\n  - llmResponse:\n'
                    "      - error: {errorType: overloaded_error, statusCode: 529}\n"
                    "      - fault: {kind: slowFirstByte, ms: 10}\n")
    with run_server(path) as srv:
        httpx.get(f"{srv.base_url}/health", timeout=5)
    assert (f"{path}:6:16: warning: this llmResponse is an error, which the model API sends "
            "instead of an answer; its slowFirstByte fault is not played") in srv.stderr
