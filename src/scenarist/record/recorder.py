"""Where recorded conversations go: one scenario file per conversation, rewritten as it grows.

The :class:`Recorder` keeps the chains of the session (:mod:`~scenarist.record.chain`) and,
after every exchange, writes the scenario of the conversation it belongs to, so a recording
is complete whenever the proxy is stopped. A file is named after the conversation, stable
across runs: ``--name``, else the test id of the ``x-scenario-test`` header, else a slug of the
first prompt; conversations of one session that would share a name and start differently get
``-2``, ``-3`` in the order they began; the same conversation again (a re-run) replaces the
file. Writes are atomic (a temporary file renamed over the old one) and the files are 0600:
a reader never sees half a scenario, and what a session said is not shown to other users.
"""

from __future__ import annotations

import re
import sys
import threading
from collections.abc import Callable, Iterable
from pathlib import Path

from scenarist.files import write_private
from scenarist.record.chain import Chain, Exchange, attach, is_side
from scenarist.record.redact import Masker

#: chain → scenario YAML text (its name given); masks every text it writes with the masker
Render = Callable[[Chain, str, Masker], str]


class Recorder:
    """Chains the exchanges of a session and keeps their scenario files written."""

    def __init__(self, out: Path, render: Render, masker: Masker, name: str | None = None,
                 normalise: Callable[[str], str] | None = None) -> None:
        self.out = out
        self.render = render
        self.masker = masker
        self.name = name
        #: what the render does to a prompt before writing it: a file is named after the
        #: prompt as written (stable across runs, and no masked secret in a file name)
        self.normalise = normalise
        self.chains: list[Chain] = []
        self._written: dict[int, Path] = {}  # id(chain) → the file written for it
        self._lock = threading.Lock()

    def learn(self, headers: Iterable[tuple[str, str]]) -> None:
        """Credentials a client sent: masked wherever they would be written."""
        self.masker.learn(headers)

    def add(self, exchange: Exchange, label: str) -> Path | None:
        """Record one exchange; the path of the scenario written (None: a side request)."""
        with self._lock:
            chain = attach(self.chains, exchange)
            kept = {id(c) for c in self.chains}
            self._written = {k: v for k, v in self._written.items() if k in kept}
            self._drop_sides()
            if is_side(chain, self.chains):
                return None
            name = self.file_name(chain)
            path = self.out / f"{name}.yaml"
            try:
                write_private(path, self.render(chain, name, self.masker))
            except OSError as exc:
                print(f"scenarist record: {label}: cannot write {path}: {exc}", file=sys.stderr,
                      flush=True)
                return None
            self._written[id(chain)] = path
            return path

    def _drop_sides(self) -> None:
        """Remove the file of a chain that a later one showed to be a side request."""
        for chain in self.chains:
            path = self._written.get(id(chain))
            if path is not None and is_side(chain, self.chains):
                del self._written[id(chain)]
                if path not in self._written.values():
                    path.unlink(missing_ok=True)

    def file_name(self, chain: Chain) -> str:
        """The chain's scenario name (module docstring)."""
        base = slug(self.name or chain.test_id or self._as_written(chain.first.prompts[0]))
        starts: list[str] = []
        for other in self.chains:
            if is_side(other, self.chains):
                continue
            first = self._as_written(other.first.prompts[0])
            if slug(self.name or other.test_id or first) != base:
                continue
            if first not in starts:
                starts.append(first)
        index = starts.index(self._as_written(chain.first.prompts[0]))
        return base if index == 0 else f"{base}-{index + 1}"

    def _as_written(self, prompt: str) -> str:
        """``prompt`` as the scenario file holds it (normalised, masked)."""
        return self.masker.text(prompt if self.normalise is None else self.normalise(prompt))


def slug(text: str, limit: int = 60) -> str:
    """A file-name-safe, readable form of ``text`` (lower case, words joined by ``-``)."""
    words = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    cut = words[:limit].rstrip("-")
    return cut or "conversation"
