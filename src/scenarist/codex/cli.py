"""``fake-codex`` / ``scenarist codex``: the command line of the fake Codex agent.

Arguments are parsed by hand, not with :mod:`argparse`: ``fake-codex exec --json ...`` must
accept, and ignore, every flag of the real ``codex exec``, and argparse's ``parse_known_args``
cannot tell which unknown flag takes a value. Hosts and tests start ``fake-codex`` once per
agent turn, so its first line has a start-up budget (<= 3x a bare ``python -c pass``,
``bench/bench_startup.py``); heavy modules (the scenario loader, YAML) are imported only for
``--scenario``.
"""

from __future__ import annotations

import os
import signal
import sys
from typing import TYPE_CHECKING

from scenarist.codex import build
from scenarist.codex.commands import command_steps, has_session, parse_prompt
from scenarist.codex.config import ENV_VAR, Config, parse_json_config, tool_list
from scenarist.codex.encode import FORMATS, CodexEventEncoder, ExecJsonEncoder
from scenarist.codex.errors import CodexUsageError
from scenarist.codex.output import Writer
from scenarist.codex.rng import Rng
from scenarist.codex.simulate import random_turn
from scenarist.codex.turn import CodexTurn, frame_turn
from scenarist.errors import ScenaristError
from scenarist.files import FileTooLarge, NotRegularFile, read_regular_bytes

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Mapping
    from typing import Any, BinaryIO

    from scenarist.codex.turn import Step
    from scenarist.faults import Chaos

USAGE = """\
usage: fake-codex [OPTIONS] [PROMPT]
       fake-codex exec [--json|--experimental-json] [CODEX EXEC FLAGS] [PROMPT]

A safe, deterministic stand-in for the Codex CLI: it prints Codex events and never
runs commands, writes files or opens connections. The prompt is the argument, or
standard input when absent or "-". Prompts starting with help, ? or ( are command
mode (try: fake-codex "help"); anything else gets a random, seeded simulation.

options:
  --seed N                  seed for ids, chunking and choices (default: random, reported on stderr)
  --cadence-ms N            pause after each line (default 0: full speed)
  --chunk-min N --chunk-max N  size of message deltas in characters (default 4..14)
  --no-reasoning            no reasoning events in random mode
  --tool-events LIST        tools random mode uses: exec,apply_patch,mcp,web_search
  --approvals, --no-approvals  emit approval requests before commands and patches
  --errors                  random mode adds a warning and a stream error
  --chaos RATE[:KINDS]      random mode: fault a turn with probability RATE (0..1), by one of
                            KINDS (exit,truncate,stall,stderr,malformed,duplicate,reorder,
                            fragment; default all), chosen by the seed
  --session-id ID           session/thread id (default: derived from the seed)
  --cwd DIR                 working directory reported in events (never touched)
  --model NAME              model reported in session_configured
  --format FMT              codex-event (JSON-RPC notifications) or exec-json (codex exec --json)
  --no-turn-lifecycle       no task_started/token_count/task_complete (older hosts)
  --command-prefix P        command-mode prefix, repeatable (default: help, ?, ()
  --scenario FILE           play a scenario file as Codex events
  --time-scale F            scenario timing factor (default 1; 0 = no pauses)
  --replay FILE.jsonl       re-emit a recorded stream
  --config JSON|@FILE       settings as JSON (same keys as $SCENARIST_CODEX_CONFIG)
  --interactive             one turn per stdin line until EOF, each line flushed
  -h, --help                show this help
"""

# option name -> (config attribute or action, takes a value)
_OPTIONS: dict[str, tuple[str, bool]] = {
    "--seed": ("seed", True),
    "--cadence-ms": ("cadence_ms", True),
    "--chunk-min": ("chunk_min", True),
    "--chunk-max": ("chunk_max", True),
    "--no-reasoning": ("no_reasoning", False),
    "--tool-events": ("tool_events", True),
    "--approvals": ("approvals", False),
    "--no-approvals": ("no_approvals", False),
    "--errors": ("errors", False),
    "--chaos": ("chaos", True),
    "--session-id": ("session_id", True),
    "--cwd": ("cwd", True),
    "--model": ("model", True),
    "--format": ("format", True),
    "--no-turn-lifecycle": ("no_lifecycle", False),
    "--command-prefix": ("command_prefix", True),
    "--scenario": ("scenario", True),
    "--time-scale": ("time_scale", True),
    "--replay": ("replay", True),
    "--config": ("config", True),
    "--interactive": ("interactive", False),
    "-h": ("help", False),
    "--help": ("help", False),
}

# Flags of the real `codex exec` (0.169): mapped where they mean something to us,
# otherwise accepted and ignored so fake-codex can stand in for the binary.
_EXEC_OPTIONS: dict[str, tuple[str, bool]] = {
    "--json": ("exec_json", False),
    "--experimental-json": ("exec_json", False),
    "-c": ("codex_config", True),
    "--config": ("codex_config", True),
    "-C": ("cwd", True),
    "--cd": ("cwd", True),
    "-m": ("model", True),
    "-s": ("sandbox", True),
    "--sandbox": ("sandbox", True),
    "--full-auto": ("ignore", False),
    "--last": ("resume_last", False),  # `exec resume --last`: the positional is the prompt
    **{
        flag: ("ignore", True)
        for flag in (
            "--enable",
            "--disable",
            "-i",
            "--image",
            "--local-provider",
            "-p",
            "--profile",
            "--add-dir",
            "--thread-source",
            "--cyber-access-program",
            "--output-schema",
            "--color",
            "-o",
            "--output-last-message",
        )
    },
}


class Args:
    """The parsed command line."""

    def __init__(self) -> None:
        self.flags: list[tuple[str, str, str | None]] = []  # (option, action, value)
        self.prompt: str | None = None
        self.exec_mode = False
        self.resume: str | None = None


def parse_args(argv: list[str]) -> Args:
    """Split ``argv`` into options and the prompt; raises :class:`CodexUsageError`."""
    args = Args()
    rest = list(argv)
    if rest and rest[0] == "exec":
        args.exec_mode = True
        rest.pop(0)
    table = {**_OPTIONS, **_EXEC_OPTIONS} if args.exec_mode else _OPTIONS
    positional: list[str] = []
    i = 0
    while i < len(rest):
        arg = rest[i]
        i += 1
        if arg == "--":
            positional += rest[i:]
            break
        if arg == "-" or not arg.startswith("-"):
            positional.append(arg)
            continue
        name, eq, inline = arg.partition("=")
        spec = table.get(name)
        if spec is None:
            if args.exec_mode:
                continue  # another codex exec flag: accepted and ignored
            raise CodexUsageError(f"unknown option {name!r} (see fake-codex --help)")
        action, takes_value = spec
        value: str | None = None
        if takes_value:
            if eq:
                value = inline
            elif i < len(rest):
                value = rest[i]
                i += 1
            else:
                raise CodexUsageError(f"option {name} needs a value (see fake-codex --help)")
        elif eq:
            raise CodexUsageError(f"option {name} takes no value")
        args.flags.append((name, action, value))
    if args.exec_mode and "resume" in positional[:2]:
        positional = _resume(args, positional)
    if len(positional) > 1:
        raise CodexUsageError(
            f"expected at most one prompt, got {len(positional)} arguments; quote the prompt"
        )
    if positional:
        args.prompt = positional[0]
    return args


def _resume(args: Args, positional: list[str]) -> list[str]:
    """``codex exec [PROMPT] resume [SESSION_ID|--last] [PROMPT]``: note the session id and
    return the prompt words. As in codex, ``--last`` makes the first word after ``resume``
    the prompt, and a prompt after ``resume`` wins over one written before it."""
    at = positional.index("resume")
    before, after = positional[:at], positional[at + 1:]
    last = any(action == "resume_last" for _, action, _ in args.flags)
    if after and not last and after[0] != "-":
        args.resume = after.pop(0)
    return after or before


def _int_flag(name: str, value: str, lo: int = 0) -> int:
    try:
        number = int(value)
    except ValueError:
        raise CodexUsageError(f"{name} needs a whole number, got {value!r}") from None
    if number < lo:
        raise CodexUsageError(f"{name} must be at least {lo}, got {number}")
    return number


def _number(name: str, value: str) -> float:
    try:
        return float(value)
    except ValueError:
        raise CodexUsageError(f"{name} needs a number, got {value!r}") from None


#: the largest replay or config file read (a recording of a long session is a few MiB)
MAX_INPUT_BYTES = 64 * 1024 * 1024


def _read_file(path: str, what: str) -> str:
    """A replay or config file: a regular file of at most :data:`MAX_INPUT_BYTES` (not a
    device such as /dev/zero, not a FIFO that would block), as UTF-8 text."""
    try:
        data = read_regular_bytes(path, MAX_INPUT_BYTES)
    except NotRegularFile:
        raise CodexUsageError(f"{what} {path!r} is not a regular file") from None
    except FileTooLarge:
        raise CodexUsageError(
            f"{what} {path!r} is larger than {MAX_INPUT_BYTES // 2**20} MiB") from None
    except OSError as exc:
        raise CodexUsageError(f"cannot read {what} {path!r}: {exc.strerror or exc}") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise CodexUsageError(f"{what} {path!r} is not UTF-8 text") from None


def build_config(args: Args, environ: Mapping[str, str]) -> tuple[Config, bool]:
    """Resolve the settings: defaults < ``$SCENARIST_CODEX_CONFIG`` < ``--config`` < flags."""
    cfg = Config()
    if args.exec_mode:
        cfg.format = "exec-json"
    env_text = environ.get(ENV_VAR, "").strip()
    if env_text:
        cfg.update(parse_json_config(env_text, f"${ENV_VAR}"), f"${ENV_VAR}")
    for name, action, value in args.flags:
        if action in ("config", "codex_config") and value is not None:
            text = value.strip()
            if text.startswith("@"):
                cfg.update(parse_json_config(_read_file(text[1:], "config file"), text), text)
            elif text.startswith("{") or action == "config":
                cfg.update(parse_json_config(text, name), name)
            # else: a codex `-c key=value` override, meaningless here
    interactive = False
    prefixes: list[str] = []
    for name, action, value in args.flags:
        v = value or ""
        if action == "help":
            raise _Help
        if action == "seed":
            cfg.seed = _int_flag(name, v)
        elif action == "cadence_ms":
            cfg.update({"cadence_ms": _int_flag(name, v)}, name)
        elif action == "chunk_min":
            cfg.chunk_min = _int_flag(name, v, 1)
        elif action == "chunk_max":
            cfg.chunk_max = _int_flag(name, v, 1)
        elif action == "no_reasoning":
            cfg.reasoning = False
        elif action == "tool_events":
            try:
                cfg.tools = tool_list(v)
            except ValueError as exc:
                raise CodexUsageError(f"{name} {exc}") from None
        elif action == "approvals":
            cfg.approvals = True
        elif action == "no_approvals":
            cfg.approvals = False
        elif action == "errors":
            cfg.errors = True
        elif action == "chaos":
            cfg.chaos = v
        elif action == "session_id":
            cfg.session_id = v
        elif action == "cwd":
            cfg.cwd = v
        elif action == "model":
            cfg.model = v
        elif action == "sandbox":
            cfg.update({"sandbox": v}, name)
        elif action == "format":
            if v not in FORMATS:
                raise CodexUsageError(f"{name} must be one of {', '.join(FORMATS)}, got {v!r}")
            cfg.format = v
        elif action == "no_lifecycle":
            cfg.turn_lifecycle = False
        elif action == "command_prefix":
            if not v:
                raise CodexUsageError(f"{name} needs a non-empty prefix")
            prefixes.append(v)
        elif action == "scenario":
            cfg.scenario = v
        elif action == "time_scale":
            cfg.update({"time_scale": _number(name, v)}, name)
        elif action == "replay":
            cfg.replay = v
        elif action == "interactive":
            interactive = True
        elif action == "exec_json":
            cfg.format = "exec-json"
    if prefixes:
        cfg.command_prefixes = tuple(prefixes)
    if args.resume:
        cfg.session_id = args.resume
    cfg.check("options")
    if cfg.scenario and cfg.replay:
        raise CodexUsageError("--scenario and --replay cannot be combined; choose one")
    if cfg.chaos and (cfg.scenario or cfg.replay):
        raise CodexUsageError("--chaos faults the random mode's turns; a --scenario places its "
                              "own faults and a --replay is written as recorded")
    return cfg, interactive


class _Help(ScenaristError):
    """``-h``/``--help`` was given."""


class Session:
    """One run of the fake agent: its settings, ids and output, across one or more turns."""

    def __init__(
        self,
        cfg: Config,
        writer: Writer,
        cwd: str,
        seed: int,
        notice: Callable[[], None],
        *,
        interactive: bool = False,
    ) -> None:
        self.cfg = cfg
        self.interactive = interactive
        self._notice: Callable[[], None] | None = notice
        self.writer = writer
        self.root = Rng(seed)
        self.session_id = cfg.session_id or self.root.uuid()
        self.cwd = cwd
        self.session_event = build.session_configured(
            self.session_id, cwd=cwd, model=cfg.model, approvals=cfg.approvals, sandbox=cfg.sandbox
        )
        self.encoder: CodexEventEncoder | ExecJsonEncoder = (
            ExecJsonEncoder(self.session_id) if cfg.format == "exec-json" else CodexEventEncoder()
        )
        # exec-json has no turn boundaries without the lifecycle events
        self.lifecycle = cfg.turn_lifecycle or cfg.format == "exec-json"
        self.turns = 0
        self._scenario: Callable[[CodexTurn, str], tuple[Iterable[Step], bool]] | None = None
        self.chaos: Chaos | None = _chaos(cfg.chaos, seed) if cfg.chaos else None

    def _write(self, steps: Iterable[Step]) -> None:
        if self._notice is not None:  # first output: say how to reproduce the run
            self._notice()
            self._notice = None
        self.writer.write(steps, self.encoder)

    def turn(self, prompt: str) -> None:
        """Run one turn for ``prompt`` and write its lines."""
        self.turns += 1
        number = self.turns
        cfg = self.cfg
        turn = CodexTurn(
            self.root.fork(number),
            number=number,
            cwd=self.cwd,
            chunk_min=cfg.chunk_min,
            chunk_max=cfg.chunk_max,
            approvals=cfg.approvals,
            session=self.session_event,
        )
        steps: Iterable[Step]
        own_session = False
        if cfg.scenario:
            steps, own_session = self._scenario_steps(turn, prompt)
        else:
            commands = parse_prompt(prompt, cfg.command_prefixes)
            if commands is not None:
                steps = command_steps(commands, turn)
                own_session = has_session(commands)
            else:
                steps = random_turn(
                    turn, prompt, tools=cfg.tools, reasoning=cfg.reasoning, errors=cfg.errors
                )
                if self.chaos is not None:
                    steps = _chaos_steps(self.chaos, steps, number, prompt)
        session = self.session_event if number == 1 and not own_session else None
        self.encoder.begin_turn(number)
        self._write(
            frame_turn(steps, turn, prompt=prompt, session=session, lifecycle=self.lifecycle)
        )

    def failed_turn(self, prompt: str, problem: str) -> None:
        """An interactive turn whose input was bad: report it as an ``error`` event.

        Called after :meth:`turn` raised, which already counted the turn.
        """
        number = self.turns
        turn = CodexTurn(self.root.fork(number), number=number, cwd=self.cwd)
        session = self.session_event if number == 1 else None
        self.encoder.begin_turn(number)
        steps = [build.note("error", f"fake-codex: {problem}")]
        self._write(
            frame_turn(steps, turn, prompt=prompt, session=session, lifecycle=self.lifecycle)
        )

    def replay(self, steps: list[Step]) -> None:
        self.turns += 1
        self.encoder.begin_turn(self.turns)
        self._write(steps)

    def _scenario_steps(self, turn: CodexTurn, prompt: str) -> tuple[Iterable[Step], bool]:
        if self._scenario is None:
            from scenarist.codex.play_scenario import load_player  # heavy: YAML, pydantic

            assert self.cfg.scenario is not None
            self._scenario = load_player(
                self.cfg.scenario, whole=not self.interactive, time_scale=self.cfg.time_scale,
                warn=self.writer.warn,
            )
        return self._scenario(turn, prompt)


def _chaos(text: str, seed: int) -> Chaos:
    """``--chaos RATE[:kinds]`` with the run's seed, among the kinds fake-codex plays."""
    from scenarist.faults import CHANNELS, ChaosError, parse_chaos

    try:
        return parse_chaos(text, seed, CHANNELS["codex"].response)
    except ChaosError as exc:
        raise CodexUsageError(f"--chaos: {exc}") from None


def _chaos_steps(chaos: Chaos, steps: Iterable[Step], number: int, prompt: str) -> list[Step]:
    """A random turn's steps, with the fault the seed gives this turn (by its number and
    prompt, so a run with the same seed and prompts is faulted the same way) at its start:
    it counts the turn's events from there."""
    from scenarist.codex.turn import Strike
    from scenarist.faults import chaos_fault

    steps = list(steps)
    events = sum(1 for step in steps if isinstance(step, dict))
    fault = chaos_fault(chaos, f"{number}\n{prompt}".encode(), events)
    return steps if fault is None else [Strike(fault), *steps]


def run(
    argv: list[str],
    *,
    stdin: BinaryIO,
    stdout: BinaryIO,
    stderr: Any,
    environ: Mapping[str, str],
) -> int:
    """The whole program with its streams passed in (what tests call)."""
    try:
        args = parse_args(argv)
        try:
            cfg, interactive = build_config(args, environ)
        except _Help:
            stdout.write(USAGE.encode())
            stdout.flush()
            return 0
        seed = cfg.seed
        if seed is None:
            seed = int.from_bytes(os.urandom(8), "big") >> 1

        def notice() -> None:
            if cfg.seed is None:
                stderr.write(
                    f"fake-codex: seed {seed} (pass --seed {seed} to reproduce this run)\n"
                )
                stderr.flush()

        cwd = cfg.cwd or os.getcwd()
        writer = Writer(stdout, cadence_ms=cfg.cadence_ms, flush_each=interactive,
                        stderr=stderr, time_scale=cfg.time_scale)
        session = Session(cfg, writer, cwd, seed, notice, interactive=interactive)
        if cfg.replay:
            from scenarist.codex.replay import parse_replay

            session.replay(parse_replay(_read_file(cfg.replay, "replay file"), cfg.replay))
            return 0
        _turns(session, args, stdin, stderr, interactive=interactive)
        writer.close()  # faults still owed strike at the end of the output
        return 0
    except CodexUsageError as exc:
        stderr.write(f"fake-codex: {exc}\n")
        stderr.flush()
        return exc.exit_status


def _turns(session: Session, args: Args, stdin: BinaryIO, stderr: Any, *,
           interactive: bool) -> None:
    """Every turn of the run: one per stdin line, or one for the prompt."""
    if interactive:
        for raw in stdin:
            prompt = raw.decode("utf-8", "replace").rstrip("\r\n")
            if not prompt.strip():
                continue
            try:
                session.turn(prompt)
            except CodexUsageError as exc:
                stderr.write(f"fake-codex: {exc}\n")
                stderr.flush()
                session.failed_turn(prompt, str(exc))
    elif args.prompt is None or args.prompt == "-":
        session.turn(stdin.read().decode("utf-8", "replace"))
    else:
        session.turn(args.prompt)


def _as_utf8(arg: str) -> str:
    return os.fsencode(arg).decode("utf-8", "replace")


def _interrupted(signum: int, frame: Any) -> None:
    os._exit(130)


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``fake-codex`` and ``scenarist codex``; returns the exit code.

    Ctrl-C (SIGINT) ends the process at once with 130, as codex does, and SIGTERM with its
    default action, wherever the signal lands, whatever this process inherited. Not through
    Python's ``KeyboardInterrupt``: that is raised wherever the main thread happens to be, and
    when that is a finalizer (a generator being closed, a ``__del__``) Python prints
    "Exception ignored" and drops it, so the process went back to waiting for input and
    ignored the Ctrl-C (a CI run on a busy machine: 30 s). A parent that starts us with
    SIGINT ignored (a background job of a script) would also leave us deaf to it. The handler
    exits without unwinding; each block of output was flushed as it was written.
    """
    previous = _set_handlers({signal.SIGINT: _interrupted, signal.SIGTERM: signal.SIG_DFL})
    try:
        return run(
            # Arguments that are not UTF-8 reach Python as lone surrogates, which cannot be
            # written back out; read them as the bytes they were, with U+FFFD for what is invalid.
            [_as_utf8(a) for a in (sys.argv[1:] if argv is None else argv)],
            stdin=sys.stdin.buffer,
            stdout=sys.stdout.buffer,
            stderr=sys.stderr,
            environ=os.environ,
        )
    except ScenaristError as exc:  # only a scenario's exit fault leaves run() by raising
        from scenarist.fault_output import FaultExit, exit_status

        if not isinstance(exc, FaultExit):
            raise
        return exit_status(exc)
    except BrokenPipeError:
        # The reader went away (e.g. `| head`); stop quietly, as Unix tools do.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 141
    finally:
        _set_handlers(previous)  # main() may be called in a host process



def _set_handlers(handlers: Mapping[signal.Signals, Any]) -> dict[signal.Signals, Any]:
    """Install ``handlers``; the ones they replace. Only the main thread may set them, so
    elsewhere (a host calling :func:`main` from a thread) nothing changes."""
    previous: dict[signal.Signals, Any] = {}
    for signum, handler in handlers.items():
        if handler is None:  # installed from C, not ours to restore
            continue
        try:
            previous[signum] = signal.signal(signum, handler)
        except ValueError:
            return previous
    return previous
