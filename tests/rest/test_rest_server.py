"""``scenarist rest`` as a real server: tasks, sessions, SSE streams with catch-up, controls,
errors as problem+json. One subprocess per module, on a free loopback port."""

from __future__ import annotations

import json
from collections.abc import Iterator

import httpx
import pytest
from restkit import EXAMPLE, SCENARIOS, problem, rest_server
from sse import API, create, read_stream

from scenarist.llm.process import RunningServer


@pytest.fixture(scope="module")
def server() -> Iterator[RunningServer]:
    with rest_server("--speed", "0.05", scenarios=[SCENARIOS, EXAMPLE]) as srv:
        yield srv




def test_task_plays_the_prompted_scenario_to_the_end_over_sse(client: httpx.Client) -> None:
    sid = create(client, [{"type": "text", "text": "Fix the failing test"}])
    frames = read_stream(client, sid)
    assert [f.id for f in frames] == list(range(1, len(frames) + 1))
    types = [f.data["type"] for f in frames]
    assert types == ["status", "status", "log", "thought", "log", "tool_use", "log", "log",
                     "tool_result", "file_edit", "diff", "log", "log", "status"]
    assert [f.data["status"] for f in frames if f.data["type"] == "status"] == [
        "queued", "running", "completed"]
    use, result = frames[5].data, frames[8].data
    assert use["tool_name"] == "runCmd" and use["tool_args"] == {"cmd": "pytest -q"}
    assert result["tool_execution_id"] == use["tool_execution_id"]
    assert result["status"] == "failed"  # exit code 1
    assert [f.data["message"] for f in frames[6:8]] == ["F", "1 failed"]
    stamps = [f.data["ts"] for f in frames]
    assert stamps == sorted(stamps) and all(s.endswith("Z") for s in stamps)
    session = client.get(f"{API}/sessions/{sid}").json()
    assert session["status"] == "completed" and session["recent_events"] == []
    assert session["changes"] == {"files_changed": 1, "lines_added": 1, "lines_removed": 1}
    # the history as JSON, oldest first, and the stream once more is 204 (EventSource stops)
    page = client.get(f"{API}/sessions/{sid}/events?sort=asc&perPage=200").json()
    assert [e["id"] for e in page["items"]] == [f.id for f in frames]
    again = client.get(f"{API}/sessions/{sid}/events", headers={
        "accept": "text/event-stream", "last-event-id": str(frames[-1].id)})
    assert again.status_code == 204


def test_last_event_id_and_since_resume_after_that_event(client: httpx.Client) -> None:
    sid = create(client)
    full = read_stream(client, sid)
    assert [f.id for f in read_stream(client, sid, last_id=5)] == [f.id for f in full[5:]]
    assert [f.data for f in read_stream(client, sid, query="?since=9")] == [
        f.data for f in full[9:]]


def test_scenario_chosen_by_header_and_several_agents(client: httpx.Client) -> None:
    response = client.post(f"{API}/tasks", headers={"x-scenario-name": "simulation-rest"},
                           json={"prompt": "anything", "agents": [
                               {"type": "claude-code", "count": 2}, {"type": "codex"}]})
    assert response.status_code == 201
    body = response.json()
    assert body["scenario"] == "simulation-rest" and len(body["session_ids"]) == 3
    agents = [client.get(f"{API}/sessions/{s}").json()["agent"]["type"]
              for s in body["session_ids"]]
    assert agents == ["claude-code", "claude-code", "codex"]
    listed = client.get(f"{API}/sessions", params={"agent": "codex"}).json()
    assert body["session_ids"][2] in [s["id"] for s in listed["items"]]
    unknown = client.post(f"{API}/tasks", headers={"x-scenario-name": "nope"},
                          json={"prompt": "x"})
    assert "simulation-rest" in str(problem(unknown, 404)["detail"])


def test_list_pages_and_merged_sessions_stay_listed(client: httpx.Client) -> None:
    merged = client.post(f"{API}/tasks", headers={"x-scenario-name": "simulation-rest"},
                         json={"prompt": "x"}).json()["session_ids"][0]
    plain = create(client)
    read_stream(client, merged), read_stream(client, plain)
    listed = [s["id"] for s in client.get(f"{API}/sessions?perPage=200").json()["items"]]
    assert merged in listed and plain not in listed
    assert client.get(f"{API}/sessions/{plain}").json()["merged"] is False
    first = client.get(f"{API}/sessions?perPage=1&status=completed").json()
    assert first["total"] >= 1 and len(first["items"]) == 1
    assert first["nextPage"] == (2 if first["total"] > 1 else None)
    problem(client.get(f"{API}/sessions?perPage=0"), 400)
    assert "status" in problem(client.get(f"{API}/sessions?status=weird"), 400)["errors"]


def test_pause_resume_prompt_stop_and_their_status_codes(client: httpx.Client) -> None:
    sid = create(client)
    assert client.post(f"{API}/sessions/{sid}/pause").status_code == 202
    problem(client.post(f"{API}/sessions/{sid}/pause"), 409)
    problem(client.post(f"{API}/sessions/{sid}/prompt", json={"prompt": "hi"}), 409)
    assert client.post(f"{API}/sessions/{sid}/resume").status_code == 202
    problem(client.post(f"{API}/sessions/{sid}/resume"), 409)
    accepted = client.post(f"{API}/sessions/{sid}/prompt", json={"message": "hello there"})
    assert accepted.status_code == 202 and accepted.json()["accepted"] is True
    assert client.post(f"{API}/sessions/{sid}/stop").status_code == 202
    frames = read_stream(client, sid)
    statuses = [f.data["status"] for f in frames if f.data["type"] == "status"]
    assert statuses[-2:] == ["stopping", "stopped"]
    assert {"pausing", "paused", "resuming", "running"} <= set(statuses)
    prompts = [f.data for f in frames if f.data.get("target") == "api"]
    assert [p["message"] for p in prompts] == ["hello there"]
    for action in ("stop", "pause", "resume"):
        problem(client.post(f"{API}/sessions/{sid}/{action}"), 410)
    problem(client.post(f"{API}/sessions/{sid}/prompt", json={"prompt": "late"}), 410)


def test_delete_removes_the_session(client: httpx.Client) -> None:
    sid = create(client)
    assert client.delete(f"{API}/sessions/{sid}").status_code == 204
    problem(client.get(f"{API}/sessions/{sid}"), 404)
    problem(client.delete(f"{API}/sessions/{sid}"), 404)


def test_unknown_session_is_404_not_a_heartbeat_stream(client: httpx.Client) -> None:
    for path in ("", "/events", "/logs", "/files", "/diff", "/info"):
        response = client.get(f"{API}/sessions/no-such{path}",
                              headers={"accept": "text/event-stream"})
        assert "no-such" in str(problem(response, 404)["detail"])
    problem(client.post(f"{API}/sessions/no-such/stop"), 404)


def test_bad_input_is_problem_json_and_the_server_keeps_serving(client: httpx.Client) -> None:
    url = f"{API}/tasks"
    problem(client.post(url, content=b"{not json", headers={"content-type": "application/json"}),
            400)
    problem(client.post(url, json=[1, 2]), 400)
    wrong = problem(client.post(url, json={"prompt": 5, "repo": {"mode": "git"},
                                           "agents": [{"type": "x", "count": "two"}]}), 422)
    assert set(wrong["errors"]) == {"prompt", "repo.url", "agents[0].count"}  # type: ignore[arg-type]
    problem(client.post(url, content=b"x" * (2 * 1024 * 1024),
                        headers={"content-type": "application/json"}), 413)
    problem(client.post(url, content=b"{}", headers={"content-type": "text/plain"}), 415)
    sid = create(client)
    problem(client.post(f"{API}/sessions/{sid}/prompt", json={"prompt": "x" * 20_000}), 413)
    problem(client.post(f"{API}/sessions/{sid}/prompt", json={"prompt": []}), 422)
    problem(client.get(f"{API}/sessions/{sid}/events?perPage=1000"), 400)
    problem(client.get(f"{API}/sessions/{sid}/events?dialect=klingon"), 400)
    problem(client.get(f"{API}/sessions/{sid}/events", headers={
        "accept": "text/event-stream", "last-event-id": "abc"}), 400)
    problem(client.get("/nowhere"), 404)
    assert "allow" in problem(client.put(f"{API}/sessions"), 405) or True
    assert client.get(f"{API}/healthz").json()["status"] == "ok"


def test_logs_files_diff_info(client: httpx.Client) -> None:
    sid = create(client)
    read_stream(client, sid)
    logs = client.get(f"{API}/sessions/{sid}/logs?tail=2").json()["items"]
    assert [entry["message"] for entry in logs] == ["Now run it again", "All green."]
    files = client.get(f"{API}/sessions/{sid}/files").json()
    assert files["total"] == 1 and files["items"][0]["path"] == "src/app.py"
    one = client.get(f"{API}/sessions/{sid}/diff/src/app.py").json()
    assert one["available"] and "-y = 2\n+y = 3\n" in one["diff"]
    assert one["hunks"][0]["old_start"] == 1
    assert client.get(f"{API}/sessions/{sid}/diff?files=src/app.py").json()["total"] == 1
    assert client.get(f"{API}/sessions/{sid}/files/src/app.py").json()["lines_added"] == 1
    problem(client.get(f"{API}/sessions/{sid}/files/other.py"), 404)
    info = client.get(f"{API}/sessions/{sid}/info").json()
    assert info["endpoints"]["events"].endswith(f"{sid}/events")


def test_webui_dialect_names_the_events(client: httpx.Client) -> None:
    sid = create(client)
    frames = read_stream(client, sid, query="?dialect=webui")
    names = [f.event for f in frames]
    assert names[:2] == ["status", "status"] and "thinking" in names
    tool = [f.data for f in frames if f.event == "tool_execution"]
    assert tool[0]["tool_args"] == {"cmd": "pytest -q"}
    assert [t["last_line"] for t in tool if "last_line" in t] == ["F", "1 failed"]
    assert tool[-1]["tool_status"] == "error"
    edit = next(f.data for f in frames if f.event == "file_edit")
    assert edit == {"sessionId": sid, "ts": edit["ts"], "file_path": "src/app.py",
                    "lines_added": 1, "lines_removed": 1}
    assert all(f.data["sessionId"] == sid for f in frames)


def test_catalogues_service_routes_and_openapi(client: httpx.Client, server: RunningServer
                                               ) -> None:
    for name in ("agents", "runtimes", "executors", "projects", "repos", "workspaces"):
        body = client.get(f"{API}/{name}").json()
        assert isinstance(body["items"], list) and body["total"] == len(body["items"])
    assert client.get(f"{API}/readyz").json()["status"] == "ready"
    assert client.get(f"{API}/version").json()["version"]
    doc = client.get(f"{API}/openapi.json").json()
    assert doc["openapi"].startswith("3.")
    ops = {(m.upper(), p) for p, methods in doc["paths"].items() for m in methods}
    assert ("POST", f"{API}/tasks") in ops and ("GET", f"{API}/sessions/{{id}}/events") in ops
    for method, path in ops:  # every documented route is served (not a 404/405)
        concrete = path.replace("{id}", "no-such").replace("{path}", "x")
        answer = client.request(method, concrete, json={} if method == "POST" else None)
        assert answer.status_code not in (405,), (method, path)
        if answer.status_code == 404:
            assert "no-such" in answer.json()["detail"], (method, path)


def test_error_element_fails_the_session() -> None:
    with rest_server("--speed", "0.05") as srv, httpx.Client(base_url=srv.base_url) as client:
        sid = create(client, "Trigger the rate limit")
        frames = read_stream(client, sid)
        error = next(f.data for f in frames if f.data["type"] == "error")
        assert error["status_code"] == 429 and error["retry_after_seconds"] == 2
        assert frames[-1].data == {"type": "status", "status": "failed", "ts": frames[-1].data["ts"]}


def test_a_scripted_error_with_more_to_play_is_retried_not_the_end() -> None:
    """The error event carries the scenario's details; the retry's answer follows and the
    session completes (as the model server answers the retry with the next turn)."""
    with rest_server("--speed", "0.05") as srv, httpx.Client(base_url=srv.base_url) as client:
        frames = read_stream(client, create(client, "Retry after a rate limit"))
    at = next(n for n, f in enumerate(frames) if f.data["type"] == "error")
    assert frames[at].data["details"] == {"param": "model", "limit": 10, "window": "1m"}
    after = [f.data for f in frames[at + 1:]]
    assert [(e["type"], e.get("message") or e.get("status")) for e in after] == [
        ("log", "Done after one retry."), ("status", "completed")]
    assert [f.data["status"] for f in frames if f.data["type"] == "status"] == [
        "queued", "running", "completed"]


def test_api_key_cors_and_rate_limit() -> None:
    args = ("--api-key", "s3cret", "--cors", "http://localhost:3000", "--rate-limit", "3")
    with rest_server(*args) as srv, httpx.Client(base_url=srv.base_url) as client:
        problem(client.get(f"{API}/sessions"), 401)
        problem(client.get(f"{API}/sessions", headers={"authorization": "ApiKey wrong"}), 401)
        assert client.get(f"{API}/healthz").status_code == 200
        for scheme in ("ApiKey", "Bearer"):
            ok = client.get(f"{API}/sessions", headers={"authorization": f"{scheme} s3cret",
                                                         "origin": "http://localhost:3000"})
            assert ok.status_code == 200
            assert ok.headers["access-control-allow-origin"] == "http://localhost:3000"
        preflight = {"access-control-request-method": "POST"}
        assert client.options(f"{API}/tasks", headers={
            **preflight, "origin": "http://localhost:3000"}).status_code == 200
        refused = client.options(f"{API}/tasks", headers={**preflight, "origin": "http://evil"})
        assert "Disallowed CORS origin" in str(problem(refused, 400)["detail"])
        auth = {"authorization": "Bearer s3cret"}
        codes = [client.post(f"{API}/tasks", json={"prompt": "Fix the failing test"},
                             headers=auth).status_code for _ in range(4)]
        assert codes == [201, 201, 201, 429]
        limited = client.post(f"{API}/tasks", json={"prompt": "x"}, headers=auth)
        assert int(problem(limited, 429)["status"]) == 429
        assert int(limited.headers["retry-after"]) >= 1
    with rest_server() as srv, httpx.Client(base_url=srv.base_url) as client:
        plain = client.get(f"{API}/sessions", headers={"origin": "http://localhost:3000"})
        assert "access-control-allow-origin" not in plain.headers
        assert json.loads(plain.text)["items"] == []
