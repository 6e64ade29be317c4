"""JSON-RPC 2.0 lines as ACP peers must send them, checked before the ACP SDK sees them (pure).

The SDK's stdio connection trusts every line that parses as JSON: a list, a string, ``null``
or an object whose ``method`` or ``id`` has the wrong type ends its receive loop (an
``AttributeError`` inside the SDK), and a line it cannot parse or a request without a method
is dropped, so the peer waits for an answer forever. :func:`check_line` decides, per line,
what the SDK may see: a well-formed message passes; anything else becomes a
:class:`Refusal` whose reply the caller sends itself, as JSON-RPC 2.0 says (``-32700`` for
a line that is not JSON, ``-32600`` for one that is not a request, ``-32602`` for params
ACP cannot take), with the request's ``id`` whenever one can be read, even from a line that
does not parse (a client waiting on that id is answered), ``null`` otherwise. A batch is
refused element by element: ACP has no batches. An ``initialize`` whose
``clientCapabilities`` is not an object is ``-32602`` (the SDK would read it as "no
capabilities"; its members stay the SDK's to salvage). A malformed *response* with a usable id is
turned into an error response, so the request it answers fails instead of waiting.
:func:`encode` writes a message as one line of strict JSON, whatever its error data holds.
Both sides use it: ``scenarist acp`` (:mod:`scenarist.acp.stdio`) and ``acp-test``
(:mod:`scenarist.acp.client`), through :class:`scenarist.acp.lines.CheckedLines`.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from scenarist.errors import WireError

__all__ = [
    "INVALID_PARAMS",
    "INVALID_REQUEST",
    "METHOD_NOT_FOUND",
    "PARSE_ERROR",
    "Refusal",
    "check_line",
    "encode",
    "error_reply",
    "oversized",
]

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603

ID_SCAN_LIMIT = 1024 * 1024  # how far into a broken line an ``id`` is looked for
BATCH_ANSWERS = 100  # a longer batch gets one error, not one per element
# a string (possessive, so a line of unclosed strings is read once, not once per quote) or
# a structural character; an unterminated string runs to the end of the text
_TOKENS = re.compile(r'"(?:[^"\\]++|\\.)*+"?|[{}\[\],:]', re.DOTALL)


@dataclass(frozen=True, slots=True)
class Refusal:
    """A line the SDK must not see: the reply to send (None: nothing may be answered, e.g.
    a broken notification or response) and one line for the log."""

    reply: dict[str, Any] | list[dict[str, Any]] | None
    log: str


class _NotJson(WireError, ValueError):
    """A token Python's json reads but JSON does not have (``NaN``, ``Infinity``)."""


class _OutOfRange(WireError, ValueError):
    """A JSON number no Python value holds faithfully (``1e400``)."""


def error_reply(request_id: Any, code: int, message: str, data: Any = None) -> dict[str, Any]:
    error: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        error["data"] = data
    return {"jsonrpc": "2.0", "id": request_id, "error": error}


def _refuse_constant(name: str) -> Any:
    raise _NotJson(f"{name} is not JSON")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _OutOfRange(f"{text[:40]} overflows a double")
    return value


def _valid_id(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    return value is None or isinstance(value, str | int) or (
        isinstance(value, float) and math.isfinite(value))


def _scan_id(text: str) -> Any:
    """The top-level ``id`` of a JSON object that does not parse (too deep, cut off, a bad
    byte elsewhere), read by tokens without building it; None when there is none to trust."""
    text = text[:ID_SCAN_LIMIT].lstrip()
    if not text.startswith("{"):
        return None
    depth, expect_key = 0, False
    for token in _TOKENS.finditer(text):
        tok = token.group()
        if tok in "{[":
            depth += 1
            expect_key = tok == "{" and depth == 1
        elif tok in "}]":
            depth -= 1
            if depth <= 0:
                return None
        elif tok == ",":
            expect_key = depth == 1
        elif tok == ":":
            expect_key = False
        elif expect_key:
            expect_key = False
            if tok != '"id"':
                continue
            rest = text[token.end():].lstrip()
            if not rest.startswith(":"):
                return None
            try:
                value, _ = json.JSONDecoder(parse_constant=_refuse_constant,
                                            parse_float=_finite).raw_decode(rest[1:].lstrip())
            except (ValueError, RecursionError):
                return None
            return value if _valid_id(value) else None
    return None


def _parse(line: bytes) -> Any:
    """``line`` as JSON, or a Refusal saying why it is not (with the id when one can be read)."""
    try:
        text = line.decode("utf-8").rstrip("\r\n")  # a column on the line, not past its end
    except UnicodeDecodeError as exc:
        where = f"byte 0x{line[exc.start]:02x} at offset {exc.start}"
        return _parse_error(line.decode("utf-8", "replace"), f"the line is not UTF-8 ({where})")
    try:
        return json.loads(text, parse_constant=_refuse_constant, parse_float=_finite)
    except json.JSONDecodeError as exc:
        return _parse_error(text, f"{exc.msg} at column {exc.colno}")
    except _NotJson as exc:
        return _parse_error(text, str(exc))
    except RecursionError:
        return _invalid(_scan_id(text), "the message nests deeper than this agent reads "
                        "(about 1,000 levels)")
    except ValueError as exc:  # _OutOfRange, or an integer longer than Python converts
        return _invalid(_scan_id(text), f"a number out of range: {str(exc).split(';')[0]}")


def _parse_error(text: str, why: str) -> Refusal:
    request_id = _scan_id(text)
    return Refusal(error_reply(request_id, PARSE_ERROR, f"Parse error: {why}"),
                   f"parse error: {why}")


def _invalid(request_id: Any, why: str, code: int = INVALID_REQUEST) -> Refusal:
    label = "Invalid request" if code == INVALID_REQUEST else "Invalid params"
    return Refusal(error_reply(request_id, code, f"{label}: {why}"), f"{label.lower()}: {why}")


def oversized(prefix: bytes, limit: int) -> Refusal:
    """The answer to a line longer than ``limit`` bytes, of which ``prefix`` was kept."""
    return _invalid(_scan_id(prefix[:ID_SCAN_LIMIT].decode("utf-8", "replace")),
                    f"the line is longer than {limit} bytes")


def _kind(value: Any) -> str:
    return "null" if value is None else {dict: "an object", list: "an array", str: "a string",
                                         bool: "a boolean"}.get(type(value), "a number")


def _batch(messages: list[Any]) -> Refusal:
    if not messages:
        return _invalid(None, "an empty batch")
    if len(messages) > BATCH_ANSWERS:  # an answer per element would multiply the traffic
        return _invalid(None, f"a batch of {len(messages)} (ACP takes no batches)")
    replies = []
    for message in messages:
        is_dict = isinstance(message, dict)
        if is_dict and isinstance(message.get("method"), str) and "id" not in message:
            continue  # a notification: never answered
        request_id = message.get("id") if is_dict else None
        replies.append(error_reply(request_id if _valid_id(request_id) else None,
                                   INVALID_REQUEST, "Invalid request: ACP takes no batches; "
                                   "send each message on its own line"))
    return Refusal(replies or None, f"a batch of {len(messages)} refused (ACP takes no batches)")


def _response(message: Mapping[str, Any], request_id: Any) -> dict[str, Any] | Refusal:
    """A peer's answer: passed when well formed; a broken one with a usable id becomes an
    error, so the request it answers fails instead of waiting."""
    if "id" not in message or request_id is None:
        return Refusal(None, "a response without an id: dropped")
    error = message.get("error")
    if "result" in message and "error" in message:
        why = "a response has both result and error"
    elif "error" in message and not (isinstance(error, dict)
                                     and type(error.get("code")) is int
                                     and isinstance(error.get("message"), str)):
        why = "a response's error is not {code: integer, message: string}"
    else:
        return dict(message)
    return error_reply(request_id, INTERNAL_ERROR, f"Internal error: the peer sent a broken "
                       f"response: {why}", {"response": dict(message)})


def _message(message: dict[str, Any]) -> dict[str, Any] | Refusal:
    has_id = "id" in message
    request_id = message.get("id")
    if has_id and not _valid_id(request_id):
        return _invalid(None, f"id is {_kind(request_id)}; it must be a string, a number or null")
    if message.get("jsonrpc") != "2.0":
        return _invalid(request_id, 'jsonrpc must be "2.0"')
    if "method" not in message:
        if "result" in message or "error" in message:
            return _response(message, request_id)
        return _invalid(request_id, "no method (a request) and no result or error (a response)")
    method, params = message["method"], message.get("params")
    if not isinstance(method, str):
        return _invalid(request_id, f"method is {_kind(method)}; it must be a string")
    if "result" in message or "error" in message:
        return _invalid(request_id, "a request carries no result or error")
    if params is not None and not isinstance(params, dict | list):
        return _invalid(request_id, f"params is {_kind(params)}; it must be an object")
    if method == "initialize" and isinstance(params, dict) and not isinstance(
            params.get("clientCapabilities"), dict | None):
        return _invalid(request_id, "clientCapabilities is "
                        f"{_kind(params['clientCapabilities'])}; it must be an object",
                        INVALID_PARAMS)
    if isinstance(params, list):
        if not has_id:
            return Refusal(None, f"notification {method}: params is an array; ACP takes an "
                           "object: dropped")
        return _invalid(request_id, f"{method} takes its params as an object, not an array",
                        INVALID_PARAMS)
    return message


def check_line(line: bytes) -> dict[str, Any] | Refusal:
    """The message on ``line`` when the SDK may handle it, else how to refuse it."""
    parsed = _parse(line)
    if isinstance(parsed, Refusal):
        return parsed
    if isinstance(parsed, list):
        return _batch(parsed)
    if not isinstance(parsed, dict):
        return _invalid(None, f"the message is {_kind(parsed)}; JSON-RPC sends an object")
    return _message(parsed)


def encode(message: Mapping[str, Any]) -> bytes:
    """``message`` as one line of strict JSON. Error data that JSON cannot hold (an echo of a
    too-deep input, a non-finite number) is replaced by a note, never a crash."""
    try:
        text = json.dumps(message, separators=(",", ":"), allow_nan=False, default=str)
    except (ValueError, RecursionError) as exc:
        note = f"not JSON-serialisable: {type(exc).__name__}"
        error = message.get("error")
        if isinstance(error, Mapping):
            fixed: dict[str, Any] = {**message, "error": {**error, "data": {"message": note}}}
        else:
            fixed = error_reply(message.get("id"), INTERNAL_ERROR, f"Internal error: the "
                                f"answer is {note}")
        text = json.dumps(fixed, separators=(",", ":"), allow_nan=False, default=str)
    return text.encode() + b"\n"
