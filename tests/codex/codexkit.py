"""Helpers for the fake Codex agent tests: run it in-process, validate what it prints."""

from __future__ import annotations

import io
import json
import os
import sys
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema

from scenarist.codex.cli import run

REPO = Path(__file__).resolve().parents[2]
SCHEMAS = REPO / "tests" / "data" / "codex-schema"
FAKE_CODEX = Path(sys.executable).parent / "fake-codex"


class Result:
    """Exit code and output of one in-process run."""

    def __init__(self, code: int, stdout: bytes, stderr: str) -> None:
        self.code = code
        self.stdout = stdout
        self.stderr = stderr

    @property
    def lines(self) -> list[dict[str, Any]]:
        return [json.loads(line) for line in self.stdout.decode().splitlines()]

    @property
    def events(self) -> list[dict[str, Any]]:
        """The EventMsg of every ``codex/event`` line, in order."""
        return [line["params"]["msg"] for line in self.lines if line.get("method") == "codex/event"]

    @property
    def types(self) -> list[str]:
        return [event["type"] for event in self.events]


def fake_codex(
    *argv: str, stdin: bytes = b"", env: dict[str, str] | None = None, cwd: str = "/repo"
) -> Result:
    """Run ``fake-codex ARGV`` in this process (with ``--cwd`` defaulted for stable output)."""
    args = list(argv)
    if cwd and "--cwd" not in args and not (args and args[0] == "exec"):
        args = ["--cwd", cwd, *args]
    out = io.BytesIO()
    err = io.StringIO()
    code = run(args, stdin=io.BytesIO(stdin), stdout=out, stderr=err, environ=env or {})
    return Result(code, out.getvalue(), err.getvalue())


@cache
def schema(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((SCHEMAS / name).read_text())
    return data


@cache
def full_event_validator() -> jsonschema.Draft7Validator:
    """The published ``EventMsg.json`` as is (slow: tries all ~77 variants per event)."""
    return jsonschema.Draft7Validator(schema("EventMsg.json"))


@cache
def _branch_validators() -> dict[str, jsonschema.Draft7Validator]:
    """One compiled validator per EventMsg variant, keyed by its ``type``.

    The schema's ``oneOf`` is discriminated by the ``type`` enum, so an event is
    valid exactly when it matches its own variant; checking only that one makes
    validating thousands of events fast (tests confirm the two agree).
    """
    full = schema("EventMsg.json")
    out = {}
    for branch in full["oneOf"]:
        (etype,) = branch["properties"]["type"]["enum"]
        out[etype] = jsonschema.Draft7Validator({"definitions": full["definitions"], **branch})
    return out


def event_errors(event: dict[str, Any]) -> list[str]:
    """Schema violations of one EventMsg (an unknown ``type`` is one)."""
    validator = _branch_validators().get(event.get("type", ""))
    if validator is None:
        return [f"unknown EventMsg type {event.get('type')!r}"]
    return [f"{'/'.join(map(str, e.path))}: {e.message}" for e in validator.iter_errors(event)]


@cache
def notification_validator() -> jsonschema.Draft7Validator:
    return jsonschema.Draft7Validator(schema("JSONRPCNotification.json"))


def assert_valid_stream(result: Result) -> None:
    """Every line is a JSON-RPC 2.0 notification and every codex/event msg is a valid EventMsg."""
    assert result.code == 0, result.stderr
    lines = result.lines
    assert lines, "no output"
    for line in lines:
        notification_validator().validate(line)
        assert line.get("jsonrpc") == "2.0", line
        assert "id" not in line, "a notification has no id"
        if line["method"] == "codex/event":
            problems = event_errors(line["params"]["msg"])
            assert not problems, (line, problems)


def subprocess_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SCENARIST_CODEX")}
    env.update(extra)
    return env


FAULTY = """\
name: faulty
timeline:
  - userInputs:
      - relativeTime: 0
        input: "go"
  - llmResponse:
      - think: [[0, "Thinking it over"]]
      - assistant: [[0, "Working on it"]]
{fault}
      - assistant: [[0, "...and done."]]
  - runCmd:
      cmd: "echo a.txt"
      result: "a.txt"
{event}
  - llmResponse:
      - assistant: [[0, "Finished."]]
"""


def faulty_scenario(path: Path, fault: str = "", event: str = "") -> Path:
    """Write, at ``path``, a two-response scenario with ``fault`` in its first response
    (after "Working on it") and ``event`` as a ``fault`` event after its command."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(FAULTY.format(fault=f"      - fault: {fault}" if fault else "",
                                  event=f"  - fault: {event}" if event else ""))
    return path
