"""Secrets out of recordings: what a recorded scenario must never contain, masked before writing.

Headers are never recorded at all (the proxy keeps none but the test id), so a key sent as
``Authorization``/``x-api-key`` cannot reach a file that way; but an agent may echo it (a tool
that prints the environment, a prompt that pastes it). So every text that is written goes
through a :class:`Masker`: the secrets the client sent in its headers, as exact strings; the
shapes of API keys and bearer tokens (:func:`scenarist.record.normalise.mask_secrets`, the
guarantee every writer gives); and the user's ``--redact`` patterns.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from scenarist.record.normalise import MASK, mask_secrets

#: request headers whose values are credentials
SECRET_HEADERS = frozenset({"authorization", "x-api-key", "api-key", "cookie",
                            "proxy-authorization", "openai-organization", "openai-project",
                            "x-goog-api-key"})


@dataclass(slots=True)
class Masker:
    """Masks secrets in any JSON-like value (strings inside dicts and lists included)."""

    patterns: Sequence[re.Pattern[str]] = ()
    secrets: set[str] = field(default_factory=set)

    @classmethod
    def of(cls, redact: Iterable[str]) -> Masker:
        """The user's patterns (raises ``re.error`` for a bad one)."""
        return cls(tuple(re.compile(p) for p in redact))

    def learn(self, headers: Iterable[tuple[str, str]]) -> None:
        """Remember the credential values a client sent (the bare token of ``Bearer X`` too)."""
        for name, value in headers:
            if name.lower() in SECRET_HEADERS and value.strip():
                self.secrets.add(value.strip())
                token = value.strip().split(" ", 1)[-1].strip()
                if len(token) >= 4:
                    self.secrets.add(token)

    def text(self, value: str) -> str:
        for secret in sorted(self.secrets, key=len, reverse=True):
            value = value.replace(secret, MASK)
        value = mask_secrets(value)
        for pattern in self.patterns:
            value = pattern.sub(MASK, value)
        return value

    def value(self, value: Any) -> Any:
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, dict):
            return {self.text(str(k)): self.value(v) for k, v in value.items()}
        if isinstance(value, list | tuple):
            return [self.value(v) for v in value]
        return value
