"""Fake Codex agent: a safe, deterministic stand-in for the ``codex`` binary.

Run it as ``fake-codex`` or ``scenarist codex``; the entry point is
:func:`scenarist.codex.cli.main`. This package module imports nothing so that the
command starts as fast as a bare interpreter allows.
"""
