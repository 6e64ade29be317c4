"""Command mode: prompts such as ``help exec; mcp`` script the events exactly.

The grammar follows the original fake agent: a prompt is in command mode when,
after leading whitespace, it starts with a prefix (``help``, ``?`` or ``(`` by
default; a word prefix must be followed by whitespace, ``;``, ``:`` or the end,
so ``please help exec`` stays a normal prompt). Commands are separated by ``;`` or
newlines outside ``{}``/``[]`` and the JSON strings inside them (with the ``(``
prefix, parentheses separate too); names are case-insensitive. The whole prompt
is parsed before anything is emitted, so a bad command fails cleanly (exit 1)
instead of leaving half a stream behind.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING

from scenarist.codex import build
from scenarist.codex.errors import CodexUsageError
from scenarist.codex.events import check_event
from scenarist.codex.turn import MAX_PAUSE_MS, Raw, Sleep

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator, Sequence
    from typing import Any

    from scenarist.codex.turn import CodexEvent, CodexTurn, Step

    Handler = Callable[[CodexTurn, "Command"], list[CodexEvent]]

DEFAULT_PREFIXES: tuple[str, ...] = ("help", "?", "(")


def split_prefix(prompt: str, prefixes: Sequence[str] = DEFAULT_PREFIXES) -> tuple[str, str] | None:
    """``(prefix, body)`` when ``prompt`` is command-mode input, else ``None``."""
    text = prompt.lstrip()
    folded = text.casefold()
    for prefix in sorted(prefixes, key=len, reverse=True):
        if not prefix or not folded.startswith(prefix.casefold()):
            continue
        rest = text[len(prefix) :]
        if prefix[-1].isalnum() and rest and not (rest[0].isspace() or rest[0] in ";:"):
            continue
        return prefix, rest
    return None


_SPECIAL = re.compile(r'[;\n{}\[\]"\\()]')


def split_commands(body: str, *, parens: bool = False) -> list[str]:
    """Split a command-mode body into command texts, keeping JSON values whole."""
    parts: list[str] = []
    depth = 0
    in_string = False
    skip = -1
    start = 0
    for match in _SPECIAL.finditer(body):
        i = match.start()
        if i == skip:
            continue
        ch = body[i]
        if in_string:
            if ch == "\\":
                skip = i + 1
            elif ch == '"':
                in_string = False
        elif depth:
            if ch in "{[":
                depth += 1
            elif ch in "}]":
                depth -= 1
            elif ch == '"':
                in_string = True
        elif ch in "{[":
            depth = 1
        elif ch in ";\n" or (parens and ch in "()"):
            parts.append(body[start:i])
            start = i + 1
    parts.append(body[start:])
    return [p for p in (s.strip() for s in parts) if p]


class Command:
    """One parsed command: its canonical name, its raw arguments and parsed data."""

    __slots__ = ("args", "data", "index", "name")

    def __init__(self, name: str, args: str, index: int, data: Any = None) -> None:
        self.name = name
        self.args = args
        self.index = index
        self.data = data


def parse_prompt(prompt: str, prefixes: Sequence[str] = DEFAULT_PREFIXES) -> list[Command] | None:
    """The commands of a command-mode prompt, or ``None`` for a normal prompt.

    Raises :class:`CodexUsageError` naming the command and what to write instead.
    """
    found = split_prefix(prompt, prefixes)
    if found is None:
        return None
    prefix, body = found
    body = body.lstrip()
    if prefix[-1].isalnum() and body.startswith(":"):
        body = body[1:]
    texts = split_commands(body, parens=prefix == "(")
    if not texts:
        return [Command("help", "", 1)]
    return [parse_command(text, n) for n, text in enumerate(texts, 1)]


def parse_command(text: str, index: int = 1) -> Command:
    """Parse one command text (``name args...``) and check its arguments."""
    head, _, args = text.partition(" ")
    if "\t" in head:
        head, _, more = head.partition("\t")
        args = f"{more} {args}" if args else more
    word = head.casefold()
    args = args.strip()
    name = ALIASES.get(word, word)
    if name not in HANDLERS:
        raise CodexUsageError(
            f"command {index} ({head!r}): unknown command; "
            f"known commands: {', '.join(sorted(HANDLERS))} (try 'help')"
        )
    cmd = Command(name, args, index)
    check = CHECKS.get(name)
    if check is not None:
        cmd.data = check(cmd)
    return cmd


def command_steps(commands: Sequence[Command], turn: CodexTurn) -> Iterator[Step]:
    """The steps of a parsed command sequence, in order."""
    for cmd in commands:
        name = cmd.name
        if name == "emit":
            yield cmd.data
        elif name == "notify":
            yield Raw(cmd.data)
        elif name == "sleep":
            yield Sleep(cmd.data)
        else:
            yield from HANDLERS[name](turn, cmd)


def has_session(commands: Sequence[Command]) -> bool:
    """Whether the sequence emits its own ``session_configured``."""
    return any(
        c.name == "session" or (c.name == "emit" and c.data.get("type") == "session_configured")
        for c in commands
    )


# ---- argument checks (run at parse time) ---------------------------------


def _bad(cmd: Command, why: str) -> CodexUsageError:
    return CodexUsageError(f"command {cmd.index} ({cmd.name}): {why}")


def _json_arg(cmd: Command, what: str) -> Any:
    if not cmd.args:
        raise _bad(cmd, f"needs {what}")
    try:
        return json.loads(cmd.args)
    except ValueError as exc:
        raise _bad(cmd, f"bad JSON ({exc}); it needs {what}") from None


def _check_emit(cmd: Command) -> Any:
    event = _json_arg(cmd, 'an EventMsg JSON object, e.g. emit {"type":"warning","message":"hi"}')
    problem = check_event(event)
    if problem is not None:
        raise _bad(cmd, problem)
    return event


def _check_notify(cmd: Command) -> Any:
    value = _json_arg(cmd, 'a JSON value, e.g. notify {"jsonrpc":"2.0","method":"x","params":{}}')
    if not isinstance(value, dict):
        raise _bad(cmd, "needs a JSON object (a JSON-RPC notification)")
    return value


def _check_sleep(cmd: Command) -> int:
    try:
        ms = int(cmd.args)
    except ValueError:
        raise _bad(cmd, f"needs a whole number of milliseconds, got {cmd.args!r}") from None
    if ms < 0:
        raise _bad(cmd, "milliseconds cannot be negative")
    if ms > MAX_PAUSE_MS:
        raise _bad(cmd, f"at most {MAX_PAUSE_MS} ms (one day), got {ms}")
    return ms


_APPROVAL_WORDS = {"approvals": True, "approval": True, "no-approvals": False, "no-approval": False}


def _check_exec(cmd: Command) -> tuple[bool | None, bool, int, str]:
    """``exec [approvals|no-approvals|declined] [exit=N] [COMMAND...]``."""
    approvals: bool | None = None
    declined = False
    exit_code = 0
    words = cmd.args.split()
    while words:
        word = words[0].casefold()
        if word in _APPROVAL_WORDS:
            approvals = _APPROVAL_WORDS[word]
        elif word == "declined":
            declined = True
        elif word.startswith("exit="):
            try:
                exit_code = int(word[5:])
            except ValueError:
                raise _bad(cmd, f"exit=N needs an integer, got {words[0]!r}") from None
        else:
            break
        words.pop(0)
    return approvals, declined, exit_code, " ".join(words) or "echo fake output"


def _check_patch(cmd: Command) -> tuple[bool | None, str, str]:
    """``patch [approvals|no-approvals] [add|update|delete] [PATH]``."""
    approvals: bool | None = None
    kind = "add"
    words = cmd.args.split()
    while words:
        word = words[0].casefold()
        if word in _APPROVAL_WORDS:
            approvals = _APPROVAL_WORDS[word]
        elif word in ("add", "update", "delete"):
            kind = word
        else:
            break
        words.pop(0)
    return approvals, kind, " ".join(words) or "fake_agent_notes.md"


def _check_mcp(cmd: Command) -> tuple[str, str, Any]:
    """``mcp [SERVER.TOOL] [JSON arguments]``."""
    target, _, rest = cmd.args.partition(" ")
    if target.startswith(("{", "[")):
        target, rest = "", cmd.args
    server, _, tool = (target or "fake.echo").partition(".")
    arguments: Any = {"text": "mcp payload"}
    if rest.strip():
        try:
            arguments = json.loads(rest)
        except ValueError as exc:
            raise _bad(cmd, f"bad JSON arguments ({exc})") from None
    return server, tool or "echo", arguments


CHECKS: dict[str, Callable[[Command], Any]] = {
    "emit": _check_emit,
    "notify": _check_notify,
    "sleep": _check_sleep,
    "exec": _check_exec,
    "patch": _check_patch,
    "mcp": _check_mcp,
}

# ---- handlers (run at emit time) -----------------------------------------


def _exec(turn: CodexTurn, cmd: Command) -> list[CodexEvent]:
    approvals, declined, exit_code, text = cmd.data
    argv = text.split()
    if argv[0] == "echo":
        stdout = text[4:].strip() + "\n"
    else:
        stdout = f"(fake-codex simulated `{text}`; nothing was run)\n"
    return build.exec_command(
        turn,
        build.shell_argv(text),
        stdout=stdout if exit_code == 0 else "",
        stderr="" if exit_code == 0 else f"{argv[0]}: simulated failure (exit {exit_code})\n",
        exit_code=exit_code,
        approvals=turn.approvals if approvals is None else approvals,
        declined=declined,
    )


def _patch(turn: CodexTurn, cmd: Command) -> list[CodexEvent]:
    approvals, kind, path = cmd.data
    change = build.file_change(
        kind,
        content=f"fake-codex {kind} {path.rsplit('/', 1)[-1]}\n",
        diff="@@ -1 +1 @@\n-old line\n+new line\n",
    )
    return build.apply_patch(
        turn, {path: change}, approvals=turn.approvals if approvals is None else approvals
    )


def _mcp(turn: CodexTurn, cmd: Command) -> list[CodexEvent]:
    server, tool, arguments = cmd.data
    return build.mcp_call(turn, server, tool, arguments)


def _web(turn: CodexTurn, cmd: Command) -> list[CodexEvent]:
    return build.web_search(turn, cmd.args or "fake query")


def _reasoning(turn: CodexTurn, cmd: Command) -> list[CodexEvent]:
    return build.reasoning(turn, cmd.args or "Thinking about the request.")


def _message(turn: CodexTurn, cmd: Command) -> list[CodexEvent]:
    return build.message(turn, cmd.args or "done")


def _note(etype: str, default: str) -> Handler:
    def handler(turn: CodexTurn, cmd: Command) -> list[CodexEvent]:
        return [build.note(etype, cmd.args or default)]

    return handler


def _errors(turn: CodexTurn, cmd: Command) -> list[CodexEvent]:
    return [
        build.note("warning", "fake warning: something looks off"),
        build.note("stream_error", "fake stream error: reconnecting... 1/5"),
    ]


def _plan(turn: CodexTurn, cmd: Command) -> list[CodexEvent]:
    steps = [s.strip() for s in cmd.args.split("|") if s.strip()]
    return [build.plan_update(steps or ["Read the code", "Make the change", "Run the tests"])]


def _user(turn: CodexTurn, cmd: Command) -> list[CodexEvent]:
    return [{"type": "user_message", "message": cmd.args or "hello", "images": None}]


def _session(turn: CodexTurn, cmd: Command) -> list[CodexEvent]:
    event = dict(turn.session)
    if cmd.args:
        event["session_id"] = cmd.args
    return [event]


def _help(turn: CodexTurn, cmd: Command) -> list[CodexEvent]:
    return build.message(turn, HELP_TEXT)


def _unreachable(turn: CodexTurn, cmd: Command) -> list[CodexEvent]:
    raise AssertionError(cmd.name)  # emit/notify/sleep are handled in command_steps


HANDLERS: dict[str, Handler] = {
    "help": _help,
    "exec": _exec,
    "patch": _patch,
    "mcp": _mcp,
    "web_search": _web,
    "reasoning": _reasoning,
    "message": _message,
    "warning": _note("warning", "fake warning"),
    "error": _note("error", "fake error"),
    "stream_error": _note("stream_error", "fake stream error: reconnecting... 1/5"),
    "errors": _errors,
    "background": _note("background_event", "fake background event"),
    "plan": _plan,
    "user": _user,
    "session": _session,
    "emit": _unreachable,
    "notify": _unreachable,
    "sleep": _unreachable,
}

ALIASES = {
    "?": "help",
    "apply_patch": "patch",
    "exec_command": "exec",
    "web": "web_search",
    "search": "web_search",
    "msg": "message",
    "think": "reasoning",
    "background_event": "background",
    "todo": "plan",
    "session_configured": "session",
}

HELP_TEXT = """fake-codex command mode. Start the prompt with help, ? or ( and separate commands with ; or newlines:
  exec [approvals|no-approvals|declined] [exit=N] [CMD]  simulated command (never run)
  patch|apply_patch [approvals] [add|update|delete] [PATH]  simulated patch (no file written)
  mcp [SERVER.TOOL] [JSON]     MCP tool call
  web|web_search|search [Q]    web search
  reasoning|think [TEXT]       reasoning deltas
  message|msg [TEXT]           assistant message deltas + agent_message
  warning|error|stream_error|background [TEXT]; errors (a warning and a stream error)
  plan [STEP | STEP ...]       plan_update (a to-do list)
  user [TEXT]                  user_message
  session                      session_configured
  sleep MS                     pause
  emit {EventMsg JSON}         any event (known types are checked)
  notify {JSON}                a raw line, e.g. a JSON-RPC notification"""
