"""docs/acp.md's headline example, run as written: its commands in a shell, from a folder
holding only the repository's examples (as a fresh checkout has them), with the output the
page shows."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

from acpkit import EXAMPLES, REPO


def console_block(page: Path) -> list[tuple[str, list[str]]]:
    """Each ``$ command`` of the page's first console block (continuation lines joined,
    comments dropped) with the output lines shown under it."""
    block = page.read_text(encoding="utf-8").split("```console\n", 1)[1].split("```", 1)[0]
    commands: list[tuple[str, list[str]]] = []
    for line in block.splitlines():
        if line.startswith("$ "):
            commands.append((line[2:], []))
        elif commands and commands[-1][0].endswith("\\"):
            commands[-1] = (commands[-1][0] + "\n" + line, [])
        elif commands:
            commands[-1][1].append(line)
    return [(command.split("  #", 1)[0].strip(), out) for command, out in commands]


def test_the_headline_example_runs_as_written(tmp_path: Path) -> None:
    shutil.copytree(EXAMPLES, tmp_path / "examples")
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    commands = console_block(REPO / "docs" / "acp.md")
    assert [c.split()[:2] for c, _ in commands] == [["scenarist", "acp"],
                                                    ["scenarist", "acp-test"]]
    for command, shown in commands:
        done = subprocess.run(["bash", "-c", command], cwd=tmp_path, env=env, input="",
                              capture_output=True, text=True, timeout=120, check=False)
        assert done.returncode == 0, (command, done.stdout, done.stderr)
        # checks of events that overlap in time (setModel during prompt 1) end in either order
        assert sorted(done.stdout.splitlines()) == sorted(shown)
    assert len((tmp_path / "session.jsonl").read_text().splitlines()) > 10
    suite = ET.parse(tmp_path / "acp.xml").getroot()
    assert suite.find(".//failure") is None and suite.find(".//testcase") is not None
