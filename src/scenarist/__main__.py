"""``python -m scenarist`` runs the CLI."""

from scenarist.cli import run

run()
