"""One clock: no pacing loop exists outside ``scenarist.play``.

The rule, checked on the syntax tree of every module under ``src/scenarist`` except
``src/scenarist/play/`` (where time is kept):

- forbidden: a call of ``sleep`` (``time.sleep``, ``asyncio.sleep``, or either imported by
  name), of a clock's ``sleep_until`` / ``wait_until``, or of an event loop's
  ``call_later`` / ``call_at``, whose delay (first argument) is anything but a literal
  number. A computed delay is what a pacing loop is made of; pace through
  ``scenarist.play`` instead (``Player``, ``Schedule``, ``pace``, ``pace_sync``).
- allowed: a literal delay such as ``asyncio.sleep(0)`` (a yield) or ``asyncio.sleep(0.01)``
  (a fixed poll), and every timeout that bounds a wait instead of scheduling output
  (``asyncio.wait_for``, ``asyncio.timeout``, ``Event.wait``, ``subprocess`` timeouts):
  those are not calls of the names above.
- allowed by name, in :data:`NOT_PACING` below: computed waits that bound or retry
  something and pace no output. Each entry names the module and function and says why; a
  new one needs the same justification in review.
"""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "scenarist"
PLAY = SRC / "play"
WAITS = {"sleep", "sleep_until", "wait_until", "call_later", "call_at"}

NOT_PACING: dict[tuple[str, str], str] = {
    ("hub/process.py", "AgentProcess._wait_group_gone"):
        "polls, with a growing interval, until a killed process group is gone",
    ("hub/sessions.py", "AgentSession._fan_out"):
        "a backpressure window: reading resumes when the slowest pacing client catches up",
    ("hub/sessions.py", "AgentSession._arm_timer"): "the agent's run timeout",
    ("acp/client.py", "_exit_code"):
        "polls an agent's exit (Process.wait() also waits for pipes a leftover child holds)",
    ("demo.py", "Agent.turn"): "a client honouring the server's retry-after before retrying",
    ("rest/session.py", "Sessions._watch"):
        "looks for orphaned sessions every half lease term; paces no output",
    ("rest/session.py", "_Runner._renew"):
        "renews a session's lease every third of its term; paces no output",
}


def _called_name(call: ast.Call) -> str | None:
    func = call.func
    if isinstance(func, ast.Attribute):
        return func.attr
    if isinstance(func, ast.Name):
        return func.id
    return None


def _literal_delay(call: ast.Call) -> bool:
    if not call.args:
        return True  # no delay given at all (e.g. a method that happens to share the name)
    first = call.args[0]
    if isinstance(first, ast.UnaryOp) and isinstance(first.op, ast.USub):
        first = first.operand
    return isinstance(first, ast.Constant) and isinstance(first.value, int | float)


class _Finder(ast.NodeVisitor):
    """Computed waits, each with the qualified name of the function that makes it."""

    def __init__(self) -> None:
        self.scope: list[str] = []
        self.found: list[tuple[str, int, str]] = []

    def _enter(self, node: ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        self.scope.append(node.name)
        self.generic_visit(node)
        self.scope.pop()

    visit_ClassDef = visit_FunctionDef = visit_AsyncFunctionDef = _enter

    def visit_Call(self, node: ast.Call) -> None:
        name = _called_name(node)
        if name in WAITS and not _literal_delay(node):
            self.found.append((".".join(self.scope), node.lineno, name))
        self.generic_visit(node)


def computed_waits(root: Path) -> list[tuple[str, str, int, str]]:
    """``(module, function, line, call)`` of every computed wait outside ``play/``."""
    out: list[tuple[str, str, int, str]] = []
    for path in sorted(root.rglob("*.py")):
        if PLAY in path.parents:
            continue
        finder = _Finder()
        finder.visit(ast.parse(path.read_text(), str(path)))
        module = path.relative_to(root).as_posix()
        out.extend((module, function, line, call) for function, line, call in finder.found)
    return out


def test_no_pacing_loop_outside_play() -> None:
    offenders = [
        f"src/scenarist/{module}:{line}: {call}(<computed>) in {function or '<module>'}"
        for module, function, line, call in computed_waits(SRC)
        if (module, function) not in NOT_PACING
    ]
    assert not offenders, (
        "time is kept only by scenarist.play; pace through Player / Schedule / pace / "
        "pace_sync instead of sleeping here (or, for a timeout or retry that paces no "
        "output, add it to NOT_PACING with the reason):\n" + "\n".join(offenders))


def test_every_exception_is_still_needed() -> None:
    """An entry of NOT_PACING whose wait is gone must go too (the list stays honest)."""
    present = {(module, function) for module, function, _, _ in computed_waits(SRC)}
    assert set(NOT_PACING) <= present, sorted(set(NOT_PACING) - present)


def test_the_scan_finds_a_pacing_loop(tmp_path: Path) -> None:
    """The rule catches the shape it forbids and lets constant yields and timeouts through."""
    (tmp_path / "pacer.py").write_text(
        "import asyncio, time\n"
        "from asyncio import sleep\n"
        "async def stream(frames, clock):\n"
        "    for frame in frames:\n"
        "        await asyncio.sleep(frame.gap)\n"
        "        await sleep(frame.gap / 1000)\n"
        "        await clock.sleep_until(clock.now_ms() + frame.at_ms)\n"
        "        await asyncio.sleep(0)\n"
        "        await asyncio.wait_for(frame.done(), timeout=frame.limit)\n"
        "def blocking(gap):\n"
        "    time.sleep(gap)\n"
        "    time.sleep(0.01)\n"
        "    asyncio.get_running_loop().call_later(gap, print)\n")
    found = [(function, line, call) for _, function, line, call in computed_waits(tmp_path)]
    assert found == [
        ("stream", 5, "sleep"),
        ("stream", 6, "sleep"),
        ("stream", 7, "sleep_until"),
        ("blocking", 11, "sleep"),
        ("blocking", 13, "call_later"),
    ]
