"""Scenario selection among 10,000 scenarios: median time per prompt.

Builds a ScenarioIndex over 10,000 scenarios with realistic initial prompts (20 to ~300
characters) and times ``index.select(prompt=...)`` (best match + 3 runners-up) for four
kinds of request prompt: the exact prompt, the prompt with typos, the prompt with extra
text an agent might add, a new prompt from the same templates (another ticket), and a
prompt in other words (unrelated to every scenario; a real server answers it with 404). The baseline is the
straightforward exact method: one ``rapidfuzz.process.extract`` over all prompts with
``scorer=Levenshtein.distance`` (limit 4), timed on the same prompts. Target: median <= 5 ms.

    .venv/bin/python bench/bench_scenario_select.py [--scenarios 10000] [--queries 200]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from _scenario_gen import initial_prompt, unrelated_prompt
from rapidfuzz import process
from rapidfuzz.distance import Levenshtein

from scenarist.scenario.select import ScenarioIndex

TARGET_MS = 5.0


@dataclass(frozen=True)
class Entry:
    name: str
    effective_initial_prompt: str | None
    source_path: Path | None


def typo(rng: random.Random, text: str) -> str:
    chars = list(text)
    for _ in range(rng.randint(1, 6)):
        chars[rng.randrange(len(chars))] = rng.choice("abcdefghij ")
    return "".join(chars)


def queries(rng: random.Random, prompts: list[str], n: int) -> dict[str, list[str]]:
    picks = [rng.choice(prompts) for _ in range(n)]
    return {
        "exact": picks,
        "typos": [typo(rng, p) for p in picks],
        "extra text": [p + "\n\nContext: the repository uses Python 3.11 and pytest." for p in picks],
        "other ticket": [initial_prompt(rng, 10**6 + i) for i in range(n)],
        "unrelated": [unrelated_prompt(rng) for _ in range(n)],
    }


def timed_ms(fn: Callable[[str], object], prompts: list[str]) -> list[float]:
    out = []
    for prompt in prompts:
        start = time.perf_counter()
        fn(prompt)
        out.append((time.perf_counter() - start) * 1000)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenarios", type=int, default=10_000)
    parser.add_argument("--queries", type=int, default=200)
    args = parser.parse_args()
    rng = random.Random(2)
    entries = [Entry(f"scenario-{i:05}", initial_prompt(rng, i), Path(f"s/{i:05}.yaml"))
               for i in range(args.scenarios)]
    prompts = [e.effective_initial_prompt or "" for e in entries]

    start = time.perf_counter()
    index = ScenarioIndex(entries)
    build_ms = (time.perf_counter() - start) * 1000

    def baseline(prompt: str) -> object:
        return process.extract(prompt.strip(), prompts, scorer=Levenshtein.distance, limit=4)

    lengths = sorted(len(p) for p in prompts)
    print(f"{args.scenarios} scenarios, prompt length median {statistics.median(lengths):g} "
          f"chars (max {lengths[-1]}); index built in {build_ms:.0f} ms")
    print(f"{'query kind':12} {'select p50':>11} {'p90':>7} {'max':>7} {'best-only p50':>14} "
          f"{'baseline p50':>13}")
    all_ours: list[float] = []
    all_best: list[float] = []
    all_base: list[float] = []
    for kind, batch in queries(rng, prompts, args.queries).items():
        ours = timed_ms(lambda p: index.select(prompt=p), batch)
        best = timed_ms(lambda p: index.select(prompt=p, runners_up=0), batch)
        base = timed_ms(baseline, batch)
        all_ours += ours
        all_best += best
        all_base += base
        p90 = statistics.quantiles(ours, n=10)[-1]
        print(f"{kind:12} {statistics.median(ours):9.3f}ms {p90:6.2f}  {max(ours):6.2f} "
              f"{statistics.median(best):12.3f}ms {statistics.median(base):11.3f}ms")
    ours_med, base_med = statistics.median(all_ours), statistics.median(all_base)
    best_med = statistics.median(all_best)
    print(f"{'all':12} {ours_med:9.3f}ms {'':15} {best_med:12.3f}ms {base_med:11.3f}ms")
    print("(select = best + 3 runners-up; best-only = runners_up=0; baseline = one full "
          "rapidfuzz.process.extract, limit 4)")
    print(f"ratio=select_median/target {ours_med / TARGET_MS:.3f}")
    print(f"ratio=select_median/full_scan_median {ours_med / base_med:.3f}")
    print(f"ratio=best_only_median/full_scan_median {best_med / base_med:.3f}")
    print("target met" if ours_med <= TARGET_MS else "TARGET MISSED")


if __name__ == "__main__":
    main()
