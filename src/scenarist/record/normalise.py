"""Normalisers: what changes between two runs of the same session, made stable.

A recorded prompt says "today is 2026-11-26", names ``/tmp/pytest-of-ci/pytest-41/work``
and a session UUID; the next run says otherwise and would never match again. Each
normaliser is a pure ``str -> str`` function; :func:`normaliser` chains the built-in ones
(UUIDs, ISO timestamps, dates, temporary folders, the workspace path) with a user hook
(``module:function``), and ``scenarist import`` and ``scenarist record`` apply the same
chain to what they write and to the live requests they match, so both sides agree.

:func:`mask_secrets` is not a normaliser but a guarantee: whatever is written passes
through it (API keys, ``Authorization``/``Cookie`` values, bearer tokens).
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable, Iterable
from functools import lru_cache

from scenarist.errors import ScenaristError

__all__ = ["MASK", "HookError", "Normaliser", "builtin_normalisers", "load_hook",
           "mask_secrets", "normaliser", "recorded_pattern", "redactor", "stands_for"]

Normaliser = Callable[[str], str]
MASK = "[REDACTED]"

UUID_RE = re.compile(r"\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-"
                     r"[0-9a-fA-F]{12}\b")
TIMESTAMP_RE = re.compile(r"\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?"
                          r"(?:Z|[+-]\d{2}:?\d{2})?\b")
DATE_RE = re.compile(r"\b\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])\b")
# a temporary folder and what follows it up to the next separator-free end of path
TMP_RE = re.compile(r"(?:/private)?(?:/tmp|/var/folders/[\w.+-]+/[\w.+-]+/T)"
                    r"(?:/[\w.+@-]+)+")

#: what each placeholder of the built-in normalisers stood for, as a pattern for live text
_STOOD_FOR = {
    "<workspace>": r"/[^\s\"'`]*?",  # lazy: the recorded path continues with literal text
    "<tmp>": TMP_RE.pattern,
    "<uuid>": UUID_RE.pattern,
    "<timestamp>": TIMESTAMP_RE.pattern,
    "<date>": DATE_RE.pattern,
}
#: what a placeholder of the user's own (a ``--normalise`` hook's ``<BUILD_ID>``: capitals,
#: digits, ``_``) or a mask (``--redact``, a secret) stood for: some text, within one line
_ANY_TEXT = r"[^\n]+?"
_USER_PLACEHOLDER = r"<[A-Z][A-Z0-9_]*>"
_PLACEHOLDER_RE = re.compile(
    "((?i:" + "|".join(map(re.escape, _STOOD_FOR)) + ")|" + _USER_PLACEHOLDER + "|"
    + re.escape(MASK) + ")")
_SPACE_RE = re.compile(r"\s+")

_SECRETS = (
    # header lines and JSON/YAML fields that carry credentials: a value that looks like one
    # (6+ token characters, then an end), so code such as ``api_key = os.environ[...]`` in a
    # written file stays as it is
    re.compile(r"(?i)\b((?:proxy-)?authorization|cookie|set-cookie|x-api-key|api[-_]?key|"
               r"openai[-_]api[-_]key|anthropic[-_]api[-_]key|access[-_]token|"
               r"refresh[-_]token|client[-_]secret|password)(\"?\s*[:=]\s*\"?)"
               r"((?:bearer\s+|basic\s+)?[A-Za-z0-9._~+/=:%-]{6,})(?=[\s\"',;)}\]]|$)"),
    re.compile(r"(?i)\bbearer\s+[A-Za-z0-9._~+/=-]{8,}"),
    re.compile(r"\b(?:sk|pk|rk)-(?:ant-|proj-|live-|test-)?[A-Za-z0-9_-]{16,}"),
    re.compile(r"\b(?:ghp|gho|ghu|ghs|github_pat)_[A-Za-z0-9_]{20,}"),
    re.compile(r"\bAKIA[0-9A-Z]{16}\b"),
    re.compile(r"\bAIza[0-9A-Za-z_-]{35}\b"),
)


class HookError(ScenaristError, ValueError):
    """A ``--normalise module:function`` hook that cannot be loaded."""


def mask_secrets(text: str) -> str:
    """``text`` with credentials replaced by :data:`MASK` (a field keeps its name)."""
    if not text:
        return text
    head, *rest = _SECRETS
    text = head.sub(lambda m: f"{m.group(1)}{m.group(2)}{MASK}", text)
    for pattern in rest:
        text = pattern.sub(MASK, text)
    return text


def redactor(patterns: Iterable[str]) -> Normaliser:
    """:func:`mask_secrets` plus every match of ``patterns`` (``--redact REGEX``; a pattern
    that does not compile is a :class:`HookError` naming it)."""
    compiled = []
    for pattern in patterns:
        try:
            compiled.append(re.compile(pattern))
        except re.error as exc:
            raise HookError(f"--redact {pattern!r}: not a regular expression: {exc}") from None

    def mask(text: str) -> str:
        text = mask_secrets(text)
        for regex in compiled:
            text = regex.sub(MASK, text)
        return text
    return mask


@lru_cache(maxsize=256)
def recorded_pattern(text: str) -> re.Pattern[str] | None:
    """What a recorded ``text`` with placeholders stood for, as a pattern that finds it in
    live text (None when it has no placeholder): its literal parts as written (any run of
    whitespace as any other, case ignored), each placeholder as what it replaced. A replay
    matches prompts and tool results with it, so ``<TMP>/x`` matches ``/tmp/abc/x``, and what
    a user's hook or ``--redact`` replaced (``<BUILD_ID>``, ``[REDACTED]``) matches any text
    on its line: the rules that normalised a recording travel with it, as its placeholders."""
    parts = _PLACEHOLDER_RE.split(text)
    if len(parts) == 1:
        return None
    pattern = "".join(
        _STOOD_FOR.get(part.lower(), _ANY_TEXT) if i % 2
        else r"\s+".join(map(re.escape, _SPACE_RE.split(part)))
        for i, part in enumerate(parts))
    return re.compile(pattern, re.IGNORECASE)


def stands_for(recorded: str, live: str) -> bool:
    """Whether ``recorded`` (text with placeholders) is found in ``live`` text."""
    pattern = recorded_pattern(recorded)
    return pattern is not None and pattern.search(live) is not None


def builtin_normalisers(workspace: str | None = None) -> tuple[Normaliser, ...]:
    """The built-in normalisers in the order they apply: the workspace path first (it may
    lie in a temporary folder), then temporary folders, UUIDs, timestamps, dates."""
    out: list[Normaliser] = []
    if workspace and workspace not in ("/", "."):
        root = workspace.rstrip("/")
        out.append(lambda text: text.replace(root, "<WORKSPACE>"))
    out += [lambda text: TMP_RE.sub("<TMP>", text),
            lambda text: UUID_RE.sub("<UUID>", text),
            lambda text: TIMESTAMP_RE.sub("<TIMESTAMP>", text),
            lambda text: DATE_RE.sub("<DATE>", text)]
    return tuple(out)


def load_hook(spec: str) -> Normaliser:
    """The user's normaliser named ``module:function`` (a ``str -> str`` function)."""
    module_name, sep, attr = spec.partition(":")
    if not sep or not module_name or not attr:
        raise HookError(f"normaliser hook {spec!r}: expected module:function "
                        "(e.g. mytests.normalise:strip_build_ids)")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise HookError(f"normaliser hook {spec!r}: cannot import {module_name!r} ({exc}); "
                        "is it on PYTHONPATH?") from None
    hook = getattr(module, attr, None)
    if not callable(hook):
        raise HookError(f"normaliser hook {spec!r}: {module_name} has no function {attr!r}")

    def checked(text: str) -> str:
        out = hook(text)
        if not isinstance(out, str):
            raise HookError(f"normaliser hook {spec!r} returned {type(out).__name__}, "
                            "not a string")
        return out
    return checked


def normaliser(workspace: str | None = None, hooks: Iterable[str] = (), *,
               builtin: bool = True) -> Normaliser:
    """One function applying the built-in normalisers (unless ``builtin`` is False) and
    then each hook, in order."""
    steps = [*(builtin_normalisers(workspace) if builtin else ()), *map(load_hook, hooks)]

    def apply(text: str) -> str:
        for step in steps:
            text = step(text)
        return text
    return apply
