"""The user's events: ``userInputs`` (prompts, checked against the ACP capabilities; the
named keys of those typed into a terminal checked against the key names), ``userEdits``, ``applyPatch``, ``userCommand`` and ``userCancelSession``.

``applyPatch`` (the spec's top-level example) is read here because it is a ``userEdits``
that may also commit: a change to the workspace that comes from outside the agent, played
by the test executor."""

from __future__ import annotations

from typing import Any

from scenarist.scenario.content import parse_content
from scenarist.scenario.events.context import Handler, ItemContext, read_time
from scenarist.scenario.events.control import expected_response
from scenarist.scenario.keys import key_problem, key_tokens
from scenarist.scenario.model import (
    ApplyPatch,
    AudioContent,
    ContentBlock,
    DiffContent,
    Event,
    ImageContent,
    PlanContent,
    ResourceContent,
    UserCancelSession,
    UserCommand,
    UserEdits,
    UserInput,
    UserInputs,
    content_text,
)
from scenarist.scenario.report import join
from scenarist.scenario.source import MISSING

__all__ = ["HANDLERS", "TARGETS"]

TARGETS = ("tui", "webui", "cli")


def _prompt_content(ctx: ItemContext, holder: Any, key: Any,
                    path: str) -> tuple[ContentBlock, ...]:
    """A prompt's content blocks, each checked against the ACP prompt capabilities."""
    value = holder[key]
    report = ctx.report
    if isinstance(value, list):
        blocks = [parse_content(report, value, i, join(path, key)) for i in range(len(value))]
        cpath = join(path, key)
        where = [(value, i, join(cpath, i)) for i in range(len(value))]
    else:
        blocks = [parse_content(report, holder, key, path)]
        where = [(holder, key, join(path, key))]
    out: list[ContentBlock] = []
    caps = ctx.caps
    for block, (h, k, p) in zip(blocks, where, strict=True):
        if block is None:
            continue
        need = None
        if isinstance(block, ImageContent):
            need = "image" if caps is not None and not caps.image else None
        elif isinstance(block, AudioContent):
            need = "audio" if caps is not None and not caps.audio else None
        elif isinstance(block, ResourceContent):
            need = "embeddedContext" if caps is not None and not caps.embedded_context else None
        elif isinstance(block, (DiffContent, PlanContent)):
            report.error(h, k, p, f"a {block.type} block cannot be sent as a prompt",
                         "prompts carry text, image, audio, resource and resource_link blocks")
            continue
        if need is not None:
            report.error(h, k, p, f"this prompt sends {block.type} content, but "
                         f"acp.capabilities.promptCapabilities.{need} is not true",
                         f"set promptCapabilities.{need}: true in the acp section, "
                         "or remove the block")
        out.append(block)
    return tuple(out)


def _check_keys(ctx: ItemContext, holder: Any, key: Any, path: str,
                content: tuple[ContentBlock, ...], target: str | None) -> None:
    """Refuse a ``<...>`` meant as a key that names none, in an input the test executor
    types (target tui, cli or none): typed literally, it would fail far from its cause."""
    if target not in (None, "tui", "cli"):
        return
    for token in key_tokens(content_text(content)):
        problem = key_problem(token)
        if problem is not None:
            ctx.report.error(holder, key, join(path, key), *problem)


def user_inputs(ctx: ItemContext, value: Any, item: dict[Any, Any], key: str, path: str,
                ipath: str) -> Event | None:
    report = ctx.report
    target = report.choice(item, "target", ipath, TARGETS)
    if not isinstance(value, list):
        report.wrong_type(item, key, ipath, "a list of inputs",
                          "userInputs:\n    - relativeTime: 0\n      input: 'Hello'")
        return None
    inputs: list[UserInput] = []
    for i, entry in enumerate(value):
        epath = join(path, i)
        line, col = report.source.where(value, i)
        if isinstance(entry, list):
            if len(entry) != 2:
                report.error(value, i, epath, "an input pair is [milliseconds, input]",
                             "write [0, 'Hello']")
                continue
            at = read_time(ctx.report, entry, 0, epath, "relativeTime")
            content = _prompt_content(ctx, entry, 1, epath)
            _check_keys(ctx, entry, 1, epath, content, target)
            inputs.append(UserInput(at, content, None, None, target, line, col))
        elif isinstance(entry, dict):
            report.unknown_keys(entry, ("relativeTime", "timestamp", "input", "_meta",
                                        "expectedResponse", "target"), epath)
            tkey = "relativeTime" if "relativeTime" in entry else "timestamp"
            at = read_time(ctx.report, entry, tkey, epath, "relativeTime") if tkey in entry else 0
            if "input" not in entry:
                report.error(entry, MISSING, epath, "a user input needs 'input'",
                             "add input: 'Hello' (or a list of content blocks)")
                continue
            content = _prompt_content(ctx, entry, "input", epath)
            entry_target = report.choice(entry, "target", epath, TARGETS, target)
            _check_keys(ctx, entry, "input", epath, content, entry_target)
            inputs.append(UserInput(at, content, report.meta(entry, epath),
                                    expected_response(ctx, entry, "expectedResponse", epath),
                                    entry_target, line, col))
        else:
            report.wrong_type(value, i, path, "an input: [ms, 'text'] or "
                              "{relativeTime: ms, input: ...}", "[0, 'Hello']")
    if not inputs and value == []:
        report.error(item, key, path, "userInputs is empty", "add at least one input")
    return UserInputs(**ctx.base(path), inputs=tuple(inputs), target=target)


def user_edits(ctx: ItemContext, value: Any, item: dict[Any, Any], key: str, path: str,
               ipath: str) -> Event | None:
    report = ctx.report
    if isinstance(value, str):
        d: dict[Any, Any] | None = {"patch": value}
        holder: Any = item
        hkey = key
    else:
        d = ctx.as_mapping(value, item, key, path, "{patch: patches/fix.patch}")
        holder = d
        hkey = "patch"
    if d is None:
        return None
    report.unknown_keys(d, ("patch", "_meta"), path)
    patch = report.string(d, "patch", path, required=True, nonempty=True,
                          example="patches/fix.patch")
    resolved = (report.base_dir / (patch or "")).resolve()
    if patch and not resolved.is_file():
        report.error(holder, hkey, join(path, "patch") if hkey == "patch" else path,
                     f"patch file {patch!r} not found (looked at {resolved})",
                     "patch paths are relative to the scenario file's folder")
    return UserEdits(**ctx.base(path, report.meta(d, path)), patch=patch or "",
                     patch_path=resolved)


def apply_patch(ctx: ItemContext, value: Any, item: dict[Any, Any], key: str, path: str,
                ipath: str) -> Event | None:
    """``{path, commit, message}``: the patch must lie in the scenario's folder (the rule of
    media, :meth:`Report.local_path`); a ``message`` without ``commit: true`` is unused and
    warned about."""
    report = ctx.report
    example = "{path: patches/fix.patch, commit: true, message: 'Apply fix'}"
    d = ctx.as_mapping(value, item, key, path, example)
    if d is None:
        return None
    report.unknown_keys(d, ("path", "commit", "message", "_meta"), path)
    rel = report.string(d, "path", path, required=True, nonempty=True,
                        example="patches/fix.patch")
    resolved = None
    if rel and rel.strip():
        resolved = report.local_path(d, "path", path, rel, "patch file")
    commit = report.boolean(d, "commit", path)
    message = report.string(d, "message", path, nonempty=True, example="'Apply fix'")
    if message is not None and not commit:
        report.warn(d, "message", join(path, "message"),
                    "'message' is used only when the patch is committed; it is ignored",
                    "add 'commit: true' to commit the patch, or remove 'message'")
    return ApplyPatch(**ctx.base(path, report.meta(d, path)), path=rel or "",
                      patch_path=resolved or report.base_dir / (rel or ""), commit=commit,
                      message=message)


def user_command(ctx: ItemContext, value: Any, item: dict[Any, Any], key: str, path: str,
                 ipath: str) -> Event | None:
    if isinstance(value, str):
        return UserCommand(**ctx.base(path), cmd=value)
    d = ctx.as_mapping(value, item, key, path, "{cmd: 'git status'}")
    if d is None:
        return None
    ctx.report.unknown_keys(d, ("cmd", "cwd", "_meta"), path)
    cmd = ctx.report.string(d, "cmd", path, required=True, nonempty=True, example="'git status'")
    return UserCommand(**ctx.base(path, ctx.report.meta(d, path)), cmd=cmd or "",
                       cwd=ctx.report.string(d, "cwd", path))


def cancel(ctx: ItemContext, value: Any, item: dict[Any, Any], key: str, path: str,
           ipath: str) -> Event | None:
    meta = None
    if isinstance(value, dict):
        ctx.report.unknown_keys(value, ("_meta",), path)
        meta = ctx.report.meta(value, path)
    return UserCancelSession(**ctx.base(path, meta))


HANDLERS: dict[str, Handler] = {
    "userInputs": user_inputs, "userEdits": user_edits, "applyPatch": apply_patch,
    "userCommand": user_command, "userCancelSession": cancel,
}
