"""``scenarist validate`` stays light to start: what it must not import, checked (no timing).

Each module named here costs start-up on every run of a command people call in loops and
pre-commit hooks; see bench/NOTES-startup.md for the measured figures.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

import pytest

from scenarist.scenario.cli_parser import Parser

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

NOT_IMPORTED = (
    "shutil", "bz2", "lzma",  # argparse's help formatter, replaced by scenario.cli_parser's
    "json",  # only timeline --json / schema / select --json need it
    "numpy", "rapidfuzz",  # selection only
    "asyncio", "starlette", "uvicorn", "httpx", "pydantic",  # servers only
)

PROBE = """
import sys
from scenarist.cli import main
code = main(["validate", "-q", *sys.argv[1:]])
print(code, " ".join(sorted(m for m in sys.modules if m.split(".")[0] in {names!r})))
"""


def run_probe(*files: Path) -> tuple[int, list[str]]:
    out = subprocess.run([sys.executable, "-c", PROBE.format(names=set(NOT_IMPORTED)),
                          *map(str, files)], capture_output=True, text=True, check=True,
                         timeout=60).stdout.split()
    return int(out[0]), out[1:]


def test_validate_imports_nothing_it_does_not_need() -> None:
    files = sorted(EXAMPLES.glob("*.yaml"))
    assert len(files) >= 8
    code, loaded = run_probe(*files)
    assert code == 0 and loaded == []


def test_validate_errors_still_import_nothing_extra(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: x\ntimeline:\n  - llmResponse: 3\n", encoding="utf-8")
    code, loaded = run_probe(bad)
    assert code == 1 and loaded == []


@pytest.mark.parametrize("columns", ["50", "200", "", "junk"])
def test_help_is_wrapped_as_stock_argparse_wraps_it(columns: str,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", columns)

    def build(parser: argparse.ArgumentParser) -> str:
        parser.add_argument("paths", nargs="+", metavar="PATH", help="files " * 30)
        parser.add_argument("--strict", action="store_true", help="treat warnings as errors")
        return parser.format_help()

    ours = build(Parser(prog="scenarist validate", description="Check scenario files."))
    stock = build(argparse.ArgumentParser(prog="scenarist validate",
                                          description="Check scenario files."))
    assert ours == stock
