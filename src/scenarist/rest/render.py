"""The API's JSON shapes of sessions, lists, file changes and diffs. Pure."""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from scenarist.rest.events import ACTIVE_STATUSES, FINAL_STATUSES
from scenarist.rest.session import iso
from scenarist.rest.store import SessionRow

__all__ = ["API", "diff_json", "file_changes", "page_json", "session_json"]

API = "/api/v1"


def links(sid: str) -> dict[str, str]:
    base = f"{API}/sessions/{sid}"
    return {"self": base, "events": f"{base}/events", "logs": f"{base}/logs"}


def session_json(row: SessionRow, recent: Sequence[Mapping[str, Any]] = (),
                 changes: Sequence[Mapping[str, Any]] = ()) -> dict[str, Any]:
    """A session object: the spec's fields (``recent_events`` only while active;
    ``completedAt`` and ``changes`` once finished)."""
    task = row.task
    body: dict[str, Any] = {
        "id": row.id, "status": row.status, "scenario": row.scenario,
        "tenantId": task.get("tenantId"), "projectId": task.get("projectId"),
        "prompt": task.get("prompt", []), "agent": task.get("agent"),
        "repo": task.get("repo"), "runtime": task.get("runtime"),
        "delivery": task.get("delivery"), "labels": task.get("labels", {}),
        "createdAt": iso(row.created_ms), "updatedAt": iso(row.updated_ms),
        "startedAt": None if row.t0_ms is None else iso(row.created_ms),
        "endedAt": None if row.ended_ms is None else iso(row.ended_ms),
        "merged": row.merged, "links": links(row.id),
        "recent_events": list(recent) if row.status in ACTIVE_STATUSES else [],
    }
    if row.status in FINAL_STATUSES and row.ended_ms is not None:
        body["completedAt"] = iso(row.ended_ms)
        body["changes"] = {"files_changed": len(changes),
                           "lines_added": sum(c["lines_added"] for c in changes),
                           "lines_removed": sum(c["lines_removed"] for c in changes)}
    return body


def page_json(items: list[Any], total: int, page: int, per_page: int) -> dict[str, Any]:
    """A list page with the spec's ``total``/``nextPage`` and the web UI's ``pagination``."""
    pages = max(1, -(-total // per_page))
    return {"items": items, "total": total, "page": page, "perPage": per_page,
            "nextPage": page + 1 if page * per_page < total else None,
            "pagination": {"page": page, "perPage": per_page, "total": total,
                           "totalPages": pages}}


def file_changes(bodies: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The files a session modified so far (from its ``file_edit``/``diff`` events), in the
    order first touched, with summed line counts and the latest texts when known."""
    files: dict[str, dict[str, Any]] = {}
    for body in bodies:
        kind = body.get("type")
        if kind == "file_edit":
            entry = files.setdefault(body["file_path"], _new_file(body["file_path"]))
            entry["lines_added"] += int(body.get("lines_added") or 0)
            entry["lines_removed"] += int(body.get("lines_removed") or 0)
            entry["last_modified"] = body.get("ts")
        elif kind == "diff" and "newText" in body:
            entry = files.setdefault(body["path"], _new_file(body["path"]))
            entry.setdefault("_old", body["oldText"])
            entry["_new"] = body["newText"]
            entry["size_bytes"] = len(body["newText"].encode())
            if not body["oldText"]:
                entry["status"] = entry["change_type"] = "added"
    return list(files.values())


def _new_file(path: str) -> dict[str, Any]:
    return {"path": path, "status": "modified", "change_type": "modified", "lines_added": 0,
            "lines_removed": 0, "last_modified": None, "size_bytes": None}


def public(change: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in change.items() if not k.startswith("_")}


def diff_json(change: Mapping[str, Any], context: int = 3) -> dict[str, Any]:
    """A unified diff of one changed file, with ``hunks``; without recorded texts the
    diff is empty and says so (``available: false``)."""
    path = change["path"]
    if "_new" not in change:
        return {"path": path, "available": False, "diff": "", "hunks": [],
                "lines_added": change["lines_added"], "lines_removed": change["lines_removed"]}
    old = str(change.get("_old") or "").splitlines(keepends=True)
    new = str(change["_new"]).splitlines(keepends=True)
    lines = list(difflib.unified_diff(old, new, f"a/{path}", f"b/{path}", n=context))
    hunks: list[dict[str, Any]] = []
    for line in lines[2:]:
        if line.startswith("@@"):
            old_part, new_part = line.split()[1:3]
            o_start, _, o_len = old_part[1:].partition(",")
            n_start, _, n_len = new_part[1:].partition(",")
            hunks.append({"old_start": int(o_start), "old_lines": int(o_len or 1),
                          "new_start": int(n_start), "new_lines": int(n_len or 1),
                          "content": line})
        elif hunks:
            hunks[-1]["content"] += line if line.endswith("\n") else line + "\n"
    return {"path": path, "available": True, "diff": "".join(lines), "hunks": hunks,
            "lines_added": change["lines_added"], "lines_removed": change["lines_removed"]}
