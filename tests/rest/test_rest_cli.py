"""``scenarist rest`` usage errors: a clear message and exit 2 (1 for unreadable scenarios),
before anything is bound or served."""

from __future__ import annotations

from pathlib import Path

import pytest
from restkit import SCENARIOS

from scenarist.llm.process import ServerStartError, start_server
from scenarist.rest.cli import main, parser


@pytest.mark.parametrize(("flags", "message"), [
    (["--speed", "-1"], "--speed must be a number above 0"),
    (["--speed", "0"], "--speed must be a number above 0"),
    (["--scenario-speed", "nan"], "--speed must be a number above 0"),
    (["--max-sessions", "0"], "--max-sessions must be >= 1"),
    (["--port", "70000"], "--port must be 0-65535"),
    (["--heartbeat", "0"], "--heartbeat must be > 0"),
    (["--cors", "localhost:3000"], "name an origin like http://localhost:3000"),
    (["--store", "postgres://db"], "use sqlite:// (memory), sqlite:///FILE or redis://"),
    (["--store", "sqlite://rel.db"], "three slashes"),
    (["--define", "=x"], ""),
    (["--scenario-define", "=x"], ""),
    (["--chaos", "often"], "is not a number"),
    (["--chaos", "0.1:exit"], "not a fault kind played here"),
])
def test_usage_errors_exit_2(flags: list[str], message: str,
                             capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--scenario", str(SCENARIOS), *flags]) == 2
    err = capsys.readouterr().err
    assert "scenarist rest: " in err and message in err


def test_bad_scenario_names_file_line_and_exits_2(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """Input that cannot be used is a usage error (docs/cli.md), as for every command."""
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: bad\ntimeline:\n  - status: 5\n  - nonsense: {}\n")
    assert main(["--scenario", str(bad)]) == 2
    assert f"{bad}:" in capsys.readouterr().err
    assert main(["--scenario", str(tmp_path / "does-not-exist")]) == 2
    assert "no such file or folder" in capsys.readouterr().err
    assert main(["--scenario", str(SCENARIOS), "--tag", "nope"]) == 2
    assert "no scenario is tagged 'nope'" in capsys.readouterr().err


def test_unreachable_redis_is_reported_not_a_traceback() -> None:
    with pytest.raises(ServerStartError) as failed:
        start_server(SCENARIOS, "--store", "redis://127.0.0.1:1/0", command="rest").stop()
    assert "cannot open the store redis://127.0.0.1:1/0" in failed.value.stderr
    assert "Traceback" not in failed.value.stderr


def test_the_specs_flag_names_and_the_common_ones_mean_the_same() -> None:
    spec = parser().parse_args(["--scenario", "s", "--scenario-speed", "0.5",
                                "--scenario-define", "fast", "--scenario-define", "n=2"])
    common = parser().parse_args(["--scenario", "s", "--speed", "0.5", "--define", "fast",
                                  "--define", "n=2"])
    assert vars(spec) == vars(common)
    assert (common.speed, common.define) == (0.5, ["fast", "n=2"])
