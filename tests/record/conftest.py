"""The recording tests reuse the real agents' runners of tests/llm (``llm_agents``)."""

from __future__ import annotations

import sys
from pathlib import Path

LLM_TESTS = str(Path(__file__).resolve().parents[1] / "llm")
if LLM_TESTS not in sys.path:
    sys.path.append(LLM_TESTS)
