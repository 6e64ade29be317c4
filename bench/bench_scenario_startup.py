"""Start-up: ``scenarist validate one.yaml`` wall time next to ``python -c pass``.

Runs each command N times in alternation (median reported) and checks, in a separate run
of the same subcommand, that no server framework (starlette, uvicorn, httpx, websockets,
pydantic, ...) was imported. Also lists the slowest imports of the subcommand
(``python -X importtime``) so a regression has a name.

    .venv/bin/python bench/bench_scenario_startup.py [--runs 20] [--scenario FILE]
"""

from __future__ import annotations

import argparse
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


def wall_ms(argv: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return (time.perf_counter() - start) * 1000


def slowest_imports(argv: list[str], count: int = 8) -> list[tuple[int, str]]:
    err = subprocess.run([sys.executable, "-X", "importtime", *argv], capture_output=True,
                         text=True).stderr
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
        commands = {
            "python -c pass": [sys.executable, "-c", "pass"],
            "scenarist validate one.yaml": [str(scenarist), "validate", "-q", str(one)],
        }
        times: dict[str, list[float]] = {name: [] for name in commands}
        for argv in commands.values():
            wall_ms(argv)  # warm the page cache and .pyc files
        for _ in range(args.runs):
            for name, argv in commands.items():
                times[name].append(wall_ms(argv))
        check = subprocess.run([sys.executable, "-c", CHECK.format(frameworks=FRAMEWORKS), str(one)],
                               capture_output=True, text=True, check=True).stdout.split()
        imports = slowest_imports(["-m", "scenarist", "validate", "-q", str(one)])
    medians = {name: statistics.median(values) for name, values in times.items()}
    what = str(args.scenario) if args.scenario else "a generated ~100-event scenario"
    print(f"median wall time of {args.runs} runs ({what})")
    for name, value in medians.items():
        print(f"  {name:30} {value:8.1f} ms")
    base, ours = medians["python -c pass"], medians["scenarist validate one.yaml"]
    print(f"ratio=validate/python_pass {ours / base:.2f}")
    print(f"overhead over bare python: {ours - base:.1f} ms")
    code, loaded = check[0], check[1] if len(check) > 1 else ""
    print(f"validate exit code {code}; server frameworks imported: {loaded or 'none'}")
    print("slowest imports (self+children us):")
    for micros, module in imports:
        print(f"  {micros:8d}  {module.strip()}")
    assert not loaded, f"scenarist validate imported server frameworks: {loaded}"
    print("OK: no server framework imported")


if __name__ == "__main__":
    main()
