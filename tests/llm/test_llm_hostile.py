"""Hostile and faulty input to the mock model server (issue 12): bounded journal, a check route
that answers every bad body in JSON, reads and edits confined to the workspace, FIFOs never
opened in a blocking way, big bodies parsed off the event loop."""

from __future__ import annotations

import os
import textwrap
import threading
from pathlib import Path
from typing import Any

import httpx
import pytest

from scenarist.llm.journal import Journal, clip
from scenarist.llm.plan import build_script
from scenarist.llm.workspace import OutsideWorkspace, Workspace, confine, read_regular_file
from scenarist.scenario import load_scenario_text


def script(yaml: str) -> Any:
    return build_script(load_scenario_text(textwrap.dedent(yaml)))


EDIT = """\
name: edit
timeline:
  - userInputs: [[0, "edit the file"]]
  - llmResponse:
      - assistant: [[1, "Editing."]]
  - agentEdits:
      path: {path}
      oldText: "a"
      newText: "b"
  - llmResponse:
      - assistant: [[1, "Done."]]
"""

CHECKED = """\
name: checked
timeline:
  - userInputs: [[0, "make data.json"]]
  - llmResponse:
      - assistant: [[1, "Done."]]
  - assert:
      fs:
        exists: [data.json]
      json:
        file:
          - path: data.json
            pointer: /a
            equals: 1
"""


def chat(prompt: str, cwd: str | None = None) -> dict[str, Any]:
    system = [{"role": "system", "content": f"<cwd>{cwd}</cwd>"}] if cwd else []
    return {"model": "m", "messages": [*system, {"role": "user", "content": prompt}],
            "tools": [{"type": "function", "function": {"name": "Edit", "parameters": {}}},
                      {"type": "function", "function": {"name": "Write", "parameters": {}}}]}


# ---- the journal ------------------------------------------------------------------------


def test_clip_cuts_long_strings_anywhere_and_says_so() -> None:
    assert clip("short") == "short"
    clipped = clip({"a": ["x" * 5000]}, limit=10)
    assert clipped == {"a": ["xxxxxxxxxx… [clipped: 5000 characters]"]}


def test_journal_drops_the_oldest_settled_entries_beyond_its_byte_limit() -> None:
    journal = Journal(byte_limit=10_000)
    in_flight = journal.add({"prompt": "y" * 50_000})  # a stream still being answered
    for i in range(100):
        journal.record({"seq": i, "prompt": "x" * 3000})
    assert journal.bytes <= 10_000 and journal.dropped > 90
    assert in_flight in list(journal)  # not evicted while it is answered
    journal.settle(in_flight)
    assert len(in_flight["prompt"]) < 2100 and journal.bytes <= 10_000
    journal.clear()
    late = {"prompt": "z" * 9000}
    journal.settle(late)  # cleared while in flight: clipped, not counted
    assert journal.bytes == 0 and len(journal) == 0


def test_huge_prompts_do_not_grow_the_journal(serve: Any) -> None:
    srv = serve([script(EDIT.format(path="f.txt"))], speed=0.01)
    prompt = "edit the file " + "p" * (2 * 1024 * 1024)
    for _ in range(6):
        httpx.post(f"{srv.url}/v1/chat/completions", json=chat(prompt), timeout=60)
    journal = httpx.get(f"{srv.url}/_scenarist/journal", timeout=30).json()
    assert len(journal["requests"]) == 6
    assert all(len(e.get("prompt") or "") < 2100 for e in journal["requests"])
    assert srv.server.journal.bytes < 100_000


# ---- the check route --------------------------------------------------------------------


@pytest.mark.parametrize(("body", "status", "needle"), [
    ({"workspace": 5}, 400, "workspace: expected a string, got a number"),
    ({"scenario": ["x"]}, 400, "scenario: expected a string, got an array"),
    ({"scenario": "n" * 60_000}, 404, "clipped: 60000 characters"),
])
def test_check_route_answers_bad_bodies_in_json(serve: Any, body: Any, status: int,
                                                needle: str) -> None:
    srv = serve([script(CHECKED)])
    resp = httpx.post(f"{srv.url}/_scenarist/check", json=body, timeout=30)
    assert resp.status_code == status
    message = resp.json()["error"]["message"]
    assert needle in message and len(message) < 3000


def test_check_route_has_a_body_limit(serve: Any) -> None:
    srv = serve([script(CHECKED)])
    resp = httpx.post(f"{srv.url}/_scenarist/check", content=b" " * (65 * 1024), timeout=30)
    assert resp.status_code == 413 and "over 65536 bytes" in resp.json()["error"]["message"]


def test_a_file_that_is_not_utf8_fails_its_assert_instead_of_a_500(serve: Any,
                                                                   tmp_path: Path) -> None:
    (tmp_path / "data.json").write_bytes(b'{"a": "\xff\xfe"}')
    srv = serve([script(CHECKED)], workspace=tmp_path)
    resp = httpx.post(f"{srv.url}/_scenarist/check", timeout=30)
    assert resp.status_code == 422
    outcomes = [r["outcome"] for r in resp.json()["results"]]
    assert outcomes == ["ok", "failed"]


def test_check_workspace_must_be_inside_the_servers_workspace(serve: Any, tmp_path: Path) -> None:
    srv = serve([script(CHECKED)], workspace=tmp_path)
    resp = httpx.post(f"{srv.url}/_scenarist/check", json={"workspace": "/etc"}, timeout=30)
    assert resp.status_code == 403 and "outside the workspace" in resp.json()["error"]["message"]


# ---- confinement ------------------------------------------------------------------------


def test_confine_refuses_dotdot_absolute_and_symlinks_out(tmp_path: Path) -> None:
    (tmp_path / "in.txt").write_text("x")
    os.symlink("/etc", tmp_path / "out")
    assert confine(tmp_path, "in.txt") == (tmp_path / "in.txt").resolve()
    assert confine(tmp_path, str(tmp_path / "in.txt")) == (tmp_path / "in.txt").resolve()
    for bad in ("../x", "/etc/passwd", "out/passwd", "a/../../x"):
        with pytest.raises(OutsideWorkspace):
            confine(tmp_path, bad)
    with pytest.raises(OutsideWorkspace):
        Workspace.of_agent(tmp_path, "/tmp")  # a reported cwd outside --workspace


@pytest.mark.parametrize("path", ["../../../../etc/passwd", "/etc/passwd"])
def test_an_edit_outside_the_workspace_is_refused_in_the_apis_format(
        serve: Any, tmp_path: Path, path: str) -> None:
    srv = serve([script(EDIT.format(path=path))], workspace=tmp_path, speed=0.01)
    resp = httpx.post(f"{srv.url}/v1/chat/completions", json=chat("edit the file"), timeout=30)
    assert resp.status_code == 403, resp.text
    error = resp.json()["error"]
    assert "outside the workspace" in error["message"] and "root:" not in resp.text


def test_a_cwd_reported_outside_the_workspace_is_refused(serve: Any, tmp_path: Path) -> None:
    srv = serve([script(EDIT.format(path="f.txt"))], workspace=tmp_path, speed=0.01)
    resp = httpx.post(f"{srv.url}/v1/chat/completions", json=chat("edit the file", cwd="/etc"),
                      timeout=30)
    assert resp.status_code == 403
    assert "working directory" in resp.json()["error"]["message"]


def test_a_fifo_is_never_opened_in_a_blocking_way(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    done = threading.Event()

    def read() -> None:
        with pytest.raises(OSError, match="not a regular file"):
            read_regular_file(fifo)
        done.set()

    thread = threading.Thread(target=read, daemon=True)
    thread.start()
    thread.join(timeout=30)  # a blocking open would wait for a writer forever
    assert done.is_set()


def test_a_fifo_as_an_edit_target_is_a_409_not_a_stall(serve: Any, tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "f.txt")
    srv = serve([script(EDIT.format(path="f.txt"))], workspace=tmp_path, speed=0.01)
    resp = httpx.post(f"{srv.url}/v1/chat/completions", json=chat("edit the file"), timeout=30)
    assert resp.status_code == 409 and "not a regular file" in resp.json()["error"]["message"]
    assert httpx.get(f"{srv.url}/health", timeout=10).status_code == 200
