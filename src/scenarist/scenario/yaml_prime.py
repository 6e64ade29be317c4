"""Prime ``re``'s cache for PyYAML's reader, which compiles a costly pattern when imported.

``yaml.reader.Reader.NON_PRINTABLE`` is a negated character class over all of Unicode, and
CPython's ``re`` compiler walks each of its ~56,000 BMP code points in Python to build it:
~55 M instructions, ~10 ms, a sixth of ``scenarist validate``'s start-up (budget <= 5x
``python -c pass``, docs/architecture.md) and more than the rest of PyYAML's import. The
same set written the other way round (the few ranges that are *not* printable) compiles in
~3 M instructions. :mod:`scenarist.scenario.source` imports this module before PyYAML; it
compiles that pattern and files it in ``re``'s cache under PyYAML's, so ``yaml.reader`` finds
it compiled.

Both match exactly the same characters (``tests/scenario/test_yaml_prime.py`` checks every
code point, and that PyYAML's reader holds this pattern). If PyYAML changes its pattern, or
``re`` its cache, nothing breaks: PyYAML compiles its own, at the old cost.
"""

from __future__ import annotations

import re
import sys

__all__ = ["NON_PRINTABLE", "PYYAML_NON_PRINTABLE", "prime"]

#: PyYAML's pattern, as ``yaml/reader.py`` writes it (6.0)
PYYAML_NON_PRINTABLE = "[^\x09\x0A\x0D\x20-\x7E\x85\xA0-\uD7FF\uE000-\uFFFD\U00010000-\U0010ffff]"
#: the same set: every code point the class above leaves out
NON_PRINTABLE = "[\x00-\x08\x0B\x0C\x0E-\x1F\x7F-\x84\x86-\x9F\uD800-\uDFFF\uFFFE\uFFFF]"


def prime() -> None:
    """File the cheap pattern under PyYAML's in ``re``'s cache (before ``yaml.reader`` loads)."""
    cache = getattr(re, "_cache", None)  # CPython's compiled-pattern cache, keyed like this
    if isinstance(cache, dict) and "yaml.reader" not in sys.modules:
        cache[type(PYYAML_NON_PRINTABLE), PYYAML_NON_PRINTABLE, 0] = re.compile(NON_PRINTABLE)


prime()
