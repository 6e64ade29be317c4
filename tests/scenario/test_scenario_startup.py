"""The light commands import no heavy module: no web framework, pydantic, numpy or SDK.

``validate``, ``timeline``, ``schema``, ``select`` and ``fake-codex`` are run in loops, from
pre-commit hooks and once per agent turn; each of these modules would add tens of
milliseconds to every run (budgets: docs/architecture.md, bench/bench_startup.py). Standard-library modules are not
guarded: they cost users nothing they would notice.

``scenarist llm`` needs its web stack, but not rapidfuzz (~24 M instructions of its start-up):
edit distances are computed only when a prompt is not one of the scenarios' prompts exactly.
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


LLM_PROBE = """
import builtins, os, sys
real = builtins.print
def listening(*args, **kwargs):
    if args and str(args[0]).startswith("listening on"):
        heavy = " ".join(sorted(m for m in sys.modules if m.startswith("rapidfuzz")))
        sys.__stdout__.write(f"{{args[0]}} [{{heavy}}]")
        sys.__stdout__.flush()
        os._exit(0)  # stop here: the server would serve until killed
    real(*args, **kwargs)
builtins.print = listening
from scenarist.llm.cli import main
main(["--scenario", {scenario!r}, "--port", "0"])
"""

FIRST_REQUEST_PROBE = """
import asyncio, sys
import httpx
from scenarist.llm.cli import load_scripts
from scenarist.llm.server import MockModelServer, Options
from scenarist.play import VirtualClock

server = MockModelServer(load_scripts({scenarios!r}, []), Options(clock=VirtualClock()))

async def ask():
    transport = httpx.ASGITransport(app=server.app)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        body = {{"model": "m", "max_tokens": 64,
                 "messages": [{{"role": "user", "content": {prompt!r}}}]}}
        return (await client.post("/v1/messages", json=body)).status_code

status = asyncio.run(ask())
sys.stdout.write(f"{{status}} {{'rapidfuzz' in sys.modules}}")
"""


def run_probe(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True, timeout=60, stdin=subprocess.DEVNULL)


def test_llm_starts_listening_without_rapidfuzz() -> None:
    done = run_probe(LLM_PROBE.format(scenario=str(EXAMPLES / "tool-tour.yaml")))
    assert done.stdout.startswith("listening on http://127.0.0.1:")
    assert done.stdout.endswith(" []")


@pytest.mark.parametrize(("prompt", "distance_needed"), [
    ("Show me every tool", False),  # the scenario's prompt as written: no distance to compute
    ("show me evry tool", True),  # a typo: selected by edit distance, which imports rapidfuzz
])
def test_llm_imports_rapidfuzz_only_to_compute_a_distance(prompt: str,
                                                          distance_needed: bool) -> None:
    code = FIRST_REQUEST_PROBE.format(scenarios=[str(EXAMPLES / "tool-tour.yaml")],
                                      prompt=prompt)
    assert run_probe(code).stdout == f"200 {distance_needed}"


PACKAGE_PROBE = """
import sys
import scenarist.scenario
bare = [m for m in sys.modules if m.startswith("scenarist.scenario.")]
import scenarist.scenario.load
sys.stdout.write(f"{len(bare)} {'scenarist.scenario.turns' in sys.modules}")
"""


def test_the_scenario_package_imports_a_module_when_a_name_is_used() -> None:
    # validate imports the loader; the package no longer imports every module with it
    assert run_probe(PACKAGE_PROBE).stdout == "0 False"


def test_every_public_name_of_the_scenario_package_is_its_module_s() -> None:
    import scenarist.scenario as package

    for name in package.__all__:
        value = getattr(package, name)
        home = getattr(value, "__module__", None)
        if callable(value) and isinstance(home, str):  # classes and functions
            assert getattr(sys.modules[home], name) is value, name
    namespace: dict[str, object] = {}
    exec("from scenarist.scenario import *", namespace)
    assert set(package.__all__) <= namespace.keys()
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        package.nothing  # noqa: B018
