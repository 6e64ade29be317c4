"""Every command block in README.md and docs/ runs as written (issue 26: docs are tests).

A block is a fenced ``sh``/``console`` block or an indented one whose first command is one of
ours or a tool the docs point at (``scenarist``, ``fake-codex``, ``codex``, ``claude``, ...). Each
runs in a fresh copy of the checkout's tracked files, with its placeholders filled:

- the ports the docs use (18080, 18081, 18090, 38180, ``PORT``) become free loopback ports, and a
  server command without ``--port`` gets one, so runs never collide;
- ``$tmp`` is a new temporary folder, ``/tmp/ws`` a new workspace, ``PROMPT`` and "the
  scenario's prompt" the prompt of examples/hello-codex.yaml, which the server plays.

How a command runs follows from what it is: a server (``scenarist llm / hub / rest``, or any
command ending in ``&``) is started, must listen, and is stopped with SIGTERM at the end of its
block; ``scenarist acp`` (an agent on stdio) must answer ``initialize``; a real agent CLI runs
against ``scenarist llm`` playing hello-codex and must leave ``hello.py`` behind; anything else
must exit 0. No command may print a traceback. In a ``console`` block the lines shown after a
command are its output: each one without an ellipsis must appear in what it printed.

A usage synopsis (``[--flag]`` notation, also in a ``text`` block) is not run: every flag it
names must be in the command's ``--help``; so must every flag of a command shown inline in
prose (`` `scenarist run --junit FILE` ``), whose placeholders keep it from running as is. The only blocks that do not run here are the test command itself and the
client commands that need a scenario of their own: :data:`RUN_ELSEWHERE` names the test that
runs each, and checks that it passes the flags the docs show.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
NODE_BIN = ROOT / "tests" / "node" / "node_modules" / ".bin"
HELLO_PROMPT = "Create hello.py that prints a greeting, then run it"

#: programs whose blocks are commands to run (a block starting with anything else is prose,
#: output, JSON or a diagram)
PROGRAMS = {"scenarist", "fake-codex", "bash", "pip", "codex", "claude", "gemini", "opencode",
            "aider", "curl", "echo", "mkdir", "cd", "your-acp-client"}
SERVERS = {"llm", "hub", "rest", "record"}
REAL_AGENTS = {"codex", "claude", "gemini"}
DOC_PORTS = ("18080", "18081", "18090", "38180")

#: commands that are not run by this module, by the start of their text: why, and the test
#: file that runs them (which must pass every ``--flag`` the docs show)
RUN_ELSEWHERE: dict[str, tuple[str, str | None]] = {
    "bash scripts/test": ("the test command itself: .ci/run runs it", None),
    "SCENARIST_DEPS=newest bash scripts/test": (
        "the test command against the newest releases: run by hand, see README", None),
    "SCENARIST_AGENTS=latest bash scripts/test": (
        "the real-agent tier against npm's latest agents: run by hand, see README", None),
    "cd PROJECT && PWD=$PWD HOME=$tmp": (
        "opencode needs a project of its own", "tests/llm/llm_agents.py"),
    "cd GIT_REPO && OPENAI_API_BASE=": (
        "aider needs a git repository and its own scenario", "tests/llm/llm_agents.py"),
}


# ----------------------------------------------------------------------------- reading blocks


@dataclass(frozen=True)
class Block:
    page: Path
    line: int
    lang: str  # "" for an indented block
    text: str

    @property
    def where(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"


@dataclass
class Step:
    command: str
    output: list[str] = field(default_factory=list)


def read_blocks(page: Path) -> list[Block]:
    """Fenced and indented code blocks of one Markdown page, with the line each starts on."""
    blocks: list[Block] = []
    lines = page.read_text(encoding="utf-8").split("\n")
    fence: str | None = None
    body: list[str] = []
    start = 0
    for number, line in enumerate(lines, 1):
        if line.startswith("```"):
            if fence is None:
                if body:
                    blocks.append(Block(page, start, "", "\n".join(body).rstrip()))
                fence, start, body = line[3:].strip(), number + 1, []
            else:
                blocks.append(Block(page, start, fence, "\n".join(body)))
                fence, body = None, []
            continue
        if fence is not None:
            body.append(line)
        elif line.startswith("    "):
            if not body:
                start = number
            body.append(line[4:])
        elif body and not line.strip():
            body.append("")
        elif body:
            blocks.append(Block(page, start, "", "\n".join(body).rstrip()))
            body = []
    if body and fence is None:
        blocks.append(Block(page, start, "", "\n".join(body).rstrip()))
    # a ``text`` block is prose, but a usage synopsis in one still names real flags
    return [b for b in blocks if b.lang in ("", "sh", "console") or
            (b.lang == "text" and is_synopsis(b))]


def _without_comment(line: str) -> str:
    """A shell line without its trailing ``# comment`` (two spaces or more before the ``#``)."""
    return re.sub(r"\s{2,}#.*$", "", line).rstrip()


def steps_of(block: Block) -> list[Step]:
    """The block's commands (backslash continuations joined) and, in a console block, the
    output shown after each."""
    steps: list[Step] = []
    pending = ""
    for raw in block.text.split("\n"):
        if block.lang == "console" and not pending and not raw.startswith("$ "):
            if steps and raw.strip():
                steps[-1].output.append(raw.strip())
            continue
        line = raw[2:] if block.lang == "console" and not pending else raw
        line = _without_comment(line) if not line.rstrip().endswith("\\") else line.rstrip()
        if line.endswith("\\"):
            pending += line[:-1].rstrip() + " "
            continue
        command = (pending + line.strip()).strip()
        pending = ""
        if command:
            steps.append(Step(command))
    return steps


def program_of(command: str) -> str:
    """The program a command line starts (environment assignments skipped)."""
    for word in re.sub(r"\$\([^)]*\)", "$x", command).split():  # $(...) is one word
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*=\S*", word):
            return word
    return ""


def is_synopsis(block: Block) -> bool:
    return "[--" in block.text


def command_blocks() -> list[Block]:
    found = []
    for page in PAGES:
        for block in read_blocks(page):
            steps = steps_of(block)
            if steps and program_of(steps[0].command) in PROGRAMS:
                found.append(block)
    return found


BLOCKS = command_blocks()


def _elsewhere(block: Block) -> tuple[str, str | None] | None:
    first = steps_of(block)[0].command
    found = next((why for start, why in RUN_ELSEWHERE.items() if first.startswith(start)), None)
    assert found or "scripts/test" not in first, f"{block.where}: name it in RUN_ELSEWHERE"
    return found


# ----------------------------------------------------------------------------- running blocks


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def wait_for_port(port: int, proc: subprocess.Popen[str], what: str) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            _, err = proc.communicate()
            pytest.fail(f"{what} exited with {proc.returncode} before listening:\n{err[-2000:]}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.1)
    pytest.fail(f"{what} did not listen on port {port} within 60 s")


def stop(proc: subprocess.Popen[str]) -> tuple[str, str]:
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
    try:
        out, err = proc.communicate(timeout=15)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        pytest.fail(f"did not stop within 15 s of SIGTERM:\n{err[-2000:]}")
    return out, err


@pytest.fixture(scope="module")
def checkout(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh copy of the checkout: its tracked files only (no venvs, no node_modules)."""
    copy = tmp_path_factory.mktemp("checkout")
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=False)
    names = ([n for n in listed.stdout.decode().split("\0") if n] if listed.returncode == 0
             else [str(p.relative_to(ROOT)) for p in ROOT.rglob("*") if p.is_file()
                   and not any(part.startswith((".venv", ".git", "node_modules"))
                               for part in p.relative_to(ROOT).parts)])
    for name in names:
        source = ROOT / name
        if source.is_file():
            target = copy / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
    return copy


@dataclass
class Runner:
    """Runs one block's commands in ``cwd`` with its placeholders filled."""

    cwd: Path
    tmp: Path
    env: dict[str, str]
    background: list[subprocess.Popen[str]] = field(default_factory=list)
    ports: dict[str, int] = field(default_factory=dict)

    def fill(self, command: str) -> str:
        for port in (*DOC_PORTS, "PORT"):
            if re.search(rf"\b{port}\b", command):
                number = self.ports.setdefault(port, free_port())
                command = re.sub(rf"\b{port}\b", str(number), command)
        command = command.replace("/tmp/ws", str(self.tmp / "ws"))
        command = command.replace('"PROMPT"', shlex.quote(HELLO_PROMPT))
        return command.replace("\"the scenario's prompt\"", shlex.quote(HELLO_PROMPT))

    def popen(self, command: str, stdin: int | None = subprocess.DEVNULL) -> subprocess.Popen[str]:
        return subprocess.Popen(["bash", "-c", command], cwd=self.cwd, env=self.env, stdin=stdin,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                start_new_session=True)

    def serve(self, command: str) -> subprocess.Popen[str]:
        """Start a server command and wait until it listens."""
        command = command.removesuffix("&").strip()
        if "--port" not in command:
            command += f" --port {free_port()}"
        port = int(re.findall(r"--port[ =](\d+)", command)[-1])
        proc = self.popen(command)
        self.background.append(proc)
        wait_for_port(port, proc, command)
        return proc

    def run(self, command: str, timeout: float = 300) -> tuple[int, str]:
        proc = self.popen(command)
        try:
            out, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            out, err = stop(proc)
            pytest.fail(f"{command!r} did not end within {timeout} s:\n{err[-2000:]}")
        assert "Traceback" not in err, f"{command!r} printed a traceback:\n{err[-3000:]}"
        assert proc.returncode == 0, f"{command!r} exited {proc.returncode}:\n{out[-2000:]}\n{err[-3000:]}"
        return proc.returncode, out + err

    def close(self) -> None:
        for proc in self.background:
            _, err = stop(proc)
            assert "Traceback" not in err, err[-3000:]


@pytest.fixture
def runner(checkout: Path, tmp_path: Path) -> Iterator[Runner]:
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), str(NODE_BIN), env["PATH"]])
    env["tmp"] = str(tmp_path)
    env.pop("SCENARIST_REGOLD", None)
    made = Runner(checkout, tmp_path, env)
    yield made
    made.close()


def _subcommand(command: str) -> str:
    words = command.split()
    start = words.index(program_of(command))
    return words[start + 1] if len(words) > start + 1 else ""


def play(block: Block, runner: Runner) -> None:
    for step in steps_of(block):
        command = runner.fill(step.command)
        program, sub = program_of(command), _subcommand(command)
        if program == "your-acp-client":  # "your client spawns this agent": be that client
            answer_initialize(runner, command.split(" -- ", 1)[1])
            continue
        if program == "scenarist" and sub == "acp" and command.split()[2:3] != ["--help"]:
            answer_initialize(runner, command)
            continue
        if command.endswith("&") or (program == "scenarist" and sub in SERVERS):
            runner.serve(command)
            continue
        if program in REAL_AGENTS:
            play_real_agent(runner, command)
            continue
        _, printed = runner.run(fill_pip(runner, command))
        check_output(block, step, printed)


def check_output(block: Block, step: Step, printed: str) -> None:
    text = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", printed)
    lines = {line.strip() for line in text.splitlines()}
    for shown in step.output:
        if "…" in shown or "..." in shown:
            continue
        assert shown in lines, f"{block.where}: {step.command!r} did not print {shown!r}:\n{text}"


def answer_initialize(runner: Runner, command: str) -> None:
    """An ACP agent on stdio answers ``initialize`` and ends when its stdin closes."""
    request = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
               "params": {"protocolVersion": 1, "clientCapabilities": {}}}
    proc = runner.popen(command, stdin=subprocess.PIPE)
    try:
        out, err = proc.communicate(json.dumps(request) + "\n", timeout=60)
    except subprocess.TimeoutExpired:
        _, err = stop(proc)
        pytest.fail(f"{command!r} did not end after its stdin closed:\n{err[-2000:]}")
    answer = json.loads(out.splitlines()[0])
    assert answer["id"] == 1 and "result" in answer, answer
    assert "Traceback" not in err, err[-3000:]


def fill_pip(runner: Runner, command: str) -> str:
    """``pip install .`` installs into a throwaway venv whose dependencies (and build backend)
    are the test venv's, seen through a .pth file: nothing is downloaded, and the test venv is
    not touched (pip never uninstalls outside the environment it installs into)."""
    if not command.startswith("pip install"):
        return command
    venv = runner.tmp / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    site = next(venv.glob("lib/python*/site-packages"))
    ours = [p for p in sys.path if p.endswith("site-packages") and Path(p).is_dir()]
    (site / "test_venv.pth").write_text("\n".join(ours) + "\n", encoding="utf-8")
    runner.env["PATH"] = f"{venv / 'bin'}{os.pathsep}{runner.env['PATH']}"
    return command.replace("pip install", f"{sys.executable} -m pip --python {venv}/bin/python "
                           "install --quiet --no-deps --no-build-isolation", 1)


def play_real_agent(runner: Runner, command: str) -> None:
    """A real agent CLI, as the docs show it, against ``scenarist llm`` playing hello-codex."""
    named = re.search(r"127\.0\.0\.1:(\d+)", command)
    port = int(named.group(1)) if named else runner.ports.setdefault("PORT", free_port())
    if not any(p.args[-1].startswith("scenarist llm") for p in runner.background):
        runner.serve(f"scenarist llm --scenario examples/hello-codex.yaml --port {port}")
    workspace = runner.tmp / "agent-ws"
    workspace.mkdir(exist_ok=True)
    proc = subprocess.Popen(["bash", "-c", command], cwd=workspace, env=runner.env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    try:
        out, err = proc.communicate(timeout=240)
    finally:
        if proc.poll() is None:
            stop(proc)
    assert proc.returncode == 0, f"{command!r} exited {proc.returncode}:\n{out[-3000:]}\n{err[-3000:]}"
    assert (workspace / "hello.py").is_file(), f"no hello.py after {command!r}:\n{out[-3000:]}"


# ----------------------------------------------------------------------------- the tests


def test_the_docs_have_command_blocks() -> None:
    pages = {b.page.name for b in BLOCKS}
    assert {"README.md", "acp.md", "fake-codex.md", "mock-agent.md"} <= pages, pages


def _block_id(block: Block) -> str:
    return block.where


RUNNABLE = [b for b in BLOCKS if not is_synopsis(b) and _elsewhere(b) is None]
SYNOPSES = [b for b in BLOCKS if is_synopsis(b)]
ELSEWHERE = [b for b in BLOCKS if _elsewhere(b) is not None]


def _marks(block: Block) -> list[pytest.MarkDecorator]:
    programs = {program_of(s.command) for s in steps_of(block)}
    marks = [pytest.mark.slow]
    if programs & REAL_AGENTS:
        marks.append(pytest.mark.real_agent)
    return marks


@pytest.mark.parametrize(
    "block", [pytest.param(b, id=_block_id(b), marks=_marks(b)) for b in RUNNABLE])
def test_a_command_block_runs_as_written(block: Block, runner: Runner) -> None:
    play(block, runner)


def _help(argv: list[str]) -> str:
    """What ``argv --help`` prints (it must exit 0)."""
    done = subprocess.run([*argv, "--help"], capture_output=True, text=True, check=False,
                          env={**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}"
                               f"{os.environ['PATH']}"}, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout


def _flags(command: str) -> set[str]:
    return set(re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*)", command)) - {"--help"}


@pytest.mark.parametrize("block", [pytest.param(b, id=_block_id(b)) for b in SYNOPSES])
def test_a_synopsis_names_only_real_flags(block: Block) -> None:
    command = steps_of(block)[0].command
    words = command.split()
    argv = words[:2] if words[0] == "scenarist" else words[:1]
    shown = _help(argv)
    missing = sorted(f for f in _flags(command) if f not in shown)
    assert not missing, f"{block.where}: {' '.join(argv)} --help does not list {missing}"


def inline_commands() -> dict[str, list[tuple[str, str]]]:
    """The commands shown inline in prose (`` `scenarist run --junit FILE` ``), by the
    command they run (``scenarist run``, ``fake-codex``): (where, text) each."""
    subcommands = set(re.findall(r"^  ([a-z][\w-]*) ", _help(["scenarist"]), re.MULTILINE))
    found: dict[str, list[tuple[str, str]]] = {}
    for page in PAGES:
        prose = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.DOTALL)
        for span in re.findall(r"`((?:[A-Z_]+=\S+ )*(?:scenarist|fake-codex) [^`]+)`", prose):
            words = [w for w in span.split() if not re.fullmatch(r"[A-Z_]+=\S+", w)]
            if words[0] == "scenarist" and words[1] not in subcommands:
                if not words[1].startswith("-"):
                    continue  # prose about scenarist ("scenarist line N of FILE"), not a command
                words = words[:1]
            found.setdefault(" ".join(words[:2] if words[0] == "scenarist" else words[:1]),
                             []).append((page.name, span))
    return found


INLINE = inline_commands()


@pytest.mark.parametrize("command", sorted(INLINE))
def test_an_inline_command_names_only_real_flags(command: str) -> None:
    shown = _help(command.split())
    wrong = [(where, span, sorted(f for f in _flags(span) if f not in shown))
             for where, span in INLINE[command]]
    assert not [w for w in wrong if w[2]], [w for w in wrong if w[2]]


@pytest.mark.parametrize("block", [pytest.param(b, id=_block_id(b)) for b in ELSEWHERE])
def test_a_block_run_elsewhere_names_a_test_with_its_flags(block: Block) -> None:
    why = _elsewhere(block)
    assert why is not None
    reason, test_file = why
    assert reason
    if test_file is None:
        return
    source = (ROOT / test_file).read_text(encoding="utf-8")
    flags = set(re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*)", steps_of(block)[0].command))
    missing = sorted(f for f in flags if f not in source)
    assert not missing, f"{block.where}: {test_file} does not pass {missing}"
