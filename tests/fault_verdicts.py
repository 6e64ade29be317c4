"""The verdict tables of docs/faults.md, kept by the tests that observe them.

A test that puts a real client (an SDK, Codex CLI, Claude Code, an ACP client) through a fault
states what it saw with the ``fault_verdict`` fixture (tests/conftest.py)::

    fault_verdict("llm", "openai (Python SDK)", "disconnect", "raises APIConnectionError")

and fails when docs/faults.md's row for that client and kind says otherwise. ``pytest
--write-fault-verdicts`` writes the observed verdicts into the page instead (rows kept in a
fixed order: by client, then by kind as ``FAULT_KINDS`` orders them), so the table is produced
by the tests. Each channel's table sits between two markers in its section::

    <!-- fault-verdicts llm -->
    | client | fault | what the client does |
    | --- | --- | --- |
    | openai (Python SDK) | `disconnect` | raises APIConnectionError |
    <!-- /fault-verdicts -->
"""

from __future__ import annotations

import fcntl
import re
from pathlib import Path

from scenarist.scenario.model import FAULT_KINDS

PAGE = Path(__file__).resolve().parents[1] / "docs" / "faults.md"
HEADER = ("| client | fault | what the client does |", "| --- | --- | --- |")
_ROW = re.compile(r"^\| (?P<client>[^|]+?) \| `(?P<kind>\w+)` \| (?P<verdict>.*) \|$")

Rows = dict[tuple[str, str], str]


def _span(text: str, channel: str) -> tuple[int, int]:
    """Where ``channel``'s table lies in ``text``: the offsets after its opening marker's line
    and at its closing marker."""
    start = text.find(f"<!-- fault-verdicts {channel} -->\n")
    if start < 0:
        raise LookupError(f"docs/faults.md has no '<!-- fault-verdicts {channel} -->' marker; "
                          "add one (and '<!-- /fault-verdicts -->') in the channel's section")
    start = text.index("\n", start) + 1
    end = text.index("<!-- /fault-verdicts -->", start)
    return start, end


def read_rows(text: str, channel: str) -> Rows:
    """The rows of ``channel``'s table: (client, kind) -> verdict."""
    start, end = _span(text, channel)
    rows: Rows = {}
    for line in text[start:end].splitlines():
        match = _ROW.match(line)
        if match is not None and line not in HEADER:
            rows[(match["client"], match["kind"])] = match["verdict"]
    return rows


def with_row(text: str, channel: str, client: str, kind: str, verdict: str) -> str:
    """``text`` with the row (client, kind) of ``channel``'s table set to ``verdict``."""
    if kind not in FAULT_KINDS:
        raise ValueError(f"{kind!r} is no fault kind")
    if "|" in client or "|" in verdict or "\n" in verdict:
        raise ValueError("a verdict and a client name are one line without '|'")
    rows = read_rows(text, channel)
    rows[(client, kind)] = verdict
    order = sorted(rows, key=lambda key: (key[0], FAULT_KINDS.index(key[1])))  # type: ignore[arg-type]
    table = [*HEADER, *(f"| {c} | `{k}` | {rows[(c, k)]} |" for c, k in order)]
    start, end = _span(text, channel)
    return text[:start] + "\n".join(table) + "\n" + text[end:]


def check(channel: str, client: str, kind: str, observed: str, *, write: bool,
          page: Path = PAGE) -> None:
    """Compare (or with ``write``, record) one observed verdict against the page."""
    if write:
        with page.open("r+", encoding="utf-8") as handle:  # tests may run in two workers
            fcntl.flock(handle, fcntl.LOCK_EX)
            text = handle.read()
            new = with_row(text, channel, client, kind, observed)
            if new != text:
                handle.seek(0)
                handle.write(new)
                handle.truncate()
        return
    documented = read_rows(page.read_text(encoding="utf-8"), channel).get((client, kind))
    assert documented == observed, (
        f"docs/faults.md ({channel}) says {client} with a {kind} fault: {documented!r}; "
        f"observed: {observed!r}. If the observation is right, run pytest "
        "--write-fault-verdicts on this test and review the diff")
