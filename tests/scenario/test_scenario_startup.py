"""The light commands import no heavy module: no web framework, pydantic, numpy or SDK.

``validate``, ``timeline``, ``schema``, ``select`` and ``fake-codex`` are run in loops, from
pre-commit hooks and once per agent turn; each of these modules would add tens of
milliseconds to every run (bench/NOTES-startup.md). Standard-library modules are not
guarded: they cost users nothing they would notice.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

HEAVY = ("starlette", "uvicorn", "sse_starlette", "pydantic", "pydantic_ai", "numpy", "httpx",
         "openai", "anthropic", "langchain_core")

PROBE = """
import io, sys
from {module} import {func} as main
sys.stdout = io.TextIOWrapper(io.BytesIO())
code = main({argv!r})
heavy = sorted(m for m in sys.modules if m.split(".")[0] in {heavy!r})
sys.__stdout__.write(f"{{code}} {{' '.join(heavy)}}")
"""

HELLO = str(EXAMPLES / "hello-codex.yaml")

COMMANDS = {
    "validate": ("scenarist.cli", "main", ["validate", "-q", str(EXAMPLES)]),
    "timeline": ("scenarist.cli", "main", ["timeline", "--json", HELLO]),
    "schema": ("scenarist.cli", "main", ["schema"]),
    "select": ("scenarist.cli", "main", ["select", "-s", str(EXAMPLES), "write hello.py"]),
    "fake-codex": ("scenarist.codex.cli", "main", ["--seed", "1", "random prompt"]),
    "fake-codex --scenario": ("scenarist.codex.cli", "main",
                              ["--scenario", HELLO, "--time-scale", "0", "go"]),
}


def probe(module: str, func: str, argv: list[str]) -> tuple[int, list[str]]:
    code = PROBE.format(module=module, func=func, argv=argv, heavy=set(HEAVY))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, timeout=60, stdin=subprocess.DEVNULL).stdout.split()
    return int(out[0]), out[1:]


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_light_command_imports_no_heavy_module(command: str) -> None:
    code, heavy = probe(*COMMANDS[command])
    assert code == 0 and heavy == []


def test_validate_errors_import_no_heavy_module(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: x\ntimeline:\n  - llmResponse: 3\n", encoding="utf-8")
    code, heavy = probe("scenarist.cli", "main", ["validate", "-q", str(bad)])
    assert code == 1 and heavy == []
