"""Start-up: ``scenarist validate one.yaml`` wall time next to ``python -c pass``.

Runs each command N times in alternation (median reported) and checks, in a separate run
of the same subcommand, that no server framework (starlette, uvicorn, httpx, websockets,
pydantic, ...) was imported. Also lists the slowest imports of the subcommand
(``python -X importtime``) so a regression has a name.

Both are timed twice: with compiled bytecode cached, as after ``pip install`` (which writes
the ``.pyc`` files; here they go to a temporary ``PYTHONPYCACHEPREFIX``, warmed first), and
with ``PYTHONDONTWRITEBYTECODE=1`` as some sandboxes set it: the standard library's ``.pyc``
files are still read, but an editable checkout without ``__pycache__`` folders compiles
every scenarist module from source on each start.

    .venv/bin/python bench/bench_scenario_startup.py [--runs 20] [--scenario FILE]
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _scenario_gen import scenario_yaml

FRAMEWORKS = ("starlette", "uvicorn", "httpx", "httpcore", "websockets", "pydantic", "anyio",
              "h11", "fastapi", "aiohttp", "openai", "anthropic")
CHECK = """
import sys
from scenarist.cli import main
code = main(["validate", "-q", sys.argv[1]])
loaded = sorted(m for m in sys.modules if m.split(".")[0] in {frameworks!r})
print(code, ",".join(loaded))
"""


def wall_ms(argv: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    return (time.perf_counter() - start) * 1000


def environments(cache: str) -> dict[str, dict[str, str]]:
    """Bytecode cached (as installed) and not (compiled on every start)."""
    base = {k: v for k, v in os.environ.items()
            if k not in ("PYTHONDONTWRITEBYTECODE", "PYTHONPYCACHEPREFIX")}
    return {"cached .pyc": {**base, "PYTHONPYCACHEPREFIX": cache},
            "no .pyc written": {**base, "PYTHONDONTWRITEBYTECODE": "1"}}


def slowest_imports(argv: list[str], env: dict[str, str], count: int = 8) -> list[tuple[int, str]]:
    err = subprocess.run([sys.executable, "-X", "importtime", *argv], capture_output=True,
                         text=True, env=env).stderr
    rows = []
    for line in err.splitlines():
        parts = line.split("|")
        if len(parts) == 3 and parts[1].strip().isdigit():
            rows.append((int(parts[1]), parts[2].rstrip()))
    return sorted(rows, reverse=True)[:count]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--scenario", type=Path, help="a scenario file (default: a generated one)")
    args = parser.parse_args()
    scenarist = Path(sys.executable).with_name("scenarist")
    with tempfile.TemporaryDirectory(prefix="scenarist-bench-") as tmp:
        one = args.scenario or Path(tmp) / "one.yaml"
        if args.scenario is None:
            one.write_text(scenario_yaml(random.Random(5), 1), encoding="utf-8")
        envs = environments(str(Path(tmp) / "pycache"))
        commands = {
            "python -c pass": [sys.executable, "-c", "pass"],
            "scenarist validate one.yaml": [str(scenarist), "validate", "-q", str(one)],
        }
        runs = [(f"{name} ({how})", argv, env) for how, env in envs.items()
                for name, argv in commands.items()]
        times: dict[str, list[float]] = {label: [] for label, _, _ in runs}
        for _, argv, env in runs:
            wall_ms(argv, env)  # warm the page cache and write the .pyc files
        for _ in range(args.runs):
            for label, argv, env in runs:
                times[label].append(wall_ms(argv, env))
        check = subprocess.run([sys.executable, "-c", CHECK.format(frameworks=FRAMEWORKS), str(one)],
                               capture_output=True, text=True, check=True).stdout.split()
        imports = slowest_imports(["-m", "scenarist", "validate", "-q", str(one)],
                                  envs["cached .pyc"])
    medians = {label: statistics.median(values) for label, values in times.items()}
    what = str(args.scenario) if args.scenario else "a generated ~100-event scenario"
    print(f"median wall time of {args.runs} runs ({what})")
    for label, value in medians.items():
        print(f"  {label:45} {value:8.1f} ms")
    for how in envs:
        base = medians[f"python -c pass ({how})"]
        ours = medians[f"scenarist validate one.yaml ({how})"]
        key = how.replace(" ", "_").replace(".", "")
        print(f"ratio=validate/python_pass[{key}] {ours / base:.2f}  "
              f"(overhead over bare python: {ours - base:.1f} ms)")
    code, loaded = check[0], check[1] if len(check) > 1 else ""
    print(f"validate exit code {code}; server frameworks imported: {loaded or 'none'}")
    print("slowest imports with cached .pyc (self+children us):")
    for micros, module in imports:
        print(f"  {micros:8d}  {module.strip()}")
    assert not loaded, f"scenarist validate imported server frameworks: {loaded}"
    print("OK: no server framework imported")


if __name__ == "__main__":
    main()
