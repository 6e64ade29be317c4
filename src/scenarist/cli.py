"""The ``scenarist`` command: one entry point, one subcommand per front end.

Subcommands are looked up in :data:`COMMANDS` and imported only when run, so that
``scenarist validate`` never pays for importing a web server and ``scenarist codex``
starts as fast as a bare interpreter allows.

Each subcommand is a function ``main(argv: list[str]) -> int`` in its own module; it
owns its argument parser and returns the process exit code (0 ok, 1 failure, 2 usage).
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence

# name -> ("package.module:function", one-line summary); plain tuples, no imports needed.
COMMANDS: dict[str, tuple[str, str]] = {
    "demo": ("scenarist.demo:main", "play a bundled scenario to a tiny agent via the mock model API"),
    "validate": ("scenarist.scenario.validate_cli:validate_main", "check scenario files"),
    "timeline": ("scenarist.scenario.cli:timeline_main", "show a compiled timeline"),
    "schema": ("scenarist.scenario.cli:schema_main", "print the JSON Schema of the format"),
    "select": ("scenarist.scenario.cli:select_main", "which scenario a prompt selects"),
    "llm": ("scenarist.llm.cli:main", "serve the mock model API (OpenAI/Anthropic)"),
    "codex": ("scenarist.codex.cli:main", "run the fake Codex agent"),
    "agent": ("scenarist.agent.cli:main", "play a scenario as an agent: real tools in a workspace"),
    "hub": ("scenarist.hub.cli:main", "serve the agent hub (WebSocket + web page)"),
    "run": ("scenarist.runner.cli:main", "play scenarios against a CLI/TUI in a terminal"),
    "rest": ("scenarist.rest.cli:main", "serve the Agent Harbor REST API + SSE sessions"),
    "acp": ("scenarist.acp.cli:acp_main", "run the mock ACP agent on stdio"),
    "acp-test": ("scenarist.acp.cli:acp_test_main", "play a scenario's client side against an ACP agent"),
}

USAGE = "usage: scenarist [-h] [--version] COMMAND [ARGS...]"


def _help() -> str:
    width = max(len(name) for name in COMMANDS)
    lines = [USAGE, "", "Deterministic stand-ins for AI coding agents and model APIs.", "", "commands:"]
    lines += [f"  {name:<{width}}  {summary}" for name, (_, summary) in COMMANDS.items()]
    lines += ["", "Run 'scenarist COMMAND --help' for the options of a command."]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in ("-h", "--help", "help"):
        print(_help())
        return 0 if args else 2
    if args[0] == "--version":
        from scenarist import __version__

        print(f"scenarist {__version__}")
        return 0
    name, rest = args[0], args[1:]
    command = COMMANDS.get(name)
    if command is None:
        print(f"{USAGE}\nscenarist: error: unknown command {name!r} (choose from {', '.join(COMMANDS)})",
              file=sys.stderr)
        return 2
    module_name, _, func_name = command[0].partition(":")
    __import__(module_name)
    func = getattr(sys.modules[module_name], func_name)
    try:
        return int(func(rest))
    except KeyboardInterrupt:
        return 130


def run() -> None:
    """Console-script entry point that exits with the subcommand's code."""
    sys.exit(main())


if __name__ == "__main__":
    run()
