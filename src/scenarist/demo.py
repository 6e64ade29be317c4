"""``scenarist demo``: play a bundled scenario through the mock model API, end to end.

The quick start's first command. It starts ``scenarist llm`` on a free loopback port, then
plays the part of a small coding agent against it over the Anthropic Messages API: it streams
each model turn, runs the tool calls for real in a temporary workspace (``Bash``, ``Write``,
``Edit``, ``Read``), and sends the results back until the scenario's last answer. Nothing
leaves the machine and no API key is needed.

    scenarist demo [--scenario FILE] [--speed F] [--keep]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TextIO

import httpx

from scenarist.errors import UsageError
from scenarist.processes import run_command

DEFAULT_SCENARIO = "hello-codex.yaml"
MAX_TURNS = 25
MAX_ATTEMPTS = 3
MAX_RETRY_WAIT_S = 5.0

# Claude Code's names and argument shapes, so ``--agent-type auto`` picks its tool profile.
TOOLS: list[dict[str, Any]] = [
    {"name": "Bash", "description": "Run a shell command in the workspace.",
     "input_schema": {"type": "object", "properties": {"command": {"type": "string"}},
                      "required": ["command"]}},
    {"name": "Write", "description": "Write a file (absolute path).",
     "input_schema": {"type": "object", "properties": {"file_path": {"type": "string"},
                                                       "content": {"type": "string"}},
                      "required": ["file_path", "content"]}},
    {"name": "Edit", "description": "Replace a string in a file (absolute path).",
     "input_schema": {"type": "object", "properties": {"file_path": {"type": "string"},
                                                       "old_string": {"type": "string"},
                                                       "new_string": {"type": "string"},
                                                       "replace_all": {"type": "boolean"}},
                      "required": ["file_path", "old_string", "new_string"]}},
    {"name": "Read", "description": "Read a file (absolute path).",
     "input_schema": {"type": "object", "properties": {"file_path": {"type": "string"}},
                      "required": ["file_path"]}},
]


class DemoError(UsageError):
    """Something the user can act on; printed as one line, exit 1."""

    exit_status = 1


def examples_dir() -> Path:
    """The bundled examples: inside the wheel, else the checkout's ``examples/`` (editable)."""
    packaged = Path(__file__).with_name("examples")
    return packaged if packaged.is_dir() else Path(__file__).resolve().parents[2] / "examples"


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="scenarist demo", description=__doc__.split("\n\n")[1])
    p.add_argument("--scenario", type=Path, metavar="FILE",
                   help=f"scenario to play (default: the bundled {DEFAULT_SCENARIO})")
    p.add_argument("--speed", type=float, default=1.0, metavar="F",
                   help="multiply the scenario's delays by F (default 1)")
    p.add_argument("--keep", action="store_true", help="keep the workspace afterwards")
    return p


def main(argv: Sequence[str]) -> int:
    args = parser().parse_args(list(argv))
    from scenarist.scenario.cli_parser import speed_problem

    problem = speed_problem("--speed", args.speed)
    if problem is not None:
        print(f"scenarist demo: {problem}", file=sys.stderr)
        return 2
    scenario = args.scenario or examples_dir() / DEFAULT_SCENARIO
    if not scenario.is_file():
        print(f"scenarist demo: no scenario file at {scenario}", file=sys.stderr)
        return 2
    workspace = Path(tempfile.mkdtemp(prefix="scenarist-demo-"))
    try:
        with mock_model_api(scenario, workspace, args.speed) as base_url:
            print(f"mock model API on {base_url}, playing {scenario}")
            print(f"workspace: {workspace}\n")
            Agent(base_url, workspace, sys.stdout).run(user_prompts(scenario))
        print("\nfiles in the workspace:", ", ".join(sorted(
            str(p.relative_to(workspace)) for p in workspace.rglob("*") if p.is_file())) or "none")
        return 0
    except DemoError as exc:
        print(f"scenarist demo: {exc}", file=sys.stderr)
        return exc.exit_status
    finally:
        if not args.keep:
            _remove_tree(workspace)


def user_prompts(path: Path) -> list[str]:
    """What the user types, in order: every live ``userInputs`` prompt of the scenario."""
    from scenarist.scenario import ScenarioError, compile_timeline, load_scenario, turns_of

    try:
        timeline = compile_timeline(load_scenario(path))
    except ScenarioError as exc:
        raise DemoError(f"the scenario does not load:\n{exc}") from None
    prompts = [p.step.text for turn in turns_of(timeline) for p in turn.prompts]
    if not prompts:
        raise DemoError(f"{path} has no userInputs to start the conversation with")
    return prompts


@contextmanager
def mock_model_api(scenario: Path, workspace: Path, speed: float) -> Iterator[str]:
    """Run ``scenarist llm`` in its own process group; yield its base URL; always stop it."""
    from scenarist.llm.process import ServerStartError, run_server

    try:
        server = run_server(scenario, "--scenario-speed", str(speed), workspace=workspace)
        with server as running:
            yield running.base_url
    except ServerStartError as exc:
        raise DemoError(f"the mock model API did not start:\n{exc.stderr or exc}") from None


class Agent:
    """A minimal coding agent: Messages API turns, tools run in ``workspace``."""

    def __init__(self, base_url: str, workspace: Path, out: TextIO) -> None:
        self.base_url = base_url
        self.workspace = workspace
        self.out = out

    def run(self, prompts: list[str]) -> None:
        """Send each prompt in turn; between prompts, loop model turn → tool results."""
        messages: list[dict[str, Any]] = []
        with httpx.Client(base_url=self.base_url, timeout=60) as http:
            for prompt in prompts:
                self.say(f"user> {prompt}")
                messages.append({"role": "user", "content": prompt})
                self.until_end_of_turn(http, messages)

    def until_end_of_turn(self, http: httpx.Client, messages: list[dict[str, Any]]) -> None:
        for _ in range(MAX_TURNS):
            blocks, stop_reason = self.turn(http, messages)
            messages.append({"role": "assistant", "content": blocks})
            calls = [b for b in blocks if b["type"] == "tool_use"]
            if stop_reason != "tool_use" or not calls:
                return
            messages.append({"role": "user", "content": [self.use(c) for c in calls]})
        raise DemoError(f"the scenario did not end within {MAX_TURNS} model turns")

    def turn(self, http: httpx.Client, messages: list[dict[str, Any]]
             ) -> tuple[list[dict[str, Any]], str | None]:
        """One streamed model turn; retried like a real agent on 429/5xx (retry-after)."""
        body = {"model": "mock-model", "max_tokens": 4096, "stream": True, "tools": TOOLS,
                "thinking": {"type": "adaptive"},  # as Claude Code: the thinking is shown
                "system": f"Primary working directory: {self.workspace}", "messages": messages}
        for attempt in range(1, MAX_ATTEMPTS + 1):
            with http.stream("POST", "/v1/messages", json=body) as resp:
                if resp.status_code == 200:
                    return self.read_stream(resp)
                resp.read()
                error = f"the mock model API answered {resp.status_code}: {resp.text}"
                if (resp.status_code != 429 and resp.status_code < 500) or attempt == MAX_ATTEMPTS:
                    raise DemoError(error)
                wait = min(float(resp.headers.get("retry-after", "1")), MAX_RETRY_WAIT_S)
                self.say(f"  ({error}; retrying in {wait:g} s)")
                time.sleep(wait)
        raise AssertionError("unreachable")

    def read_stream(self, resp: httpx.Response) -> tuple[list[dict[str, Any]], str | None]:
        blocks: list[dict[str, Any]] = []
        stop_reason: str | None = None
        for event in _sse_data(resp.iter_lines()):
            kind = event.get("type")
            if kind == "content_block_start":
                blocks.append(dict(event["content_block"]))
                if blocks[-1]["type"] == "tool_use":
                    blocks[-1]["partial"] = ""
            elif kind == "content_block_delta":
                self.delta(blocks[-1], event["delta"])
            elif kind == "content_block_stop":
                self.finish(blocks[-1])
            elif kind == "message_delta":
                stop_reason = event["delta"].get("stop_reason")
        return blocks, stop_reason

    def delta(self, block: dict[str, Any], delta: dict[str, Any]) -> None:
        kind = delta["type"]
        if kind == "text_delta":
            block["text"] = block.get("text", "") + delta["text"]
        elif kind == "thinking_delta":
            block["thinking"] = block.get("thinking", "") + delta["thinking"]
        elif kind == "signature_delta":
            block["signature"] = delta["signature"]
        elif kind == "input_json_delta":
            block["partial"] += delta["partial_json"]

    def finish(self, block: dict[str, Any]) -> None:
        if block["type"] == "thinking":
            self.say(f"  (thinking) {block.get('thinking', '')}")
        elif block["type"] == "text":
            self.say(f"model> {block.get('text', '')}")
        elif block["type"] == "tool_use":
            block["input"] = json.loads(block.pop("partial") or "{}")
            self.say(f"model> {block['name']} {json.dumps(block['input'])}")

    def use(self, call: dict[str, Any]) -> dict[str, Any]:
        """Run one tool call for real; the tool_result block to send back."""
        try:
            output, is_error = run_tool(call["name"], call["input"], self.workspace)
        except (OSError, KeyError, ValueError, subprocess.SubprocessError) as exc:
            output, is_error = f"{type(exc).__name__}: {exc}", True
        self.say("  " + ("error: " if is_error else "") + (output.strip() or "(no output)")
                 .replace("\n", "\n  "))
        return {"type": "tool_result", "tool_use_id": call["id"], "content": output,
                "is_error": is_error}

    def say(self, line: str) -> None:
        print(line, file=self.out, flush=True)


def run_tool(name: str, args: dict[str, Any], workspace: Path) -> tuple[str, bool]:
    """Execute a Claude-style tool call inside ``workspace``: (output, is_error)."""
    if name == "Bash":
        done = run_command(["/bin/sh", "-c", args["command"]], cwd=workspace,
                           env=os.environ, timeout_s=60)
        note = "\n(killed after the 60 s timeout)" if done.timed_out else ""
        return done.output.decode("utf-8", "replace") + note, done.returncode != 0
    path = _inside(workspace, args["file_path"])
    if name == "Read":
        return path.read_text(encoding="utf-8"), False
    if name == "Write":
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(args["content"], encoding="utf-8")
        return f"wrote {path.relative_to(workspace)}", False
    if name == "Edit":
        text = path.read_text(encoding="utf-8")
        old, new = args["old_string"], args["new_string"]
        if old not in text:
            return f"old_string not found in {path.relative_to(workspace)}", True
        count = -1 if args.get("replace_all") else 1
        path.write_text(text.replace(old, new, count), encoding="utf-8")
        return f"edited {path.relative_to(workspace)}", False
    return f"unknown tool {name!r}", True


def _inside(workspace: Path, file_path: str) -> Path:
    path = (workspace / file_path).resolve()
    if not path.is_relative_to(workspace.resolve()):
        raise ValueError(f"{file_path} is outside the workspace {workspace}")
    return path


def _sse_data(lines: Iterator[str]) -> Iterator[dict[str, Any]]:
    for line in lines:
        if line.startswith("data:"):
            yield json.loads(line[5:])


def _remove_tree(path: Path) -> None:
    import shutil

    shutil.rmtree(path, ignore_errors=True)
