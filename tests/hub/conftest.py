"""Hub tests: modules that set ``LOOPS`` run each test on every event loop named there.

The hub runs on uvloop when installed (``scenarist hub``) and on plain asyncio otherwise (and
inside other programs' loops); their transports differ (uvloop's are not asyncio subclasses and
use socket pairs for subprocess stdio), so process and end-to-end tests run on both.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping

import pytest
import uvloop

FACTORIES: dict[str, Callable[[], asyncio.AbstractEventLoop]] = {
    "asyncio": asyncio.new_event_loop,
    "uvloop": uvloop.new_event_loop,
}


def pytest_asyncio_loop_factories(
        config: pytest.Config, item: pytest.Item) -> Mapping[str, Callable[[], asyncio.AbstractEventLoop]]:
    names = getattr(getattr(item, "module", None), "LOOPS", ("asyncio",))
    return {name: FACTORIES[name] for name in names}
