"""``screen.masks``, a screenshot's own ``masks`` and ``assert.fs.contains``: read typed,
refused where they are written when they cannot work."""

from __future__ import annotations

import jsonschema
import yaml
from scenario_testutil import REPO, load, one_error, timeline

from scenarist.scenario import (
    Assert,
    FileContainsAssert,
    RegionMask,
    Screenshot,
    TextMask,
)
from scenarist.scenario.schema import scenario_schema


def test_masks_for_every_screenshot_and_for_one() -> None:
    s = load("""
        name: masked
        screen:
          masks:
            - {regex: '\\d\\d:\\d\\d', replace: '[CLOCK]'}
            - regex: 'v\\d+'
            - {rows: -1}
            - {rows: [0, 2], columns: [-20, -1]}
        timeline:
          - screenshot: plain
          - screenshot: {label: own, masks: [{columns: 5}]}
    """)
    assert s.screen_masks == (TextMask(r"\d\d:\d\d", "[CLOCK]"), TextMask(r"v\d+", "[MASKED]"),
                              RegionMask((-1, -1), (0, -1)), RegionMask((0, 2), (-20, -1)))
    plain, own = s.timeline
    assert isinstance(plain, Screenshot) and plain.masks == ()
    assert isinstance(own, Screenshot) and own.label == "own"
    assert own.masks == (RegionMask((0, -1), (5, 5)),)


def test_a_mask_that_cannot_apply_is_refused_where_it_is_written() -> None:
    head = "name: m\ntimeline: [{screenshot: s}]\nscreen:\n  masks:\n"
    for mask, needle, line, path in [
        ("    - regex: '(unclosed'", "regex is not valid: missing ), unterminated subpattern",
         5, "screen.masks[0].regex"),
        ("    - {regex: '(a)', replace: '\\2'}", "replace is not valid: invalid group reference 2",
         5, "screen.masks[0].replace"),
        ("    - regex: '\\d*'", "matches the empty text, so it masks nothing", 5,
         "screen.masks[0].regex"),
        ("    - {regex: x, rows: 1}", "a mask is a regex or a region of rows and columns",
         5, "screen.masks[0].regex"),
        ("    - {replace: x}", "a mask needs regex (text to mask) or rows/columns", 5,
         "screen.masks[0]"),
        ("    - {rows: [3, 1]}", "rows [3, 1] is empty: the first comes after the last", 5,
         "screen.masks[0].rows"),
        ("    - {columns: [a, 2]}", "expected a row/column number or [first, last]", 5,
         "screen.masks[0].columns"),
    ]:
        issue = one_error(head + mask + "\n", needle)
        assert (issue.line, issue.path) == (line, path), (mask, issue)
        assert issue.hint


def test_fs_contains_one_or_a_list_with_one_or_more_texts() -> None:
    s = load(timeline("""
        - assert:
            fs:
              contains: {path: notes.md, text: "# Todo"}
        - assert:
            fs:
              contains:
                - {path: a.txt, text: [one, two]}
                - {path: b.txt, text: "x\\n"}
    """))
    first, second = s.timeline
    assert isinstance(first, Assert) and isinstance(second, Assert)
    assert first.fs_contains == (FileContainsAssert("notes.md", ("# Todo",)),)
    assert second.fs_contains == (FileContainsAssert("a.txt", ("one", "two")),
                                  FileContainsAssert("b.txt", ("x\n",)))


def test_a_bad_fs_contains_is_located() -> None:
    for body, needle, path in [
        ("{fs: {contains: {text: hi}}}", "missing required key 'path'",
         "timeline[0].assert.fs.contains"),
        ("{fs: {contains: {path: a.txt}}}", "missing required key 'text'",
         "timeline[0].assert.fs.contains"),
        ("{fs: {contains: {path: a.txt, text: ''}}}", "text must not be empty",
         "timeline[0].assert.fs.contains.text"),
        ("{fs: {contains: [hi]}}", "expected a mapping", "timeline[0].assert.fs.contains[0]"),
    ]:
        issue = one_error(timeline(f"- assert: {body}\n"), needle)
        assert (issue.line, issue.path) == (3, path), (body, issue)


def test_the_schema_knows_masks_and_fs_contains() -> None:
    validator = jsonschema.Draft7Validator(scenario_schema())
    scenario = yaml.safe_load((REPO / "tests" / "runner" / "agent_scenarios" /
                               "greeting_files.yaml").read_text())
    assert scenario["screen"]["masks"] and not list(validator.iter_errors(scenario))
    for bad in [{"screen": {"masks": [{"regex": "x", "rows": 1}]}},
                {"screen": {"masks": [{"rows": "top"}]}},
                {"timeline": [{"screenshot": {"label": "s", "masks": [{"replace": "x"}]}}]},
                {"timeline": [{"assert": {"fs": {"contains": {"path": "a.txt"}}}}]}]:
        assert list(validator.iter_errors({"name": "x", "timeline": [], **bad})), bad
