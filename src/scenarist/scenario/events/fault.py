"""``fault``: what goes wrong on purpose, as an ``llmResponse`` element or a timeline event.

One reader for both places (:func:`read_fault`). Each key belongs to some kinds
(:data:`KEYS`): a key written for another kind (``code`` on a ``stall``) is an error that
names the kinds it belongs to, since a fault that silently drops a key strikes differently
from what the author wrote. What each kind does per channel is docs/faults.md's.
"""

from __future__ import annotations

from typing import Any

from scenarist.scenario.events.context import Handler, ItemContext
from scenarist.scenario.model import FAULT_KINDS, Event, Fault, FaultEvent
from scenarist.scenario.report import Report, join
from scenarist.scenario.source import MISSING

__all__ = ["HANDLERS", "KEYS", "SIGNALS", "read_error_status", "read_fault",
           "read_retry_after"]

_ALL = FAULT_KINDS
# before any byte, or (lateResponse) at the answer: no offset
_PLACED = tuple(k for k in FAULT_KINDS if k not in ("slowFirstByte", "lateResponse"))
#: each key of a ``fault`` and the kinds it belongs to
KEYS: dict[str, tuple[str, ...]] = {
    "kind": _ALL,
    "afterEvents": _PLACED,
    "afterBytes": _PLACED,
    "times": _ALL,
    "ms": ("stall", "slowFirstByte", "lateResponse"),
    "then": ("stall",),
    "statusCode": ("httpStatus",),
    "message": ("httpStatus",),
    "retryAfterSeconds": ("httpStatus",),
    "code": ("exit",),
    "signal": ("exit",),
    "text": ("stderr", "malformed"),
    "bytes": ("fragment",),
}
#: the signals an ``exit`` fault may name (POSIX's, the same numbers on Linux and macOS
#: but for the few left out)
SIGNALS = ("SIGHUP", "SIGINT", "SIGQUIT", "SIGILL", "SIGTRAP", "SIGABRT", "SIGFPE", "SIGKILL",
           "SIGSEGV", "SIGPIPE", "SIGALRM", "SIGTERM")
_EXAMPLE = "{kind: disconnect, afterEvents: 3}"


def read_fault(report: Report, holder: Any, key: Any, path: str) -> Fault | None:
    """``holder[key]`` as a :class:`Fault` (problems reported at their keys; None when unusable)."""
    d = holder[key]
    fpath = join(path, key)
    if not isinstance(d, dict):
        report.wrong_type(holder, key, path, "a mapping with a kind", _EXAMPLE)
        return None
    line, col = report.source.where(holder, key)
    kind = d.get("kind")
    if kind is None:
        report.error(d, MISSING, fpath, "a fault needs a 'kind'",
                     "add 'kind:' with one of: " + ", ".join(FAULT_KINDS))
        return None
    if not isinstance(kind, str) or kind not in FAULT_KINDS:
        report.choice(d, "kind", fpath, FAULT_KINDS)
        return None
    for k in d:
        kinds = KEYS.get(k)
        if kinds is None:
            report.warn(d, k, join(fpath, k), f"unknown key {k!r} in a fault is ignored",
                        "known keys here: " + ", ".join(KEYS), on_key=True)
        elif kind not in kinds:
            report.error(d, k, join(fpath, k), f"'{k}' is not a key of {kind} faults",
                         f"'{k}' is for {_or(kinds)} faults; remove it or change the kind",
                         on_key=True)
    fault = Fault(kind, line=line, col=col)  # type: ignore[arg-type]  # checked above
    fault.after_events = report.integer(d, "afterEvents", fpath)
    fault.after_bytes = report.integer(d, "afterBytes", fpath)
    if fault.after_events is not None and fault.after_bytes is not None:
        report.error(d, "afterBytes", join(fpath, "afterBytes"),
                     "a fault strikes after afterEvents or afterBytes, not both",
                     "keep one of them")
    fault.times = report.integer(d, "times", fpath, 1, minimum=1) or 1
    if kind in ("stall", "slowFirstByte", "lateResponse"):
        fault.ms = report.integer(d, "ms", fpath, 0, required=True) or 0
    fault.then = report.choice(d, "then", fpath, ("continue", "close"),  # type: ignore[assignment]
                               "continue") or "continue"
    if kind == "httpStatus":
        fault.status_code = read_error_status(
            report, d, fpath, 503, "use 400..599, e.g. 529 (overloaded), 503 or 500")
        fault.message = report.string(d, "message", fpath)
        fault.retry_after_seconds = read_retry_after(report, d, fpath)
    if kind == "exit":
        _exit(report, d, fpath, fault)
    if kind == "stderr":
        fault.text = report.string(d, "text", fpath, required=True,
                                   example="'warning: disk almost full'")
    elif kind == "malformed":
        fault.text = report.string(d, "text", fpath)
    if kind == "fragment":
        fault.chunk_bytes = report.integer(d, "bytes", fpath, 1, minimum=1) or 1
    return fault


def _or(kinds: tuple[str, ...]) -> str:
    return kinds[0] if len(kinds) == 1 else ", ".join(kinds[:-1]) + " or " + kinds[-1]


def read_retry_after(report: Report, d: dict[Any, Any], path: str) -> float | None:
    """``d``'s ``retryAfterSeconds`` (None when absent); a negative one is a located error."""
    retry = report.number(d, "retryAfterSeconds", path)
    if retry is not None and retry < 0:
        report.error(d, "retryAfterSeconds", join(path, "retryAfterSeconds"),
                     "retryAfterSeconds must be >= 0", "use e.g. 1")
    return retry


def read_error_status(report: Report, d: dict[Any, Any], path: str, default: int,
                      hint: str) -> int:
    """``d``'s ``statusCode``: an HTTP error status (400..599), ``default`` when absent; any
    other value is a located error (``hint`` says what to write) and reads as ``default``."""
    status = report.integer(d, "statusCode", path, minimum=None)
    status = default if status is None else status  # 0 is no HTTP status: reported below
    if not 400 <= status <= 599:
        report.error(d, "statusCode", join(path, "statusCode"),
                     f"statusCode {status} is not an HTTP error status", hint)
        return default
    return status


def _exit(report: Report, d: dict[Any, Any], path: str, fault: Fault) -> None:
    if "code" in d and "signal" in d:
        report.error(d, "signal", join(path, "signal"),
                     "an exit fault has a code or a signal, not both", "keep one of them",
                     on_key=True)
    code = report.integer(d, "code", path)
    if code is not None and not 0 <= code <= 255:
        report.error(d, "code", join(path, "code"), f"exit code {code} is outside 0..255",
                     "use e.g. 1, or 'signal: SIGKILL' for a killed process")
    fault.signal = report.choice(d, "signal", path, SIGNALS)
    fault.exit_code = code if code is not None else None if fault.signal else 1


def fault_event(ctx: ItemContext, value: Any, item: dict[Any, Any], key: str, path: str,
                ipath: str) -> Event | None:
    fault = read_fault(ctx.report, item, key, ipath)
    if fault is None:
        return None
    return FaultEvent(**ctx.base(path), fault=fault)


HANDLERS: dict[str, Handler] = {
    "fault": fault_event,
}
