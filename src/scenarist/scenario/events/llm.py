"""``llmResponse``: one model response of think / assistant / error elements, and a fault.

Two shapes are read: a list of one-key elements (``- think: [...]``) and a mapping of them.
A tool key inside a response is an error that says where the tool call belongs. A ``fault``
element (at most one) strikes after the steps written before it (:mod:`.fault` reads it).
"""

from __future__ import annotations

from typing import Any

from scenarist.scenario.content import parse_content
from scenarist.scenario.events.context import Handler, ItemContext, read_step, read_time
from scenarist.scenario.events.fault import (
    read_error_status,
    read_fault,
    read_retry_after,
)
from scenarist.scenario.model import Event, Fault, LlmError, LlmResponse, TextContent, TextStep
from scenarist.scenario.report import join
from scenarist.scenario.tools import TOOLS

__all__ = ["HANDLERS"]

_ELEMENTS = ("think", "assistant", "error", "fault")


def llm_response(ctx: ItemContext, value: Any, item: dict[Any, Any], key: str, path: str,
                 ipath: str) -> Event | None:
    report = ctx.report
    elements: list[tuple[dict[Any, Any], str, str]] = []
    meta = None
    if isinstance(value, dict):
        meta = report.meta(value, path)
        for k in value:
            if k in _ELEMENTS:
                elements.append((value, k, join(path, k)))
            elif k == "agentToolUse" or k in TOOLS:
                _inline_tool(ctx, value, k, path)
            elif k != "_meta":
                report.warn(value, k, join(path, k), f"unknown key {k!r} in llmResponse is ignored",
                            "an llmResponse holds think, assistant, error, fault and _meta", on_key=True)
    elif isinstance(value, list):
        for i, element in enumerate(value):
            epath = join(path, i)
            if not isinstance(element, dict):
                report.wrong_type(value, i, path, "an element: think, assistant or error",
                                  "- assistant:\n    - [100, 'Hello']")
                continue
            found = [k for k in element if k in _ELEMENTS]
            for k in element:
                if k in _ELEMENTS or k == "_meta":
                    continue
                if k == "agentToolUse" or k in TOOLS:
                    _inline_tool(ctx, element, k, epath)
                else:
                    report.warn(element, k, join(epath, k), f"unknown key {k!r} is ignored",
                                "an element holds one of think/assistant/error/fault, and _meta",
                                on_key=True)
            if len(found) != 1:
                if len(found) > 1:
                    report.error(element, found[1], join(epath, found[1]),
                                 f"one element per '- ' item, but this one has {found}",
                                 f"start '{found[1]}' on its own '- ' line", on_key=True)
                elif not any(k == "agentToolUse" or k in TOOLS for k in element):
                    report.error(value, i, epath, "an llmResponse element needs think, "
                                 "assistant or error", "- think:\n    - [300, 'Reading']")
                continue
            elements.append((element, found[0], join(epath, found[0])))
            element_meta = report.meta(element, epath)
            if element_meta is not None and meta is None:
                meta = element_meta
    else:
        report.wrong_type(item, key, ipath, "a list of think/assistant/error elements",
                          "llmResponse:\n    - assistant: [[100, 'Hello']]")
        return None
    steps: list[TextStep | LlmError] = []
    fault: Fault | None = None
    fault_at = 0
    first_fault: str | None = None
    issues_before = len(report.issues)
    for holder, k, epath in elements:
        if k == "fault":
            if first_fault is not None:
                report.error(holder, k, epath, "an llmResponse has at most one fault, but "
                             f"this one has a second (the first is {first_fault})",
                             "split the response in two, or keep one fault", on_key=True)
                continue
            first_fault = epath
            fault = read_fault(report, holder, k, epath.rsplit(".", 1)[0])
            fault_at = len(steps)
        elif k == "error":
            err = _llm_error(ctx, holder, epath)
            if err is not None:
                steps.append(err)
        else:
            steps.extend(_text_steps(ctx, holder, k, epath, k))
    if not steps and len(report.issues) == issues_before:
        report.error(item, key, path, "this llmResponse has no think, assistant or error steps",
                     "add '- assistant: [[100, \"...\"]]' or remove the item")
    return LlmResponse(**ctx.base(path, meta), steps=tuple(steps), fault=fault, fault_at=fault_at)


def _inline_tool(ctx: ItemContext, holder: dict[Any, Any], key: str, path: str) -> None:
    ctx.report.error(holder, key, join(path, key),
                     "tool use inside llmResponse is not supported",
                     f"move '{key}' out of the llmResponse to its own timeline item right "
                     "after it (the mock model API attaches it to the response)", on_key=True)


def _llm_error(ctx: ItemContext, holder: dict[Any, Any], path: str) -> LlmError | None:
    report = ctx.report
    d = holder["error"]
    if not isinstance(d, dict):
        report.wrong_type(holder, "error", path.rsplit(".", 1)[0], "a mapping with errorType, "
                          "statusCode, message", "{errorType: rate_limit_exceeded, "
                          "statusCode: 429, message: 'Slow down'}")
        return None
    report.unknown_keys(d, ("errorType", "statusCode", "message", "details",
                            "retryAfterSeconds", "relativeTime", "_meta"), path)
    error_type = report.string(d, "errorType", path, required=True, example="rate_limit_exceeded")
    message = report.string(d, "message", path) or error_type or ""
    status = read_error_status(report, d, path, 400,
                               "use 400..599, e.g. 429 for rate limits, 500 for server errors")
    retry = read_retry_after(report, d, path)
    delay = read_time(ctx.report, d, "relativeTime", path) if "relativeTime" in d else 0
    return LlmError(error_type or "", message, status, d.get("details"), retry, delay,
                    report.meta(d, path))


def _text_steps(ctx: ItemContext, holder: dict[Any, Any], key: str, path: str,
                kind: str) -> list[TextStep]:
    value = holder[key]
    out: list[TextStep] = []
    if not isinstance(value, list):
        ctx.report.wrong_type(holder, key, path.rsplit(".", 1)[0],
                              f"a list of {kind} steps", f"{kind}:\n  - [500, 'text']")
        return out
    for i in range(len(value)):
        parsed = read_step(ctx.report, value, i, path, ("content", "text"))
        if parsed is None:
            continue
        delay, h, k, meta = parsed
        content = parse_content(ctx.report, h, k, join(path, i))
        if content is None:
            continue
        if kind == "think" and not isinstance(content, TextContent):
            ctx.report.error(h, k, join(join(path, i), k), "think steps are text",
                             "write the thought as a string")
            continue
        out.append(TextStep(kind, delay, content, meta))  # type: ignore[arg-type]
    return out


HANDLERS: dict[str, Handler] = {
    "llmResponse": llm_response,
}
