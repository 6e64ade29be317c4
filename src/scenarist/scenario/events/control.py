"""ACP and harness control events: ``initialize``, ``sessionStart``, ``assert``,
``screenshot``, ``log``, ``status``, ``complete``, ``merge``, ``baseTimeDelta``."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from scenarist.scenario.events.context import Handler, ItemContext, is_time
from scenarist.scenario.model import (
    Assert,
    BaseTimeDelta,
    Complete,
    Event,
    FileContainsAssert,
    GitCommitAssert,
    Initialize,
    JsonFileAssert,
    Log,
    Merge,
    Screenshot,
    SessionStart,
    Status,
)
from scenarist.scenario.report import join
from scenarist.scenario.screen_masks import parse_masks
from scenarist.scenario.source import MISSING

__all__ = ["HANDLERS", "expected_response"]


def expected_response(ctx: ItemContext, d: dict[Any, Any], key: str,
                      path: str) -> dict[Any, Any] | None:
    """``expectedResponse``: an ACP response to check against (kept as a mapping)."""
    report = ctx.report
    exp = report.mapping(d, key, path)
    if exp is None:
        return None
    epath = join(path, key)
    for field in ("sessionId", "stopReason"):
        if field in exp:
            report.string(exp, field, epath, nonempty=True)
    if "usage" in exp:
        report.mapping(exp, "usage", epath)
    report.meta(exp, epath)
    return exp


def initialize(ctx: ItemContext, value: Any, item: dict[Any, Any], key: str, path: str,
               ipath: str) -> Event | None:
    report = ctx.report
    d = {} if value is None else ctx.as_mapping(value, item, key, path,
                                                "{protocolVersion: 1, clientCapabilities: {}}")
    if d is None:
        return None
    report.unknown_keys(d, ("protocolVersion", "clientCapabilities", "clientInfo",
                            "expectedResponse", "_meta"), path)
    if "expectedResponse" in item:
        expected = expected_response(ctx, item, "expectedResponse", ipath)
    else:
        expected = expected_response(ctx, d, "expectedResponse", path)
    return Initialize(**ctx.base(path, report.meta(d, path)),
                      protocol_version=report.integer(d, "protocolVersion", path, 1) or 1,
                      client_capabilities=report.mapping(d, "clientCapabilities", path) or {},
                      client_info=report.mapping(d, "clientInfo", path),
                      expected_response=expected)


def session_start(ctx: ItemContext, value: Any, item: dict[Any, Any], key: str, path: str,
                  ipath: str) -> Event | None:
    report = ctx.report
    if value is None:
        return SessionStart(**ctx.base(path))
    if isinstance(value, str):
        return SessionStart(**ctx.base(path), session_id=value)
    d = ctx.as_mapping(value, item, key, path, "{sessionId: 's-1'}")
    if d is None:
        return None
    report.unknown_keys(d, ("sessionId", "expectedPromptResponse", "_meta"), path)
    return SessionStart(**ctx.base(path, report.meta(d, path)),
                        session_id=report.string(d, "sessionId", path, nonempty=True),
                        expected_prompt_response=expected_response(ctx, d, "expectedPromptResponse", path))


def assertion(ctx: ItemContext, value: Any, item: dict[Any, Any], key: str, path: str,
              ipath: str) -> Event | None:
    report = ctx.report
    d = ctx.as_mapping(value, item, key, path, "{fs: {exists: ['hello.py']}}")
    if d is None:
        return None
    report.unknown_keys(d, ("fs", "text", "json", "git", "_meta"), path)
    fs = report.mapping(d, "fs", path) or {}
    fpath = join(path, "fs")
    report.unknown_keys(fs, ("exists", "notExists", "contains"), fpath)
    text = report.mapping(d, "text", path) or {}
    report.unknown_keys(text, ("contains",), join(path, "text"))
    json_asserts = []
    for spec, p in _section_items(ctx, d, path, "json", "file", ("path", "pointer", "equals")):
        jp = report.string(spec, "path", p, required=True, example="package.json")
        pointer = report.string(spec, "pointer", p) or ""
        if pointer and not pointer.startswith("/"):
            report.error(spec, "pointer", join(p, "pointer"),
                         f"a JSON pointer starts with '/', got {pointer!r}",
                         "e.g. '/version' or '/scripts/test' ('' is the whole document)")
        json_asserts.append(JsonFileAssert(jp or "", pointer, spec.get("equals")))
    contains = []
    for holder, k, p in _one_or_many(ctx, fs, "contains", fpath):
        spec = holder[k]
        report.unknown_keys(spec, ("path", "text"), p)
        fp = report.string(spec, "path", p, required=True, nonempty=True, example="notes.md")
        texts = report.strings(spec, "text", p)
        if "text" not in spec:
            report.error(spec, MISSING, p, "missing required key 'text'",
                         "add 'text: ...', the text the file must hold (or a list of texts)")
        elif not texts or not all(texts):
            report.error(spec, "text", join(p, "text"), "text must not be empty (every file "
                         "contains the empty text)", "give the text the file must hold")
        contains.append(FileContainsAssert(fp or "", texts))
    commits = []
    for spec, p in _section_items(ctx, d, path, "git", "commit", ("messageContains",)):
        msg = report.string(spec, "messageContains", p, required=True, example="'Fix bug'")
        commits.append(GitCommitAssert(msg or ""))
    result = Assert(**ctx.base(path, report.meta(d, path)),
                    fs_exists=report.strings(fs, "exists", fpath),
                    fs_not_exists=report.strings(fs, "notExists", fpath),
                    fs_contains=tuple(contains),
                    text_contains=report.strings(text, "contains", join(path, "text")),
                    json_file=tuple(json_asserts), git_commit=tuple(commits))
    if not (result.fs_exists or result.fs_not_exists or result.fs_contains
            or result.text_contains or result.json_file or result.git_commit):
        report.warn(item, key, path, "this assert checks nothing", "add fs.exists, "
                    "fs.notExists, fs.contains, text.contains, json.file or git.commit")
    return result


def _section_items(ctx: ItemContext, d: dict[Any, Any], path: str, section: str, key: str,
                   allowed: tuple[str, ...]) -> Iterator[tuple[dict[Any, Any], str]]:
    """Each ``d[section][key]`` item (one mapping or a list), its unknown keys warned."""
    report = ctx.report
    sd = report.mapping(d, section, path) or {}
    spath = join(path, section)
    report.unknown_keys(sd, (key,), spath)
    for h, k, p in _one_or_many(ctx, sd, key, spath):
        report.unknown_keys(h[k], allowed, p)
        yield h[k], p


def _one_or_many(ctx: ItemContext, d: dict[Any, Any], key: str, path: str) -> list[tuple[Any, Any, str]]:
    """``d[key]`` as a mapping or a list of mappings (the spec and the reference differ)."""
    value = d.get(key)
    if value is None:
        return []
    if isinstance(value, dict):
        return [(d, key, join(path, key))]
    if isinstance(value, list):
        out = []
        for i, v in enumerate(value):
            if isinstance(v, dict):
                out.append((value, i, join(join(path, key), i)))
            else:
                ctx.report.wrong_type(value, i, join(path, key), "a mapping")
        return out
    ctx.report.wrong_type(d, key, path, "a mapping (or a list of them)")
    return []


def _text_event(ctx: ItemContext, value: Any, item: dict[Any, Any], key: str, path: str,
                field: str, known: tuple[str, ...] | None = None,
                ) -> tuple[dict[str, Any], str, dict[Any, Any]] | None:
    if isinstance(value, str) and value.strip():
        return ctx.base(path), value, {}
    if isinstance(value, dict):
        ctx.report.unknown_keys(value, known or (field, "level", "_meta"), path)
        got = ctx.report.string(value, field, path, required=True, nonempty=True)
        return ctx.base(path, ctx.report.meta(value, path)), got or "", value
    ctx.report.wrong_type(item, key, path.rsplit(".", 1)[0], "a non-empty string",
                          f"{key}: 'after_first_edit'")
    return None


def screenshot(ctx: ItemContext, value: Any, item: dict[Any, Any], key: str, path: str,
               ipath: str) -> Event | None:
    got = _text_event(ctx, value, item, key, path, "label", ("label", "masks", "_meta"))
    if got is None:
        return None
    return Screenshot(**got[0], label=got[1], masks=parse_masks(ctx.report, got[2], "masks", path))


def log(ctx: ItemContext, value: Any, item: dict[Any, Any], key: str, path: str,
        ipath: str) -> Event | None:
    got = _text_event(ctx, value, item, key, path, "message")
    if got is None:
        return None
    level = ctx.report.string(got[2], "level", path) or "info"
    return Log(**got[0], message=got[1], level=level)


def status(ctx: ItemContext, value: Any, item: dict[Any, Any], key: str, path: str,
           ipath: str) -> Event | None:
    got = _text_event(ctx, value, item, key, path, "status")
    return None if got is None else Status(**got[0], status=got[1])


def _flag(ctx: ItemContext, value: Any, item: dict[Any, Any], key: str, path: str) -> bool:
    if value is None or value is True or value is False:
        return value is not False
    if isinstance(value, dict):
        ctx.report.unknown_keys(value, ("_meta",), path)
        return True
    ctx.report.wrong_type(item, key, path.rsplit(".", 1)[0], "true or false", f"{key}: true")
    return True


def complete(ctx: ItemContext, value: Any, item: dict[Any, Any], key: str, path: str,
             ipath: str) -> Event | None:
    return Complete(**ctx.base(path), success=_flag(ctx, value, item, key, path))


def merge(ctx: ItemContext, value: Any, item: dict[Any, Any], key: str, path: str,
          ipath: str) -> Event | None:
    return Merge(**ctx.base(path), merge=_flag(ctx, value, item, key, path))


def base_time_delta(ctx: ItemContext, value: Any, item: dict[Any, Any], key: str, path: str,
                    ipath: str) -> Event | None:
    if not is_time(value):
        ctx.report.error(item, key, path, f"{key} must be a whole number of milliseconds "
                         f">= 0, got {value!r}", f"{key}: 1000")
        return None
    return BaseTimeDelta(**ctx.base(path), ms=int(value))


HANDLERS: dict[str, Handler] = {
    "initialize": initialize, "sessionStart": session_start, "assert": assertion,
    "screenshot": screenshot, "log": log, "status": status, "complete": complete, "merge": merge,
    "baseTimeDelta": base_time_delta, "advanceMs": base_time_delta,
}
