"""The helper that keeps docs/faults.md's verdict tables: rows read, written in order, and a
differing observation failing with the command that records it."""

from __future__ import annotations

from pathlib import Path

import pytest

from fault_verdicts import HEADER, PAGE, check, read_rows, with_row
from scenarist.faults import CHANNELS

PAGE_TEXT = "# x\n\n<!-- fault-verdicts llm -->\n" + "\n".join(HEADER) + "\n<!-- /fault-verdicts -->\n"


def test_rows_are_written_in_order_and_read_back() -> None:
    text = with_row(PAGE_TEXT, "llm", "openai", "stall", "waits")
    text = with_row(text, "llm", "openai", "disconnect", "raises APIConnectionError")
    text = with_row(text, "llm", "anthropic", "stall", "waits")
    text = with_row(text, "llm", "openai", "stall", "waits, then reads the rest")
    assert text.splitlines()[5:8] == [
        "| anthropic | `stall` | waits |",
        "| openai | `disconnect` | raises APIConnectionError |",
        "| openai | `stall` | waits, then reads the rest |"]
    assert read_rows(text, "llm") == {("anthropic", "stall"): "waits",
                                      ("openai", "disconnect"): "raises APIConnectionError",
                                      ("openai", "stall"): "waits, then reads the rest"}
    with pytest.raises(LookupError, match="fault-verdicts acp"):
        read_rows(text, "acp")
    with pytest.raises(ValueError):
        with_row(text, "llm", "openai", "explode", "x")


def test_check_compares_or_writes(tmp_path: Path) -> None:
    page = tmp_path / "faults.md"
    page.write_text(PAGE_TEXT)
    with pytest.raises(AssertionError, match="--write-fault-verdicts"):
        check("llm", "openai", "truncate", "reads a short answer", write=False, page=page)
    check("llm", "openai", "truncate", "reads a short answer", write=True, page=page)
    check("llm", "openai", "truncate", "reads a short answer", write=False, page=page)


def test_the_page_has_a_table_for_every_channel() -> None:
    text = PAGE.read_text()
    for channel in CHANNELS:
        read_rows(text, channel)
