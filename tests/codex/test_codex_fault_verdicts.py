"""What a real host does with each fault of fake-codex and the mock agent: the verdicts.

The host is the pinned TypeScript ``@openai/codex-sdk`` (tests/node): it spawns its
``codex`` (fake-codex, or the mock agent with ``--format codex-jsonl``) as
``codex exec --experimental-json``, reads the JSONL and resolves or rejects ``thread.run()``.
Each kind is played once on each, and what the SDK did is compared with (or, with
``--write-fault-verdicts``, written to) docs/faults.md's tables.
"""

from __future__ import annotations

import json
import shutil
import stat
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from codexkit import FAKE_CODEX, REPO, faulty_scenario, subprocess_env

SDK = REPO / "tests" / "node" / "node_modules" / "@openai" / "codex-sdk"
SCRIPT = Path(__file__).parent / "sdk_fault.mjs"
CLIENT = "@openai/codex-sdk (TypeScript)"
FAULTS = {
    "exit": "{kind: exit, code: 3}",
    "truncate": "{kind: truncate}",
    "stall": "{kind: stall, ms: 200}",
    "stderr": '{kind: stderr, text: "warning: disk almost full"}',
    "malformed": "{kind: malformed}",
    "duplicate": "{kind: duplicate}",
    "reorder": "{kind: reorder}",
    "fragment": "{kind: fragment, bytes: 3}",
}

pytestmark = pytest.mark.real_agent


def sdk_turn(codex: Path, env: dict[str, str]) -> dict[str, Any]:
    node = shutil.which("node")
    assert node, "node is required (scripts/test installs the npm packages with it)"
    assert (SDK / "dist" / "index.js").exists(), "run `npm ci` in tests/node (scripts/test does)"
    proc = subprocess.run([node, str(SCRIPT), str(codex), str(SDK), "go"], capture_output=True,
                          timeout=120, env=env, stdin=subprocess.DEVNULL, check=False,
                          text=True)
    assert proc.returncode == 0, proc.stderr[-3000:]
    seen: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return seen


def verdict(seen: dict[str, Any], whole: dict[str, Any]) -> str:
    """The SDK's outcome in words, against the outcome without the fault."""
    if not seen["ok"]:
        return f"`run()` rejects: {seen['error'].split(':')[0]}"
    if seen == whole:
        return "`run()` resolves with every item, as without the fault"
    if len(seen["items"]) > len(whole["items"]):
        return "`run()` resolves; the duplicated line's item is listed twice"
    if seen["items"] == whole["items"][: len(seen["items"])]:
        return ("`run()` resolves with the items before the fault, the last message as its "
                "answer: no error for the missing `turn.completed`")
    return f"`run()` resolves with other items: {', '.join(seen['items'])}"


def fake_codex(folder: Path, fault: str) -> tuple[Path, dict[str, str]]:
    path = faulty_scenario(folder / "s.yaml", fault)
    config = {"scenario_path": str(path), "time_scale": 1, "seed": 1}
    return FAKE_CODEX, subprocess_env(SCENARIST_CODEX_CONFIG=json.dumps(config))


def mock_agent(folder: Path, fault: str) -> tuple[Path, dict[str, str]]:
    path = faulty_scenario(folder / "s.yaml", fault)
    work = folder / "work"
    work.mkdir(exist_ok=True)
    codex = folder / "codex"
    codex.write_text(
        "#!/bin/sh\n"
        f"exec '{sys.executable}' -m scenarist agent --scenario '{path}' --workspace '{work}' "
        "--speed 0.01 --format codex-jsonl\n")
    codex.chmod(codex.stat().st_mode | stat.S_IXUSR)
    return codex, subprocess_env()


HOSTS: dict[str, Callable[[Path, str], tuple[Path, dict[str, str]]]] = {
    "codex": fake_codex, "agent": mock_agent}


@pytest.fixture(scope="module")
def unfaulted(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    """What the SDK sees from each host without a fault."""
    out = {}
    for channel, host in HOSTS.items():
        out[channel] = sdk_turn(*host(tmp_path_factory.mktemp(channel), ""))
        assert out[channel]["ok"] and out[channel]["finalResponse"] == "Finished."
    return out


@pytest.mark.parametrize("channel", sorted(HOSTS))
@pytest.mark.parametrize("kind", list(FAULTS))
def test_the_codex_sdk_with_each_fault(channel: str, kind: str, tmp_path: Path,
                                       unfaulted: dict[str, dict[str, Any]],
                                       fault_verdict: Callable[[str, str, str, str], None]) -> None:
    whole = unfaulted[channel]
    seen = sdk_turn(*HOSTS[channel](tmp_path / "faulted", FAULTS[kind]))
    fault_verdict(channel, CLIENT, kind, verdict(seen, whole))
