"""Loading: text → raw data → rules resolved → typed, validated Scenario (+ its Timeline).

The only I/O is reading files. Every problem of a file is collected and raised together
as one :class:`ScenarioError`; nothing else escapes (an unexpected internal failure is
reported as an issue too, so callers can rely on the one exception type).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path

from scenarist.files import FileTooLarge, NotRegularFile, read_regular_bytes
from scenarist.scenario.errors import Issue, ScenarioError
from scenarist.scenario.events import parse_timeline
from scenarist.scenario.model import Event, Scenario, SessionStart, UserEdits, UserInputs
from scenarist.scenario.record import replace
from scenarist.scenario.report import OUTSIDE_HINT, Report
from scenarist.scenario.rules import Symbols, resolve_rules
from scenarist.scenario.screen_masks import parse_screen
from scenarist.scenario.sections import (
    TOP_KEYS,
    check_sessions,
    parse_acp,
    parse_ah,
    parse_expect,
    parse_repo,
    parse_server,
)
from scenarist.scenario.source import MISSING, parse_yaml
from scenarist.scenario.timeline import build_timeline

__all__ = ["MAX_FILE_BYTES", "effective_initial_prompt", "load_scenario", "load_scenario_text",
           "load_scenarios"]

#: Largest scenario file the loader reads (16 MiB); see docs/limits.md.
MAX_FILE_BYTES = 16 * 2**20

_EMPTY: Mapping[str, bool | int | str] = {}
_LEGACY_TOP = {
    "events": ("a top-level 'events' list is the legacy format and is not supported",
               "rename 'events:' to 'timeline:' and write each item as '- eventName: ...'"),
    "assertions": ("top-level 'assertions' are the legacy format and are not supported",
                   "put checks in the timeline: '- assert: {fs: {exists: [...]}}'"),
}


def effective_initial_prompt(events: Iterable[Event], legacy: str | None = None) -> str | None:
    """First text of the first userInputs after sessionStart, else of the first userInputs."""
    first: str | None = None
    after = False
    for event in events:
        if isinstance(event, SessionStart):
            after = True
        elif isinstance(event, UserInputs) and event.inputs:
            if after:
                return event.inputs[0].text
            if first is None:
                first = event.inputs[0].text
    return first if first is not None else legacy


def _build(text: str, file: str, base_dir: Path, symbols: Symbols, strict: bool,
           source_path: Path | None, allow_outside: bool) -> Scenario:
    source = parse_yaml(text, file)
    report = Report(source, base_dir, allow_outside)
    issues = source.issues
    root = source.root
    if any(i.severity == "error" for i in issues):
        raise ScenarioError(_finish(issues, strict))
    if not isinstance(root, dict):
        report.error(root, MISSING, "", "a scenario is a mapping of sections (name, timeline, ...)",
                     "start the file with 'name: my_scenario' and 'timeline:'")
        raise ScenarioError(_finish(issues, strict))
    if source.has_rules:
        root = resolve_rules(root, symbols, source, report)
        if not isinstance(root, dict):  # pragma: no cover - a mapping stays a mapping
            raise ScenarioError(_finish(issues, strict))
    for key, (message, hint) in _LEGACY_TOP.items():
        if key in root:
            report.error(root, key, key, message, hint, on_key=True)
    report.unknown_keys(root, TOP_KEYS | _LEGACY_TOP.keys(), "")
    name = report.string(root, "name", "", required=True, nonempty=True, example="my_scenario")
    repo = parse_repo(report, root)
    ah = parse_ah(report, root)
    server = parse_server(report, root)
    acp = parse_acp(report, root)
    expect = parse_expect(report, root)
    screen_masks = parse_screen(report, root)
    items = report.listing(root, "timeline", "", required="events" not in root)
    events = parse_timeline(report, items, acp.capabilities if acp else None) if items else []
    _confine_patches(report, events)
    check_sessions(report, root, acp, events)
    legacy = report.string(root, "initialPrompt", "")
    terminal_ref = report.string(root, "terminalRef", "")
    if terminal_ref:  # the runner's terminal profile: a file next to the scenario, like media
        report.local_path(root, "terminalRef", "", terminal_ref, "terminalRef")
    scenario = Scenario(
        name=name or "", timeline=tuple(events), tags=report.strings(root, "tags", ""),
        description=report.string(root, "description", ""),
        terminal_ref=terminal_ref, repo=repo, ah=ah, server=server, acp=acp, expect=expect,
        screen_masks=screen_masks, compat=report.mapping(root, "compat", "") or {},
        initial_prompt=legacy, effective_initial_prompt=effective_initial_prompt(events, legacy),
        source_path=source_path, warnings=[],
    )

    def problem(event: Event, sub: str, message: str, hint: str, line: int, col: int) -> None:
        path = event.key_path + (sub if not sub or sub.startswith("[") else "." + sub)
        report.at(line or event.line, col or event.col, path, message, hint)

    timeline = build_timeline(scenario, problem)
    final = _finish(issues, strict)
    if any(i.severity == "error" for i in final):
        raise ScenarioError(final)
    # the compiled timeline is kept: compile_timeline returns it
    return replace(scenario, warnings=final, compiled=timeline)


def _confine_patches(report: Report, events: list[Event]) -> None:
    """Hold ``userEdits`` patches to the folder rule of media (:meth:`Report.local_path`).

    The event parser resolves a patch and reports one that is missing; for a patch outside
    the folder that report is replaced by the one refusal, so the messages never tell
    whether a file exists outside."""
    for event in events:
        if not isinstance(event, UserEdits) or not report.outside(event.patch_path):
            continue
        paths = (event.key_path, event.key_path + ".patch")
        report.issues[:] = [i for i in report.issues
                            if not (i.path in paths and i.message.startswith("patch file "))]
        report.at(event.line, event.col, event.key_path + ".patch",
                  f"patch file {event.patch!r} is outside the scenario's folder", OUTSIDE_HINT)


def _finish(issues: list[Issue], strict: bool) -> list[Issue]:
    out = [i.as_error() for i in issues] if strict else list(issues)
    out.sort(key=lambda i: (i.line, i.col))
    return out


def _guarded(text: str, file: str, base_dir: Path, defines: Mapping[str, bool | int | str] | None,
             strict: bool, source_path: Path | None, allow_outside: bool) -> Scenario:
    try:
        return _build(text, file, base_dir, defines or _EMPTY, strict, source_path, allow_outside)
    except ScenarioError:
        raise
    except RecursionError:
        raise ScenarioError([Issue(file, 1, 1, "", "the document is nested too deeply",
                                   "flatten the structure")]) from None
    except Exception as exc:  # the contract: loading raises only ScenarioError
        raise ScenarioError([Issue(file, 1, 1, "", f"internal error while loading: "
                                   f"{type(exc).__name__}: {exc}",
                                   "please report this with the scenario file")]) from exc


def load_scenario_text(text: str, *, path: str | Path = "<string>",
                       defines: Mapping[str, bool | int | str] | None = None,
                       strict: bool = False, allow_outside_paths: bool = False) -> Scenario:
    """Load a scenario from YAML text; ``path`` names it in messages and anchors media paths.

    ``defines`` is the symbol table for ``rules`` (see :func:`parse_defines`; None means no
    symbols: the environment is read only by ``parse_defines``). ``strict`` turns warnings
    (unknown keys, read-as aliases) into errors. Media, patches and ``repo.dir`` must lie in
    the folder of ``path`` (the working directory for ``<string>``), symlinks followed,
    unless ``allow_outside_paths``.
    """
    file = str(path)
    p = Path(path) if file != "<string>" else None
    base_dir = p.parent if p is not None else Path.cwd()
    return _guarded(text, file, base_dir, defines, strict, p, allow_outside_paths)


def _read(path: Path) -> str:
    """The file's text: a regular file of at most :data:`MAX_FILE_BYTES` (a FIFO or a device
    such as /dev/zero would block or never end), opened without blocking."""
    file = str(path)
    try:
        raw = read_regular_bytes(path, MAX_FILE_BYTES)
    except NotRegularFile:
        raise ScenarioError([Issue(file, 1, 1, "", "not a regular file",
                                   "pass a scenario file (.yaml)")]) from None
    except FileTooLarge:
        raise ScenarioError([Issue(file, 1, 1, "", f"the file is larger than "
                                   f"{MAX_FILE_BYTES // 2**20} MiB, the most a scenario may be",
                                   "split it, or move media into files next to it")]) from None
    except FileNotFoundError:
        raise ScenarioError([Issue(file, 1, 1, "", "no such file", "check the path")]) from None
    except IsADirectoryError:
        raise ScenarioError([Issue(file, 1, 1, "", "this is a folder",
                                   "use load_scenarios() (or pass .yaml files)")]) from None
    except OSError as exc:
        raise ScenarioError([Issue(file, 1, 1, "", f"cannot read the file: {exc.strerror}",
                                   "check permissions")]) from None
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        before = raw[:exc.start]
        line = before.count(b"\n") + 1
        col = exc.start - (before.rfind(b"\n") + 1) + 1
        raise ScenarioError([Issue(file, line, col, "", "the file is not UTF-8 text",
                                   "save it as UTF-8")]) from None


def load_scenario(path: str | Path, *, defines: Mapping[str, bool | int | str] | None = None,
                  strict: bool = False, allow_outside_paths: bool = False) -> Scenario:
    """Load and validate one scenario file (media paths are relative to its folder and,
    unless ``allow_outside_paths``, inside it)."""
    p = Path(path)
    return _guarded(_read(p), str(path), p.parent, defines, strict, p, allow_outside_paths)


def scenario_files(paths: Iterable[str | Path]) -> list[Path]:
    """Files named, and ``.yaml``/``.yml`` files under folders (recursive, sorted)."""
    out: list[Path] = []
    for item in paths:
        p = Path(item)
        if p.is_dir():
            found = [Path(root) / f for root, _, files in os.walk(p) for f in files
                     if f.endswith((".yaml", ".yml"))]
            out.extend(sorted(found, key=lambda f: f.relative_to(p).parts))
        else:
            out.append(p)
    return out


def load_scenarios(paths: Iterable[str | Path], *,
                   defines: Mapping[str, bool | int | str] | None = None,
                   strict: bool = False, allow_outside_paths: bool = False) -> list[Scenario]:
    """Load files and folders (recursive, sorted, ``.yaml``/``.yml``).

    Every file is tried; if any fails, one ScenarioError carries the issues of all of them.
    """
    scenarios: list[Scenario] = []
    issues: list[Issue] = []
    for path in scenario_files(paths):
        try:
            scenarios.append(load_scenario(path, defines=defines, strict=strict,
                                           allow_outside_paths=allow_outside_paths))
        except ScenarioError as exc:
            issues.extend(exc.issues)
    if issues:
        raise ScenarioError(issues)
    return scenarios
