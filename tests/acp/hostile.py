"""Hostile JSON-RPC lines for ACP peers, seeded: what a broken or malicious peer sends.

Standard library only, so the hostile agent (``hostile_agent.py``) can use it too. Each
:class:`Line` says which id its sender may wait on (``answer_id``): a request whose id the
receiver can read must get an answer with that id; ``None`` means no id a receiver could
trust (it answers with ``null``, or not at all for a notification).
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from typing import Any

CATEGORIES = ("non_object", "batch", "bad_params", "deep", "no_method", "wrong_types",
              "huge_ids", "invalid_utf8", "large", "unknown_method", "bad_notification",
              "invalid_json", "response")

AGENT_METHODS = ("initialize", "authenticate", "session/new", "session/load", "session/prompt",
                 "session/set_mode", "session/set_config_option", "session/list")
CLIENT_METHODS = ("session/request_permission", "fs/read_text_file", "fs/write_text_file",
                  "terminal/create", "terminal/output", "terminal/wait_for_exit",
                  "terminal/kill", "terminal/release")
NOTIFICATIONS = ("session/cancel", "session/update")
NO_ID = object()


@dataclass(frozen=True, slots=True)
class Line:
    category: str
    data: bytes
    answer_id: Any = None  # the id an answer must carry; None: nothing to wait on

    @property
    def waits(self) -> bool:
        return self.answer_id is not None


def _dumps(value: Any) -> bytes:
    return json.dumps(value, separators=(",", ":")).encode()


class Hostile:
    """A seeded source of hostile lines; ``methods`` are the receiver's request methods."""

    def __init__(self, seed: int, methods: tuple[str, ...] = AGENT_METHODS) -> None:
        self.rng = random.Random(seed)
        self.methods = methods
        self.count = 0

    def next_id(self) -> Any:
        self.count += 1
        return f"h{self.count}" if self.rng.random() < 0.5 else 1_000_000 + self.count

    def junk(self, depth: int = 0) -> Any:
        r = self.rng
        kind = r.randrange(7 if depth < 3 else 5)
        if kind == 5:
            return [self.junk(depth + 1) for _ in range(r.randrange(4))]
        if kind == 6:
            return {f"k{i}": self.junk(depth + 1) for i in range(r.randrange(4))}
        return [None, r.random() < 0.5, r.randint(-2**70, 2**70), r.uniform(-1e9, 1e9),
                "".join(chr(r.randrange(0x20, 0x3000)) for _ in range(r.randrange(12)))][kind]

    def request(self, method: str | None = None, params: Any = NO_ID, **extra: Any
                ) -> tuple[dict[str, Any], Any]:
        request_id = self.next_id()
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id,
                                   "method": method or self.rng.choice(self.methods)}
        if params is not NO_ID:
            message["params"] = params
        message.update(extra)
        return message, request_id

    def line(self, category: str | None = None) -> Line:
        category = category or self.rng.choice(CATEGORIES)
        data, answer_id = getattr(self, f"_{category}")()
        return Line(category, data, answer_id)

    def lines(self, n: int, categories: tuple[str, ...] = CATEGORIES) -> list[Line]:
        """``n`` lines, every category in turn, then at random."""
        return [self.line(categories[i] if i < len(categories) else self.rng.choice(categories))
                for i in range(n)]

    # -- the categories: each returns (bytes, the id an answer must carry or None) ------
    def _non_object(self) -> tuple[bytes, Any]:
        return self.rng.choice([b"[]", b"[1]", b'"s"', b"42", b"true", b"false", b"null",
                                b"1e400", b"-0", b'""', b"-1.5e-300", b"[[]]"]), None

    def _batch(self) -> tuple[bytes, Any]:
        items = []
        for _ in range(self.rng.randrange(6)):
            if self.rng.random() < 0.5:
                items.append(self.request(params={})[0])
            else:
                items.append(self.junk())
        # the answer to a batch is an array; its elements' ids are not awaited one by one
        return _dumps(items), None

    def _bad_params(self) -> tuple[bytes, Any]:
        params: Any = self.rng.choice([
            "s", 5, True, [1, 2], [], {"sessionId": 5}, {"cwd": None, "mcpServers": "x"},
            {"protocolVersion": "x", "clientCapabilities": "x"}, {"prompt": "hi"},
            {"sessionId": "s", "prompt": [{"type": "nope"}]}, {"modeId": []}, None,
            {"protocolVersion": 1, "clientCapabilities": [1]}, {"_meta": 5}])
        message, request_id = self.request(params=params)
        return _dumps(message), request_id

    def _deep(self) -> tuple[bytes, Any]:
        depth = self.rng.randrange(1_000, 6_000)
        opener, closer = self.rng.choice([("[", "]"), ('{"a":', "}")])
        request_id = self.next_id()
        head = _dumps({"jsonrpc": "2.0", "id": request_id, "method": "session/new"})[:-1]
        return head + b',"params":' + (opener * depth + "1" + closer * depth).encode() + b"}", \
            request_id

    def _no_method(self) -> tuple[bytes, Any]:
        request_id = self.next_id()
        message = self.rng.choice([{"jsonrpc": "2.0", "id": request_id},
                                   {"jsonrpc": "2.0", "id": request_id, "method": None},
                                   {"jsonrpc": "2.0", "id": request_id, "params": {}},
                                   {"jsonrpc": "2.0", "id": request_id, "method": None,
                                    "params": {"x": 1}}])
        return _dumps(message), request_id

    def _wrong_types(self) -> tuple[bytes, Any]:
        r = self.rng
        choice = r.randrange(5)
        if choice == 0:  # an id no JSON-RPC peer may use: answered with null
            bad_id = r.choice([{"a": 1}, [1], True, False])
            return _dumps({"jsonrpc": "2.0", "id": bad_id, "method": "session/new"}), None
        if choice == 1:
            message, request_id = self.request(params={})
            message["jsonrpc"] = r.choice(["1.0", 2, None, "2.0 "])
            return _dumps(message), request_id
        if choice == 2:
            message, request_id = self.request(params={})
            del message["jsonrpc"]
            return _dumps(message), request_id
        if choice == 3:
            message, request_id = self.request(params={})
            message["method"] = r.choice([5, ["session/new"], {"m": 1}, True])
            return _dumps(message), request_id
        message, request_id = self.request(params={}, result=1)
        return _dumps(message), request_id

    def _huge_ids(self) -> tuple[bytes, Any]:
        r = self.rng
        choice = r.randrange(4)
        if choice == 0:
            big = r.randrange(10**19, 10**20) * 10**r.randrange(0, 3_900) + self.count
            return _dumps({"jsonrpc": "2.0", "id": big, "method": "nope", "params": {}}), big
        if choice == 1:  # more digits than Python reads: no id to trust
            digits = "9" * r.randrange(4_400, 6_000)
            return ('{"jsonrpc":"2.0","id":' + digits + ',"method":"x"}').encode(), None
        if choice == 2:
            text = f"h{self.count}-" + "x" * r.randrange(1_000, 100_000)
            self.count += 1
            return _dumps({"jsonrpc": "2.0", "id": text, "method": "nope"}), text
        value = r.choice([-(2**63), 2**64 + self.count, -1])
        return _dumps({"jsonrpc": "2.0", "id": value, "method": "nope", "params": {}}), value

    def _invalid_utf8(self) -> tuple[bytes, Any]:
        message, request_id = self.request(params={"text": "caf\u00e9 " * 4})
        data = bytearray(_dumps(message))
        bad = self.rng.choice([b"\xff", b"\xc3", b"\xed\xa0\x80", b"\xc0\xaf", b"\x80\x80"])
        at = self.rng.randrange(len(data) // 2, len(data) - 1)
        data[at:at] = bad
        # an id before the bad byte can still be read, and is answered
        head = bytes(data[:at])
        return bytes(data), request_id if _dumps(request_id) + b"," in head else None

    def _large(self) -> tuple[bytes, Any]:
        size = self.rng.choice([10_000, 50_000, 200_000])
        message, request_id = self.request("nope/large", {"blob": "x" * size})
        return _dumps(message), request_id

    def _unknown_method(self) -> tuple[bytes, Any]:
        method = self.rng.choice(["", "nope", "_scenarist/x", "session/../etc", "rpc.discover",
                                  "SESSION/NEW", "session/new\u0000", "\u2603", "a" * 5_000])
        message, request_id = self.request(method, {})
        return _dumps(message), request_id

    def _bad_notification(self) -> tuple[bytes, Any]:
        method = self.rng.choice([*NOTIFICATIONS, "nope", "_x", "session/prompt"])
        params = self.rng.choice([{}, "s", [1], 5, {"sessionId": 5}, {"update": "x"}, None])
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None or self.rng.random() < 0.5:
            message["params"] = params
        return _dumps(message), None

    def _invalid_json(self) -> tuple[bytes, Any]:
        message, request_id = self.request(params={"cwd": "/tmp"})
        text = _dumps(message)
        choice = self.rng.randrange(7)
        if choice == 0:  # cut off after the id: the id is readable
            return text[:-5], request_id
        variants = [b"{'jsonrpc': '2.0'}", b'{"jsonrpc":"2.0","id":NaN,"method":"x"}',
                    b"\xef\xbb\xbf" + _dumps({"jsonrpc": "2.0", "method": "x"}),
                    b'{"a":1}// comment', b"{" + b'"\\' * 50_000,
                    b'{"jsonrpc":"2.0","id":Infinity}']
        return variants[choice - 1], None

    def _response(self) -> tuple[bytes, Any]:
        r = self.rng
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": r.choice([0, 1, 2, 999, "x", None])}
        choice = r.randrange(5)
        if choice == 0:
            message["result"] = self.junk()
        elif choice == 1:
            message["error"] = r.choice(["x", 5, None, {"code": "x"}, {"message": 5}, []])
        elif choice == 2:
            message.update(result=1, error={"code": 1, "message": "m"})
        elif choice == 3:
            message["error"] = {"code": -32000, "message": "fine", "data": self.junk()}
        else:
            message.pop("id")
            message["result"] = None
        return _dumps(message), None
