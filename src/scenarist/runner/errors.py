"""The runner's one exception: a run could not be set up or carried on, with a fix."""

from __future__ import annotations

from scenarist.errors import ScenaristError

__all__ = ["RunnerError"]


class RunnerError(ScenaristError):
    """``scenarist run`` cannot go on: bad input or a program that misbehaves.

    The message says what, where (file and key when it is the scenario) and how to fix it;
    the command prints it and exits 1 (2 for usage errors), never a traceback.
    """
