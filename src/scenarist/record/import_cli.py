"""``scenarist import FILE [-o OUT.yaml]``: a real agent session becomes a scenario.

The kind of session is read from the file (:mod:`.sessions`); the scenario is written to
``-o`` (a temporary file in the same folder, mode 0600, then renamed: a failure leaves
nothing half written) or to standard output. Exit 0 when written, 1 when the session
cannot be read (the message names file:line), 2 for a usage error.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from scenarist.errors import ScenaristError
from scenarist.files import write_private
from scenarist.scenario.cli_parser import EXIT_FAILED, EXIT_OK, Parser, output_file, run

__all__ = ["main"]

_KIND_NAMES = {"codex": "a Codex CLI session", "claude-code": "a Claude Code transcript",
               "acp": "an ACP session log"}


def main(argv: Sequence[str]) -> int:
    parser = Parser(prog="scenarist import",
                    description="Turn a real agent session (Codex CLI session file, Claude "
                    "Code transcript, ACP JSON-RPC log) into a scenario.")
    parser.add_argument("file", metavar="FILE", help="the session file (its kind is read "
                        "from its content)")
    parser.add_argument("-o", "--output", metavar="OUT.yaml",
                        help="write the scenario here (mode 0600) instead of standard output")
    parser.add_argument("--name", help="the scenario's name (default: the first prompt's "
                        "first words)")
    parser.add_argument("--normalise", "--normalize", dest="hooks", action="append",
                        default=[], metavar="MODULE:FUNCTION",
                        help="a str -> str function applied after the built-in normalisers "
                        "(repeatable)")
    parser.add_argument("--redact", action="append", default=[], metavar="REGEX",
                        help="also mask every match of REGEX (repeatable; API keys, "
                        "Authorization and cookies are always masked)")
    parser.add_argument("--no-builtin-normalisers", dest="builtin", action="store_false",
                        help="keep UUIDs, timestamps, dates, temporary folders and the "
                        "workspace path as they are (secrets are masked regardless)")

    def body(args: argparse.Namespace) -> int:
        import dataclasses

        from scenarist.record.normalise import normaliser, redactor
        from scenarist.record.sessions import read_session
        from scenarist.record.writer import write_scenario

        out = output_file(parser, "-o", args.output)
        try:
            apply = normaliser(None, args.hooks, builtin=args.builtin)  # hooks checked first
            mask = redactor(args.redact)
            kind, transcript = read_session(Path(args.file))
            if args.name:
                transcript = dataclasses.replace(transcript, name=args.name)
            apply = normaliser(transcript.cwd, args.hooks, builtin=args.builtin)
            text = write_scenario(transcript, normalise=apply, mask=mask, header=(
                f"Imported from {_KIND_NAMES[kind]} by `scenarist import`.\n"
                "Edit freely: scenarist validate checks it, scenarist llm replays it."))
        except ScenaristError as exc:
            print(f"scenarist import: error: {exc}", file=sys.stderr)
            return EXIT_FAILED
        if out is None:
            sys.stdout.write(text)
            return EXIT_OK
        try:
            write_private(out, text)
        except OSError as exc:
            parser.error(f"-o {out}: cannot write: {exc.strerror or exc}")
        print(f"wrote {out} ({len(transcript.turns)} turn(s), from {_KIND_NAMES[kind]})",
              file=sys.stderr)
        return EXIT_OK

    return run(parser, argv, body)
