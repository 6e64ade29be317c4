"""``scenarist validate | timeline | schema``: exit codes, output, defines, speed, imports."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from scenario_testutil import EXAMPLES

from scenarist.scenario.cli import schema_main, timeline_main, validate_main

BAD = "name: bad\ntimeline:\n  - baseTimeDelta: -3\n  - agentEdits: {}\n"


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_validate_ok_examples(capsys: pytest.CaptureFixture[str]) -> None:
    assert validate_main([str(EXAMPLES)]) == 0
    out = capsys.readouterr().out
    assert "hello-codex.yaml: ok" in out and "scenario(s) valid" in out


def test_validate_invalid_lists_every_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = write(tmp_path, "bad.yaml", BAD)
    good = write(tmp_path, "good.yaml", "name: good\ntimeline: []\n")
    assert validate_main([str(good), str(bad)]) == 1
    err = capsys.readouterr().err
    assert f"{bad}:3:20: error:" in err and f"{bad}:4:17: error:" in err
    assert "hint:" in err and "invalid (2 error(s))" in err


def test_validate_usage_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert validate_main([]) == 2
    assert validate_main([str(tmp_path / "missing.yaml")]) == 2
    assert validate_main([str(tmp_path)]) == 2  # no scenario files in it
    assert validate_main([str(EXAMPLES), "--define", "=x"]) == 2
    assert validate_main(["--bogus"]) == 2
    assert "error" in capsys.readouterr().err


def test_validate_strict_turns_warnings_into_errors(tmp_path: Path) -> None:
    path = write(tmp_path, "w.yaml", "name: w\nsurprise: 1\ntimeline: []\n")
    assert validate_main([str(path)]) == 0
    assert validate_main([str(path), "--strict"]) == 1


def test_validate_defines_select_rules(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    text = ("name: r\ntimeline:\n  - rules:\n      - when: '$broken'\n"
            "        config: [{baseTimeDelta: -1}]\n")
    path = write(tmp_path, "r.yaml", text)
    monkeypatch.delenv("AH_SCENARIO_DEFINES", raising=False)
    assert validate_main([str(path)]) == 0
    assert validate_main([str(path), "--define", "broken"]) == 1
    assert validate_main([str(path), "--scenario-define", "broken=false"]) == 1  # defined
    monkeypatch.setenv("AH_SCENARIO_DEFINES", "broken=1")
    assert validate_main([str(path)]) == 1
    assert validate_main([str(path), "--define", "other"]) == 0  # flags replace the variable


def test_timeline_json_is_ordered_beats(capsys: pytest.CaptureFixture[str]) -> None:
    assert timeline_main([str(EXAMPLES / "simulation-rest.yaml"), "--json"]) == 0
    beats = json.loads(capsys.readouterr().out)
    times = [b["at_ms"] for b in beats]
    assert times == sorted(times) and all(isinstance(t, int) for t in times)
    kinds = {b["kind"] for b in beats}
    assert {"think", "assistant", "agentToolUse", "toolExecution", "userInputs", "assert"} <= kinds


def test_timeline_speed_scales_and_clamps(capsys: pytest.CaptureFixture[str]) -> None:
    path = str(EXAMPLES / "simulation-rest.yaml")

    def times(*extra: str) -> list[int]:
        assert timeline_main([path, "--json", *extra]) == 0
        return [b["at_ms"] for b in json.loads(capsys.readouterr().out)]

    normal = times()
    assert times("--speed", "0.5") == [round(t * 0.5) for t in normal]
    assert times("--speed", "0.001") == [round(t * 0.01) for t in normal]


@pytest.mark.parametrize("speed", ["0", "-3", "-1", "nan", "inf", "-inf"])
def test_a_speed_that_is_not_above_zero_is_a_usage_error(
        speed: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert timeline_main([str(EXAMPLES / "hello-codex.yaml"), f"--speed={speed}"]) == 2
    assert "--speed must be a number above 0" in capsys.readouterr().err


def test_timeline_table_and_invalid_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert timeline_main([str(EXAMPLES / "hello-codex.yaml")]) == 0
    out = capsys.readouterr().out
    assert "at_ms" in out and "runCmd" in out and "Create hello.py" in out
    # the second runCmd's result row shows the output the scenario gives it
    results = [ln for ln in out.splitlines() if "toolResult" in ln]
    assert len(results) == 2 and results[1].endswith('runCmd {"result": "hello from scenarist"}')
    assert timeline_main([str(write(tmp_path, "bad.yaml", BAD))]) == 2  # input, not a check
    assert timeline_main([]) == 2


def test_schema_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert schema_main([]) == 0
    schema = json.loads(capsys.readouterr().out)
    assert schema["$schema"].startswith("http://json-schema.org/draft-07")
    out = tmp_path / "s.json"
    assert schema_main(["-o", str(out)]) == 0 and json.loads(out.read_text()) == schema
    assert schema_main(["-o", str(tmp_path / "no" / "dir.json")]) == 0  # folders are made
    assert schema_main(["-o", str(out / "under-a-file.json")]) == 2


def test_validate_imports_no_server_framework() -> None:
    code = ("import sys; from scenarist.cli import main; rc = main(['validate', '-q', %r]); "
            "heavy = sorted(m for m in sys.modules if m.split('.')[0] in "
            "('starlette', 'uvicorn', 'httpx', 'pydantic', 'websockets')); print(rc, heavy)")
    out = subprocess.run([sys.executable, "-c", code % str(EXAMPLES / "hello-codex.yaml")],
                         capture_output=True, text=True, check=True).stdout
    assert out.strip() == "0 []"


def test_console_script_end_to_end(tmp_path: Path) -> None:
    path = write(tmp_path, "meta.yaml", "name: meta\ntimeline:\n  - userInputs: [[0, hi]]\n"
                 "  - sessionStart\n")
    proc = subprocess.run([sys.executable, "-m", "scenarist", "validate", str(path)],
                          capture_output=True, text=True)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert "meta.yaml:4:" in proc.stderr and "loadSession" in proc.stderr
