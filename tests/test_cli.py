"""The top-level ``scenarist`` entry point: help, version, unknown commands, lazy imports."""

from __future__ import annotations

import subprocess
import sys

from scenarist.cli import COMMANDS, main


def test_help_lists_every_command(capsys: object) -> None:
    assert main(["--help"]) == 0
    out = capsys.readouterr().out  # type: ignore[attr-defined]
    for name in COMMANDS:
        assert name in out


def test_no_arguments_is_a_usage_error() -> None:
    assert main([]) == 2


def test_unknown_command_names_the_choices(capsys: object) -> None:
    assert main(["frobnicate"]) == 2
    err = capsys.readouterr().err  # type: ignore[attr-defined]
    assert "unknown command 'frobnicate'" in err
    assert "validate" in err


def test_version() -> None:
    out = subprocess.run([sys.executable, "-m", "scenarist", "--version"], capture_output=True,
                         text=True, check=True).stdout
    assert out.startswith("scenarist ")


def test_entry_point_imports_no_subcommand_module() -> None:
    code = ("import sys, scenarist.cli; "
            "print(sorted(m for m in sys.modules if m.startswith(('scenarist.', 'starlette', 'uvicorn', 'yaml', 'pydantic'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "['scenarist.cli', 'scenarist.errors']"  # the error base: no command
