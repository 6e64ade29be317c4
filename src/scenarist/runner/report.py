"""Reports of a set of runs: terminal lines, JUnit XML, one self-contained HTML page.

The terminal gets each run's line (and its failures) as the run ends, :func:`print_result`,
then the totals, :func:`print_totals`, so a CI log streams. A JUnit failure carries every
failure line, each golden diff, the screen at each failed step and the last screen: what a
CI page shows is enough to see why. The HTML page needs nothing beside it (styles inline, no
scripts, no fonts or images to fetch): each scenario's timeline, every screenshot drawn as
the screen looked (colours and attributes from the capture), every assertion with its
outcome, and for a failed run each failure with its screen and diff. JUnit, HTML and
:func:`jsonl_line` are pure functions of the results.
"""

from __future__ import annotations

import html
import json
import xml.etree.ElementTree as ET
from collections.abc import Sequence

from rich.console import Console
from rich.markup import escape

from scenarist.processes import describe
from scenarist.runner.result import Failure, RunResult, StepResult
from scenarist.runner.screen import ScreenCapture, StyleRun, styles_by_row

__all__ = ["failure_text", "html_report", "jsonl_line", "junit_xml", "print_result",
           "print_summary", "print_totals", "screen_html", "screen_text"]

_MARK = {"passed": "✓", "failed": "✗", "skipped": "–"}
_RICH = {"passed": "green", "failed": "red", "skipped": "yellow"}

# xterm's 16 colours, by pyte's names.
_PALETTE = {
    "black": "#000000", "red": "#cd0000", "green": "#00cd00", "brown": "#cdcd00",
    "yellow": "#cdcd00", "blue": "#0000ee", "magenta": "#cd00cd", "cyan": "#00cdcd",
    "white": "#e5e5e5", "brightblack": "#7f7f7f", "brightred": "#ff0000",
    "brightgreen": "#00ff00", "brightbrown": "#ffff00", "brightyellow": "#ffff00",
    "brightblue": "#5c5cff", "brightmagenta": "#ff00ff", "brightcyan": "#00ffff",
    "brightwhite": "#ffffff",
}
_DEFAULT_FG = "#d4d4d4"
_DEFAULT_BG = "#1e1e1e"


def print_result(result: RunResult, console: Console) -> None:
    """One run's line, its failures under it and where its logs are (as the run ends)."""
    colour = _RICH[result.outcome]
    console.print(f"[{colour}]{_MARK[result.outcome]}[/] {escape(result.name)} "
                  f"[dim]({escape(result.profile or '-')}, {result.duration_ms / 1000:.2f} s)"
                  "[/]")
    for line in result.failures:
        console.print("    " + escape(line), style="red", highlight=False)
    if result.left_behind:
        console.print("    left running, stopped: " + escape(describe(result.left_behind)),
                      style="yellow", highlight=False)
    if result.outcome == "failed" and result.log_dir:
        console.print(f"    logs: {escape(result.log_dir)}", style="dim", highlight=False)


def print_totals(results: Sequence[RunResult], console: Console) -> None:
    """The totals line, after every run has been printed."""
    failed = sum(r.outcome == "failed" for r in results)
    passed = sum(r.outcome == "passed" for r in results)
    style = "red" if failed else "green"
    console.print(f"[{style}]{passed} passed, {failed} failed[/] of {len(results)} scenario(s)")


def print_summary(results: Sequence[RunResult], console: Console) -> None:
    """Every run's lines, then the totals."""
    for result in results:
        print_result(result, console)
    print_totals(results, console)


def jsonl_line(result: RunResult) -> str:
    """One run as one JSON line (``--format jsonl``): name, outcome, failures, paths."""
    return json.dumps({"name": result.name, "path": result.path, "outcome": result.outcome,
                       "profile": result.profile, "duration_ms": round(result.duration_ms, 1),
                       "exit_code": result.exit_code, "stopped_by_runner": result.stopped,
                       "failures": result.failures,
                       "log_dir": result.log_dir}, ensure_ascii=False)


def screen_text(capture: ScreenCapture) -> str:
    """A capture as plain text in a frame, trailing blank rows dropped (for JUnit and logs)."""
    lines = list(capture.lines)
    while lines and not lines[-1]:
        lines.pop()
    edge = "+" + "-" * capture.width + "+"
    return "\n".join([edge, *(f"|{row.ljust(capture.width)}|" for row in lines), edge])


def failure_text(result: RunResult) -> str:
    """What a JUnit ``failure``/``error`` holds: every failure line, then each golden diff
    and the screen at each failed step, then the last screen."""
    details = result.failure_details()
    parts = ["\n".join(f.line for f in details)]
    last = result.final_screen
    shown = {last.lines} if last is not None else set()
    for failure in details:
        if failure.diff:
            parts.append(f"--- golden diff: {failure.line}\n{failure.diff.rstrip()}")
        screen = failure.screen
        if screen is not None and screen.lines not in shown:  # each distinct screen once
            shown.add(screen.lines)
            parts.append(f"--- the screen at: {failure.line}\n{screen_text(screen)}")
    if result.final_screen is not None:
        parts.append(f"--- the last screen ({result.final_screen.width}x"
                     f"{result.final_screen.height})\n{screen_text(result.final_screen)}")
    return "\n\n".join(parts)


def junit_xml(results: Sequence[RunResult], suite: str = "scenarist run") -> str:
    """JUnit XML: one ``testcase`` per run; a run that could not start is an ``error``."""
    root = ET.Element("testsuites")
    tree = ET.SubElement(root, "testsuite", {
        "name": suite, "tests": str(len(results)),
        "failures": str(sum(r.outcome == "failed" and not r.errors for r in results)),
        "errors": str(sum(bool(r.errors) for r in results)),
        "skipped": str(sum(r.outcome == "skipped" for r in results)),
        "time": f"{sum(r.duration_ms for r in results) / 1000:.3f}"})
    for result in results:
        case = ET.SubElement(tree, "testcase", {
            "classname": f"{result.runner}.{result.profile or 'unknown'}", "name": result.name,
            "file": result.path, "time": f"{result.duration_ms / 1000:.3f}"})
        failures = result.failures
        if result.errors:
            ET.SubElement(case, "error", {"message": failures[0][:500]}).text = \
                failure_text(result)  # failures: a model server's refusal, then the errors
        elif result.outcome == "failed":
            ET.SubElement(case, "failure", {"message": failures[0][:500] if failures else
                                            "failed"}).text = failure_text(result)
        elif result.outcome == "skipped":
            ET.SubElement(case, "skipped")
        lines = [f"logs: {result.log_dir}", f"exit code: {result.exit_text}"]
        if result.left_behind:
            lines.append(f"left running, stopped: {describe(result.left_behind)}")
        lines += [f"{s.fired_ms:9.1f} ms {s.kind} {s.label}: {s.outcome} {s.message}".rstrip()
                  for s in result.steps]
        ET.SubElement(case, "system-out").text = "\n".join(lines)
    ET.indent(root)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(root, "unicode") + "\n"


def _colour(name: str, default: str) -> str:
    if name == "default":
        return default
    if name in _PALETTE:
        return _PALETTE[name]
    if len(name) == 6 and all(c in "0123456789abcdefABCDEF" for c in name):
        return "#" + name.lower()
    return default


def _run_css(run: StyleRun) -> str:
    fg, bg = _colour(run.fg, _DEFAULT_FG), _colour(run.bg, _DEFAULT_BG)
    if "reverse" in run.flags:
        fg, bg = bg, fg
    css = [f"color:{fg}", f"background:{bg}"]
    if "bold" in run.flags:
        css.append("font-weight:bold")
    if "italics" in run.flags:
        css.append("font-style:italic")
    lines = [n for f, n in (("underscore", "underline"), ("strikethrough", "line-through"))
             if f in run.flags]
    if lines:
        css.append("text-decoration:" + " ".join(lines))
    return ";".join(css)


def screen_html(capture: ScreenCapture, title: str = "") -> str:
    """A capture as a ``<pre>`` of coloured spans, the size of the terminal."""
    by_row = styles_by_row(capture.styles)
    rows = []
    for y, row in enumerate(capture.rows):
        cells = row.ljust(capture.width)
        parts, x = [], 0
        for run in sorted(by_row.get(y, []), key=lambda r: r.first):
            parts.append(html.escape(cells[x:run.first]))
            parts.append(f'<span style="{_run_css(run)}">'
                         f"{html.escape(cells[run.first:run.last + 1])}</span>")
            x = run.last + 1
        parts.append(html.escape(cells[x:]))
        rows.append("".join(parts))
    label = f' aria-label="{html.escape(title)}"' if title else ""
    return (f'<pre class="screen" data-width="{capture.width}" data-height="{capture.height}"'
            f'{label}>' + "\n".join(rows) + "</pre>")


def _diff_html(diff: str) -> str:
    lines = []
    for line in diff.splitlines():
        cls = ("add" if line.startswith("+") and not line.startswith("+++") else
               "del" if line.startswith("-") and not line.startswith("---") else "")
        lines.append(f'<span class="{cls}">{html.escape(line)}</span>' if cls
                     else html.escape(line))
    return '<pre class="diff">' + "\n".join(lines) + "</pre>"


def _step_html(step: StepResult) -> str:
    parts = [f'<tr class="{step.outcome}"><td>{step.at_ms}</td><td>{step.scheduled_ms:.1f}</td>'
             f"<td>{step.fired_ms:.1f}</td><td>{html.escape(step.kind)}</td>"
             f"<td>{html.escape(step.label)}</td><td>{_MARK[step.outcome]} {step.outcome}</td>"
             f"<td>{html.escape(step.message)}</td></tr>"]
    detail = []
    if step.checks:
        detail.append("<ul class=checks>" + "".join(
            f'<li class="{c.outcome}">{_MARK[c.outcome]} {html.escape(c.label)}: '
            f"{html.escape(c.message)}</li>" for c in step.checks) + "</ul>")
    if step.capture is not None and step.kind == "screenshot":
        detail.append(f"<figure><figcaption>screenshot {html.escape(step.label)} "
                      f"({html.escape(step.golden or '')})</figcaption>"
                      f"{screen_html(step.capture, step.label)}</figure>")
    elif step.capture is not None and step.outcome == "failed":
        detail.append(f"<figure><figcaption>the screen</figcaption>"
                      f"{screen_html(step.capture)}</figure>")
    if step.diff:
        detail.append(_diff_html(step.diff))
    if detail:
        parts.append(f'<tr class="detail"><td colspan="7">{"".join(detail)}</td></tr>')
    return "".join(parts)


def _failures_html(failures: Sequence[Failure]) -> str:
    """Each failure with the screen at that moment and its golden diff, first in a run."""
    items = []
    for failure in failures:
        parts = [f"<pre class=error>{html.escape(failure.line)}</pre>"]
        if failure.screen is not None:
            parts.append(screen_html(failure.screen, failure.line))
        if failure.diff:
            parts.append(_diff_html(failure.diff))
        items.append(f"<li>{''.join(parts)}</li>")
    return f"<h3>failures</h3><ol class=failures>{''.join(items)}</ol>"


def _run_html(result: RunResult) -> str:
    head = (f'<section class="run {result.outcome}" id="{html.escape(result.name)}">'
            f"<h2>{_MARK[result.outcome]} {html.escape(result.name)}</h2>"
            f"<p class=meta>{html.escape(result.path)} · profile {html.escape(result.profile)} · "
            f"{result.duration_ms / 1000:.2f} s · exit code {html.escape(result.exit_text)} · logs "
            f"<code>{html.escape(result.log_dir)}</code></p>"
            f"<p class=meta>program: <code>{html.escape(' '.join(result.argv))}</code></p>")
    body = [head]
    if result.outcome == "failed":
        body.append(_failures_html(result.failure_details()))
    body.append("<table class=timeline><thead><tr><th>at ms</th><th>scheduled</th>"
                "<th>fired</th><th>event</th><th>label</th><th>outcome</th><th>detail</th>"
                "</tr></thead><tbody>" + "".join(_step_html(s) for s in result.steps) +
                "</tbody></table>")
    if result.expectations:
        body.append("<h3>expect</h3><ul class=checks>" + "".join(
            f'<li class="{c.outcome}">{_MARK[c.outcome]} {html.escape(c.label)}: '
            f"{html.escape(c.message)}</li>" for c in result.expectations) + "</ul>")
    if result.left_behind:
        body.append("<p class=meta>left running, stopped: <code>"
                    f"{html.escape(describe(result.left_behind))}</code></p>")
    if result.sessions:
        body.append("<p class=meta>sessions: " + ", ".join(
            html.escape(f"{sid} {status}{' merged' if merged else ''}")
            for sid, status, merged in result.sessions) + "</p>")
    if result.final_screen is not None:
        body.append("<figure><figcaption>final screen</figcaption>"
                    f"{screen_html(result.final_screen, 'final screen')}</figure>")
    return "".join(body) + "</section>"


_CSS = f"""
body{{font-family:system-ui,sans-serif;margin:1.5em;color:#222}}
.summary .passed,.passed>h2,li.passed{{color:#18794e}} .failed>h2,li.failed{{color:#c62828}}
li.skipped{{color:#8a6d00}}
.meta{{color:#555;font-size:90%}}
table.timeline{{border-collapse:collapse;font-size:90%}}
.timeline td,.timeline th{{border-bottom:1px solid #ddd;padding:2px 6px;text-align:left;
vertical-align:top}}
tr.failed td{{background:#fdecea}}
pre.screen{{display:inline-block;background:{_DEFAULT_BG};color:{_DEFAULT_FG};padding:6px;
font:13px/1.2 "DejaVu Sans Mono",monospace;white-space:pre;margin:4px 0}}
pre.diff{{background:#f6f8fa;padding:6px;font-size:12px}}
pre.diff .add{{color:#18794e}} pre.diff .del{{color:#c62828}}
pre.error{{background:#fdecea;padding:6px;white-space:pre-wrap}}
section.run{{border-top:2px solid #ccc;margin-top:1.5em}}
"""


def html_report(results: Sequence[RunResult], title: str = "scenarist run") -> str:
    """One self-contained HTML page for ``results``."""
    failed = sum(r.outcome == "failed" for r in results)
    rows = "".join(
        f'<li class="{r.outcome}"><a href="#{html.escape(r.name)}">{_MARK[r.outcome]} '
        f"{html.escape(r.name)}</a> ({html.escape(r.profile)}, {r.duration_ms / 1000:.2f} s)</li>"
        for r in results)
    return (f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
            f"<title>{html.escape(title)}</title><style>{_CSS}</style></head><body>"
            f"<h1>{html.escape(title)}</h1><p class=summary>{len(results) - failed} passed, "
            f"{failed} failed of {len(results)}</p><ul class=summary>{rows}</ul>"
            + "".join(_run_html(r) for r in results) + "</body></html>\n")
