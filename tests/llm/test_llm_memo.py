"""Memoised answers are byte-identical to fresh ones, for every input that changes the bytes.

The server keeps two memos. The request memo answers a request it has seen before (same
body bytes, answer headers and ``created`` second) without reading it again; the render memo
re-sends the encoded answer of a turn that reads no files, for requests that differ in bytes
but not in what reaches the renderer. A memo keeps an answer when its key comes a second
time, so each variant is sent four times: a miss of both, a miss that both keep, a
request-memo hit, and the same request with other padding bytes (a render-memo hit); all
four must equal the answer of a server without memos, and so must their journal entries.

The render memo is only honest if
its key (the answer's shape) covers everything that reaches the renderer and the encoders,
and its templates are filled with the rest: scenario (not just its name), turn, API, stream
flags, ``include_usage``, model, tool profile, declared tools, working directory, the thinking
the request asks for; input size (usage) and the ``created`` second are filled in. Each
variant below changes exactly one of them; a server with the memo must answer each exactly
as one without it.
(The declared tools are in the key too, though beyond the profile they only shape edits,
which read files and are never memoised.)
"""

from __future__ import annotations

import json
from typing import Any

import httpx

from scenarist.llm.script import ModelTurn, Script, Segment, TimedText, ToolAction

CLAUDE_TOOLS = ["Bash", "Write", "Edit", "Read"]


def _script(prompt: str, text: str) -> Script:
    turn = ModelTurn(
        0,
        thinking=(TimedText(0, "Let me look."),),
        text=(TimedText(0, text),),
        actions=(ToolAction("runCmd", {"cmd": "ls -la", "cwd": "src"}),),
    )
    segments = (Segment(prompt, (turn,)),)
    # anthropic style: the thinking shows as far as the request asks (a part of the key)
    return Script(name="twin", prompt=prompt, segments=segments, api_style="anthropic")


# two scenarios with the same name (two files may share one): the key must tell them apart
FIRST = _script("list the first project", "Listing the first project.")
SECOND = _script("show the 2nd repo file", "Showing the second repository.")


def _chat_tools(names: list[str]) -> list[dict[str, Any]]:
    return [{"type": "function", "function": {"name": n, "parameters": {}}} for n in names]


def _chat(prompt: str = "list the first project", **extra: Any) -> tuple[str, dict[str, Any]]:
    system = extra.pop("system", None)
    messages = [{"role": "system", "content": system}] if system else []
    body = {"model": "m", "messages": [*messages, {"role": "user", "content": prompt}], **extra}
    return "/v1/chat/completions", body


def _responses(**extra: Any) -> tuple[str, dict[str, Any]]:
    return "/v1/responses", {"model": "m", "input": "list the first project", **extra}


def _messages(**extra: Any) -> tuple[str, dict[str, Any]]:
    body = {
        "model": "m",
        "max_tokens": 100,
        "messages": [{"role": "user", "content": "list the first project"}],
        **extra,
    }
    return "/v1/messages", body


def _gemini(method: str = "generateContent", query: str = "", model: str = "gemini-2.5-flash",
            **extra: Any) -> tuple[str, dict[str, Any]]:
    body = {"contents": [{"role": "user", "parts": [{"text": "list the first project"}]}],
            "tools": [{"functionDeclarations": [{"name": n} for n in CLAUDE_TOOLS]}], **extra}
    return f"/v1beta/models/{model}:{method}{query}", body


SIZE = 1000  # every body is padded to this many bytes (but one), so input tokens stay equal


def _encode(body: dict[str, Any], filler: str = "x") -> bytes:
    """The body as compact JSON padded to ``SIZE`` bytes with an unknown field (ignored by the
    server), unless it sets its own ``pad``: then only that variant's input size differs.
    Another ``filler`` gives other bytes of the same size (the same rendering)."""
    if "pad" in body:
        return json.dumps({**body, "pad": filler * body["pad"]}, separators=(",", ":")).encode()
    bare = len(json.dumps({**body, "pad": ""}, separators=(",", ":")))
    return json.dumps({**body, "pad": filler * (SIZE - bare)}, separators=(",", ":")).encode()


def _entry(served: Any) -> dict[str, Any]:
    """The journal entry of the latest request, without what differs per request."""
    latest = dict(list(served.server.journal)[-1])
    for key in ("seq", "time"):
        latest.pop(key)
    return latest


VARIANTS: dict[str, tuple[str, dict[str, Any]]] = {
    "base": _chat(),
    "model": _chat(model="m2"),
    "stream": _chat(stream=True),
    "include_usage": _chat(stream=True, stream_options={"include_usage": True}),
    "claude profile": _chat(tools=_chat_tools(CLAUDE_TOOLS)),
    "codex profile": _chat(tools=_chat_tools(["exec_command"])),
    "cwd": _chat(tools=_chat_tools(CLAUDE_TOOLS), system="Primary working directory: /w/one"),
    "other cwd": _chat(tools=_chat_tools(CLAUDE_TOOLS), system="Primary working directory: /w/2"),
    "input size": _chat(pad=SIZE),
    "same-named scenario": _chat("show the 2nd repo file"),
    "responses": _responses(),
    "responses stream": _responses(stream=True),
    "messages": _messages(),
    "messages stream": _messages(stream=True),
    "messages thinking": _messages(max_tokens=2048, thinking={"type": "adaptive"}),
    "messages thinking omitted": _messages(
        max_tokens=2048, thinking={"type": "adaptive", "display": "omitted"}
    ),
    "responses reasoning": _responses(reasoning={"effort": "low"}),
    "responses summary": _responses(reasoning={"summary": "auto"}),
    "responses encrypted": _responses(
        reasoning={"summary": "auto"}, include=["reasoning.encrypted_content"]
    ),
    "gemini": _gemini(),
    "gemini model": _gemini(model="gemini-2.5-pro"),
    "gemini sse": _gemini("streamGenerateContent", "?alt=sse"),
    "gemini array": _gemini("streamGenerateContent"),
    "gemini thoughts": _gemini(generationConfig={"thinkingConfig": {"includeThoughts": True}}),
    "gemini no tools": _gemini(tools=[]),
}


def test_memoised_answers_equal_fresh_ones_for_every_input(serve: Any) -> None:
    now = [1_700_000_000.25]

    def wall() -> float:
        return now[0]

    memo = serve([FIRST, SECOND], memoize=True, wall=wall)
    fresh = serve([FIRST, SECOND], memoize=False, wall=wall)

    def post(url: str, variant: tuple[str, dict[str, Any]], filler: str = "x") -> bytes:
        path, body = variant
        data = _encode(body, filler)
        headers = {"content-type": "application/json"}
        resp = httpx.post(f"{url}{path}", content=data, headers=headers, timeout=30)
        assert resp.status_code == 200, resp.text
        return resp.content

    answers: dict[str, bytes] = {}
    for name, variant in VARIANTS.items():
        expected = post(fresh.url, variant)
        journaled = _entry(fresh)
        for filler in ("x", "x", "x", "y"):  # miss, kept, request-memo hit, render-memo hit
            assert post(memo.url, variant, filler) == expected, (name, filler)
            assert _entry(memo) == journaled, (name, filler)
        answers[name] = expected
    # each variant really changes the bytes, so a key missing any of them would be caught
    assert len(set(answers.values())) == len(VARIANTS)
    # the render memo keeps one template per shape: the input size is filled in, not a shape
    assert len(memo.server.memo) == memo.server.memo.templates == len(VARIANTS) - 1
    assert len(memo.server.request_memo) == len(VARIANTS)  # "x" bodies ("y" came once)
    assert fresh.server.memo is None and fresh.server.request_memo is None

    now[0] += 1  # the next second: ``created`` changes
    for name in ("base", "stream", "responses"):
        later = post(memo.url, VARIANTS[name])
        assert later == post(fresh.url, VARIANTS[name]) and later != answers[name], name
