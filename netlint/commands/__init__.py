"""Subcommands of the netlint CLI (one module each)."""
