"""Content blocks (text, image, audio, resource, resource_link, diff, plan) and annotations.

Media is checked at load time, not when a front end first sends it: a ``path`` is
resolved against the scenario file's folder, must stay inside it (unless the loader is told
otherwise) and must exist; ``data`` must be valid base64 whose first bytes match the
declared MIME type.
"""

from __future__ import annotations

import base64
import binascii
from typing import Any

from scenarist.scenario.model import (
    Annotations,
    AudioContent,
    ContentBlock,
    DiffContent,
    EmbeddedResource,
    ImageContent,
    PlanContent,
    PlanEntry,
    ResourceContent,
    ResourceLinkContent,
    TextContent,
)
from scenarist.scenario.report import Report, join
from scenarist.scenario.source import MISSING

__all__ = ["AUDIO_TYPES", "CONTENT_TYPES", "IMAGE_TYPES", "parse_content", "parse_plan_entries"]

CONTENT_TYPES = ("text", "image", "audio", "resource", "resource_link", "diff", "plan")
IMAGE_TYPES = ("image/png", "image/jpeg", "image/gif", "image/webp")
AUDIO_TYPES = ("audio/wav", "audio/x-wav", "audio/wave", "audio/mpeg", "audio/mp3",
               "audio/ogg", "audio/webm", "audio/flac", "audio/aac", "audio/mp4")
PRIORITIES = ("high", "medium", "low")
STATUSES = ("pending", "in_progress", "completed")

_MAGIC: dict[str, tuple[tuple[int, bytes], ...]] = {
    "image/png": ((0, b"\x89PNG\r\n\x1a\n"),),
    "image/jpeg": ((0, b"\xff\xd8\xff"),),
    "image/gif": ((0, b"GIF87a"), (0, b"GIF89a")),
    "image/webp": ((8, b"WEBP"),),
    "audio/wav": ((8, b"WAVE"),),
    "audio/x-wav": ((8, b"WAVE"),),
    "audio/wave": ((8, b"WAVE"),),
    "audio/ogg": ((0, b"OggS"),),
    "audio/flac": ((0, b"fLaC"),),
}

_KEYS: dict[str, frozenset[str]] = {
    "text": frozenset({"type", "text", "annotations", "_meta"}),
    "image": frozenset({"type", "mimeType", "data", "path", "uri", "annotations", "_meta"}),
    "audio": frozenset({"type", "mimeType", "data", "path", "annotations", "_meta"}),
    "resource": frozenset({"type", "resource", "annotations", "_meta"}),
    "resource_link": frozenset({"type", "uri", "name", "mimeType", "title", "description",
                                "size", "annotations", "_meta"}),
    "diff": frozenset({"type", "path", "oldText", "newText", "annotations", "_meta"}),
    "plan": frozenset({"type", "entries", "annotations", "_meta"}),
}
# the Rust reference's spellings, accepted and read as the spec's
_ALIASES = {"mime_type": "mimeType", "old_text": "oldText", "new_text": "newText"}


def _decode(report: Report, d: dict[str, Any], key: str, path: str) -> bytes | None:
    value = d.get(key)
    if value is None:
        return None
    if not isinstance(value, str):
        report.wrong_type(d, key, path, "a base64 string")
        return None
    try:
        return base64.b64decode("".join(value.split()), validate=True)
    except (binascii.Error, ValueError):
        report.error(d, key, join(path, key), f"'{key}' is not valid base64",
                     "encode the bytes with base64 (e.g. 'base64 -w0 file.png'), or use 'path:'")
        return None


def _magic_ok(mime: str, raw: bytes) -> bool:
    checks = _MAGIC.get(mime)
    return checks is None or any(raw[at:at + len(sig)] == sig for at, sig in checks)


def parse_annotations(report: Report, d: dict[str, Any], path: str) -> Annotations | None:
    value = d.get("annotations")
    if value is None:
        return None
    items = value if isinstance(value, list) else [value]
    apath = join(path, "annotations")
    audience: tuple[str, ...] | None = None
    priority: float | None = None
    modified: str | None = None
    for i, item in enumerate(items):
        ipath = join(apath, i) if isinstance(value, list) else apath
        if not isinstance(item, dict):
            report.wrong_type(items, i, apath, "a mapping with audience/priority/lastModified")
            continue
        report.unknown_keys(item, ("audience", "priority", "lastModified", "_meta"), ipath)
        if "audience" in item:
            aud = report.strings(item, "audience", ipath)
            for role in aud:
                if role not in ("user", "assistant"):
                    report.error(item, "audience", join(ipath, "audience"),
                                 f"audience {role!r} is not 'user' or 'assistant'",
                                 "use audience: ['user'] and/or 'assistant'")
            audience = aud
        p = report.number(item, "priority", ipath)
        if p is not None:
            if not 0.0 <= p <= 1.0:
                report.error(item, "priority", join(ipath, "priority"),
                             f"annotation priority must be between 0 and 1, got {p}",
                             "use a value from 0 (least) to 1 (most important)")
            priority = p
        modified = report.string(item, "lastModified", ipath) or modified
    return Annotations(audience, priority, modified)


def parse_plan_entries(report: Report, d: dict[str, Any], path: str) -> tuple[PlanEntry, ...]:
    out: list[PlanEntry] = []
    for ipath, entry in report.records(
            d, "entries", path, ("content", "priority", "status", "_meta"),
            "a mapping with content/priority/status",
            "{content: 'Write tests', priority: high, status: pending}", required=True):
        content = report.string(entry, "content", ipath, required=True, example="'Write tests'")
        priority = report.choice(entry, "priority", ipath, PRIORITIES, "medium")
        status = report.choice(entry, "status", ipath, STATUSES, "pending")
        out.append(PlanEntry(content or "", priority, status))  # type: ignore[arg-type]
    return tuple(out)


def parse_content(report: Report, holder: Any, key: Any, path: str) -> ContentBlock | None:
    """The content block at ``holder[key]``: a string (text) or a typed mapping."""
    value = holder[key]
    if isinstance(value, str):
        return TextContent(value)
    cpath = join(path, key)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return TextContent(str(value))
    if not isinstance(value, dict):
        report.wrong_type(holder, key, path, "text or a content block mapping with 'type'",
                          "{type: text, text: 'Hello'}")
        return None
    original = value
    for alias, name in _ALIASES.items():
        if alias in value and name not in value:
            value = {**value, name: value[alias]}
            report.source.adopt(value, original)
            report.source.adopt_keys(value, {k: (original, k) for k in original}
                                     | {name: (original, alias)})
    kind = value.get("type")
    if not isinstance(kind, str) or kind not in _KEYS:
        report.error(value, "type" if "type" in value else MISSING, join(cpath, "type"),
                     f"content block type {kind!r} is not one of {', '.join(CONTENT_TYPES)}"
                     if kind is not None else "a content block needs a 'type'",
                     "e.g. {type: text, text: 'Hello'} or {type: image, mimeType: image/png, "
                     "path: images/x.png}")
        return None
    report.unknown_keys(value, _KEYS[kind] | _ALIASES.keys(), cpath)
    annotations = parse_annotations(report, value, cpath)
    if kind == "text":
        text = report.string(value, "text", cpath, required=True, example="'Hello'")
        return TextContent(text or "", annotations)
    if kind in ("image", "audio"):
        return _media(report, value, cpath, kind, annotations)
    if kind == "resource":
        res = report.mapping(value, "resource", cpath, required=True)
        if res is None:
            return None
        rpath = join(cpath, "resource")
        if "mime_type" in res and "mimeType" not in res:
            res = {**res, "mimeType": res["mime_type"]}
        report.unknown_keys(res, ("uri", "mimeType", "mime_type", "text", "blob", "_meta"), rpath)
        uri = report.string(res, "uri", rpath, required=True, example="'file:///workspace/a.py'")
        text = report.string(res, "text", rpath)
        if "blob" in res:
            _decode(report, res, "blob", rpath)
        if text is None and res.get("blob") is None:
            report.error(res, MISSING, rpath, "an embedded resource needs 'text' or 'blob'",
                         "add 'text: ...' (or 'blob:' with base64 bytes)")
        return ResourceContent(EmbeddedResource(uri or "", report.string(res, "mimeType", rpath),
                                                text, res.get("blob") if isinstance(res.get("blob"), str) else None),
                               annotations)
    if kind == "resource_link":
        uri = report.string(value, "uri", cpath, required=True, example="'file:///workspace/README.md'")
        name = report.string(value, "name", cpath) or (uri or "").rstrip("/").rsplit("/", 1)[-1]
        return ResourceLinkContent(uri or "", name, report.string(value, "mimeType", cpath),
                                   report.string(value, "title", cpath),
                                   report.string(value, "description", cpath),
                                   report.integer(value, "size", cpath), annotations)
    if kind == "diff":
        dpath = report.string(value, "path", cpath, required=True, example="'/workspace/a.py'")
        if dpath is not None and not dpath.startswith("/"):
            report.error(value, "path", join(cpath, "path"),
                         f"a diff path must be absolute, got {dpath!r}",
                         f"write the full path, e.g. '/workspace/{dpath.lstrip('./')}'")
        new = report.string(value, "newText", cpath, required=True, example="'new contents'")
        return DiffContent(dpath or "", new or "", report.string(value, "oldText", cpath),
                           annotations)
    return PlanContent(parse_plan_entries(report, value, cpath), annotations)


def _media(report: Report, value: dict[str, Any], cpath: str, kind: str,
           annotations: Annotations | None) -> ContentBlock | None:
    allowed = IMAGE_TYPES if kind == "image" else AUDIO_TYPES
    mime = report.string(value, "mimeType", cpath, required=True, example=f"{allowed[0]}")
    if mime is not None and mime not in allowed:
        report.error(value, "mimeType", join(cpath, "mimeType"),
                     f"{kind} MIME type {mime!r} is not supported",
                     f"use one of: {', '.join(allowed)}")
    raw = _decode(report, value, "data", cpath)
    if raw is not None and mime is not None and not _magic_ok(mime, raw):
        report.error(value, "data", join(cpath, "data"),
                     f"the base64 data does not look like {mime} (its first bytes do not match)",
                     "check the mimeType, or re-encode the right file")
    rel = report.string(value, "path", cpath)
    resolved = None
    if rel is not None:
        resolved = report.local_path(value, "path", cpath, rel, f"{kind} file")
        if resolved is not None and mime is not None and mime in _MAGIC:
            try:
                with resolved.open("rb") as f:
                    head = f.read(16)
            except OSError as exc:
                head = b""
                report.error(value, "path", join(cpath, "path"),
                             f"cannot read {rel!r}: {exc.strerror or exc}", "check permissions")
            if head and not _magic_ok(mime, head):
                report.error(value, "path", join(cpath, "path"),
                             f"{rel!r} does not look like {mime} (its first bytes do not match)",
                             "check the mimeType or the file")
    if value.get("data") is None and rel is None:
        report.error(value, MISSING, cpath, f"an {kind} block needs 'path' or 'data'",
                     f"add 'path: {kind}s/example.{'png' if kind == 'image' else 'wav'}' "
                     "(relative to the scenario file) or base64 'data:'")
    data = value.get("data") if isinstance(value.get("data"), str) else None
    cls = ImageContent if kind == "image" else AudioContent
    return cls(mime or "", data, resolved, report.string(value, "uri", cpath), annotations)
