"""Our examples (coverage of the format) and the JSON Schema.

The same checks over the Agent Harbor reference scenarios: test_scenario_agent_harbor.py.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import yaml
from scenario_testutil import EXAMPLES, REPO

from scenarist.scenario import LlmResponse, UserInputs, load_scenario, load_scenarios
from scenarist.scenario.content import CONTENT_TYPES
from scenarist.scenario.events import EVENT_KEYS
from scenarist.scenario.schema import scenario_schema


def test_directory_loading_is_recursive_and_sorted(tmp_path: Path) -> None:
    (tmp_path / "b" / "c").mkdir(parents=True)
    for rel in ["z.yaml", "a.yml", "b/c/m.yaml", "b/k.yaml", "ignored.txt"]:
        (tmp_path / rel).write_text(f"name: {Path(rel).stem}\ntimeline: []\n")
    names = [s.name for s in load_scenarios([tmp_path])]
    assert names == ["a", "m", "k", "z"]


def _examples() -> list[Path]:
    return sorted(EXAMPLES.glob("*.yaml"))


def test_at_least_eight_examples_all_valid_without_warnings() -> None:
    scenarios = load_scenarios([EXAMPLES], strict=True)
    assert len(scenarios) >= 8
    names = {s.name for s in scenarios}
    assert {"hello-codex", "claude-write-edit"} <= names


def _keys(data: Any, out: set[str]) -> None:
    if isinstance(data, dict):
        out.update(k for k in data if isinstance(k, str))
        for v in data.values():
            _keys(v, out)
    elif isinstance(data, list):
        for v in data:
            _keys(v, out)
    elif isinstance(data, str):
        out.add(data)


def test_examples_cover_every_event_and_content_type() -> None:
    used: set[str] = set()
    content: set[str] = set()
    for path in _examples():
        _keys(yaml.safe_load(path.read_text())["timeline"], used)
        for symbols in ({}, {"protocol_version": 2, "fast": True}):
            s = load_scenario(path, defines=symbols)
            for event in s.timeline:
                blocks: list[Any] = []
                if isinstance(event, LlmResponse):
                    blocks = list(event.assistant)
                elif isinstance(event, UserInputs):
                    blocks = [b for i in event.inputs for b in i.content]
                content.update(b.type for b in blocks)
    assert used >= EVENT_KEYS, sorted(EVENT_KEYS - used)
    assert set(CONTENT_TYPES) <= content, sorted(set(CONTENT_TYPES) - content)
    assert {"think", "assistant", "error", "rules", "_meta", "annotations"} <= used


def test_schema_is_valid_and_examples_validate_against_it() -> None:
    schema = scenario_schema()
    jsonschema.Draft7Validator.check_schema(schema)
    validator = jsonschema.Draft7Validator(schema)
    for path in _examples():
        problems = [e.message for e in validator.iter_errors(yaml.safe_load(path.read_text()))]
        assert not problems, (path.name, problems[:3])


def test_schema_rejects_what_the_loader_rejects() -> None:
    validator = jsonschema.Draft7Validator(scenario_schema())
    bad = [
        {"timeline": []},  # no name
        {"name": "x", "events": []},  # legacy
        {"name": "x", "timeline": [{"llmResponse": [{"think": [[-1, "a"]]}]}]},
        {"name": "x", "timeline": [{"frobnicate": 1}]},
        {"name": "x", "timeline": [{"llmResponse": [{"assistant": [[1, {"type": "diff", "path": "rel",
                                                                          "newText": "x"}]]}]}]},
        {"name": "x", "server": {"llmApiStyle": "gemini"}, "timeline": []},
    ]
    for data in bad:
        assert list(validator.iter_errors(data)), data


def test_schema_file_in_docs_is_current() -> None:
    on_disk = json.loads((REPO / "docs" / "scenario.schema.json").read_text())
    assert on_disk == scenario_schema(), "run: scenarist schema -o docs/scenario.schema.json"
