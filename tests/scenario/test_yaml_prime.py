"""The pattern filed for PyYAML's reader matches exactly what PyYAML's own does, and is used.

:mod:`scenarist.scenario.yaml_prime` hands ``re`` a cheaper spelling of the character class
``yaml.reader`` compiles at import (a start-up saving of ``scenarist validate``).
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import yaml.reader

from scenarist.scenario.yaml_prime import NON_PRINTABLE, PYYAML_NON_PRINTABLE

EVERY_CODE_POINT = "".join(map(chr, range(sys.maxunicode + 1)))


def test_both_spellings_match_the_same_code_points() -> None:
    ours = re.compile(NON_PRINTABLE)
    pyyaml = re.compile(PYYAML_NON_PRINTABLE + "|(?!)")  # another key: compiled as written
    assert pyyaml.pattern != NON_PRINTABLE
    found = [m.start() for m in ours.finditer(EVERY_CODE_POINT)]
    assert found == [m.start() for m in pyyaml.finditer(EVERY_CODE_POINT)]
    assert 0 in found and 0x20 not in found and 0xD800 in found and 0x10FFFF not in found


def test_pyyaml_writes_that_pattern_and_its_reader_holds_ours() -> None:
    source = Path(yaml.reader.__file__ or "").read_text(encoding="utf-8")
    assert "re.compile('[^\\x09\\x0A\\x0D\\x20-\\x7E\\x85\\xA0-\\uD7FF\\uE000-\\uFFFD" \
           "\\U00010000-\\U0010ffff]')" in source  # the literal PYYAML_NON_PRINTABLE spells
    code = ("import scenarist.scenario.source, yaml.reader; "
            "print(yaml.reader.Reader.NON_PRINTABLE.pattern == "
            "scenarist.scenario.yaml_prime.NON_PRINTABLE)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, timeout=60)
    assert out.stdout.strip() == "True"
