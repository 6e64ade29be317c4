"""``scenarist select`` over real scenario files: output, JSON, exit codes, defines."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import scenarist.scenario.cli
from scenarist.cli import COMMANDS
from scenarist.scenario.select_cli import select_main


def scenario(name: str, prompt: str, *, extra: str = "") -> str:
    return f"""# a test scenario
name: {name}
timeline:
{extra}  - userInputs:
      - relativeTime: 0
        input: "{prompt}"
  - llmResponse:
      - assistant:
          - [100, "ok"]
"""


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    (tmp_path / "nested").mkdir()
    (tmp_path / "hello.yaml").write_text(scenario("hello", "Create hello.py printing hello"))
    (tmp_path / "nested" / "fix.yml").write_text(scenario("fix", "Fix the failing API test"))
    (tmp_path / "nested" / "docs.yaml").write_text(scenario("docs", "Write the project README"))
    (tmp_path / "notes.txt").write_text("not a scenario")
    return tmp_path


def test_the_cli_table_routes_select_here() -> None:
    module, _, func = COMMANDS["select"][0].partition(":")
    assert getattr(sys.modules[module], func) is select_main
    assert module == scenarist.scenario.cli.__name__


def test_prompt_selects_nearest_with_runners_up(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert select_main(["-s", str(folder), "Create hello.py that prints hello"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("hello  (by prompt, distance ")
    assert out[0].endswith(str(folder / "hello.yaml"))
    runners = [line.split() for line in out[1:]]
    assert {r[1] for r in runners} == {"docs", "fix"}
    distances = [int(r[-1].rstrip(")")) for r in runners]
    assert distances == sorted(distances)


def test_json_output(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert select_main(["--scenario", str(folder), "--json", "Fix the failing API test"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["name"] == "fix" and data["by"] == "prompt" and data["distance"] == 0
    assert data["initial_prompt"] == "Fix the failing API test"
    assert data["source"] == str(folder / "nested" / "fix.yml")
    assert {r["name"] for r in data["runners_up"]} == {"hello", "docs"}
    assert all(isinstance(r["distance"], int) for r in data["runners_up"])


def test_name_wins(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert select_main(["-s", str(folder), "--name", "docs", "Fix the failing API test"]) == 0
    assert capsys.readouterr().out.startswith("docs  (by name)")


def test_unknown_name_is_exit_1_with_known_names(folder: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    assert select_main(["-s", str(folder), "--name", "hallo"]) == 1
    err = capsys.readouterr().err
    assert "no scenario is named 'hallo'" in err and "hello, docs, fix" in err


def test_invalid_scenario_is_exit_2_with_its_location(tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "bad.yaml").write_text("name: bad\ntimeline: 3\n")
    assert select_main(["-s", str(tmp_path), "anything"]) == 2
    assert "bad.yaml:" in capsys.readouterr().err


@pytest.mark.parametrize("argv", [
    [],  # no --scenario
    ["-s", "DIR"],  # neither prompt nor name
    ["-s", "/no/such/place", "x"],
    ["-s", "DIR", "--define", "=1", "x"],
])
def test_usage_errors_are_exit_2(argv: list[str], folder: Path,
                                 capsys: pytest.CaptureFixture[str]) -> None:
    assert select_main([str(folder) if a == "DIR" else a for a in argv]) == 2
    assert "usage: scenarist select" in capsys.readouterr().err


def test_empty_folder_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert select_main(["-s", str(tmp_path), "x"]) == 2
    assert "no .yaml/.yml files" in capsys.readouterr().err


def test_defines_choose_the_initial_prompt(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "ruled.yaml").write_text("""name: ruled
timeline:
  - rules:
      - when: "$lang == \\"fr\\""
        config:
          - userInputs:
              - relativeTime: 0
                input: "Bonjour le monde"
      - default: true
        config:
          - userInputs:
              - relativeTime: 0
                input: "Hello world"
""")
    (tmp_path / "other.yaml").write_text(scenario("other", "Bonjour la France"))
    assert select_main(["-s", str(tmp_path), "--json", "--define", "lang=fr", "Bonjour le monde"]) == 0
    assert json.loads(capsys.readouterr().out)["name"] == "ruled"
    assert select_main(["-s", str(tmp_path), "--json", "Bonjour le monde"]) == 0
    assert json.loads(capsys.readouterr().out)["name"] == "other"


def test_through_the_scenarist_command(folder: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "scenarist", "select", "-s", str(folder),
                           "Write the project README please"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("docs  (by prompt, distance 7)")


