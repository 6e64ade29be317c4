"""Helpers for the ACP tests: the ACP JSON Schema, transcript validation, running the agent."""

from __future__ import annotations

import json
import os
import sys
import textwrap
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema
from referencing import Registry, Resource

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples"
SCHEMA_FILE = Path(__file__).parents[1] / "data" / "acp-schema" / "schema-v1.19.0.json"  # Apache-2.0: tests/data/README.md
ACP_EXAMPLES = ("acp-capabilities", "load-session", "rich-content")

# method -> (params definition, result definition); notifications have no result
METHODS: dict[str, tuple[str, str | None]] = {
    "initialize": ("InitializeRequest", "InitializeResponse"),
    "authenticate": ("AuthenticateRequest", "AuthenticateResponse"),
    "session/new": ("NewSessionRequest", "NewSessionResponse"),
    "session/load": ("LoadSessionRequest", "LoadSessionResponse"),
    "session/prompt": ("PromptRequest", "PromptResponse"),
    "session/set_mode": ("SetSessionModeRequest", "SetSessionModeResponse"),
    "session/set_config_option": ("SetSessionConfigOptionRequest", "SetSessionConfigOptionResponse"),
    "session/cancel": ("CancelNotification", None),
    "session/update": ("SessionNotification", None),
    "session/request_permission": ("RequestPermissionRequest", "RequestPermissionResponse"),
    "fs/read_text_file": ("ReadTextFileRequest", "ReadTextFileResponse"),
    "fs/write_text_file": ("WriteTextFileRequest", "WriteTextFileResponse"),
    "terminal/create": ("CreateTerminalRequest", "CreateTerminalResponse"),
    "terminal/output": ("TerminalOutputRequest", "TerminalOutputResponse"),
    "terminal/wait_for_exit": ("WaitForTerminalExitRequest", "WaitForTerminalExitResponse"),
    "terminal/kill": ("KillTerminalRequest", "KillTerminalResponse"),
    "terminal/release": ("ReleaseTerminalRequest", "ReleaseTerminalResponse"),
}


@cache
def _schema() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(SCHEMA_FILE.read_text())
    return data


@cache
def validator(definition: str) -> jsonschema.protocols.Validator:
    """A validator for one ``$defs`` entry of the ACP schema."""
    schema = _schema()
    registry: Registry[Any] = Registry().with_resource("urn:acp", Resource.from_contents(schema))
    cls = jsonschema.validators.validator_for(schema)
    return cls({"$ref": f"urn:acp#/$defs/{definition}"}, registry=registry)


def check(definition: str, value: Any) -> None:
    """Raise when ``value`` is not a valid ``definition`` of the ACP schema."""
    errors = sorted(validator(definition).iter_errors(value), key=lambda e: list(e.path))
    if errors:
        raise AssertionError(f"{definition}: {errors[0].message} at {list(errors[0].path)}\n"
                             f"{json.dumps(value)[:600]}")


EXTENSION = "_"  # a request of an extension method (free-form, not in the schema)


def validate_messages(messages: list[dict[str, Any]], *, misuse: bool = False) -> int:
    """Validate every JSON-RPC message (both directions, either side's requests) against the
    schema; responses are checked against the response type of the request they answer.
    With ``misuse``, a client request that breaks the schema is allowed when the agent
    answers it with an error. Returns how many were checked."""
    pending: dict[tuple[str, Any], str | None] = {}  # (requester, id) -> method; None: misuse
    for entry in messages:
        direction, message = entry["direction"], entry["message"]
        assert message.get("jsonrpc") == "2.0", message
        method = message.get("method")
        if isinstance(method, str) and method.startswith("_"):  # an extension: free-form
            if "id" in message:
                pending[(direction, message["id"])] = EXTENSION
            continue
        if method is not None:
            known = METHODS.get(method)
            if misuse and direction == "client->agent" and (
                    known is None or not _valid(known[0], message.get("params"))):
                pending[(direction, message["id"])] = None
                continue
            assert known is not None, f"unknown ACP method {method!r}"
            params_def, result_def = known
            check(params_def, message.get("params"))
            if "id" in message:
                assert result_def is not None, f"{method} is a notification, sent with an id"
                pending[(direction, message["id"])] = method
        else:
            asker = "agent->client" if direction == "client->agent" else "client->agent"
            answered = pending.pop((asker, message["id"]))
            if "error" in message:
                check("Error", message["error"])
            elif answered != EXTENSION:
                assert answered is not None, f"a request against the schema was answered: {message}"
                result_def = METHODS[answered][1]
                assert result_def is not None
                check(result_def, message["result"])
    assert not pending, f"requests without an answer: {pending}"
    return len(messages)


def _valid(definition: str, value: Any) -> bool:
    return validator(definition).is_valid(value)


def read_transcript(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line]


def agent_command(*args: str) -> list[str]:
    return [sys.executable, "-m", "scenarist", "acp", *args]


def child_env() -> dict[str, str]:
    """This environment with our source tree first on the path (the SDK passes only a few
    variables to the child unless given all)."""
    src = str(REPO / "src")
    path = os.environ.get("PYTHONPATH")
    return {**os.environ, "PYTHONPATH": src if not path else f"{src}{os.pathsep}{path}"}


def write_scenario(folder: Path, text: str, name: str = "scenario.yaml") -> Path:
    path = folder / name
    path.write_text(textwrap.dedent(text))
    return path
