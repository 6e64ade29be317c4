"""Secrets out of recordings: what a recorded scenario must never contain, masked before writing.

Headers are never recorded at all (the proxy keeps none but the test id), so a key sent as
``Authorization``/``x-api-key`` cannot reach a file that way; but an agent may echo it (a tool
that prints the environment, a prompt that pastes it). So every text that is written goes
through a :class:`Masker`: the secrets the client sent in its headers, as exact strings; the
shapes of API keys and bearer tokens (:func:`scenarist.record.normalise.mask_secrets`, the
guarantee every writer gives); and the user's ``--redact`` patterns.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from scenarist.record.normalise import MASK, Normaliser, mask_secrets, redactor

#: request headers whose values are credentials
SECRET_HEADERS = frozenset({"authorization", "x-api-key", "api-key", "cookie",
                            "proxy-authorization", "openai-organization", "openai-project",
                            "x-goog-api-key"})


@dataclass(slots=True)
class Masker:
    """Masks secrets in a text (the writer applies it to every string it writes)."""

    redact: Normaliser = mask_secrets  # key shapes and the ``--redact`` patterns
    secrets: set[str] = field(default_factory=set)

    @classmethod
    def of(cls, patterns: Iterable[str]) -> Masker:
        """Key shapes and the user's patterns (a bad one: :class:`~.normalise.HookError`)."""
        return cls(redactor(patterns))

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
        return self.redact(value)
