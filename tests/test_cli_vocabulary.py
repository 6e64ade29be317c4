"""One command-line vocabulary (docs/cli.md): each subcommand offers the shared flags that
apply to it, and every usage or input error, file-system ones included, is one line on
stderr and exit 2, never a traceback."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
EXAMPLES = REPO / "examples"
GOOD = EXAMPLES / "hello-codex.yaml"
ACP = EXAMPLES / "acp-capabilities.yaml"

# subcommand -> the shared flags its --help must list (aliases included)
SHARED = {
    "run": ["--scenario", "--scenario-define", "--define", "--speed", "--tag", "--timeout",
            "--format", "--junit"],
    "acp-test": ["--scenario", "--scenario-define", "--define", "--speed", "--tag",
                 "--timeout", "--format", "--junit"],
    "acp": ["--scenario", "--scenario-define", "--define", "--speed", "--tag"],
    "llm": ["--scenario", "--scenario-define", "--define", "--speed", "--scenario-speed",
            "--tag"],
    "rest": ["--scenario", "--scenario-define", "--define", "--speed", "--scenario-speed",
             "--tag"],
    "agent": ["--scenario", "--scenario-define", "--define", "--speed", "--tag", "--format"],
    "select": ["--scenario", "--scenario-define", "--define", "--tag", "--format"],
    "timeline": ["--scenario-define", "--define", "--speed", "--format"],
    "validate": ["--scenario-define", "--define"],
    "hub": ["--timeout"],
}


def scenarist(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "scenarist", *args], cwd=cwd,
                          stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          timeout=60, check=False)


@pytest.mark.parametrize("command", list(SHARED))
def test_every_subcommand_offers_the_shared_flags(command: str, tmp_path: Path) -> None:
    done = scenarist(command, "--help", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    listed = set(done.stdout.replace(",", " ").split())
    missing = [flag for flag in SHARED[command] if flag not in listed]
    assert not missing, f"scenarist {command} --help lacks {missing}"


@pytest.fixture
def places(tmp_path: Path) -> dict[str, str]:
    """Named paths a case's arguments refer to as {name}."""
    folder = tmp_path / "folder"
    folder.mkdir()
    a_file = tmp_path / "a-file.txt"
    a_file.write_text("not a folder\n")
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: bad\ntimeline: 3\n")
    keys = tmp_path / "keys.yaml"
    keys.write_text("name: keys\nah: {cmd: cat}\ntimeline:\n  - userInputs: [[0, 'x<Ctrl+Nope>']]\n")
    denied = Path("/sys/scenarist-cannot-write-here")  # refused even to root
    return {"missing": str(tmp_path / "missing.yaml"), "folder": str(folder),
            "file": str(a_file), "under_file": str(a_file / "x" / "out.xml"),
            "denied": str(denied), "good": str(GOOD), "acp": str(ACP), "bad": str(bad),
            "examples": str(EXAMPLES), "keys": str(keys)}


AGENT = "sh -c 'exit 3'"

# (arguments, a fragment of the one-line message); every case must exit 2
CASES: list[tuple[list[str], str]] = [
    (["validate", "{missing}"], "no such file or folder"),
    (["timeline", "{folder}"], "this is a folder"),
    (["timeline", "{missing}"], "no such file"),
    (["timeline", "{bad}"], "bad.yaml:2:"),
    (["select", "-s", "{missing}", "x"], "no such file or folder"),
    (["select", "-s", "{examples}", "--tag", "nope", "x"], "no scenario is tagged 'nope'"),
    (["schema", "-o", "{folder}"], "is a folder; name a file"),
    (["schema", "-o", "{under_file}"], "is a file, so nothing can be made under it"),
    (["schema", "-o", "{denied}/s.json"], "cannot write it"),
    (["run", "{missing}"], "no such file or folder"),
    (["run"], "name at least one scenario"),
    (["run", "{good}", "{bad}"], "1 of 2 scenario(s) do not load"),
    (["run", "{keys}"], "keys.yaml:4:22: error: <Ctrl+Nope> is not a key name"),
    (["run", "{good}", "--junit", "{folder}"], "is a folder; name a file"),
    (["run", "{good}", "--html", "{under_file}"], "is a file, so nothing can be made under it"),
    (["run", "{good}", "--junit", "{denied}/j.xml"], "cannot write it"),
    (["run", "{good}", "--target", "{file}"], "is a file; name a folder"),
    (["run", "{good}", "--target", "{denied}"], "cannot create it"),
    (["run", "{good}", "--timeout", "0"], "--timeout must be a number of seconds above 0"),
    (["run", "{examples}", "--tag", "nope"], "no scenario is tagged 'nope'; the tags in use:"),
    (["acp-test", "--agent", AGENT, "--scenario", "{missing}"], "no such file or folder"),
    (["acp-test", "--agent", AGENT, "--scenario", "{acp}", "--cwd", "{file}"],
     "is a file; name a folder"),
    (["acp-test", "--agent", AGENT, "--scenario", "{acp}", "--transcript", "{folder}"],
     "is a folder; name a file"),
    (["acp-test", "--agent", AGENT, "--scenario", "{acp}", "--junit", "{denied}/j.xml"],
     "cannot write it"),
    (["acp-test", "--agent", AGENT, "--scenario", "{acp}", "--timeout", "-1"],
     "--timeout must be a number of seconds above 0"),
    (["acp-test", "--agent", AGENT, "--scenario", "{examples}", "--tag", "nope"],
     "no scenario is tagged 'nope'"),
    (["acp", "--scenario", "{missing}"], "no such file or folder"),
    (["acp", "--scenario", "{examples}", "--tag", "nope"], "no scenario is tagged 'nope'"),
    (["agent", "--scenario", "{missing}", "--workspace", "{folder}"], "no such file or folder"),
    (["agent", "--scenario", "{good}", "--workspace", "{file}"], "--workspace"),
    (["agent", "--scenario", "{examples}", "--workspace", "{folder}", "--tag", "nope"],
     "no scenario is tagged 'nope'"),
    (["agent", "--scenario", "{bad}", "--workspace", "{folder}"], "does not load"),
    (["llm", "--scenario", "{missing}", "--port", "0"], "no such file"),
    (["llm", "--scenario", "{bad}", "--port", "0"], "bad.yaml:2:"),
    (["llm", "--scenario", "{good}", "--port", "0", "--workspace", "{file}"],
     "no such directory"),
    (["llm", "--scenario", "{examples}", "--port", "0", "--tag", "nope"],
     "no scenario is tagged 'nope'"),
    (["llm", "--scenario", "{good}", "--port", "0", "--speed", "0"],
     "must be a number above 0"),
    (["rest", "--scenario", "{missing}", "--port", "0"], "no such file or folder"),
    (["rest", "--scenario", "{bad}", "--port", "0"], "bad.yaml:2:"),
    (["rest", "--scenario", "{examples}", "--port", "0", "--tag", "nope"],
     "no scenario is tagged 'nope'"),
    (["rest", "--scenario", "{good}", "--port", "0", "--scenario-speed", "0"],
     "must be a number above 0"),
    (["hub", "--config", "{missing}", "--port", "0"], "cannot read config file"),
    (["hub", "--config", "{folder}", "--port", "0"], "cannot read config file"),
]


@pytest.mark.parametrize(("args", "message"), CASES,
                         ids=[" ".join(a[:1] + [x for x in a[1:] if x.startswith("--")])
                              + f" [{n}]" for n, (a, _) in enumerate(CASES)])
def test_usage_and_input_errors_are_one_line_and_exit_2(
        args: list[str], message: str, places: dict[str, str], tmp_path: Path) -> None:
    argv = [a.format(**places) for a in args]
    done = scenarist(*argv, cwd=tmp_path)
    assert done.returncode == 2, (argv, done.stdout, done.stderr)
    assert "Traceback" not in done.stderr, done.stderr
    lines = [line for line in done.stderr.splitlines() if message in line]
    assert lines, (argv, done.stderr)
    assert "listening on" not in done.stdout


def test_no_report_file_is_left_by_a_refused_run(tmp_path: Path) -> None:
    """Scenarios are checked before the output files are probed: a refused run makes none."""
    for command in (["run", "--target", "t"], ["acp-test", "--agent", AGENT, "--cwd", "t",
                                                "--transcript", "out/t.jsonl", "--scenario"]):
        done = scenarist(*command, str(tmp_path / "missing.yaml"), "--junit", "out/j.xml",
                         cwd=tmp_path)
        assert done.returncode == 2
        assert sorted(p.name for p in tmp_path.iterdir()) == [], command


def test_denied_place_is_really_refused() -> None:
    """The table's {denied} path must be unwritable even here, or its cases prove nothing."""
    with pytest.raises(OSError):
        Path("/sys/scenarist-cannot-write-here").write_text("x")


def test_the_model_server_loads_only_the_tagged_scenarios() -> None:
    from scenarist.llm.cli import load_scripts

    scripts = load_scripts([str(EXAMPLES)], [], tags=["errors", "rules"])
    assert sorted(s.name for s in scripts) == ["rate-limit-retry", "rules-and-defines"]


def test_select_chooses_among_the_tagged_scenarios_only(tmp_path: Path) -> None:
    done = scenarist("select", "-s", str(EXAMPLES), "--tag", "rules", "--format", "json",
                     "Hello", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert '"name": "rules-and-defines"' in done.stdout
