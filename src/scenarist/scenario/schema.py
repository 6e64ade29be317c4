"""The JSON Schema of the scenario format, for editors (yaml-language-server) and tools.

Written out by hand from the same tables the loader uses (event keys, enums); the tool
events come from the tool records of :mod:`scenarist.scenario.tools` (names, argument
spellings, types, required arguments), so a tool declared there appears here too. The schema describes shapes; the loader
still does the checks a schema cannot express (times, capabilities, files on disk).
Unknown keys are allowed (the format is forward compatible), as are ``rules`` blocks.
Point an editor at it with ``# yaml-language-server: $schema=<path-to-schema.json>``.
"""

from __future__ import annotations

from typing import Any

from scenarist.scenario.content import AUDIO_TYPES, CONTENT_TYPES, IMAGE_TYPES
from scenarist.scenario.events import (
    EXEC_TYPES,
    FAULT_KEYS,
    PERMISSION_KINDS,
    SIGNALS,
    TARGETS,
    TOOL_STATUSES,
)
from scenarist.scenario.model import FAULT_KINDS
from scenarist.scenario.tools import TOOLS, Arg, tool_spec

__all__ = ["SCHEMA_ID", "scenario_schema"]

SCHEMA_ID = "https://scenarist.dev/schema/scenario.json"

Schema = dict[str, Any]


def _ref(name: str) -> Schema:
    return {"$ref": f"#/definitions/{name}"}


def _obj(props: Schema, required: list[str] | None = None, desc: str = "") -> Schema:
    out: Schema = {"type": "object", "properties": {**props, "rules": _ref("rules")}}
    if required:
        out["required"] = required
    if desc:
        out["description"] = desc
    return out


def _event(key: str, value: Schema, desc: str, siblings: Schema | None = None) -> Schema:
    props = {key: {**value, "description": desc}, "_meta": _ref("meta"), **(siblings or {})}
    return {"type": "object", "properties": props, "required": [key], "additionalProperties": False}


def _steps(content: Schema, text_keys: tuple[str, ...], desc: str) -> Schema:
    obj = {"type": "object", "properties": {
        "relativeTime": _ref("ms"), "timestamp": _ref("ms"), "_meta": _ref("meta"),
        **{k: content for k in text_keys}},
        "anyOf": [{"required": [k]} for k in text_keys]}
    pair = {"type": "array", "items": [_ref("ms"), content], "minItems": 2, "maxItems": 2}
    return {"type": "array", "description": desc, "items": {"anyOf": [pair, obj]}}


_ARG_TYPES: dict[str, Schema] = {
    "text": {"type": ["string", "number"]}, "integer": {"type": "integer"},
    "number": {"type": "number"}, "boolean": {"type": "boolean"},
    "texts": {"anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]},
    "list": {"type": "array"}, "mapping": {"type": "object"}, "any": {},
}


def _arg_schema(arg: Arg) -> Schema:
    """A tool argument's schema, from its declaration (old spellings are the loader's job)."""
    if arg.choices:
        return {"enum": list(arg.choices)}
    return dict(_ARG_TYPES[arg.kind])


def _tool_use_fields() -> Schema:
    return {
        "progress": _steps({"type": "string"}, ("message", "text", "content"),
                           "[ms, message] steps; each ms is a delta after the previous step"),
        "result": {"description": "expected result"},
        "status": {"enum": list(TOOL_STATUSES)},
        "toolCallId": {"type": "string"},
        "rawInput": {},
        "toolExecution": {"type": "object", "properties": {
            "startTimeMs": _ref("ms"),
            "events": {"type": "array", "items": {"type": "object", "properties": {
                "type": {"enum": list(EXEC_TYPES)}, "timeMs": _ref("ms"),
                "content": {"type": "string"}, "exitCode": {"type": "integer"}},
                "required": ["type"]}}}},
        "_meta": _ref("meta"),
    }


def _content_schema() -> Schema:
    ann_one = {"type": "object", "properties": {
        "audience": {"type": "array", "items": {"enum": ["user", "assistant"]}},
        "priority": {"type": "number", "minimum": 0, "maximum": 1},
        "lastModified": {"type": "string"}}}
    common = {"annotations": {"anyOf": [ann_one, {"type": "array", "items": ann_one}]},
              "_meta": _ref("meta")}

    def typed(kind: str, props: Schema, required: list[str], extra: Schema | None = None) -> Schema:
        out: Schema = {"type": "object", "properties": {"type": {"const": kind}, **props, **common},
                       "required": ["type", *required]}
        if extra:
            out.update(extra)
        return {"if": {"properties": {"type": {"const": kind}}, "required": ["type"]}, "then": out}

    media = {"data": {"type": "string", "contentEncoding": "base64"},
             "path": {"type": "string", "description": "relative to the scenario file"},
             "uri": {"type": "string"}}
    blocks = [
        typed("text", {"text": {"type": "string"}}, ["text"]),
        typed("image", {"mimeType": {"enum": list(IMAGE_TYPES)}, **media}, ["mimeType"],
              {"anyOf": [{"required": ["path"]}, {"required": ["data"]}]}),
        typed("audio", {"mimeType": {"enum": list(AUDIO_TYPES)}, **media}, ["mimeType"],
              {"anyOf": [{"required": ["path"]}, {"required": ["data"]}]}),
        typed("resource", {"resource": {"type": "object", "properties": {
            "uri": {"type": "string"}, "mimeType": {"type": "string"}, "text": {"type": "string"},
            "blob": {"type": "string"}}, "required": ["uri"]}}, ["resource"]),
        typed("resource_link", {"uri": {"type": "string"}, "name": {"type": "string"},
                                "mimeType": {"type": "string"}, "title": {"type": "string"},
                                "description": {"type": "string"},
                                "size": {"type": "integer", "minimum": 0}}, ["uri"]),
        typed("diff", {"path": {"type": "string", "pattern": "^/"}, "oldText": {"type": ["string", "null"]},
                       "newText": {"type": "string"}}, ["path", "newText"]),
        typed("plan", {"entries": _ref("planEntries")}, ["entries"]),
    ]
    block = {"type": "object", "properties": {"type": {"enum": list(CONTENT_TYPES)}},
             "required": ["type"], "allOf": blocks}
    return {"anyOf": [{"type": "string"}, {"type": "number"}, block]}


def _timeline_item() -> Schema:
    ms = _ref("ms")
    s = {"type": "string"}
    expected = {"type": "object", "properties": {
        "sessionId": {"type": "string", "minLength": 1}, "stopReason": {"type": "string", "minLength": 1},
        "usage": {"type": "object"}, "_meta": _ref("meta")}}
    element = {"type": "object", "properties": {
        "think": _steps({"type": "string"}, ("content", "text"), "[ms, text] thinking steps"),
        "assistant": _steps(_ref("content"), ("content", "text"), "[ms, content] answer steps"),
        "error": {"type": "object", "properties": {
            "errorType": s, "statusCode": {"type": "integer", "minimum": 400, "maximum": 599},
            "message": s, "details": {}, "retryAfterSeconds": {"type": "number", "minimum": 0},
            "relativeTime": ms, "_meta": _ref("meta")}, "required": ["errorType"]},
        "fault": {**_ref("fault"), "description": "strikes after the steps written before "
                  "it (at most one per response)"},
        "_meta": _ref("meta")}}
    llm = {"anyOf": [{"type": "array", "items": element}, element]}
    tool_use = {"type": "object", "properties": {"toolName": s, "args": {"type": "object"},
                                                 **_tool_use_fields()}, "required": ["toolName"]}
    plan = {"type": "object", "properties": {"entries": _ref("planEntries"),
                                             "planUpdate": {"type": "boolean"}},
            "required": ["entries"]}
    user_input = {"anyOf": [
        {"type": "array", "items": [ms, _ref("prompt")], "minItems": 2, "maxItems": 2},
        {"type": "object", "properties": {
            "relativeTime": {**ms, "description": "absolute ms from the scenario start"},
            "timestamp": ms, "input": _ref("prompt"), "_meta": _ref("meta"),
            "expectedResponse": expected, "target": {"enum": list(TARGETS)}},
         "required": ["input"]}]}
    option = {"type": "object", "properties": {"id": s, "optionId": s, "label": s, "name": s,
                                               "kind": {"enum": list(PERMISSION_KINDS)}},
              "required": ["kind"]}
    permission = {"type": "object", "properties": {
        "sessionId": s, "toolCall": {"type": "object"}, "options": {"type": "array", "items": option},
        "decision": {"type": "object", "properties": {"outcome": {"enum": ["selected", "cancelled"]},
                                                      "optionId": s}, "required": ["outcome"]},
        "granted": {"type": "boolean"}, "_meta": _ref("meta")},
        "required": ["options"], "not": {"required": ["decision", "granted"]}}
    assert_ = {"type": "object", "properties": {
        "fs": {"type": "object", "properties": {
            "exists": _ref("strings"), "notExists": _ref("strings"),
            "contains": {"anyOf": [_ref("fileContains"),
                                   {"type": "array", "items": _ref("fileContains")}]}}},
        "text": {"type": "object", "properties": {"contains": _ref("strings")}},
        "json": {"type": "object", "properties": {"file": {"anyOf": [
            {"$ref": "#/definitions/jsonAssert"},
            {"type": "array", "items": {"$ref": "#/definitions/jsonAssert"}}]}}},
        "git": {"type": "object", "properties": {"commit": {"anyOf": [
            {"type": "object", "properties": {"messageContains": s}, "required": ["messageContains"]},
            {"type": "array", "items": {"type": "object", "properties": {"messageContains": s}}}]}}},
        "_meta": _ref("meta")}}

    def text_or(field: str) -> Schema:
        return {"anyOf": [{"type": "string", "minLength": 1},
                          {"type": "object", "properties": {field: s}, "required": [field]}]}

    flag = {"anyOf": [{"type": "boolean"}, {"type": "null"}, {"type": "object"}]}
    events = [
        _event("llmResponse", llm, "one model response: think / assistant / error elements"),
        _event("agentToolUse", tool_use, "a tool call"),
        _event("agentEdits", {"type": "object", "properties": {
            "path": s, "linesAdded": {"type": "integer", "minimum": 0},
            "linesRemoved": {"type": "integer", "minimum": 0}, "oldText": s, "newText": s,
            "description": s, "toolCallId": s, "_meta": _ref("meta")}, "required": ["path"]},
            "the agent edited a file"),
        _event("agentPlan", plan, "the agent's plan"),
        _event("setMode", {"anyOf": [s, {"type": "object", "properties": {"modeId": s},
                                          "required": ["modeId"]}]}, "switch mode (ACP session/set_mode)"),
        _event("setModel", {"anyOf": [s, {"type": "object", "properties": {"modelId": s},
                                           "required": ["modelId"]}]},
               "switch model (unstable; needs acp.unstable: true)"),
        _event("agentFileReads", {"anyOf": [
            {"type": "object", "properties": {"files": {"type": "array", "items": _ref("fileRead")}},
             "required": ["files"]}, {"type": "array", "items": _ref("fileRead")}]},
            "the agent reads client files (ACP fs/read_text_file)"),
        _event("agentPermissionRequest", permission, "ACP session/request_permission"),
        _event("userInputs", {"type": "array", "items": user_input}, "prompts at absolute times",
               {"target": {"enum": list(TARGETS)}}),
        _event("userEdits", {"anyOf": [s, {"type": "object", "properties": {"patch": s},
                                            "required": ["patch"]}]}, "apply a patch file"),
        _event("applyPatch", {"type": "object", "properties": {
            "path": {"type": "string", "minLength": 1}, "commit": {"type": "boolean"},
            "message": {"type": "string", "minLength": 1}, "_meta": _ref("meta")},
            "required": ["path"]},
            "apply a patch file and, with commit: true, commit the workspace (git add -A)"),
        _event("userCommand", {"anyOf": [s, {"type": "object", "properties": {"cmd": s, "cwd": s},
                                              "required": ["cmd"]}]}, "the user runs a command"),
        _event("userCancelSession", flag, "ACP session/cancel"),
        _event("initialize", {"type": ["object", "null"], "properties": {
            "protocolVersion": {"type": "integer"}, "clientCapabilities": {"type": "object"},
            "clientInfo": {"type": "object"}, "expectedResponse": {"type": "object"},
            "_meta": _ref("meta")}}, "the ACP initialize handshake",
            {"expectedResponse": {"type": "object"}}),
        _event("sessionStart", {"anyOf": [{"type": "null"}, s, {"type": "object", "properties": {
            "sessionId": s, "expectedPromptResponse": expected, "_meta": _ref("meta")}}]},
            "boundary: events before it are history replayed on session/load"),
        _event("assert", assert_, "checks"),
        _event("screenshot", {"anyOf": [
            {"type": "string", "minLength": 1},
            {"type": "object", "properties": {"label": s, "masks": _ref("masks"),
                                              "_meta": _ref("meta")}, "required": ["label"]}]},
            "capture the terminal with a label (and masks of its own)"),
        _event("log", text_or("message"), "a harness log message"),
        _event("status", text_or("status"), "a session status"),
        _event("complete", flag, "the task completed"),
        _event("merge", flag, "keep the session listed"),
        _event("fault", _ref("fault"), "a fault between events: the process exits, writes to "
               "stderr, or fragments its frames (docs/faults.md)"),
        _event("baseTimeDelta", ms, "advance the timeline (ms)"),
        _event("advanceMs", ms, "alias of baseTimeDelta"),
        _event("agentActions", {"type": "array", "items": _ref("timelineItem")}, "a group of agent events"),
        _event("userActions", {"type": "array", "items": _ref("timelineItem")}, "a group of user events"),
        {"type": "object", "properties": {"rules": _ref("rules")}, "required": ["rules"],
         "additionalProperties": False},
    ]
    for tool in TOOLS.values():
        spec = tool_spec(tool)
        props: Schema = {a.key: _arg_schema(a) for a in spec.args}
        props.update(_tool_use_fields())
        events.append(_event(spec.name, {"anyOf": [s, {
            "type": "object", "properties": props,
            "required": [a.key for a in spec.required]}]},
            f"{spec.name} tool call (becomes agentToolUse with toolName {spec.name})"))
    return {"anyOf": [{"enum": ["sessionStart", "userCancelSession", "complete", "merge"]},
                      *events]}


def _fault_schema() -> Schema:
    """A ``fault``: its keys, and for each kind the keys that belong to it (the loader's
    table, :data:`scenarist.scenario.events.FAULT_KEYS`)."""
    n = {"type": "integer", "minimum": 0}
    props: Schema = {
        "kind": {"enum": list(FAULT_KINDS)},
        "afterEvents": {**n, "description": "strike after this many wire events"},
        "afterBytes": {**n, "description": "strike after this many bytes"},
        "times": {"type": "integer", "minimum": 1, "description": "the first deliveries faulted"},
        "ms": n, "then": {"enum": ["continue", "close"]},
        "statusCode": {"type": "integer", "minimum": 400, "maximum": 599},
        "message": {"type": "string"}, "retryAfterSeconds": {"type": "number", "minimum": 0},
        "code": {"type": "integer", "minimum": 0, "maximum": 255},
        "signal": {"enum": list(SIGNALS)}, "text": {"type": "string"},
        "bytes": {"type": "integer", "minimum": 1},
    }
    rules: list[Schema] = []
    for kind in FAULT_KINDS:
        foreign = [k for k, kinds in FAULT_KEYS.items() if kind not in kinds]
        required = [k for k, kinds in _REQUIRED.items() if kind in kinds]
        then: Schema = {"not": {"anyOf": [{"required": [k]} for k in foreign]}}
        if required:
            then["required"] = required
        rules.append({"if": {"properties": {"kind": {"const": kind}}, "required": ["kind"]},
                      "then": then})
    return {"type": "object", "description": "what goes wrong on purpose (docs/faults.md)",
            "properties": props, "required": ["kind"],
            "not": {"anyOf": [{"required": ["afterEvents", "afterBytes"]},
                              {"required": ["code", "signal"]}]},
            "allOf": rules}


_REQUIRED = {"ms": ("stall", "slowFirstByte", "lateResponse"), "text": ("stderr",)}


def scenario_schema() -> Schema:
    """The JSON Schema (draft-07) of a scenario file."""
    s = {"type": "string"}
    b = {"type": "boolean"}
    definitions: Schema = {
        "ms": {"type": "integer", "minimum": 0, "description": "milliseconds"},
        "meta": {"type": "object", "description": "ACP _meta"},
        "strings": {"type": "array", "items": s},
        "content": _content_schema(),
        "prompt": {"anyOf": [{"type": "string"}, {"type": "array", "items": _ref("content")},
                             {"type": "object"}]},
        "planEntries": {"type": "array", "items": {"type": "object", "properties": {
            "content": s, "priority": {"enum": ["high", "medium", "low"]},
            "status": {"enum": ["pending", "in_progress", "completed"]}}, "required": ["content"]}},
        "fileRead": {"anyOf": [s, {"type": "object", "properties": {
            "path": {"type": "string", "pattern": "^/"}, "expectedContent": s}, "required": ["path"]}]},
        "fileContains": {"type": "object", "properties": {
            "path": {"type": "string", "minLength": 1},
            "text": {"anyOf": [{"type": "string", "minLength": 1},
                               {"type": "array", "items": {"type": "string", "minLength": 1},
                                "minItems": 1}]}},
            "required": ["path", "text"],
            "description": "a text file in the workspace holds each text"},
        "masks": {"type": "array", "description": "what goldens leave out: text a regex "
                  "matches (one row at a time), or a region of rows and columns",
                  "items": {"anyOf": [
                      {"type": "object", "properties": {
                          "regex": {"type": "string", "minLength": 1}, "replace": s},
                       "required": ["regex"], "additionalProperties": False},
                      {"type": "object", "properties": {"rows": _ref("span"),
                                                        "columns": _ref("span")},
                       "anyOf": [{"required": ["rows"]}, {"required": ["columns"]}],
                       "additionalProperties": False}]}},
        "span": {"description": "one row/column or [first, last]; negative counts from the end",
                 "anyOf": [{"type": "integer"}, {"type": "array", "items": {"type": "integer"},
                                                 "minItems": 2, "maxItems": 2}]},
        "jsonAssert": {"type": "object", "properties": {"path": s, "pointer": s, "equals": {}},
                       "required": ["path"]},
        "rules": {"type": "array", "description": "conditional config, resolved at load", "items": {
            "type": "object", "properties": {
                "when": {"type": "string", "pattern": r"^\s*\$"}, "default": b,
                "config": {"type": ["object", "array", "null"]}},
            "anyOf": [{"required": ["when"]}, {"required": ["default"]}]}},
        "timelineItem": _timeline_item(),
        "fault": _fault_schema(),
    }
    mcp = {"type": "object", "properties": {
        "name": s, "type": {"enum": ["stdio", "http", "sse"]}, "command": s,
        "args": {"type": "array", "items": s}, "env": {"type": ["array", "object"]},
        "url": s, "headers": {"type": ["array", "object"]}}, "required": ["name"]}
    properties: Schema = {
        "name": {"type": "string", "minLength": 1, "description": "scenario identifier"},
        "tags": {"type": "array", "items": s},
        "description": s,
        "initialPrompt": {"type": "string", "description": "legacy; the prompt comes from userInputs"},
        "terminalRef": s,
        "compat": {"type": "object"},
        "repo": _obj({"init": b, "branch": s, "dir": s, "files": {"type": "array", "items": {
            "type": "object", "properties": {"path": s, "contents": {"anyOf": [
                s, {"type": "object", "properties": {"base64": s}, "required": ["base64"]}]}},
            "required": ["path"]}}}),
        "ah": _obj({"cmd": s, "flags": {"type": "array", "items": s}, "env": {"type": "object"}}),
        "server": _obj({"mode": {"enum": ["none", "mock", "real"]},
                        "llmApiStyle": {"enum": ["openai", "anthropic"]},
                        "coalesceThinkingWithToolUse": b}),
        "acp": _obj({"capabilities": _obj({
            "loadSession": b,
            "promptCapabilities": _obj({"image": b, "audio": b, "embeddedContext": b}),
            "mcpCapabilities": _obj({"http": b, "sse": b}), "_meta": _ref("meta")}),
            "cwd": {"type": "string", "pattern": "^/"}, "mcpServers": {"type": "array", "items": mcp},
            "unstable": b}),
        "timeline": {"type": "array", "items": _ref("timelineItem")},
        "screen": _obj({"masks": _ref("masks")}, desc="how screenshots are compared: masks "
                       "applied to every golden"),
        "expect": _obj({"exitCode": {"type": "integer"}, "artifacts": {"type": "array", "items": {
            "type": "object", "properties": {"type": s, "pattern": s}, "required": ["pattern"]}}}),
    }
    return {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "$id": SCHEMA_ID,
        "title": "scenarist scenario",
        "description": "A scenario for scenarist (the Agent Harbor scenario format).",
        "type": "object",
        "properties": {**properties, "rules": _ref("rules")},
        "required": ["name"],
        "not": {"anyOf": [{"required": ["events"]}, {"required": ["assertions"]}]},
        "definitions": definitions,
    }
