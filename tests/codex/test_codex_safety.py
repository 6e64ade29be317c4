"""Safety by default: fake-codex never executes, writes, deletes or connects.

Every command form, every mode and format runs in one child process under an
audit hook (``audit_runner.py``) that records and blocks any write-open, delete,
rename, exec/spawn/fork and socket connection; a self-test proves the hook
catches each of those when they do happen.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from codexkit import subprocess_env
from test_codex_schema import EVERY_COMMAND

HERE = Path(__file__).parent
RUNNER = HERE / "audit_runner.py"


def _audit(tmp_path: Path, runs: list[dict[str, object]], *, selftest: bool = False) -> dict:
    spec = tmp_path / "runs.json"
    spec.write_text(json.dumps(runs))
    argv = [sys.executable, "-B", str(RUNNER)]
    if selftest:
        argv += ["--selftest", str(tmp_path)]
    proc = subprocess.run(
        [*argv, str(spec)],
        capture_output=True,
        timeout=120,
        env=subprocess_env(),
        cwd=tmp_path,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr.decode()[-2000:]
    report: dict = json.loads(proc.stderr.decode().strip().splitlines()[-1])
    report["stdout"] = proc.stdout
    return report


def test_every_command_and_mode_runs_without_side_effects(tmp_path: Path) -> None:
    replay = tmp_path / "rec.jsonl"
    replay.write_text(
        RECORDING.read_text()
        + '{"type":"sleep","ms":0}\n{"type":"warning","message":"w"}\n'
    )
    config = tmp_path / "cfg.json"
    config.write_text('{"seed": 4, "tool_events": {"approvals": true, "errors": true}}')
    runs: list[dict[str, object]] = []
    for prompt in EVERY_COMMAND:
        runs.append({"argv": ["--seed", "1", "--approvals", prompt]})
        runs.append({"argv": ["--seed", "1", "--format", "exec-json", prompt]})
    runs += [
        {"argv": ["--seed", "2", "--errors", "write a file and run rm -rf /"]},
        {"argv": ["--seed", "3", "--format", "exec-json", "--approvals", "delete everything"]},
        {"argv": ["--config", f"@{config}", "-"], "stdin": "from stdin"},
        {"argv": ["--replay", str(replay)]},
        {"argv": ["--seed", "5", "--interactive"], "stdin": "hello\nhelp exec; patch\nhelp bad\n"},
        {"argv": ["exec", "--json", "--full-auto", "-C", str(tmp_path), "-o", "out.txt", "hi"]},
        {
            "argv": ["exec", "--experimental-json", "--skip-git-repo-check", "resume", "t-1"],
            "stdin": "help exec rm -rf /",
        },
        {"argv": ["--seed", "6", "--cadence-ms", "1", "help exec; sleep 1; message x"]},
        {"argv": ["--bogus"]},
        {"argv": ["--help"]},
    ]
    report = _audit(tmp_path, runs)
    assert report["violations"] == []
    assert report["runs"] == len(runs)
    assert report["codes"][-2:] == [1, 0]  # the bad option fails cleanly, --help works
    assert all(code == 0 for code in report["codes"][:-2])
    assert report["audited"] > 0
    assert b"exec_command_end" in report["stdout"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cfg.json", "rec.jsonl", "runs.json"]


def test_the_audit_hook_catches_real_side_effects(tmp_path: Path) -> None:
    report = _audit(tmp_path, [{"argv": ["--seed", "1", "help message hi"]}], selftest=True)
    kinds = {v.split(" ", 1)[0] for v in report["violations"]}
    assert {"open", "os.remove", "subprocess.Popen", "socket.connect"} <= kinds, kinds
    assert not (tmp_path / "x.txt").exists()
    assert not (tmp_path / "y.txt").exists()


RECORDING = HERE / "data" / "recording.jsonl"
