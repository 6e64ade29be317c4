"""Reading a session's SSE stream in tests (httpx + httpx-sse)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import httpx
from httpx_sse import aconnect_sse, connect_sse

API = "/api/v1"


@dataclass(frozen=True)
class Frame:
    id: int
    event: str
    data: dict[str, Any]


def read_stream(client: httpx.Client, sid: str, *, last_id: int | None = None,
                query: str = "") -> list[Frame]:
    """Every frame of the stream until the server ends it."""
    headers = {} if last_id is None else {"Last-Event-ID": str(last_id)}
    url = f"{API}/sessions/{sid}/events{query}"
    with connect_sse(client, "GET", url, headers=headers) as source:
        source.response.raise_for_status()
        return [Frame(int(s.id), s.event, json.loads(s.data)) for s in source.iter_sse()
                if s.data]  # no data: a heartbeat comment (httpx-sse reports those too)


async def aread_stream(client: httpx.AsyncClient, sid: str, *, last_id: int | None = None,
                       stop_after: int | None = None) -> list[Frame]:
    """Frames until the stream ends, or ``stop_after`` frames (then disconnect)."""
    headers = {} if last_id is None else {"Last-Event-ID": str(last_id)}
    frames: list[Frame] = []
    async with aconnect_sse(client, "GET", f"{API}/sessions/{sid}/events",
                            headers=headers) as source:
        if source.response.status_code == 204:
            return frames
        source.response.raise_for_status()
        async for s in source.aiter_sse():
            if not s.data:
                continue  # a heartbeat comment: httpx-sse reports it as an empty event
            frames.append(Frame(int(s.id), s.event, json.loads(s.data)))
            if stop_after is not None and len(frames) >= stop_after:
                break
    return frames


def create(client: httpx.Client, prompt: Any = "Fix the failing test", **extra: Any) -> str:
    response = client.post(f"{API}/tasks", json={"prompt": prompt, **extra})
    assert response.status_code == 201, response.text
    ids: list[str] = response.json()["session_ids"]
    return ids[0]
