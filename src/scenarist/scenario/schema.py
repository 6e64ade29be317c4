"""The JSON Schema of the scenario format, for editors (yaml-language-server) and tools.

Written out by hand from the same tables the loader uses (event keys, enums); the tool
events come from the tool records of :mod:`scenarist.scenario.tools` (names, argument
spellings, types, required arguments), so a tool declared there appears here too. The schema describes shapes; the loader
still does the checks a schema cannot express (times, capabilities, files on disk).
Unknown keys are allowed (the format is forward compatible), as are ``rules`` blocks.

The loader's general rules hold here too: a number where text is wanted is text
(:data:`_TEXT`), an optional key written as ``null`` is a key left out (:func:`_null_is_absent`,
except where a ``$comment`` says :data:`_KEYS_COUNT`), one string stands for a list of one.
``tests/scenario/test_scenario_schema_agreement.py`` holds both to the same verdicts.
Point an editor at it with ``# yaml-language-server: $schema=<path-to-schema.json>``.
"""

from __future__ import annotations

import itertools
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
from scenarist.scenario.tools import TOOLS, Arg, ToolSpec, tool_spec

__all__ = ["SCHEMA_ID", "scenario_schema"]

SCHEMA_ID = "https://scenarist.dev/schema/scenario.json"

Schema = dict[str, Any]

#: text: a number where text is wanted is kept as written, as the loader reads it
_TEXT: Schema = {"type": ["string", "number"]}
#: text with something besides white space in it
_NONEMPTY: Schema = {"type": ["string", "number"], "pattern": r"\S"}
#: a string, as written (no number stands for it)
_STR: Schema = {"type": "string"}
#: ``_meta`` where the keys of an object count (_KEYS_COUNT): null is no ``_meta``
_META_OR_NULL: Schema = {"anyOf": [{"type": "null"}, {"$ref": "#/definitions/meta"}]}


def _present(*keys: str) -> Schema:
    """Each of ``keys`` given, and not as null (the loader reads null as left out)."""
    return {"required": list(keys), "properties": {k: {"not": {"type": "null"}} for k in keys}}


#: the ``$comment`` of an object whose keys count when written, even as null
_KEYS_COUNT = "a key written here counts even when its value is null"


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
    obj = {"type": "object", "$comment": _KEYS_COUNT, "properties": {
        "relativeTime": _ref("ms"), "timestamp": _ref("ms"), "_meta": _META_OR_NULL,
        **{k: content for k in text_keys}},
        "anyOf": [{"required": [k]} for k in text_keys]}
    pair = {"type": "array", "items": [_ref("ms"), content], "minItems": 2, "maxItems": 2}
    return {"type": "array", "description": desc, "items": {"anyOf": [pair, obj]}}


_ARG_TYPES: dict[str, Schema] = {
    "text": _TEXT, "integer": {"type": "integer"},
    "number": {"type": "number"}, "boolean": {"type": "boolean"},
    "texts": {"anyOf": [_STR, {"type": "array", "items": _STR}]},
    "list": {"type": "array"}, "mapping": {"type": "object"}, "any": {},
}


def _arg_schema(arg: Arg) -> Schema:
    """A tool argument's schema, from its declaration (old spellings are the loader's job)."""
    if arg.choices:
        return {"enum": list(arg.choices)}
    return dict(_ARG_TYPES[arg.kind])


def _tool_args(spec: ToolSpec) -> Schema:
    """``agentToolUse`` naming a known tool: its ``args`` are that tool's."""
    return {"if": {"properties": {"toolName": {"const": spec.name}}, "required": ["toolName"]},
            "then": {"properties": {"args": _ref(f"{spec.name}Args")},
                     "required": ["args"] if spec.required else []}}


def _tool_definitions() -> Schema:
    """Each tool's arguments (``<tool>Args``), and the fields every tool call has
    (``toolCall``): defined once, used by the tool's event and by ``agentToolUse``."""
    out: Schema = {"toolCall": {"type": "object", "properties": _tool_use_fields()}}
    for spec in map(tool_spec, TOOLS.values()):
        out[f"{spec.name}Args"] = {
            "type": "object", "properties": {a.key: _arg_schema(a) for a in spec.args},
            "required": [a.key for a in spec.required]}
    return out


def _tool_use_fields() -> Schema:
    return {
        "progress": _steps(_TEXT, ("message", "text", "content"),
                           "[ms, message] steps; each ms is a delta after the previous step"),
        "result": {"description": "expected result"},
        "status": {"enum": list(TOOL_STATUSES)},
        "toolCallId": _NONEMPTY,
        "rawInput": {},
        "toolExecution": {"type": "object", "properties": {
            "startTimeMs": _ref("ms"),
            "events": {"type": "array", "items": {"type": "object", "properties": {
                "type": {"enum": list(EXEC_TYPES)}, "timeMs": _ref("ms"),
                "content": _TEXT, "exitCode": {"type": "integer"}},
                "required": ["type"]}}}},
        "_meta": _ref("meta"),
    }


def _content_schema() -> Schema:
    ann_one = {"type": "object", "properties": {
        "audience": {"type": "array", "items": {"enum": ["user", "assistant"]}},
        "priority": {"type": "number", "minimum": 0, "maximum": 1},
        "lastModified": _TEXT}}
    common = {"annotations": {"anyOf": [ann_one, {"type": "array", "items": ann_one}]},
              "_meta": _ref("meta")}

    def typed(kind: str, props: Schema, required: list[str], extra: Schema | None = None) -> Schema:
        out: Schema = {"type": "object", "properties": {"type": {"const": kind}, **props, **common},
                       "required": ["type", *required]}
        if extra:
            out.update(extra)
        return {"if": {"properties": {"type": {"const": kind}}, "required": ["type"]}, "then": out}

    media = {"data": {**_STR, "contentEncoding": "base64"},
             "path": {**_TEXT, "description": "relative to the scenario file"},
             "uri": _TEXT}
    blocks = [
        typed("text", {"text": _TEXT}, ["text"]),
        typed("image", {"mimeType": {"enum": list(IMAGE_TYPES)}, **media}, ["mimeType"],
              {"anyOf": [_present("path"), _present("data")]}),
        typed("audio", {"mimeType": {"enum": list(AUDIO_TYPES)}, **media}, ["mimeType"],
              {"anyOf": [_present("path"), _present("data")]}),
        typed("resource", {"resource": {"type": "object", "properties": {
            "uri": _TEXT, "mimeType": _TEXT, "text": _TEXT,
            "blob": _TEXT}, "required": ["uri"],
            "anyOf": [_present("text"), _present("blob")]}}, ["resource"]),
        typed("resource_link", {"uri": _TEXT, "name": _TEXT,
                                "mimeType": _TEXT, "title": _TEXT,
                                "description": _TEXT,
                                "size": {"type": "integer", "minimum": 0}}, ["uri"]),
        typed("diff", {"path": {**_STR, "pattern": "^/"}, "oldText": _TEXT,
                       "newText": _TEXT}, ["path", "newText"]),
        typed("plan", {"entries": _ref("planEntries")}, ["entries"]),
    ]
    block = {"type": "object", "properties": {"type": {"enum": list(CONTENT_TYPES)}},
             "required": ["type"], "allOf": blocks}
    return {"anyOf": [_TEXT, block]}


def _timeline_item() -> Schema:
    ms = _ref("ms")
    s = _TEXT
    ne = _NONEMPTY
    expected = {"type": "object", "properties": {
        "sessionId": ne, "stopReason": ne,
        "usage": {"type": "object"}, "_meta": _ref("meta")}}
    element = {"type": "object", "properties": {
        "think": _steps({"anyOf": [_TEXT, {"allOf": [_ref("content"), {
            "type": "object", "properties": {"type": {"const": "text"}}}]}]}, ("content", "text"),
            "[ms, text] thinking steps (a text block is text)"),
        "assistant": _steps(_ref("content"), ("content", "text"), "[ms, content] answer steps"),
        "error": {"type": "object", "properties": {
            "errorType": s, "statusCode": {"type": "integer", "minimum": 400, "maximum": 599},
            "message": s, "details": {}, "retryAfterSeconds": {"type": "number", "minimum": 0},
            "relativeTime": ms, "_meta": _ref("meta")}, "required": ["errorType"]},
        "fault": {**_ref("fault"), "description": "strikes after the steps written before "
                  "it (at most one per response)"},
        "_meta": _META_OR_NULL}, "$comment": _KEYS_COUNT}
    # at least one step: an error, or a think/assistant element with steps; a tool call is
    # the next timeline item, never inside the response
    has_step = {"anyOf": [{"required": ["error"]},
                          *({"properties": {k: {"minItems": 1}}, "required": [k]}
                            for k in ("think", "assistant"))]}
    no_tool = {"not": {"anyOf": [{"required": [t]} for t in ("agentToolUse", *TOOLS)]}}
    one_element = {"anyOf": [{"required": [k]} for k in _ELEMENTS],
                   "not": {"anyOf": [{"required": list(pair)} for pair in
                                     itertools.combinations(_ELEMENTS, 2)]}}
    llm = {"anyOf": [{"type": "array", "items": {"allOf": [element, no_tool, one_element]},
                      "contains": has_step},
                     {"allOf": [element, no_tool, has_step]}]}
    tool_use = {"type": "object", "properties": {"toolName": _NONEMPTY, "args": {"type": "object"}},
                "required": ["toolName"], "allOf": [
                    _ref("toolCall"), *(_tool_args(spec) for spec in map(tool_spec, TOOLS.values()))]}
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
    option = {"type": "object", "properties": {"id": ne, "optionId": ne, "label": s, "name": s,
                                               "kind": {"enum": list(PERMISSION_KINDS)}},
              "required": ["kind"], "anyOf": [_present("id"), _present("optionId")]}
    permission = {"type": "object", "properties": {
        "sessionId": s, "toolCall": {"type": "object"}, "options": {"type": "array", "items": option},
        "decision": {"type": "object", "properties": {"outcome": {"enum": ["selected", "cancelled"]},
                                                      "optionId": s}, "required": ["outcome"],
                     "if": {"properties": {"outcome": {"const": "selected"}}},
                     "then": _present("optionId")},
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
            {"type": "array", "items": {"type": "object", "properties": {"messageContains": s},
                                        "required": ["messageContains"]}}]}}},
        "_meta": _ref("meta")}}

    def text_or(field: str) -> Schema:
        return {"anyOf": [{"type": "string", "pattern": r"\S"}, {"type": "object", "properties": {
            field: ne, "level": s, "_meta": _ref("meta")}, "required": [field]}]}

    flag = {"anyOf": [{"type": "boolean"}, {"type": "null"}, {"type": "object"}]}
    events = [
        _event("llmResponse", llm, "one model response: think / assistant / error elements"),
        _event("agentToolUse", tool_use, "a tool call"),
        _event("agentEdits", {"type": "object", "properties": {
            "path": ne, "linesAdded": {"type": "integer", "minimum": 0},
            "linesRemoved": {"type": "integer", "minimum": 0}, "oldText": s, "newText": s,
            "description": s, "toolCallId": s, "_meta": _ref("meta")}, "required": ["path"]},
            "the agent edited a file"),
        _event("agentPlan", plan, "the agent's plan"),
        _event("setMode", {"anyOf": [_STR, {"type": "object", "properties": {"modeId": ne},
                                          "required": ["modeId"]}]}, "switch mode (ACP session/set_mode)"),
        _event("setModel", {"anyOf": [_STR, {"type": "object", "properties": {"modelId": ne},
                                           "required": ["modelId"]}]},
               "switch model (unstable; needs acp.unstable: true)"),
        _event("agentFileReads", {"anyOf": [
            {"type": "object", "properties": {"files": {"type": "array", "items": _ref("fileRead")}},
             "required": ["files"]}, {"type": "array", "items": _ref("fileRead")}]},
            "the agent reads client files (ACP fs/read_text_file)"),
        _event("agentPermissionRequest", permission, "ACP session/request_permission"),
        _event("userInputs", {"type": "array", "items": user_input, "minItems": 1},
               "prompts at absolute times",
               {"target": {"enum": list(TARGETS)}}),
        _event("userEdits", {"anyOf": [{**_STR, "pattern": r"\S"}, {"type": "object", "properties": {"patch": ne},
                                            "required": ["patch"]}]}, "apply a patch file"),
        _event("applyPatch", {"type": "object", "properties": {
            "path": ne, "commit": {"type": "boolean"}, "message": ne, "_meta": _ref("meta")},
            "required": ["path"]},
            "apply a patch file and, with commit: true, commit the workspace (git add -A)"),
        _event("userCommand", {"anyOf": [_STR, {"type": "object", "properties": {"cmd": ne, "cwd": s},
                                              "required": ["cmd"]}]}, "the user runs a command"),
        _event("userCancelSession", flag, "ACP session/cancel"),
        _event("initialize", {"type": ["object", "null"], "properties": {
            "protocolVersion": {"type": "integer", "minimum": 0}, "clientCapabilities": {"type": "object"},
            "clientInfo": {"type": "object"}, "expectedResponse": {"type": "object"},
            "_meta": _ref("meta")}}, "the ACP initialize handshake",
            {"expectedResponse": {"type": "object"}}),
        _event("sessionStart", {"anyOf": [{"type": "null"}, _STR, {"type": "object", "properties": {
            "sessionId": ne, "expectedPromptResponse": expected, "_meta": _ref("meta")}}]},
            "boundary: events before it are history replayed on session/load"),
        _event("assert", assert_, "checks"),
        _event("screenshot", {"anyOf": [
            {"type": "string", "pattern": r"\S"},
            {"type": "object", "properties": {"label": ne, "masks": _ref("masks"),
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
        {"type": "object", "properties": {"rules": _ref("timelineRules")},
         "required": ["rules"], "additionalProperties": False},
    ]
    for tool in TOOLS.values():
        spec = tool_spec(tool)
        fields: Schema = {"type": "object",
                          "allOf": [_ref(f"{spec.name}Args"), _ref("toolCall")]}
        # a bare string is the one required argument (of a tool that has exactly one)
        shapes = [fields] if len(spec.required) != 1 else \
            [{"allOf": [_STR, _arg_schema(spec.required[0])]}, fields]
        events.append(_event(spec.name, {"anyOf": shapes},
                             f"{spec.name} tool call (becomes agentToolUse with toolName "
                             f"{spec.name})"))
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
        "signal": {"enum": list(SIGNALS)}, "text": _TEXT,
        "bytes": {"type": "integer", "minimum": 1},
    }
    rules: list[Schema] = []
    for kind in FAULT_KINDS:
        foreign = [k for k, kinds in FAULT_KEYS.items() if kind not in kinds]
        required = [k for k, kinds in _REQUIRED.items() if kind in kinds]
        then: Schema = {"not": {"anyOf": [{"required": [k]} for k in foreign]}}
        if required:
            then.update(_present(*required))
        rules.append({"if": {"properties": {"kind": {"const": kind}}, "required": ["kind"]},
                      "then": then})
    return {"type": "object", "description": "what goes wrong on purpose (docs/faults.md)",
            "properties": props, "required": ["kind"],
            "not": {"anyOf": [{"required": ["afterEvents", "afterBytes"]},
                              {"required": ["code", "signal"]}]},
            "allOf": rules}


#: the elements of an llmResponse (one per '- ' item)
_ELEMENTS = ("think", "assistant", "error", "fault")
_REQUIRED = {"ms": ("stall", "slowFirstByte", "lateResponse"), "text": ("stderr",)}


def scenario_schema() -> Schema:
    """The JSON Schema (draft-07) of a scenario file."""
    s = _TEXT
    ne = _NONEMPTY
    b = {"type": "boolean"}
    definitions: Schema = {
        "ms": {"type": "integer", "minimum": 0, "description": "milliseconds"},
        "meta": {"type": "object", "description": "ACP _meta"},
        "strings": {"description": "a list of strings; one string is a list of one",
                    "anyOf": [_STR, {"type": "array", "items": s}]},
        "content": _content_schema(),
        "prompt": {"anyOf": [_ref("content"), {"type": "array", "items": _ref("content")}]},
        "planEntries": {"type": "array", "items": {"type": "object", "properties": {
            "content": s, "priority": {"enum": ["high", "medium", "low"]},
            "status": {"enum": ["pending", "in_progress", "completed"]}}, "required": ["content"]}},
        "fileRead": {"anyOf": [{**_STR, "pattern": "^/"}, {"type": "object", "properties": {
            "path": {"type": "string", "pattern": "^/"}, "expectedContent": s}, "required": ["path"]}]},
        "fileContains": {"type": "object", "properties": {
            "path": ne,
            "text": {"anyOf": [ne, {"type": "array", "items": ne, "minItems": 1}]}},
            "required": ["path", "text"],
            "description": "a text file in the workspace holds each text"},
        "masks": {"type": "array", "description": "what goldens leave out: text a regex "
                  "matches (one row at a time), or a region of rows and columns",
                  "items": {"anyOf": [
                      {"type": "object", "properties": {
                          "regex": ne, "replace": s},
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
        "rules": _rules({"type": ["object", "array", "null"]}),
        # rules as a timeline item: what they produce is timeline items, checked as such
        "timelineRules": _rules({"anyOf": [
            {"type": "array", "items": _ref("timelineItem")}, _ref("timelineItem")]}),
        "timelineItem": _timeline_item(),
        **_tool_definitions(),
        "fault": _fault_schema(),
    }
    pairs = {"anyOf": [{"type": "object"}, {"type": "array", "items": {
        "type": "object", "properties": {"name": _STR}, "required": ["name", "value"],
        "$comment": _KEYS_COUNT}}], "description": "a list of {name, value}, or a mapping"}
    mcp = {"type": "object", "properties": {
        "name": ne, "type": {"enum": ["stdio", "http", "sse"]}, "command": ne,
        "args": _ref("strings"), "env": pairs, "url": ne, "headers": pairs},
        "required": ["name"], "if": {"properties": {"type": {"enum": ["http", "sse"]}},
                                     "required": ["type"]},
        "then": _present("url"), "else": _present("command")}
    properties: Schema = {
        "name": {**ne, "description": "scenario identifier"},
        "tags": _ref("strings"),
        "description": s,
        "initialPrompt": {"type": "string", "description": "legacy; the prompt comes from userInputs"},
        "terminalRef": s,
        "compat": {"type": "object"},
        "repo": _obj({"init": b, "branch": s, "dir": s, "files": {"type": "array", "items": {
            "type": "object", "properties": {"path": ne, "contents": {"anyOf": [
                _STR, {"type": "object", "properties": {"base64": _STR}, "required": ["base64"]}]}},
            "required": ["path"]}}}),
        "ah": _obj({"cmd": s, "flags": _ref("strings"), "env": {
            "type": "object", "additionalProperties": {"type": ["string", "number", "boolean", "null"]}}}),
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
    schema: Schema = {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "$id": SCHEMA_ID,
        "title": "scenarist scenario",
        "description": "A scenario for scenarist (the Agent Harbor scenario format).",
        "type": "object",
        "properties": {**properties, "rules": _ref("rules")},
        "required": ["name", "timeline"],
        "not": {"anyOf": [{"required": ["events"]}, {"required": ["assertions"]}]},
        "definitions": definitions,
    }
    out: Schema = _null_is_absent(schema)
    return out


def _rules(config: Schema) -> Schema:
    """A ``rules`` list whose configs are ``config``."""
    return {"type": "array", "description": "conditional config, resolved at load", "items": {
        "type": "object", "properties": {
            "when": {"type": "string", "pattern": r"^\s*\$"}, "default": {},
            "config": config},
        "anyOf": [{"required": ["when"]}, {"required": ["default"]}]}}


def _nullable(key: str, schema: Schema) -> bool:
    """Whether an optional ``key`` may be null: not ``rules``, nor a time (both are read
    whenever the key is written)."""
    return key != "rules" and schema.get("$ref") != "#/definitions/ms"


def _null_is_absent(schema: Any) -> Any:
    """``schema`` with every optional key of an object allowed to be null: the loader reads
    ``key: null`` (or ``key:`` with nothing after it) as the key left out, except in an
    object whose ``$comment`` is :data:`_KEYS_COUNT`."""
    if isinstance(schema, list):
        return [_null_is_absent(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out = {k: _null_is_absent(v) if k not in ("properties", "enum", "const") else v
           for k, v in schema.items()}
    props = schema.get("properties")
    if isinstance(props, dict) and schema.get("$comment") != _KEYS_COUNT:
        required = set(schema.get("required", ()))
        out["properties"] = {k: _null_is_absent(v) if k in required or not _nullable(k, v)
                             else {"anyOf": [{"type": "null"}, _null_is_absent(v)]}
                             for k, v in props.items()}
    elif isinstance(props, dict):
        out["properties"] = {k: _null_is_absent(v) for k, v in props.items()}
    return out
