"""Request bodies and query parameters → typed values, or a :class:`Problem` that names every
wrong field (``errors{"repo.url": ["is required when repo.mode is git"]}``). Pure."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from scenarist.rest.events import DIALECTS, STATUSES, Dialect
from scenarist.rest.problems import Problem

__all__ = [
    "EventQuery",
    "SessionQuery",
    "TaskRequest",
    "event_query",
    "parse_json",
    "prompt_text",
    "query_int",
    "session_query",
    "task_request",
]

_BLOCK_TYPES = ("text", "image", "audio", "resource", "resource_link")
#: Bounds of one ``POST /tasks`` (docs/limits.md): entries of ``agents``, an entry's
#: ``count``, and the sessions the task starts in all.
MAX_AGENTS = 20
MAX_COUNT = 100
MAX_TASK_SESSIONS = 100
#: The largest event id (``Last-Event-ID``, ``since``, ``until``) a request may name.
MAX_EVENT_ID = 2**62


@dataclass(frozen=True, slots=True)
class TaskRequest:
    """A ``POST /tasks`` body: one session per entry of ``agents`` (``count`` expanded)."""

    prompt: list[dict[str, Any]]  # ACP content blocks
    agents: list[dict[str, Any]]
    fields: dict[str, Any]  # repo, runtime, delivery, labels, tenantId, ... as given

    @property
    def text(self) -> str:
        return prompt_text(self.prompt)


def parse_json(raw: bytes) -> Any:
    import orjson

    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise Problem(400, f"the body is not valid JSON: {exc}; send a JSON object with "
                      "content-type application/json") from None


def prompt_text(blocks: list[dict[str, Any]]) -> str:
    """The text of a prompt's text blocks (and embedded text resources), joined."""
    parts = []
    for block in blocks:
        if block.get("type") == "text":
            parts.append(str(block.get("text", "")))
        elif block.get("type") == "resource" and isinstance(block.get("resource"), dict):
            text = block["resource"].get("text")
            if isinstance(text, str):
                parts.append(text)
    return "\n".join(parts)


class _Errors:
    def __init__(self) -> None:
        self.found: dict[str, list[str]] = {}

    def add(self, path: str, message: str) -> None:
        self.found.setdefault(path, []).append(message)

    def raise_if_any(self, what: str) -> None:
        if self.found:
            fields = ", ".join(self.found)
            raise Problem(422, f"{what} has invalid fields: {fields}", errors=self.found)


def _object(body: Any, what: str) -> Mapping[str, Any]:
    if not isinstance(body, dict):
        raise Problem(400, f"{what} must be a JSON object, got {type(body).__name__}",
                      errors={"": ["must be an object"]})
    return body


def prompt_blocks(value: Any, path: str, errors: _Errors) -> list[dict[str, Any]]:
    """A prompt as content blocks: a plain string is one text block."""
    if isinstance(value, str):
        return [{"type": "text", "text": value}]
    if not isinstance(value, list) or not value:
        errors.add(path, "must be a string or a non-empty list of content blocks")
        return []
    blocks = []
    for n, block in enumerate(value):
        where = f"{path}[{n}]"
        if not isinstance(block, dict):
            errors.add(where, "must be a content block object")
        elif block.get("type") not in _BLOCK_TYPES:
            errors.add(f"{where}.type", f"must be one of {', '.join(_BLOCK_TYPES)}")
        elif block["type"] == "text" and not isinstance(block.get("text"), str):
            errors.add(f"{where}.text", "is required (a string) for a text block")
        else:
            blocks.append(dict(block))
    return blocks


def _choice(body: Mapping[str, Any], key: str, path: str, choices: tuple[str, ...],
            errors: _Errors) -> None:
    value = body.get(key)
    if value is not None and value not in choices:
        errors.add(f"{path}.{key}", f"must be one of {', '.join(choices)}")


def _section(body: Mapping[str, Any], key: str, errors: _Errors) -> Mapping[str, Any]:
    value = body.get(key)
    if value is None:
        return {}
    if not isinstance(value, dict):
        errors.add(key, "must be an object")
        return {}
    return value


def task_request(raw: Any) -> TaskRequest:
    """Validate a ``POST /tasks`` body (the spec's shape; a string prompt and the web UI's
    single ``agent`` are accepted too)."""
    body = _object(raw, "the task")
    errors = _Errors()
    if "prompt" not in body:
        errors.add("prompt", "is required")
    prompt = prompt_blocks(body.get("prompt"), "prompt", errors) if "prompt" in body else []
    repo = _section(body, "repo", errors)
    _choice(repo, "mode", "repo", ("git", "upload", "none"), errors)
    if repo.get("mode") == "git" and not isinstance(repo.get("url"), str):
        errors.add("repo.url", "is required when repo.mode is git")
    _choice(_section(body, "runtime", errors), "type", "runtime",
            ("devcontainer", "local", "disabled"), errors)
    _choice(_section(body, "delivery", errors), "mode", "delivery", ("pr", "branch", "patch"),
            errors)
    labels = _section(body, "labels", errors)
    if any(not isinstance(v, str) for v in labels.values()):
        errors.add("labels", "must map names to strings")
    agents = _agents(body, errors)
    errors.raise_if_any("the task")
    fields = {k: v for k, v in body.items() if k not in ("prompt", "agents", "agent")}
    return TaskRequest(prompt, agents, fields)


def _agents(body: Mapping[str, Any], errors: _Errors) -> list[dict[str, Any]]:
    if "agents" in body:
        entries, path = body["agents"], "agents"
        if not isinstance(entries, list) or not entries:
            errors.add(path, "must be a non-empty list of {type, version, count, settings}")
            return []
        if len(entries) > MAX_AGENTS:
            errors.add(path, f"has {len(entries)} entries; a task may name at most "
                       f"{MAX_AGENTS} (use count for more of one agent)")
            return []
    elif "agent" in body:
        entries, path = [body["agent"]], "agent"
    else:
        return [{"type": "mock", "version": None}]
    agents = []
    for n, entry in enumerate(entries):
        where = f"{path}[{n}]" if path == "agents" else path
        if not isinstance(entry, dict):
            errors.add(where, "must be an object")
            continue
        if not isinstance(entry.get("type"), str):
            errors.add(f"{where}.type", "is required (a string, e.g. claude-code)")
        count = entry.get("count", 1)
        if not isinstance(count, int) or isinstance(count, bool) or not 1 <= count <= MAX_COUNT:
            errors.add(f"{where}.count", f"must be an integer from 1 to {MAX_COUNT}")
            continue
        agent = {k: v for k, v in entry.items() if k != "count"}
        agent.setdefault("version", None)
        agents += [agent] * count
    if len(agents) > MAX_TASK_SESSIONS:
        errors.add(path, f"asks for {len(agents)} sessions (the sum of the counts); a task may "
                   f"start at most {MAX_TASK_SESSIONS}")
    return agents


def prompt_request(raw: Any) -> list[dict[str, Any]]:
    """A ``POST /sessions/{id}/prompt`` body: ``{prompt: blocks | string}`` (the legacy
    ``{message: "..."}`` is one text block)."""
    body = _object(raw, "the prompt request")
    errors = _Errors()
    if "prompt" in body:
        blocks = prompt_blocks(body["prompt"], "prompt", errors)
    elif "message" in body:
        blocks = prompt_blocks(body["message"], "message", errors)
    else:
        errors.add("prompt", "is required")
        blocks = []
    errors.raise_if_any("the prompt request")
    return blocks


# -- query parameters ---------------------------------------------------------------------


def _int(query: Mapping[str, str], key: str, default: int, low: int, high: int,
         errors: _Errors) -> int:
    raw = query.get(key)
    if raw is None or raw == "":
        return default
    value = _decimal(raw, high)
    if value is None:
        errors.add(key, f"must be an integer from {low} to {high}, got {_shown(raw)}")
        return default
    if not low <= value <= high:
        errors.add(key, f"must be from {low} to {high}, got {value}")
        return default
    return value


def _decimal(raw: str, high: int) -> int | None:
    """``raw`` as a plain decimal integer (ASCII digits, an optional sign, no ``_``), or None;
    ``int()`` alone would also take ``" 1_0 "`` or Arabic-Indic digits, and would build a
    number of any length."""
    digits = raw[1:] if raw[:1] in "+-" else raw
    if not (digits.isascii() and digits.isdigit()) or len(digits) > len(str(high)) + 1:
        return None
    return int(raw)


def _shown(raw: str) -> str:
    return repr(raw if len(raw) <= 40 else raw[:40] + "…")


def query_int(query: Mapping[str, str], key: str, default: int, low: int, high: int) -> int:
    """One integer query parameter from ``low`` to ``high`` (absent or empty: ``default``),
    or a 400 problem naming it."""
    errors = _Errors()
    value = _int(query, key, default, low, high, errors)
    if errors.found:
        raise Problem(400, "invalid query parameters", errors=errors.found)
    return value


def _list(query: Mapping[str, str], key: str) -> tuple[str, ...]:
    raw = query.get(key)
    return () if not raw else tuple(p.strip() for p in raw.split(",") if p.strip())


@dataclass(frozen=True, slots=True)
class SessionQuery:
    statuses: tuple[str, ...]
    agent: str | None
    project: str | None
    page: int
    per_page: int


def session_query(query: Mapping[str, str]) -> SessionQuery:
    """``GET /sessions?status=a,b&agent=&projectId=&page=&perPage=``."""
    errors = _Errors()
    statuses = _list(query, "status")
    wrong = [s for s in statuses if s not in STATUSES]
    if wrong:
        errors.add("status", f"unknown status {', '.join(wrong)}; use {', '.join(STATUSES)}")
    page = _int(query, "page", 1, 1, 1_000_000, errors)
    per_page = _int(query, "perPage", 20, 1, 200, errors)
    if errors.found:
        raise Problem(400, "invalid query parameters", errors=errors.found)
    return SessionQuery(statuses, query.get("agent"), query.get("projectId"), page, per_page)


@dataclass(frozen=True, slots=True)
class EventQuery:
    types: tuple[str, ...]
    since: int
    until: int | None
    page: int
    per_page: int
    descending: bool
    dialect: Dialect


def event_query(query: Mapping[str, str], last_event_id: str | None,
                default_dialect: Dialect) -> EventQuery:
    """``GET /sessions/{id}/events`` parameters; ``Last-Event-ID`` wins over ``?since=``.
    An event id is a decimal integer from 0 to ``MAX_EVENT_ID``; anything else is refused
    (a 400 stops an ``EventSource``, where a stream that fails would have it reconnect
    forever)."""
    errors = _Errors()
    since = _int(query, "since", 0, 0, MAX_EVENT_ID, errors)
    if last_event_id is not None and last_event_id.strip():
        value = _decimal(last_event_id.strip(), MAX_EVENT_ID)
        if value is None or not 0 <= value <= MAX_EVENT_ID:
            errors.add("Last-Event-ID", f"must be an event id (an integer from 0 to "
                       f"{MAX_EVENT_ID}), got {_shown(last_event_id)}")
        else:
            since = value
    until = _int(query, "until", MAX_EVENT_ID, 0, MAX_EVENT_ID, errors) \
        if "until" in query else None
    page = _int(query, "page", 1, 1, 1_000_000, errors)
    per_page = _int(query, "perPage", 50, 1, 200, errors)
    sort = query.get("sort", "desc")
    if sort not in ("asc", "desc"):
        errors.add("sort", "must be asc or desc")
    dialect = query.get("dialect", default_dialect)
    if dialect not in DIALECTS:
        errors.add("dialect", f"must be one of {', '.join(DIALECTS)}")
        dialect = default_dialect
    if errors.found:
        raise Problem(400, "invalid query parameters or Last-Event-ID", errors=errors.found)
    return EventQuery(_list(query, "type"), since, until, page, per_page, sort == "desc",
                      dialect)  # type: ignore[arg-type]
