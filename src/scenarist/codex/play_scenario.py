"""``--scenario FILE``: play a scenario-format file as Codex events (imported lazily)."""

from __future__ import annotations

from scenarist.codex.errors import UsageError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

    from scenarist.codex.config import Config
    from scenarist.codex.turn import Step, Turn


def load_player(path: str, cfg: Config) -> Callable[[Turn, str], tuple[Iterable[Step], bool]]:
    raise UsageError(f"--scenario {path}: the scenario loader is not available yet")
