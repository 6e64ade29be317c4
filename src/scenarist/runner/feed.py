"""Program output into the screen model (pyte), fast: text that would scroll off unseen is
not drawn.

pyte draws one character at a time (about 0.3 MB/s here), so a program printing 50 MB kept
the runner busy for minutes and failed every wait. Most of such output is plain text that
scrolls off the screen long before anyone looks at it. :class:`ScreenFeed` splits what the
program writes into *plain runs* (printable text, tab, CR, LF and colour/style sequences,
``CSI … m``) and everything else (other escape sequences and control characters, handed to
pyte at once and in order, so queries are answered and modes switch as before). Plain runs
are kept until the screen is looked at or something else comes; then only their tail is
drawn when that is provably the same screen:

- the screen scrolls as a whole (no scroll margins), pyte's parser is between sequences;
- the tail starts at a carriage return (column 0 whatever came before) and holds at least
  ``2 × rows`` line feeds: at most ``rows − 1`` bring the cursor to the bottom row from
  anywhere, the next ``rows`` scroll every earlier row off the screen;
- what the skipped text leaves behind besides screen content is the cursor (the tail puts
  it back in column 0 and at the bottom) and the style of the text to come, which is
  replayed: the skipped ``CSI … m`` sequences from the last full reset on.

``tests/runner/test_runner_feed.py`` checks the screen, cursor and style against pyte fed
every byte, over generated output. What was skipped still reaches the transcript (pty.log).
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Callable

import pyte

__all__ = ["ScreenFeed", "plain_tail_start"]

# printable text, TAB, LF, CR and SGR sequences; no other control, no C1 (possessive: one
# pass, no backtracking over megabytes)
_PLAIN = re.compile(r"(?:[^\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]++|\x1b\[[0-9;:]*+m)*+")
_SEQUENCE = re.compile(
    r"(?:\x1b\[|\x9b)[\x30-\x3f]*[\x20-\x2f]*[\x40-\x7e]"  # CSI
    r"|(?:\x1b\]|\x9d)[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)"  # OSC, ended by BEL or ST
    r"|\x1b[\x20-\x2f]*[\x30-\x5a\x5c\x5e-\x7e]"  # other escapes: ESC ( B, ESC 7, ESC # 8
    r"|[\x00-\x1a\x1c-\x1f\x7f-\x9a\x9c\x9e\x9f]"  # one control character
)
# the start of a sequence above, cut off by the end of a read
_UNFINISHED = re.compile(
    r"(?:(?:\x1b\[|\x9b)[\x30-\x3f]*[\x20-\x2f]*|(?:\x1b\]|\x9d)[^\x07\x1b\x9c]*\x1b?"
    r"|\x1b[\x20-\x2f]*)\Z")
_SGR = re.compile(r"\x1b\[[0-9;:]*m")
# the same test on the raw bytes of one read, at memory speed (a read is usually all plain)
_CONTROL_BYTES = bytes([*range(0x09), 0x0b, 0x0c, *range(0x0e, 0x1b), *range(0x1c, 0x20), 0x7f])
_C1_UTF8 = re.compile(rb"\xc2[\x80-\x9f]")
_SGR_BYTES = re.compile(rb"\x1b\[[0-9;:]*m")
_RESETS = ("\x1b[m", "\x1b[0m", "\x1b[0;", "\x1b[;")
_COMPACT_AT = 1 << 20  # characters of plain text held before dropping what cannot show
_MAX_PENDING = 8 << 20  # characters held before drawing anyway (a screen with margins)
_MAX_CARRY = 4096  # an unfinished sequence longer than this is handed over as it is


def plain_tail_start(text: str, rows: int) -> int:
    """Where the drawn tail of the plain run ``text`` starts (0: draw it all): the last
    carriage return that has ``2 × rows`` line feeds after it."""
    end = len(text)
    for _ in range(2 * rows):
        end = text.rfind("\n", 0, end)
        if end < 0:
            return 0
    return max(text.rfind("\r", 0, end), 0)


def _all_plain(data: bytes) -> bool:
    """Whether one read is plain text throughout (no control byte but TAB, LF, CR; no C1
    character; every ESC starts a whole ``CSI … m``)."""
    if len(data.translate(None, _CONTROL_BYTES)) != len(data):
        return False
    if b"\xc2" in data and _C1_UTF8.search(data):
        return False
    escapes = data.count(b"\x1b")
    return not escapes or escapes == len(_SGR_BYTES.findall(data))


def _style_of(skipped: str) -> str:
    """The SGR sequences of ``skipped`` that decide the style after it: from the last full
    reset on (all of them when there is none)."""
    last = skipped.rfind("\x1b[")
    if last < 0:
        return ""
    start = max(skipped.rfind(reset, 0, last + 4) for reset in _RESETS)
    return "".join(_SGR.findall(skipped, max(start, 0)))


class ScreenFeed:
    """Bytes from the program → ``screen``; :meth:`flush` before the screen is read."""

    def __init__(self, screen: pyte.Screen, on_error: Callable[[Exception], None]) -> None:
        self.screen = screen
        self.on_error = on_error
        self._stream = pyte.Stream(screen)
        self._decoder = codecs.getincrementaldecoder("utf-8")("replace")
        self._pending: list[str] = []
        self._pending_size = 0
        self._carry = ""  # the start of a sequence the next read completes

    def write(self, data: bytes) -> None:
        # a UTF-8 character cut by the last read could complete as a C1 control: not here
        if not self._carry and not self._decoder.getstate()[0] and _all_plain(data):
            text = self._decoder.decode(data)
            self._pending.append(text)
            self._pending_size += len(text)
        else:
            self._write_mixed(data)
        if self._pending_size > _COMPACT_AT:
            self._compact()

    def _write_mixed(self, data: bytes) -> None:
        """Plain runs to the pending text, everything else to pyte, in order."""
        text = self._carry + self._decoder.decode(data)
        self._carry = ""
        pos, size = 0, len(text)
        while pos < size:
            end = _PLAIN.match(text, pos).end()  # type: ignore[union-attr]  # matches empty
            if end > pos:
                self._pending.append(text[pos:end])
                self._pending_size += end - pos
                pos = end
                continue
            found = _SEQUENCE.match(text, pos)
            if found is None and size - pos < _MAX_CARRY and _UNFINISHED.match(text, pos):
                self._carry = text[pos:]  # pyte's parser would wait for the rest too
                break
            end = found.end() if found is not None else pos + 1  # not ours: pyte decides
            self.flush()
            self._feed(text[pos:end])
            pos = end

    def flush(self) -> None:
        """Draw the plain text held back (its tail only, when that is the same screen)."""
        tail = self._drop_unseen()
        self._pending.clear()
        self._pending_size = 0
        self._feed(tail)

    def _compact(self) -> None:
        """Keep only the tail of a long plain run (the style of the rest goes to pyte now:
        nothing else is drawn before the tail), so memory and the final draw stay small."""
        tail = self._drop_unseen()
        if len(tail) > _MAX_PENDING:
            self.flush()
        else:
            self._pending[:] = [tail]
            self._pending_size = len(tail)

    def _drop_unseen(self) -> str:
        """The pending text from the start of its tail; the skipped part's style is fed."""
        text = "".join(self._pending)
        start = plain_tail_start(text, self.screen.lines) if self._may_skip() else 0
        if start:
            self._feed(_style_of(text[:start]))
        return text[start:]

    def _may_skip(self) -> bool:
        margins = self.screen.margins
        whole = margins is None or (margins.top == 0 and margins.bottom == self.screen.lines - 1)
        # pyte 0.8's flag for "between sequences"; without it nothing is skipped
        return whole and getattr(self._stream, "_taking_plain_text", False) is True

    def _feed(self, text: str) -> None:
        if not text:
            return
        try:
            self._stream.feed(text)
        except (TypeError, ValueError, KeyError, IndexError) as exc:  # pyte resets its parser
            self.on_error(exc)
