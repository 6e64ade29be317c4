"""``applyPatch`` played by the test executor in a real git repository: the patch lands in
the workspace, ``commit: true`` makes one commit with the runner's fixed identity, and a
patch that does not apply (or a commit without a repository) fails its step, not the run."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import get_args

from runnerkit import write_scenario

from scenarist.acp.turns import AcpAgentBeat, ClientBeat
from scenarist.runner import RunResult
from scenarist.runner.play import RunnerBeat
from scenarist.scenario import BEATS, ApplyPatchBeat, InitializeBeat, SessionStartBeat

Run = Callable[..., RunResult]

ADD_FILE = """\
diff --git a/hello.py b/hello.py
new file mode 100644
--- /dev/null
+++ b/hello.py
@@ -0,0 +1 @@
+print('Hello, World!')
"""
FIX_README = """\
--- a/README.md
+++ b/README.md
@@ -1 +1 @@
-# Calculater
+# Calculator
"""
PROGRAM = "ah: {cmd: sh, flags: ['-c', 'echo ready; read x']}\n"


def _patches(folder: Path) -> None:
    (folder / "patches").mkdir()
    (folder / "patches" / "add_file.patch").write_text(ADD_FILE)
    (folder / "patches" / "fix_readme.patch").write_text(FIX_README)


def _git(workspace: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=workspace, capture_output=True, text=True,
                          check=True, env={"GIT_CONFIG_GLOBAL": "/dev/null",
                                           "GIT_CONFIG_NOSYSTEM": "1", "PATH": "/usr/bin:/bin"},
                          ).stdout


def test_apply_patch_with_commit_lands_the_file_and_one_deterministic_commit(
        scenarist_run: Run, tmp_path: Path) -> None:
    _patches(tmp_path)
    path = write_scenario(tmp_path, "commits", PROGRAM + """
repo:
  init: true
  files: [{path: README.md, contents: "# Calculater\\n"}]
timeline:
  - applyPatch:
      path: './patches/add_file.patch'
      commit: true
      message: 'Apply scenario patch'
  - applyPatch: {path: patches/fix_readme.patch, commit: true}
  - assert:
      fs: {exists: [hello.py]}
      git: {commit: {messageContains: 'Apply patches/fix_readme.patch'}}
""")
    result = scenarist_run(path).raise_for_failure()
    first, second, checks = result.steps
    assert (first.kind, first.label, first.outcome) == (
        "applyPatch", "./patches/add_file.patch", "passed")
    assert "Applied patch hello.py cleanly" in first.message
    assert first.message.endswith("'Apply scenario patch'")
    assert second.message.endswith("'Apply patches/fix_readme.patch'")  # the default message
    assert checks.outcome == "passed"
    workspace = Path(result.log_dir) / "workspace"
    assert (workspace / "hello.py").read_text() == "print('Hello, World!')\n"
    assert (workspace / "README.md").read_text() == "# Calculator\n"
    log = _git(workspace, "log", "--format=%an <%ae>|%cn <%ce>|%aI|%cI|%s")
    who = "scenarist <scenarist@example.invalid>"
    when = "2025-01-01T00:00:00Z"
    assert log.splitlines() == [
        f"{who}|{who}|{when}|{when}|Apply patches/fix_readme.patch".replace("Z", "+00:00"),
        f"{who}|{who}|{when}|{when}|Apply scenario patch".replace("Z", "+00:00"),
        f"{who}|{who}|{when}|{when}|Initial commit".replace("Z", "+00:00"),
    ]
    assert _git(workspace, "status", "--porcelain") == ""  # everything committed
    assert _git(workspace, "show", "--name-only", "--format=", "HEAD~1") == "hello.py\n"
    # the same scenario gives the same commit ids on every run
    again = scenarist_run(path).raise_for_failure()
    assert first.message.split("committed ")[1] == again.steps[0].message.split("committed ")[1]


def test_apply_patch_without_commit_leaves_the_change_uncommitted(
        scenarist_run: Run, tmp_path: Path) -> None:
    _patches(tmp_path)
    path = write_scenario(tmp_path, "uncommitted", PROGRAM + """
repo:
  init: true
  files: [{path: README.md, contents: "# Calculater\\n"}]
timeline:
  - applyPatch: {path: patches/fix_readme.patch}
""")
    result = scenarist_run(path).raise_for_failure()
    (step,) = result.steps
    assert step.outcome == "passed" and "committed" not in step.message
    workspace = Path(result.log_dir) / "workspace"
    assert (workspace / "README.md").read_text() == "# Calculator\n"
    assert _git(workspace, "log", "--format=%s") == "Initial commit\n"
    assert _git(workspace, "status", "--porcelain") == " M README.md\n"


def test_a_patch_that_does_not_apply_fails_its_step_and_commits_nothing(
        scenarist_run: Run, tmp_path: Path) -> None:
    _patches(tmp_path)
    path = write_scenario(tmp_path, "conflict", PROGRAM + """
repo:
  init: true
  files: [{path: README.md, contents: "# Something else\\n"}]
timeline:
  - applyPatch: {path: patches/fix_readme.patch, commit: true, message: never}
  - log: after
""")
    result = scenarist_run(path)
    assert result.outcome == "failed" and result.errors == ()
    step, after = result.steps
    assert (step.kind, step.index, step.outcome) == ("applyPatch", 0, "failed")
    assert step.message.startswith("git apply patches/fix_readme.patch failed: ")
    assert "patch does not apply" in step.message
    assert step.message.endswith(f"(at {path}:8:5, timeline[0].applyPatch)")
    assert after.outcome == "passed"  # the run went on
    assert result.failures == [f"applyPatch patches/fix_readme.patch at 0 ms: {step.message}"]
    workspace = Path(result.log_dir) / "workspace"
    assert _git(workspace, "log", "--format=%s") == "Initial commit\n"
    assert (workspace / "README.md").read_text() == "# Something else\n"


def test_commit_without_a_repository_fails_before_the_patch_touches_anything(
        scenarist_run: Run, tmp_path: Path) -> None:
    _patches(tmp_path)
    path = write_scenario(tmp_path, "norepo", PROGRAM + """
repo:
  files: [{path: README.md, contents: "# Calculater\\n"}]
timeline:
  - applyPatch: {path: patches/fix_readme.patch, commit: true}
  - applyPatch: {path: patches/add_file.patch}
""")
    result = scenarist_run(path)
    refused, plain = result.steps
    assert refused.outcome == "failed"
    assert refused.message == ("applyPatch commit: true needs the workspace to be a git "
                               f"repository (set repo.init: true) (at {path}:7:5, "
                               "timeline[0].applyPatch)")
    assert plain.outcome == "passed"  # without commit, a plain folder takes the patch
    workspace = Path(result.log_dir) / "workspace"
    assert (workspace / "README.md").read_text() == "# Calculater\n"
    assert (workspace / "hello.py").is_file()
    assert not (workspace / ".git").exists()


def test_every_beat_kind_has_a_player() -> None:
    """A new event kind must be classified on purpose: the test executor plays it, or it is
    an ACP agent or client beat, or it shapes the ACP session (handshake, boundary)."""
    played = set(get_args(RunnerBeat)) | set(get_args(AcpAgentBeat)) | set(get_args(ClientBeat))
    assert set(BEATS) - played == {InitializeBeat, SessionStartBeat}
    assert ApplyPatchBeat in get_args(RunnerBeat)
    assert ApplyPatchBeat not in get_args(AcpAgentBeat) + get_args(ClientBeat)
