"""aider's edit format: file changes as *SEARCH/REPLACE blocks* in the answer's text.

aider declares no tools. With its ``diff`` edit format (``--edit-format diff``, the default for
many models) it asks the model for blocks of this shape, and applies each to the file named on
the line before it::

    path/to/file.py
    ```
    <<<<<<< SEARCH
    lines as they are now (empty: a new file)
    =======
    the lines that replace them
    >>>>>>> REPLACE
    ```

The SEARCH part must match the file exactly and aider replaces its first occurrence, so the
caller passes a part that occurs once (or the whole file). A fence longer than any run of
backticks that starts a line of the content keeps a Markdown file's own fences inside.
Commands go in a fenced ``bash`` block, which aider offers to run.
"""

from __future__ import annotations

HEAD, DIVIDER, UPDATED = "<<<<<<< SEARCH", "=======", ">>>>>>> REPLACE"


def fence_for(*texts: str) -> str:
    """Three backticks, or one more than the longest run that starts a line of ``texts``."""
    longest = 0
    for text in texts:
        for line in text.splitlines():
            run = len(line) - len(line.lstrip("`"))
            longest = max(longest, run)
    return "`" * max(3, longest + 1)


def _section(text: str) -> str:
    return text if not text or text.endswith("\n") else text + "\n"


def search_replace(path: str, old: str, new: str) -> str:
    """One block that replaces ``old`` (its one occurrence; empty: create the file) with
    ``new`` in ``path``."""
    fence = fence_for(old, new)
    return (f"{path}\n{fence}\n{HEAD}\n{_section(old)}{DIVIDER}\n{_section(new)}{UPDATED}\n"
            f"{fence}\n")


def shell_block(command: str) -> str:
    """A command as aider expects one: a fenced ``bash`` block."""
    fence = fence_for(command)
    return f"{fence}bash\n{_section(command)}{fence}\n"
