"""Realistic generated scenarios for the benchmarks (seeded, so every run sees the same data).

``scenario_yaml(rng, i)`` writes one scenario of about 100 timeline events in the shape
people write by hand: turns of userInputs → llmResponse (think + assistant, pair and
object forms) → tool uses of several kinds (agentToolUse with progress and toolExecution,
tool-specific events such as readFile/grep/editFile) → agentEdits → assert/log/screenshot
→ baseTimeDelta, with comments. Times follow the spec's timing rules so the files are
valid: userInputs sit exactly at the cursor, which the generator tracks.
"""

from __future__ import annotations

import random
from typing import Any

import yaml

VERBS = ["Create", "Fix", "Add", "Refactor", "Write", "Update", "Remove", "Rename", "Implement",
         "Explain", "Document", "Speed up", "Migrate", "Review"]
OBJECTS = ["a hello world script", "the failing test in tests/test_api.py",
           "type hints to the parser module", "the login page", "a README for the project",
           "the database migration for the users table", "retry logic to the HTTP client",
           "a --verbose flag to the CLI", "the off-by-one error in pagination",
           "unit tests for utils.py", "the caching layer", "input validation in the signup form",
           "the CI workflow", "logging to the background worker", "the date parsing helper"]
DETAILS = ["", " in Python", " and run the tests", " using pytest", " without changing the public API",
           ". Keep the diff small.", " and commit the result", ", then open a pull request",
           " following the style guide in CONTRIBUTING.md", " and update the changelog"]
FILES = ["src/app.py", "src/utils.py", "tests/test_api.py", "README.md", "src/cli.py",
         "src/db/models.py", "docs/index.md", "pyproject.toml"]


OTHER_WORDS = ["quantum", "harvest", "violin", "glacier", "orbit", "saffron", "ledger", "meadow",
               "turbine", "pigment", "harbor", "cipher", "lantern", "mosaic", "nebula", "orchard"]


def unrelated_prompt(rng: random.Random) -> str:
    """A request unlike any generated scenario (other words), of a similar length."""
    return " ".join(rng.choice(OTHER_WORDS) for _ in range(rng.randint(4, 25)))


def initial_prompt(rng: random.Random, i: int) -> str:
    """A user's first request to an agent, 20 to ~300 characters, unique per ``i``."""
    text = f"{rng.choice(VERBS)} {rng.choice(OBJECTS)}{rng.choice(DETAILS)}{rng.choice(DETAILS)}"
    if rng.random() < 0.3:
        text += ". Also look at " + ", ".join(rng.sample(OBJECTS, rng.randint(1, 4)))
    return f"{text} (ticket {i})"


def _sentence(rng: random.Random) -> str:
    return f"{rng.choice(VERBS)} {rng.choice(OBJECTS)}{rng.choice(DETAILS)}."


class _Builder:
    """Accumulates timeline items and tracks the cursor as the compiler will."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.items: list[Any] = []
        self.now = 0

    def llm_response(self) -> None:
        rng = self.rng
        think = [[rng.randint(50, 800), _sentence(rng)] for _ in range(rng.randint(1, 3))]
        assistant: list[Any] = [{"relativeTime": rng.randint(20, 400), "content": _sentence(rng)}]
        if rng.random() < 0.5:
            assistant.append([rng.randint(20, 300), _sentence(rng)])
        self.now += sum(t for t, _ in think)
        self.now += sum(a["relativeTime"] if isinstance(a, dict) else a[0] for a in assistant)
        self.items.append({"llmResponse": [{"think": think}, {"assistant": assistant}]})

    def run_cmd(self) -> None:
        rng = self.rng
        progress = [[rng.randint(10, 300), f"step {n}"] for n in range(rng.randint(1, 3))]
        start = rng.randint(0, 50)
        events = [{"type": "stdout", "timeMs": 10 * n, "content": f"line {n} of output"}
                  for n in range(rng.randint(1, 4))]
        events.append({"type": "stderr", "timeMs": 60, "content": "warning: deprecated"})
        events.append({"type": "completion", "timeMs": 80, "exitCode": 0})
        self.items.append({"agentToolUse": {
            "toolName": "runCmd",
            "args": {"cmd": rng.choice(["pytest -q", "python -m build", "ls -la", "make lint"]),
                     "cwd": "."},
            "progress": progress,
            "toolExecution": {"startTimeMs": start, "events": events},
            "result": "ok", "status": "ok"}})
        self.now += max(sum(t for t, _ in progress), start + 80)

    def tool_event(self) -> None:
        rng = self.rng
        path = rng.choice(FILES)
        kind, args = rng.choice([
            ("readFile", {"path": path}),
            ("grep", {"pattern": "def \\w+", "path": "src", "-n": True}),
            ("editFile", {"path": path, "old_string": "foo", "new_string": "bar"}),
            ("writeFile", {"path": path, "content": "print('hello')\n"}),
            ("listDir", {"path": "src", "recursive": True}),
            ("find", {"path": ".", "name": "*.py", "type": "file"}),
            ("webSearch", {"query": "python retry decorator"}),
        ])
        self.items.append({kind: args})

    def turn(self, prompt: str, rng: random.Random) -> None:
        self.items.append({"userInputs": [{"relativeTime": self.now, "input": prompt}]})
        self.llm_response()
        self.run_cmd()
        for _ in range(3):
            self.tool_event()
        self.llm_response()
        self.items.append({"agentEdits": {"path": rng.choice(FILES),
                                          "linesAdded": rng.randint(0, 40),
                                          "linesRemoved": rng.randint(0, 20)}})
        self.run_cmd()
        self.items.append({"assert": {"fs": {"exists": [rng.choice(FILES)]}}})
        self.items.append({"log": f"turn done at {self.now} ms"})
        delta = rng.randint(50, 500)
        self.items.append({"baseTimeDelta": delta})
        self.now += delta


def scenario_yaml(rng: random.Random, i: int, *, turns: int = 9) -> str:
    """One scenario file's text: ``turns`` turns of 11 events each (~100 events)."""
    builder = _Builder(rng)
    builder.turn(initial_prompt(rng, i), rng)
    for _ in range(turns - 1):
        builder.turn(_sentence(rng), rng)
    doc = {"name": f"generated-{i:05}", "tags": ["bench", "generated"],
           "repo": {"init": True, "files": [{"path": "README.md", "contents": "# demo\n"}]},
           "timeline": builder.items,
           "expect": {"exitCode": 0}}
    body = yaml.safe_dump(doc, sort_keys=False, width=100, allow_unicode=True)
    return f"# generated benchmark scenario {i}\n# ~{len(builder.items)} timeline events\n{body}"
