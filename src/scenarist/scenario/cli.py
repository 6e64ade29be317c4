"""``scenarist timeline | schema``: the scenario format on the command line.

``validate`` and ``select`` live in modules of their own (:mod:`.validate_cli`,
:mod:`.select_cli`) and are re-exported here. Exit codes (docs/cli.md): 0 ok, 2 a usage or
input error (for ``timeline``, a scenario that does not load is input). Imports stay light
(no web frameworks, no pydantic).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, assert_never

from scenarist.scenario.cli_parser import (
    EXIT_USAGE,
    Parser,
    add_defines,
    add_format,
    add_outside_paths,
    add_speed,
    checked_speed,
    define_symbols,
    output_file,
    run,
    write_output,
)
from scenarist.scenario.select_cli import select_main
from scenarist.scenario.validate_cli import validate_main

if TYPE_CHECKING:
    from scenarist.scenario.beats import Beat

__all__ = ["beat_json", "schema_main", "select_main", "timeline_main", "validate_main"]


def beat_json(beat: Beat, at_ms: int) -> dict[str, Any]:
    """A beat as JSON: at_ms, kind, index, live, plus what the step or event says."""
    from scenarist.scenario import beats as b
    from scenarist.scenario.model import content_text
    from scenarist.scenario.tools import tool_args

    out: dict[str, Any] = {"at_ms": at_ms, "kind": beat.kind, "index": beat.index,
                           "live": beat.live}
    match beat:
        case b.ThinkBeat(step=step) | b.AssistantBeat(step=step):
            out["text"] = step.text
            if step.content.type != "text":
                out["content_type"] = step.content.type
        case b.PromptBeat(step=entry):
            out["text"] = content_text(entry.content)
        case b.ProgressBeat(step=progress):
            out["text"] = progress.message
        case b.ToolExecutionBeat(step=ev):
            out["stream"] = ev.type
            out["text"] = ev.content
            if ev.exit_code is not None:
                out["exit_code"] = ev.exit_code
        case b.ErrorBeat(step=error):
            out["error_type"] = error.error_type
            out["status_code"] = error.status_code
            out["text"] = error.message
        case b.FaultBeat(step=fault):
            from scenarist.faults import describe

            out["fault"] = describe(fault)
        case b.StatusBeat(event=e):
            out["text"] = e.status
        case b.LogBeat(event=e):
            out["text"] = e.message
        case b.ScreenshotBeat(event=e):
            out["text"] = e.label
        case b.AgentEditsBeat(event=e):
            out["text"] = e.path
        case b.UserCommandBeat(event=e):
            out["text"] = e.cmd
        case b.SetModeBeat(event=e):
            out["text"] = e.mode_id
        case b.SetModelBeat(event=e):
            out["text"] = e.model_id
        case b.SessionStartBeat(event=e):
            if e.session_id is not None:
                out["text"] = e.session_id
        case b.UserEditsBeat(event=e):
            out["text"] = e.patch
        case b.ApplyPatchBeat(event=e):
            out["text"] = e.path
            if e.commit:
                out["commit"] = e.commit_message
        case b.ToolStartBeat(event=use):
            out["tool"] = use.tool.name
            out["tool_call_id"] = use.tool_call_id
            args = tool_args(use.tool)
            out["args"] = args if _jsonable(args) else str(args)
        case b.ToolResultBeat(event=use):
            out["tool"] = use.tool.name
            out["tool_call_id"] = use.tool_call_id
            out["status"] = use.status
            if _jsonable(use.result):
                out["result"] = use.result
        case (b.AgentPlanBeat() | b.AgentFileReadsBeat() | b.AgentPermissionRequestBeat()
              | b.UserCancelSessionBeat() | b.InitializeBeat() | b.AssertBeat()
              | b.CompleteBeat() | b.MergeBeat()):
            pass  # the kind says it all
        case _:
            assert_never(beat)
    return out



def _jsonable(value: Any) -> bool:
    try:
        json.dumps(value)
    except (TypeError, ValueError):
        return False
    return True


def _summary(entry: dict[str, Any]) -> str:
    from scenarist.json_out import as_text  # orjson: only the timeline table needs it

    for key in ("text", "tool", "fault"):
        if key in entry:
            value = entry[key]
            text = as_text(value)
            if key == "tool":  # a call shows its arguments, a result its status and output
                detail = entry["args"] if "args" in entry else {
                    k: entry[k] for k in ("status", "result") if entry.get(k) is not None}
                text = f"{value} {json.dumps(detail, ensure_ascii=False)}"
            if "commit" in entry:
                text += f" → commit {entry['commit']!r}"
            text = " ".join(text.split())
            return text if len(text) <= 70 else text[:67] + "..."
    return ""


def timeline_main(argv: Sequence[str]) -> int:
    """Print a scenario's compiled schedule: a table, or ``--json`` beats ordered by time."""
    parser = Parser(prog="scenarist timeline", description="Show the compiled timeline.")
    parser.add_argument("path", metavar="FILE", help="a scenario file")
    add_format(parser, ("text", "json"), "a table, or a JSON array of beats")
    parser.add_argument("--json", dest="format", action="store_const", const="json",
                        help="the same as --format json")
    add_speed(parser, what="scale the times by F")
    add_defines(parser)
    add_outside_paths(parser)
    parser.add_argument("--strict", action="store_true", help="treat warnings as errors")

    def body(args: argparse.Namespace) -> int:
        from scenarist.play.pacing import clamp_speed, schedule_ms
        from scenarist.scenario.errors import ScenarioError
        from scenarist.scenario.load import load_scenario
        from scenarist.scenario.timeline import compile_timeline

        speed = clamp_speed(checked_speed(parser, args))  # the player's rule, so the table shows what plays
        symbols = define_symbols(parser, args)
        try:
            scenario = load_scenario(args.path, defines=symbols, strict=args.strict,
                                     allow_outside_paths=args.allow_outside_paths)
        except ScenarioError as exc:
            for issue in exc.issues:
                print(issue, file=sys.stderr)
            return EXIT_USAGE
        for issue in scenario.warnings:
            print(issue, file=sys.stderr)
        timeline = compile_timeline(scenario)
        def played(at_ms: int) -> int:  # where the player puts it, from a start at 0
            return round(schedule_ms(at_ms, t0_ms=0.0, speed=speed))

        rows = [beat_json(b, played(b.at_ms)) for b in timeline.beats]
        if args.format == "json":
            json.dump(rows, sys.stdout, ensure_ascii=False, indent=1, default=str)
            sys.stdout.write("\n")
            return 0
        print(f"{scenario.name}: {len(rows)} beats, {played(timeline.duration_ms)} ms"
              + (f" (speed {speed:g})" if speed != 1.0 else ""))
        print(f"{'at_ms':>9}  {'#':>4}  {'phase':<5}  {'kind':<22}  what")
        for row in rows:
            phase = "live" if row["live"] else "hist"
            print(f"{row['at_ms']:>9}  {row['index']:>4}  {phase:<5}  {row['kind']:<22}  {_summary(row)}")
        return 0

    return run(parser, argv, body)


def schema_main(argv: Sequence[str]) -> int:
    """Print the JSON Schema of the scenario format (for yaml-language-server and editors)."""
    parser = Parser(prog="scenarist schema", description="Print the JSON Schema of the format.")
    parser.add_argument("-o", "--output", metavar="FILE", help="write to FILE instead of stdout")

    def body(args: argparse.Namespace) -> int:
        from scenarist.scenario.schema import scenario_schema

        text = json.dumps(scenario_schema(), indent=2, ensure_ascii=False) + "\n"
        output = output_file(parser, "--output", args.output)
        if output is not None:
            write_output(parser, "--output", output, text)
        else:
            sys.stdout.write(text)
        return 0

    return run(parser, argv, body)

