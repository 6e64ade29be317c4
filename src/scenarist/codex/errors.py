"""The one error type of the fake agent: bad input the user can fix."""

from __future__ import annotations

from scenarist.errors import UsageError


class CodexUsageError(UsageError):
    """A bad command, JSON value, option or config; the message says what and how to fix it.

    The CLI prints it as one ``fake-codex: ...`` line on stderr and exits 1, as codex does.
    """

    exit_status = 1
