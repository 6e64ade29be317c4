"""Scenario selection among 10,000 scenarios: median time per prompt, per kind of prompt.

Builds a ScenarioIndex over 10,000 scenarios with realistic initial prompts (20 to ~300
characters, from templates, so many are near-duplicates of each other as in a real suite)
and times ``index.select(prompt=...)`` (best match + 3 runners-up, exact) for the prompts a
scenario server is sent. The mix, equal shares of each kind (stated, not tuned: most
requests are close to one scenario's prompt, some are not):

- exact: the scenario's prompt as written (a test replaying its scenario);
- typos: 1-6 characters substituted, inserted or deleted;
- paraphrase: one or two words swapped for synonyms, a "please" added;
- extra text: one or two sentences appended or prepended (15 to ~110 characters);
- other ticket: a new prompt from the same templates (a request nobody recorded, close to
  several scenarios);
- unrelated: other words entirely (a real server answers 404). The slowest kind: no cheap bound
  rules a scenario out, so it costs about one pass; hence medians per kind.

The baseline is the straightforward exact method: one ``rapidfuzz.process.extract`` over
all prompts with ``scorer=Levenshtein.distance`` (limit 4), timed on the same prompts in the
same run. Target: median <= 5 ms. ``--workers`` sets the threads of the verification step
(default: up to 4, one per core).

    .venv/bin/python bench/bench_scenario_select.py [--scenarios 10000] [--queries 200] [--no-numpy]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

if "--no-numpy" in sys.argv:  # as installed without the fast-select extra: every set is scanned
    sys.modules["numpy"] = None  # type: ignore[assignment]

from _scenario_gen import initial_prompt, unrelated_prompt
from rapidfuzz import process
from rapidfuzz.distance import Levenshtein

from scenarist.scenario.select import ScenarioIndex

try:
    from scenarist.scenario import bag_index
    WORKERS = bag_index.WORKERS
except ImportError:
    WORKERS = 1

TARGET_MS = 5.0


@dataclass(frozen=True)
class Entry:
    name: str
    effective_initial_prompt: str | None
    source_path: Path | None


SYNONYMS = {"Create": "Make", "Fix": "Repair", "Add": "Put", "Write": "Draft",
            "Update": "Refresh", "Remove": "Delete", "Review": "Check", "Explain": "Describe",
            "the": "our", "a": "one", "tests": "test suite", "script": "program",
            "failing": "broken", "small": "tiny", "project": "repo", "run": "execute"}
EXTRA = ["Thanks!", "Please keep the diff small.", "Use Python 3.11 and pytest.",
         "Context: the repository uses Python 3.11 and pytest.",
         "Do not touch the public API, and explain what you changed when you are done.",
         "I am in a hurry.", "The CI is red since this morning, see the last run for details.",
         "Make sure every test still passes before you finish, and keep the commit history clean."]


def typo(rng: random.Random, text: str) -> str:
    chars = list(text)
    for _ in range(rng.randint(1, 6)):
        at = rng.randrange(len(chars))
        how = rng.random()
        if how < 0.6:
            chars[at] = rng.choice("abcdefghij ")
        elif how < 0.8:
            chars.insert(at, rng.choice("etaoin "))
        elif len(chars) > 1:
            del chars[at]
    return "".join(chars)


def paraphrase(rng: random.Random, text: str) -> str:
    words = text.split(" ")
    swappable = [i for i, w in enumerate(words) if w in SYNONYMS]
    for i in rng.sample(swappable, min(len(swappable), rng.randint(1, 2))):
        words[i] = SYNONYMS[words[i]]
    out = " ".join(words)
    return "Please " + out[0].lower() + out[1:] if rng.random() < 0.5 else out


def extra_text(rng: random.Random, text: str) -> str:
    added = " ".join(rng.sample(EXTRA, rng.randint(1, 2)))
    return f"{text}\n\n{added}" if rng.random() < 0.7 else f"{added}\n{text}"


def queries(rng: random.Random, prompts: list[str], n: int) -> dict[str, list[str]]:
    picks = [rng.choice(prompts) for _ in range(n)]
    return {
        "exact": picks,
        "typos": [typo(rng, p) for p in picks],
        "paraphrase": [paraphrase(rng, p) for p in picks],
        "extra text": [extra_text(rng, p) for p in picks],
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
    parser.add_argument("--workers", type=int, default=WORKERS,
                        help="verification threads (default: %(default)s on this machine)")
    parser.add_argument("--no-numpy", action="store_true",
                        help="select as without numpy (the fast-select extra): a plain scan")
    args = parser.parse_args()
    if "numpy" in sys.modules and sys.modules["numpy"] is not None:
        bag_index.WORKERS = max(1, args.workers)
    rng = random.Random(2)
    entries = [Entry(f"scenario-{i:05}", initial_prompt(rng, i), Path(f"s/{i:05}.yaml"))
               for i in range(args.scenarios)]
    prompts = [e.effective_initial_prompt or "" for e in entries]

    start = time.perf_counter()
    index = ScenarioIndex(entries)
    build_ms = (time.perf_counter() - start) * 1000
    start = time.perf_counter()
    index.select(prompt="warm-up")  # the bound index is built on the first query
    first_ms = (time.perf_counter() - start) * 1000

    def baseline(prompt: str) -> object:
        return process.extract(prompt.strip(), prompts, scorer=Levenshtein.distance, limit=4)

    lengths = sorted(len(p) for p in prompts)
    print(f"{args.scenarios} scenarios, prompt length median {statistics.median(lengths):g} "
          f"chars (max {lengths[-1]}); index built in {build_ms:.0f} ms, first query "
          f"(builds the bound index) {first_ms:.0f} ms; {args.workers} verify thread(s), numpy {'off' if args.no_numpy else 'on'}")
    print(f"{'query kind':12} {'select p50':>11} {'p90':>7} {'max':>7} {'best-only p50':>14} "
          f"{'baseline p50':>13} {'ratio':>6}")
    all_ours: list[float] = []
    all_best: list[float] = []
    all_base: list[float] = []
    over: list[str] = []
    for kind, batch in queries(rng, prompts, args.queries).items():
        ours = timed_ms(lambda p: index.select(prompt=p), batch)
        best = timed_ms(lambda p: index.select(prompt=p, runners_up=0), batch)
        base = timed_ms(baseline, batch)
        all_ours += ours
        all_best += best
        all_base += base
        p50, p90 = statistics.median(ours), statistics.quantiles(ours, n=10)[-1]
        over += [kind] if p50 > TARGET_MS else []
        print(f"{kind:12} {p50:9.3f}ms {p90:6.2f}  {max(ours):6.2f} "
              f"{statistics.median(best):12.3f}ms {statistics.median(base):11.3f}ms "
              f"{p50 / statistics.median(base):6.3f}{'' if p50 <= TARGET_MS else '  over target'}")
    ours_med, base_med = statistics.median(all_ours), statistics.median(all_base)
    best_med = statistics.median(all_best)
    print(f"{'all':12} {ours_med:9.3f}ms {'':15} {best_med:12.3f}ms {base_med:11.3f}ms "
          f"{ours_med / base_med:6.3f}")
    print("(select = best + 3 runners-up; best-only = runners_up=0; baseline = one full "
          "rapidfuzz.process.extract, limit 4; ratio = select p50 / baseline p50)")
    print(f"ratio=select_median/target {ours_med / TARGET_MS:.3f}")
    print(f"ratio=select_median/full_scan_median {ours_med / base_med:.3f}")
    print(f"ratio=best_only_median/full_scan_median {best_med / base_med:.3f}")
    print(("target met" if ours_med <= TARGET_MS else "TARGET MISSED") + " (median of the mix); "
          f"kinds whose own median is over {TARGET_MS:g} ms: {', '.join(over) or 'none'}")


if __name__ == "__main__":
    main()
