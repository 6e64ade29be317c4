"""aider's edit formats: file changes as *SEARCH/REPLACE blocks* or *file listings* in the text.

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

With its ``whole`` edit format (the default for models aider does not know, such as a mock's)
it asks instead for a *file listing*: the path on its own line, then the file's entire new
content between fences. Its instructions name the format, which is how a request says which
one it wants (:func:`edit_format`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

HEAD, DIVIDER, UPDATED = "<<<<<<< SEARCH", "=======", ">>>>>>> REPLACE"
EditFormat = Literal["diff", "whole"]


def edit_format(instructions: Iterable[str]) -> EditFormat | None:
    """The edit format aider's instructions ask for, or None when they are not aider's."""
    texts = tuple(instructions)
    if any("SEARCH/REPLACE block" in t for t in texts):
        return "diff"
    if any("*file listing*" in t for t in texts):
        return "whole"
    return None


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


def file_listing(path: str, content: str) -> str:
    """The whole new ``content`` of ``path``, as aider's ``whole`` format takes it."""
    fence = fence_for(content)
    return f"{path}\n{fence}\n{_section(content)}{fence}\n"
